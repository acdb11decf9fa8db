// The botarena MatchService over @grpc/grpc-js (plaintext or TLS, lib/target.js), its
// messages loaded at run time from the contract in ../../../proto (no generated or copied
// message definitions), and the server's rich errors (google.rpc.Status + ErrorInfo)
// turned into BotarenaError; a failed TLS agreement into TlsError.

import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';

import {
  channelCredentials,
  parseServerTarget,
  speaksTls,
  tlsFailureCause,
  worthProbing,
} from './target.js';

/** The folder holding botarena/v1/*.proto: the repository's proto/ (override: BOTARENA_PROTO_DIR). */
export const PROTO_DIR =
  process.env.BOTARENA_PROTO_DIR ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../proto');

// How messages look in JavaScript: field names as in the .proto (snake_case), int64 as
// Number (state versions and seeds fit in 2^53), enums as their names, every field
// present (defaults filled in), and each oneof's set case named by a virtual property
// (event.kind === 'decision_requested', move.qwirkle.action === 'place').
const LOADER_OPTIONS = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

let cachedService = null;

/** Load the contract once; returns the MatchService client constructor. */
export function loadMatchService() {
  if (cachedService === null) {
    const file = path.join(PROTO_DIR, 'botarena/v1/match_service.proto');
    if (!existsSync(file)) {
      throw new Error(`cannot find ${file}; set BOTARENA_PROTO_DIR to the repository's proto/`);
    }
    const definition = protoLoader.loadSync('botarena/v1/match_service.proto', LOADER_OPTIONS);
    cachedService = grpc.loadPackageDefinition(definition).botarena.v1.MatchService;
  }
  return cachedService;
}

/** A fresh idempotency key for SubmitMove (32 hex characters; the server allows 64). */
export function newRequestId() {
  return randomUUID().replaceAll('-', '');
}

// ---------------------------------------------------------------------------- errors

/** Status codes worth another try with the same request: the network or the server. */
// CANCELLED too: a server past its queue of pending calls drops new ones as CANCELLED
// (docs/decisions.md); this client never cancels a unary call itself.
const TRANSIENT_CODES = new Set([
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.CANCELLED,
]);

/** A failed call: the gRPC code, and the botarena ErrorInfo reason and metadata if any. */
export class BotarenaError extends Error {
  constructor(code, reason, message, metadata = {}) {
    const codeName = grpc.status[code] ?? String(code);
    super(`${codeName}${reason ? ` ${reason}` : ''}: ${message}`);
    this.name = 'BotarenaError';
    this.code = code; // a number; compare with grpc.status.UNAVAILABLE etc.
    this.codeName = codeName;
    this.reason = reason; // e.g. 'STALE_STATE_VERSION', 'CELL_OCCUPIED'; null for transport errors
    this.details = message;
    this.metadata = metadata;
  }

  /** True when the same call (same request_id) may succeed if sent again. */
  get transient() {
    return TRANSIENT_CODES.has(this.code);
  }

  /** True when the game's rules rejected the move (the decision stays open). */
  get illegalMove() {
    return this.metadata.category === 'ILLEGAL_MOVE';
  }

  /** True when this illegal move used up the allowance and the timeout policy played. */
  get policyApplied() {
    const used = Number(this.metadata.illegal_moves);
    const limit = Number(this.metadata.max_illegal_moves);
    return this.illegalMove && used >= limit;
  }
}

/**
 * UNAVAILABLE because client and server do not agree on TLS: the server's certificate is
 * not signed by a trusted CA or does not name the host, or one side speaks TLS and the
 * other plaintext. The message names the likely cause. Never transient: the connection's
 * settings must change.
 */
export class TlsError extends BotarenaError {
  constructor(code, message) {
    super(code, null, message);
    this.name = 'TlsError';
  }

  get transient() {
    return false;
  }
}

/** Turn a grpc-js call error into a BotarenaError, decoding grpc-status-details-bin. */
export function toBotarenaError(error) {
  if (error instanceof BotarenaError) return error;
  if (typeof error?.code !== 'number') return error; // not a call error: leave it alone
  let reason = null;
  let message = error.details ?? error.message;
  let metadata = {};
  const [bin] = error.metadata?.get('grpc-status-details-bin') ?? [];
  if (bin) {
    try {
      const status = decodeStatus(bin);
      message = status.message || message;
      const info = status.errorInfos.find((candidate) => candidate.domain === 'botarena');
      if (info) ({ reason, metadata } = info);
    } catch {
      // A status we cannot read: keep the code and the message.
    }
  }
  return new BotarenaError(error.code, reason, message, metadata);
}

