// runBot: play one seat of a match to its end, like the Python SDK's run_bot
// (clients/botarena/clients/_bot.py; the protocol is in docs/bots.md).
//
// Two async loops share one SeatPlayer:
//
// * the follower reads the seat's event stream, remembers the last *log* version seen
//   (DecisionRequested is not a log entry) and, when the stream drops or ends before
//   MatchFinished, reopens it with after_state_version = that version, after a bounded,
//   jittered exponential backoff. A DecisionRequested goes into a one-slot mailbox, the
//   newest replacing an older one;
// * the decider takes the newest decision, asks the bot, and submits its answer with the
//   decision's state_version as expected_state_version and a fresh request_id; a submit
//   that fails with UNAVAILABLE or DEADLINE_EXCEEDED is sent again with the SAME
//   request_id (the server answers a repeat with its first answer).
//
// A resumed stream announces a still-open decision again: the decider answers each
// decision version once. Several nodes on one database: the client follows a
// MATCH_ON_OTHER_NODE redirect to the node that runs the match (lib/client.js). An answer that comes back after the stream moved past its
// decision (the deadline passed, the server's timeout policy played) is dropped.

import { performance } from 'node:perf_hooks';

import grpc from '@grpc/grpc-js';

import { BotarenaError, MatchClient, newRequestId, toBotarenaError } from './client.js';
import { Rng } from './rng.js';

/** Stream failures worth a reconnect: the connection dropped or the server went away. */
const RECONNECT_CODES = new Set([
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.CANCELLED,
]);

/** Bounded exponential backoff, as the Python SDK's RetryPolicy. */
export const DEFAULT_RECONNECT = { maxAttempts: 8, initialBackoff: 0.1, maxBackoff: 2, multiplier: 2 };
export const DEFAULT_RESUBMIT = { ...DEFAULT_RECONNECT, maxAttempts: 5 };

/** Seconds to wait after `failures` failed tries in a row ("equal jitter"). */
export function backoffSeconds(policy, failures) {
  const ceiling = Math.min(
    policy.maxBackoff,
    policy.initialBackoff * policy.multiplier ** (failures - 1),
  );
  return ceiling / 2 + (Math.random() * ceiling) / 2; // jitter never uses the bot's rng
}

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** Seconds on a monotonic clock (`performance.now()`), the clock of `DecisionClock`. */
export const monotonicSeconds = () => performance.now() / 1000;

const durationSeconds = (duration) => Number(duration?.seconds ?? 0) + (duration?.nanos ?? 0) / 1e9;

/**
 * The clock of the decision a bot is answering: the fourth argument of `chooseMove`, as
 * the Python SDK's `current_decision()`. Times are `monotonicSeconds()`, counted from when
 * the decision reached this process; the server started its clock a little earlier (the
 * event's trip), so keep a margin.
 */
export class DecisionClock {
  constructor({ seat, stateVersion, receivedAt, moveTimeLimit, timeBank }) {
    this.seat = seat; // the deciding seat
    this.stateVersion = stateVersion; // the version the decision was requested at
    this.receivedAt = receivedAt; // monotonicSeconds() when the decision arrived
    this.moveTimeLimit = moveTimeLimit; // seconds before the time bank is used
    this.timeBank = timeBank; // seconds left in the bank when the decision was requested
    Object.freeze(this);
  }

  /** Build the clock of a DecisionRequested event received at `receivedAt`. */
  static of(event, receivedAt) {
    const { decision } = event.decision_requested;
    return new DecisionClock({
      seat: decision.seat,
      stateVersion: event.state_version,
      receivedAt,
      moveTimeLimit: durationSeconds(decision.move_time_limit),
      timeBank: durationSeconds(decision.time_bank_remaining),
    });
  }

  /** `monotonicSeconds()` at which the clock runs out. */
  get deadline() {
    return this.receivedAt + this.moveTimeLimit + this.timeBank;
  }

  /** Seconds until `deadline` (0 once it has passed). */
  timeLeft() {
    return Math.max(0, this.deadline - monotonicSeconds());
  }
}

/** The default logger: one line per message on stderr (the runner keeps it per game). */
export function stderrLogger(prefix = 'botarena') {
  const line = (level) => (message) =>
    process.stderr.write(`${new Date().toISOString()} ${level} ${prefix}: ${message}\n`);
  return { info: line('INFO'), warn: line('WARN') };
}

