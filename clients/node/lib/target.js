// The one string that names a server, as the Python SDK's ServerTarget reads it
// (clients/botarena/clients/_target.py; docs/bots.md):
//
//   HOST:PORT                                        plaintext gRPC
//   botarena+tls://HOST:PORT                         TLS, the machine's trusted CAs
//   botarena+tls://HOST:PORT?ca=PATH                 TLS, the CA certificate(s) in PATH
//   ...&cert=PATH&key=PATH                           plus a client certificate
//
// and the one-line TlsError that names why a TLS connection failed.

import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import tls from 'node:tls';

import grpc from '@grpc/grpc-js';

export const TLS_SCHEME = 'botarena+tls';

const FILE_OPTIONS = { ca: 'caFile', cert: 'certFile', key: 'keyFile' };
// gRPC's own target schemes (name resolvers): such a target is plaintext and passed on.
const GRPC_SCHEMES = new Set(['dns', 'unix', 'unix-abstract', 'ipv4', 'ipv6', 'vsock']);
const PROBE_TIMEOUT_MS = 2000;

/**
 * Parse a server string into {address, tls, caFile, certFile, keyFile}; a parsed target
 * is returned as is.
 * @throws {Error} an unknown scheme or option, or a client certificate without its key
 */
export function parseServerTarget(text) {
  if (typeof text !== 'string') return text;
  const scheme = text.includes('://') ? text.slice(0, text.indexOf('://')) : null;
  if (scheme !== TLS_SCHEME) {
    if (scheme !== null && !GRPC_SCHEMES.has(scheme)) {
      throw new Error(
        `unknown server form ${JSON.stringify(text)}: use HOST:PORT (plaintext) or ` +
          `${TLS_SCHEME}://HOST:PORT[?ca=PATH] (TLS)`,
      );
    }
    return checked({ address: text.trim(), tls: false, caFile: null, certFile: null, keyFile: null });
  }
  const url = new URL(text);
  if ((url.pathname !== '' && url.pathname !== '/') || url.hash) {
    throw new Error(`${JSON.stringify(text)}: a server target has no path; options go after '?'`);
  }
  const target = { address: url.host, tls: true, caFile: null, certFile: null, keyFile: null };
  for (const name of new Set(url.searchParams.keys())) {
    if (!(name in FILE_OPTIONS)) {
      throw new Error(`${JSON.stringify(text)}: unknown option '${name}' (known: ca, cert, key)`);
    }
    const values = url.searchParams.getAll(name);
    if (values.length !== 1 || !values[0]) throw new Error(`${JSON.stringify(text)}: give ${name}=PATH once`);
    target[FILE_OPTIONS[name]] = values[0];
  }
  return checked(target);
}

function checked(target) {
  if (!target.address) throw new Error('the server address is empty');
  if ((target.certFile === null) !== (target.keyFile === null)) {
    throw new Error('a client certificate needs both cert and key');
  }
  return Object.freeze(target);
}

/** The target over TLS; each file given replaces the target's. */
export function withTls(target, { caFile = null, certFile = null, keyFile = null } = {}) {
  return checked({
    ...target,
    tls: true,
    caFile: caFile ?? target.caFile,
    certFile: certFile ?? target.certFile,
    keyFile: keyFile ?? target.keyFile,
  });
}

/** The one-string form of a target, which parseServerTarget reads back. */
export function formatServerTarget(target) {
  if (!target.tls) return target.address;
  const query = Object.entries(FILE_OPTIONS)
    .filter(([, field]) => target[field] !== null)
    .map(([name, field]) => `${name}=${encodeURIComponent(target[field]).replaceAll('%2F', '/')}`);
  return `${TLS_SCHEME}://${target.address}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

function readPem(path, what, label) {
  let data;
  try {
    data = readFileSync(path);
  } catch (error) {
    throw new Error(`cannot read ${what} ${path}: ${error.code ?? error.message}`);
  }
  if (!data.includes(`${label}-----`)) throw new Error(`${what} ${path} holds no PEM ${label}`);
  return data;
}

/**
 * The grpc-js channel credentials of a target: insecure, or TLS from its files.
 * @throws {Error} a file cannot be read or is not PEM
 */
export function channelCredentials(target) {
  if (!target.tls) return grpc.credentials.createInsecure();
  const read = (path, what, label) => (path === null ? null : readPem(path, what, label));
  return grpc.credentials.createSsl(
    read(target.caFile, 'the CA file', 'CERTIFICATE'),
    read(target.keyFile, 'the client key file', 'PRIVATE KEY'),
    read(target.certFile, 'the client certificate file', 'CERTIFICATE'),
  );
}

/** Resolves to whether the server at `address` (HOST:PORT) answers a TLS handshake. */
export function speaksTls(address) {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address);
  if (match === null) return Promise.resolve(false);
  const [, host, port] = match;
  return new Promise((resolve) => {
    const socket = tls.connect({
      host,
      port: Number(port),
      rejectUnauthorized: false, // only TLS or not is asked; the certificate is not checked
      ALPNProtocols: ['h2'],
      ...(isIP(host) ? {} : { servername: host }), // Node warns about an IP as a name
    });
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
  });
}

// What grpc-js (Node's OpenSSL) says when a TLS connection fails, by cause.
const UNTRUSTED = /unable to verify|self[- ]signed certificate|local issuer certificate/i;
const WRONG_NAME = /does not match certificate's altnames|ERR_TLS_CERT_ALTNAME/i;
const NOT_TLS = /wrong version number/i;
// How grpc-js reports a connection that a TLS server closed on a plaintext client.
const FAILED_TO_CONNECT = /Failed to connect|Socket closed|ECONNRESET/i;

/** Whether a plaintext call's failure may be a TLS server closing it (ask speaksTls). */
export function worthProbing(code, message, target) {
  return !target.tls && code === grpc.status.UNAVAILABLE && FAILED_TO_CONNECT.test(message);
}

/**
 * The sentence naming why a TLS agreement with `target` failed, or null when the failure
 * is something else. `serverSpeaksTls`: speaksTls() of a plaintext target.
 */
export function tlsFailureCause(code, message, target, serverSpeaksTls = false) {
  if (code !== grpc.status.UNAVAILABLE) return null;
  const { address } = target;
  if (!target.tls) {
    return serverSpeaksTls
      ? `cannot connect to ${address} in plaintext: the server speaks TLS (connect to ` +
          `${TLS_SCHEME}://${address}, with ?ca=PATH if its CA is not one this machine trusts)`
      : null;
  }
  if (UNTRUSTED.test(message)) {
    const trusted = target.caFile ? `the CA in ${target.caFile}` : 'a CA this machine trusts';
    return (
      `cannot connect to ${address} over TLS: the server's certificate is not signed by ` +
      `${trusted} (a wrong CA? give the one that signed it: --tls-ca PEM or ?ca=PATH)`
    );
  }
  if (WRONG_NAME.test(message)) {
    return (
      `cannot connect to ${address} over TLS: the server's certificate does not name ` +
      'this host (connect by a name or address the certificate lists)'
    );
  }
  if (NOT_TLS.test(message)) {
    return (
      `cannot connect to ${address} over TLS: the server speaks plaintext gRPC (connect ` +
      'to HOST:PORT without TLS, or start the server with --tls-cert and --tls-key)'
    );
  }
  return null;
}