// google.rpc.Status {int32 code = 1; string message = 2; repeated google.protobuf.Any
// details = 3;} whose ErrorInfo details are {string reason = 1; string domain = 2;
// map<string, string> metadata = 3;}. These three tiny, frozen Google messages are read
// by hand so the client needs no copy of googleapis' .proto files.
const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

function decodeStatus(bytes) {
  const status = { message: '', errorInfos: [] };
  for (const [field, value] of fields(bytes)) {
    if (field === 2) status.message = value.toString('utf8');
    if (field !== 3) continue;
    let typeUrl = '';
    let payload = Buffer.alloc(0);
    for (const [anyField, anyValue] of fields(value)) {
      if (anyField === 1) typeUrl = anyValue.toString('utf8');
      if (anyField === 2) payload = anyValue;
    }
    if (typeUrl === ERROR_INFO_TYPE) status.errorInfos.push(decodeErrorInfo(payload));
  }
  return status;
}

function decodeErrorInfo(bytes) {
  const info = { reason: '', domain: '', metadata: {} };
  for (const [field, value] of fields(bytes)) {
    if (field === 1) info.reason = value.toString('utf8');
    if (field === 2) info.domain = value.toString('utf8');
    if (field === 3) {
      // A map entry is a message {string key = 1; string value = 2;}.
      const entry = Object.fromEntries(fields(value));
      info.metadata[entry[1]?.toString('utf8') ?? ''] = entry[2]?.toString('utf8') ?? '';
    }
  }
  return info;
}

/** Yield [fieldNumber, value] for each field of a protobuf message (varints as numbers). */
function* fields(bytes) {
  let offset = 0;
  const varint = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[offset++];
      if (byte === undefined) throw new Error('truncated varint');
      result += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return result;
      shift += 7;
    }
  };
  while (offset < bytes.length) {
    const key = varint();
    const wireType = key % 8;
    const field = Math.floor(key / 8);
    if (wireType === 0) {
      yield [field, varint()];
    } else if (wireType === 2) {
      const length = varint();
      yield [field, bytes.subarray(offset, offset + length)];
      offset += length;
    } else if (wireType === 1 || wireType === 5) {
      offset += wireType === 1 ? 8 : 4; // fixed64 / fixed32: none in these messages
    } else {
      throw new Error(`unsupported wire type ${wireType}`);
    }
  }
}

// ---------------------------------------------------------------------------- client

/** Redirects one call follows at most (nodes name each other while a lease changes hands). */
const MAX_REDIRECTS = 4;

/**
 * The grpc-js options of every channel (the Python SDK's KEEPALIVE_CHANNEL_OPTIONS): an
 * HTTP/2 ping every 2 s, with calls in flight or not, and the connection closed when no
 * answer comes within 3 s, so that its streams and calls fail UNAVAILABLE and the bot
 * moves on (its target, the match's new node) instead of waiting on a frozen or
 * partitioned node, whose TCP connection its kernel keeps open. botarena servers accept
 * pings this often. Reconnects are tried at least every 2 s (grpc-js waits up to 120 s).
 */
/**
 * Seconds a call waits for its node's connection before failing as UNAVAILABLE (grpc-js
 * has no connect timeout: a frozen node's kernel accepts the TCP connection and the
 * HTTP/2 handshake never ends). The Python SDK's is 5 s too.
 */
export const CONNECT_TIMEOUT_SECONDS = 5;

export const KEEPALIVE_CHANNEL_OPTIONS = Object.freeze({
  'grpc.keepalive_time_ms': 2000,
  'grpc.keepalive_timeout_ms': 3000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.max_reconnect_backoff_ms': 2000,
});

/**
 * A MatchService client acting for one seat (or a spectator without a token).
 * Unary calls return promises; failures reject with BotarenaError.
 *
 * Several nodes on one database: a call for a match another node runs fails with
 * MATCH_ON_OTHER_NODE and metadata.node = that node's HOST:PORT. The client then talks to
 * that node (the same token, the target's TLS settings) and sends the call again; when
 * the node cannot be reached the call fails as transient and the client goes back to its
 * target, which by then runs the match or names its new owner (follow()).
 */
export class MatchClient {
  /**
   * @param {object} options
   * @param {string|object} options.target  the server: 'host:port' (plaintext),
   *   'botarena+tls://host:port[?ca=PATH]' (TLS) or a parseServerTarget() result
   * @param {string} [options.token] the seat token, sent as `authorization: Bearer <token>`
   * @throws {Error} a malformed target, or TLS files that cannot be read
   */
  constructor({ target, token = '' }) {
    this.home = parseServerTarget(target);
    this.stubs = new Map(); // a stub per node, by HOST:PORT
    this.route(this.home);
    this.metadata = new grpc.Metadata();
    if (token) this.metadata.set('authorization', `Bearer ${token}`);
  }

