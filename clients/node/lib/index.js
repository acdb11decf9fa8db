// botarena's JavaScript client: the MatchService client, the bot loop and the command
// convention. See README.md.

export {
  BotarenaError,
  CONNECT_TIMEOUT_SECONDS,
  KEEPALIVE_CHANNEL_OPTIONS,
  MatchClient,
  PROTO_DIR,
  TlsError,
  loadMatchService,
  newRequestId,
  toBotarenaError,
} from './client.js';
export {
  DEFAULT_RECONNECT,
  DEFAULT_RESUBMIT,
  DecisionClock,
  backoffSeconds,
  monotonicSeconds,
  runBot,
  stderrLogger,
} from './bot.js';
export { botMain, parseBotArguments } from './main.js';
export { Rng } from './rng.js';
export {
  TLS_SCHEME,
  channelCredentials,
  formatServerTarget,
  parseServerTarget,
  speaksTls,
  tlsFailureCause,
  withTls,
} from './target.js';
