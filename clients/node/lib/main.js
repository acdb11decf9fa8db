// botMain: the bot executable convention (docs/bots.md) for JavaScript bots.
//
// A bot is a command. It learns where to play from --server SERVER and --token TOKEN,
// or from BOTARENA_SERVER and BOTARENA_TOKEN (arguments win); --seed / BOTARENA_SEED
// seeds its randomness. SERVER is HOST:PORT (plaintext) or
// botarena+tls://HOST:PORT[?ca=PATH] (TLS); --tls, --tls-ca, --tls-cert and --tls-key turn
// a HOST:PORT into TLS (lib/target.js). It plays its seat and exits 0 once the match is over, whatever
// the result; 1 when the seat cannot be played or the bot crashed, 2 for bad arguments,
// 130 on Ctrl-C. stdout is unused; the log goes to stderr.

import { parseArgs } from 'node:util';

import { runBot, stderrLogger } from './bot.js';
import { BotarenaError } from './client.js';
import { channelCredentials, formatServerTarget, parseServerTarget, withTls } from './target.js';

export const EXIT_MATCH_OVER = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;

const USAGE = `usage: node BOT.js [--server SERVER] [--token TOKEN] [--seed N] [--match matches/ID]
                   [--tls] [--tls-ca PEM] [--tls-cert PEM --tls-key PEM]
SERVER is HOST:PORT (plaintext) or botarena+tls://HOST:PORT[?ca=PATH] (TLS); a TLS flag
turns HOST:PORT into TLS. Each option defaults to its environment variable
($BOTARENA_SERVER, $BOTARENA_TOKEN, $BOTARENA_SEED, $BOTARENA_MATCH); the seat token
names its match.`;

/**
 * Parse the convention's arguments; returns {server, token, seed, match} (`server` in its
 * one-string form) or throws a usage message.
 */
export function parseBotArguments(argv = process.argv.slice(2), env = process.env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      server: { type: 'string', default: env.BOTARENA_SERVER },
      token: { type: 'string', default: env.BOTARENA_TOKEN },
      seed: { type: 'string', default: env.BOTARENA_SEED },
      match: { type: 'string', default: env.BOTARENA_MATCH ?? '' },
      tls: { type: 'boolean', default: false },
      'tls-ca': { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { help: true };
  if (!values.server) throw new Error('--server (or BOTARENA_SERVER) is required');
  if (!values.token) throw new Error('--token (or BOTARENA_TOKEN) is required');
  if (values.seed !== undefined && values.seed !== '' && !/^-?\d+$/.test(values.seed)) {
    throw new Error(`--seed must be an integer, got ${JSON.stringify(values.seed)}`);
  }
  let server = parseServerTarget(values.server);
  if (values.tls || values['tls-ca'] || values['tls-cert'] || values['tls-key']) {
    server = withTls(server, {
      caFile: values['tls-ca'],
      certFile: values['tls-cert'],
      keyFile: values['tls-key'],
    });
  }
  channelCredentials(server); // the TLS files are read now: a bad one is a usage error
  return { server: formatServerTarget(server), token: values.token, seed: values.seed || null, match: values.match };
}

/**
 * Run `bot` as a command and exit the process with the convention's status.
 * @param {object} bot  see runBot
 * @param {string} [name] the bot's name in log lines
 */
export async function botMain(bot, name = 'bot') {
  let options;
  try {
    options = parseBotArguments();
  } catch (error) {
    process.stderr.write(`${name}: ${error.message}\n${USAGE}\n`);
    process.exit(EXIT_USAGE);
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(EXIT_MATCH_OVER);
  }
  process.on('SIGINT', () => process.exit(EXIT_INTERRUPTED));
  const log = stderrLogger(name);
  let status = EXIT_MATCH_OVER;
  try {
    const outcome = await runBot(bot, { ...options, log });
    const results = outcome.results.map((r) => `seat ${r.seat}: ${r.score} (rank ${r.rank})`);
    log.info(`match over (${outcome.reason}): ${results.join(', ')}`);
  } catch (error) {
    if (error instanceof BotarenaError) {
      log.warn(`cannot play the seat: ${error.message}`);
    } else {
      process.stderr.write(`${error?.stack ?? error}\n`);
    }
    status = EXIT_FAILED;
  }
  // Exit now rather than waiting for gRPC's channel to wind down: the runner counts a
  // bot that lingers after the match as a crash.
  process.exit(status);
}