/**
 * Play the seat of `token` until the match ends, and return the MatchOutcome.
 *
 * @param {object} bot  `chooseMove(view, legalMoves, rng, clock)` returns a Move (or a
 *   promise of one), usually an element of legalMoves; `clock` is the decision's
 *   DecisionClock (time left, deadline). Optional hooks:
 *   `onMatchStart(match, seat)` and `onMatchEnd(outcome)`.
 * @param {object} options
 * @param {string|object} options.server  'host:port' (plaintext) or
 *   'botarena+tls://host:port[?ca=PATH]' (TLS), or a parseServerTarget() result
 * @param {string} options.token   the seat token (it names its match)
 * @param {string} [options.match] 'matches/{id}'; empty lets the token name it
 * @param {number|string} [options.seed] seeds the Rng handed to the bot
 * @param {object} [options.reconnect] / [options.resubmit] backoff policies
 * @param {object} [options.log] {info, warn}; default: stderr
 * @returns {Promise<object>} the MatchOutcome ({results: [{seat, score, rank, forfeited}], reason})
 * @throws {BotarenaError} the seat cannot be played (token, match), TLS cannot be agreed
 *   on (TlsError, at once) or the server stayed unreachable; or whatever the bot threw
 */
export async function runBot(bot, options) {
  const client = new MatchClient({ target: options.server, token: options.token });
  try {
    return await new SeatPlayer(bot, client, options).play();
  } finally {
    client.close();
  }
}

/** Resolves waiters once per set(); a set() while nobody waits is kept for the next wait(). */
class Signal {
  constructor() {
    this.reset();
  }

  reset() {
    this.promise = new Promise((resolve) => {
      this.resolve = resolve;
    });
  }

  set() {
    this.resolve();
  }

  async wait() {
    await this.promise;
    this.reset();
  }
}

class SeatPlayer {
  constructor(bot, client, options) {
    this.bot = bot;
    this.client = client;
    this.match = options.match ?? '';
    this.rng = new Rng(options.seed);
    this.reconnect = { ...DEFAULT_RECONNECT, ...options.reconnect };
    this.resubmit = { ...DEFAULT_RESUBMIT, ...options.resubmit };
    this.log = options.log ?? stderrLogger();
    this.seat = -1;
    this.lastVersion = 0; // the last log entry seen: where a resumed stream starts
    // The last entry that closed one of this seat's decisions (its own move, by itself or
    // by the timeout policy, or its forfeit). Other seats' entries do not: in a
    // simultaneous decision (Qwixx's action 1) they arrive while this seat's is open.
    this.ownVersion = 0;
    this.finished = false;
    this.stopped = false; // set when play() is over: both loops then return
    this.stream = null; // the open stream call, so that play() can cancel it
    this.mailbox = null; // the newest DecisionRequested event not yet taken
    this.mailboxTime = 0; // monotonicSeconds() when it arrived
    this.mail = new Signal();
    this.takenVersion = -1; // the newest decision version taken on: never answered twice
  }

  async play() {
    // One call up front checks the token and the match before any stream is opened and
    // tells the seat index. A bot may start before its server listens (a runner starts
    // both at once), so this call is retried on transient failures too.
    const response = await this.retrying(() => this.client.getPlayerView(this.match));
    this.seat = response.view.seat;
    const follower = this.follow();
    const decider = this.decideForever();
    // Either the follower returns the outcome, or a loop fails (the bot threw, the seat
    // cannot be played): that failure ends the game for this bot.
    follower.catch(() => {});
    decider.catch(() => {});
    let outcome;
    try {
      outcome = await Promise.race([follower, decider.then(() => new Promise(() => {}))]);
    } finally {
      this.stopped = true;
      this.stream?.cancel();
      this.mail.set();
    }
    await this.bot.onMatchEnd?.(outcome);
    return outcome;
  }

