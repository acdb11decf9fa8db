#!/usr/bin/env node
// The random bot: a uniformly random legal move, from the seeded Rng. It knows no rules
// and only picks among the legal moves the server sends, so it plays every game.
//
//   node clients/node/bots/random.js --server HOST:PORT --token TOKEN [--seed N]

import { botMain } from '../lib/index.js';

export const randomBot = {
  chooseMove(view, legalMoves, rng) {
    return rng.choice(legalMoves);
  },
};

await botMain(randomBot, 'node-random');
