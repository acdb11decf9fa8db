#!/usr/bin/env node
// The greedy Qwirkle bot: the highest-scoring placement (the server fills in each legal
// placement's score), the first one on a tie; with no placement, the first legal move
// (an exchange, or a pass).
//
//   node clients/node/bots/greedy.js --server HOST:PORT --token TOKEN

import { botMain } from '../lib/index.js';

export const greedyBot = {
  chooseMove(view, legalMoves) {
    let best = null;
    for (const move of legalMoves) {
      const place = move.qwirkle?.place;
      if (place && (best === null || place.score > best.qwirkle.place.score)) best = move;
    }
    return best ?? legalMoves[0];
  },
};

await botMain(greedyBot, 'node-greedy');