  async retrying(call) {
    for (let failures = 1; ; failures++) {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof BotarenaError && error.transient)) throw error;
        if (failures >= this.reconnect.maxAttempts) throw error;
        await sleep(backoffSeconds(this.reconnect, failures));
      }
    }
  }

  // -------------------------------------------------------------------- follower

  async follow() {
    let failures = 0;
    let redirects = 0; // in a row, without an event: nodes may name each other briefly
    for (;;) {
      let error = null;
      let call = null;
      const via = this.client.server.address;
      try {
        await this.client.connected();
        if (this.stopped) return null;
        call = this.client.streamMatchEvents({
          match: this.match,
          afterStateVersion: this.lastVersion,
        });
        this.stream = call;
        call.on('error', () => {}); // errors reach the loop below; never an uncaught 'error'
        for await (const { event } of call) {
          failures = 0;
          redirects = 0;
          const outcome = await this.onEvent(event);
          if (outcome !== null) return outcome;
        }
      } catch (raw) {
        if (this.stopped) return null;
        const failure = toBotarenaError(raw);
        // Another node runs the match (or the node it ran on is gone): the client now
        // talks to the node named (or to its target), where the stream resumes.
        const moved = this.client.follow(failure, via);
        if (moved && failure.reason === 'MATCH_ON_OTHER_NODE' && redirects++ < 4) continue;
        if (!(failure instanceof BotarenaError) || !RECONNECT_CODES.has(failure.code)) {
          throw failure;
        }
        error = failure;
      } finally {
        call?.cancel(); // a no-op when the stream has ended
      }
      if (this.stopped) return null;
      failures += 1;
      if (failures >= this.reconnect.maxAttempts) {
        throw (
          error ??
          new BotarenaError(
            grpc.status.UNAVAILABLE,
            null,
            `the event stream ended ${failures} times before the match finished`,
          )
        );
      }
      const delay = backoffSeconds(this.reconnect, failures);
      this.log.info(
        `event stream of seat ${this.seat} lost (${error?.message ?? 'ended early'}); ` +
          `resuming after version ${this.lastVersion} in ${delay.toFixed(2)} s`,
      );
      await sleep(delay);
    }
  }

  /** Handle one event; returns the outcome on MatchFinished, else null. */
  async onEvent(event) {
    if (event.kind === 'decision_requested') {
      // Not a log entry: it repeats the current version and never moves the resume
      // point. Skip decisions already taken on (a resumed stream announces them again).
      if (event.state_version > this.takenVersion) {
        this.mailbox = event;
        this.mailboxTime = monotonicSeconds();
        this.mail.set();
      }
      return null;
    }
    this.lastVersion = Math.max(this.lastVersion, event.state_version);
    if (
      (event.kind === 'move_applied' && event.move_applied.seat === this.seat) ||
      (event.kind === 'seat_forfeited' && event.seat_forfeited.seat === this.seat)
    ) {
      this.ownVersion = Math.max(this.ownVersion, event.state_version);
    }
    if (event.kind === 'match_started') {
      await this.bot.onMatchStart?.(event.match_started.match, this.seat);
    } else if (event.kind === 'match_finished') {
      this.finished = true;
      this.mail.set();
      return event.match_finished.outcome;
    }
    return null;
  }

  // -------------------------------------------------------------------- decider

  /** True once the stream has closed the decision of `version` (or the match ended). */
  superseded(version) {
    return this.finished || this.ownVersion > version;
  }

  async decideForever() {
    while (!this.stopped) {
      await this.mail.wait();
      const [event, receivedAt] = [this.mailbox, this.mailboxTime];
      this.mailbox = null;
      if (this.stopped || event === null || this.superseded(event.state_version)) continue;
      this.takenVersion = event.state_version;
      await this.decide(event, receivedAt);
    }
  }

  async decide(event, receivedAt) {
    const version = event.state_version;
    const { view, legal_moves: legalMoves } = event.decision_requested;
    const clock = DecisionClock.of(event, receivedAt);
    for (;;) {
      const move = await this.bot.chooseMove(view, legalMoves, this.rng, clock);
      // A synchronous bot blocks the event loop while it thinks; let the stream deliver
      // what arrived meanwhile before judging whether the decision is still open.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.stopped) return;
      if (this.superseded(version)) {
        this.log.warn(
          `seat ${this.seat} answered the decision at version ${version} after the match ` +
            'moved on (deadline missed?); the answer is dropped',
        );
        return;
      }
      try {
        await this.submit(move, version);
        return;
      } catch (error) {
        if (!(error instanceof BotarenaError)) throw error;
        if (error.illegalMove) {
          // Ask again (a randomised bot may choose differently) until the server's
          // allowance is used up and its timeout policy plays for the seat.
          this.log.warn(`seat ${this.seat}: move rejected: ${error.message}`);
          if (error.policyApplied) return;
          continue;
        }
        if (
          error.code === grpc.status.ABORTED ||
          error.code === grpc.status.FAILED_PRECONDITION
        ) {
          // STALE_STATE_VERSION, NOT_YOUR_TURN, MATCH_FINISHED, SEAT_FORFEITED: the
          // match moved on; the stream tells what comes next.
          this.log.info(`seat ${this.seat}: move at version ${version} refused: ${error.message}`);
          return;
        }
        throw error;
      }
    }
  }

  async submit(move, version) {
    const requestId = newRequestId(); // one per answer: resends reuse it
    for (let failures = 1; ; failures++) {
      try {
        await this.client.submitMove({
          match: this.match,
          move,
          expectedStateVersion: version,
          requestId,
        });
        return;
      } catch (error) {
        if (!(error instanceof BotarenaError && error.transient)) throw error;
        if (failures >= this.resubmit.maxAttempts || this.superseded(version)) {
          // The stream decides what happens next: the move was applied, or the deadline
          // passes and the timeout policy plays for the seat.
          this.log.warn(`seat ${this.seat}: could not submit the move at version ${version} (${error.message}); the stream will ask again if the decision is still open`);
          // A resumed stream announces the decision again if it is still open.
          this.takenVersion = Math.min(this.takenVersion, version - 1);
          return;
        }
        await sleep(backoffSeconds(this.resubmit, failures));
      }
    }
  }
}