  /** Talk to `server` from now on (its stub is made once). */
  route(server) {
    if (!this.stubs.has(server.address)) {
      const MatchService = loadMatchService();
      this.stubs.set(
        server.address,
        new MatchService(server.address, channelCredentials(server), KEEPALIVE_CHANNEL_OPTIONS),
      );
    }
    this.server = server;
    this.stub = this.stubs.get(server.address);
  }

  /**
   * After `error` from a call made to the node `via` (HOST:PORT): follow a
   * MATCH_ON_OTHER_NODE redirect, or go back to the target from a node that cannot be
   * reached. True when the client talks to another node than `via` now (also when
   * another call of the seat moved it first).
   */
  follow(error, via = this.server.address) {
    const node = error?.reason === 'MATCH_ON_OTHER_NODE' ? error.metadata.node : '';
    if (node && node !== via) {
      if (this.server.address !== node) this.route({ ...this.home, address: node });
      return true;
    }
    if (error?.transient && via !== this.home.address) {
      if (this.server.address === via) this.route(this.home);
      return true;
    }
    return false;
  }

  /**
   * Resolve once the channel of the node the client talks to has connected or failed
   * (a call then fails at once with the real error, a TLS mismatch say); reject with a
   * transient BotarenaError when one connection attempt lasts CONNECT_TIMEOUT_SECONDS
   * (a frozen node: its kernel accepts TCP, the HTTP/2 handshake never ends).
   */
  connected() {
    const { server } = this;
    const channel = this.stub.getChannel();
    const { READY, TRANSIENT_FAILURE, SHUTDOWN, CONNECTING } = grpc.connectivityState;
    return new Promise((resolve, reject) => {
      const check = () => {
        const state = channel.getConnectivityState(true); // an idle channel connects
        if (state === READY || state === TRANSIENT_FAILURE || state === SHUTDOWN) {
          resolve();
          return;
        }
        const deadline = Date.now() + CONNECT_TIMEOUT_SECONDS * 1000;
        channel.watchConnectivityState(state, deadline, (error) => {
          if (!error) check();
          else if (state !== CONNECTING) resolve();
          else {
            const message = `no connection to ${server.address} within ${CONNECT_TIMEOUT_SECONDS} s`;
            reject(new BotarenaError(grpc.status.UNAVAILABLE, null, message));
          }
        });
      };
      check();
    });
  }

  /** Call a unary RPC by its proto name, e.g. call('SubmitMove', {...}), following redirects. */
  async call(method, request, { timeoutSeconds = 30 } = {}) {
    for (let redirects = 0; ; redirects++) {
      const via = this.server.address;
      try {
        await this.connected();
        return await this.callOnce(method, request, timeoutSeconds);
      } catch (error) {
        const redirected = error?.reason === 'MATCH_ON_OTHER_NODE' && redirects < MAX_REDIRECTS;
        if (this.follow(error, via) && redirected) continue;
        throw error; // transient: the caller's retry asks the target again
      }
    }
  }

  callOnce(method, request, timeoutSeconds) {
    const deadline = new Date(Date.now() + timeoutSeconds * 1000);
    return new Promise((resolve, reject) => {
      this.stub[method](request, this.metadata, { deadline }, (error, response) =>
        error ? this.failure(error).then(reject) : resolve(response),
      );
    });
  }

  /** The BotarenaError of a failed call; a failed TLS agreement becomes a TlsError. */
  async failure(error) {
    const failure = toBotarenaError(error);
    if (!(failure instanceof BotarenaError)) return failure;
    const probed =
      worthProbing(failure.code, failure.details, this.server) &&
      (await speaksTls(this.server.address));
    const cause = tlsFailureCause(failure.code, failure.details, this.server, probed);
    return cause === null ? failure : new TlsError(failure.code, cause);
  }

  getPlayerView(match = '') {
    return this.call('GetPlayerView', { match });
  }

  submitMove({ match = '', move, expectedStateVersion, requestId }) {
    return this.call('SubmitMove', {
      match,
      move,
      expected_state_version: expectedStateVersion,
      request_id: requestId,
    });
  }

  resignMatch({ match = '', requestId = newRequestId() } = {}) {
    return this.call('ResignMatch', { match, request_id: requestId });
  }

  /**
   * Open the event stream after `afterStateVersion`. Returns the grpc-js call: an async
   * iterable of StreamMatchEventsResponse ({event}); iteration throws the raw grpc-js
   * error (use toBotarenaError); call.cancel() closes it. Await connected() first: a
   * stream opened on a node that never completes the handshake waits for ever.
   */
  streamMatchEvents({ match = '', afterStateVersion = 0 } = {}) {
    return this.stub.StreamMatchEvents(
      { match, after_state_version: afterStateVersion },
      this.metadata,
    );
  }

  close() {
    for (const stub of this.stubs.values()) stub.close();
  }
}
