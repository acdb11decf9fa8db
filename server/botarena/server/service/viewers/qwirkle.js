/* The Qwirkle renderer of the botarena viewer (docs/replays.md, "Browser renderers").
 *
 * Draws a QwirkleView (proto/botarena/v1/qwirkle.proto): the board with tiles as
 * coloured shapes, the last move outlined, every line of six (a Qwirkle) marked, each
 * seat's rack (face down without seat views), the bag and the scores.
 */
"use strict";

(() => {
  const { el, svg, int, list, bySeat, enumLabel, seatColour, plural, addStyle } = botarena;

  const COLOURS = {
    red: "#ef4444", orange: "#fb923c", yellow: "#facc15",
    green: "#22c55e", blue: "#3b82f6", purple: "#a855f7",
  };
  const CELL = 40;
  const LINE = 6; // RULES.md: a line of all six colours or shapes is a Qwirkle.

  const CSS = `
    .qw { display: flex; flex-direction: column; height: 100%; gap: 8px; }
    .qw-info { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; color: var(--muted); }
    .qw-info b { color: var(--text); }
    .qw-board-wrap { flex: 1; min-height: 180px; background: radial-gradient(circle at 50% 40%, #20433c, #15302b);
      border-radius: var(--radius); border: 1px solid var(--line); display: flex; }
    .qw-board { width: 100%; height: 100%; display: block; }
    .qw-racks { display: grid; gap: 6px; }
    .qw-racks.qw-two-columns { grid-template-columns: 1fr 1fr; }
    .qw-rack { display: grid; grid-template-columns: 14px minmax(50px, 180px) 44px auto; gap: 8px; align-items: center;
      background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: 4px 10px; }
    .qw-rack.qw-current { box-shadow: inset 3px 0 0 var(--accent); border-color: var(--accent); }
    .qw-rack-name { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .qw-rack-score { font-size: 18px; font-weight: 700; text-align: right; font-variant-numeric: tabular-nums; }
    .qw-rack-tiles { display: flex; gap: 4px; align-items: center; min-height: 36px; }
    .qw-rack-tiles svg { width: 34px; height: 34px; }
    .qw-empty { color: var(--muted); font-style: italic; }
    .qw-mini { display: inline-flex; gap: 2px; vertical-align: -3px; margin-left: 4px; }
    .qw-mini svg { width: 16px; height: 16px; }
  `;

  function colourOf(tile) {
    return COLOURS[enumLabel(tile.colour, "QWIRKLE_COLOUR_")] || "#9ca3af";
  }

  function starPoints(tips, outer, inner, turn = -Math.PI / 2) {
    const points = [];
    for (let i = 0; i < tips * 2; i += 1) {
      const radius = i % 2 === 0 ? outer : inner;
      const angle = turn + (i * Math.PI) / tips;
      points.push(`${(radius * Math.cos(angle)).toFixed(2)},${(radius * Math.sin(angle)).toFixed(2)}`);
    }
    return points.join(" ");
  }

  /** The tile's shape, centred on (0, 0), fitting a circle of radius r. */
  function shapeNode(tile, r) {
    const fill = colourOf(tile);
    const shape = enumLabel(tile.shape, "QWIRKLE_SHAPE_");
    switch (shape) {
      case "circle":
        return svg("circle", { r: r * 0.78, fill });
      case "square":
        return svg("rect", { x: -r * 0.7, y: -r * 0.7, width: r * 1.4, height: r * 1.4, fill });
      case "diamond":
        return svg("polygon", { points: `0,${-r} ${r * 0.8},0 0,${r} ${-r * 0.8},0`, fill });
      case "clover": {
        const lobe = r * 0.42;
        const off = r * 0.5;
        return svg("g", { fill },
          svg("circle", { cx: 0, cy: -off, r: lobe }), svg("circle", { cx: 0, cy: off, r: lobe }),
          svg("circle", { cx: -off, cy: 0, r: lobe }), svg("circle", { cx: off, cy: 0, r: lobe }),
          svg("circle", { r: lobe * 0.9 }));
      }
      case "four point star":
        return svg("polygon", { points: starPoints(4, r, r * 0.36), fill });
      case "eight point star":
        return svg("polygon", { points: starPoints(8, r, r * 0.52), fill });
      default:
        return svg("circle", { r: r * 0.4, fill });
    }
  }

  function tileLabel(tile) {
    return `${enumLabel(tile.colour, "QWIRKLE_COLOUR_")} ${enumLabel(tile.shape, "QWIRKLE_SHAPE_")}`;
  }

  /** A tile: a black rounded square with its coloured shape, top-left at (x, y). */
  function tileNode(tile, x, y, size, attrs = {}) {
    const half = size / 2;
    return svg("g", { transform: `translate(${x + half},${y + half})`, ...attrs },
      svg("title", {}, tileLabel(tile)),
      svg("rect", { x: -half + 1.5, y: -half + 1.5, width: size - 3, height: size - 3, rx: size * 0.14, fill: "#111318", stroke: "#000", "stroke-width": 1 }),
      shapeNode(tile, size * 0.34));
  }

  function tileIcon(tile, size = 34, attrs = {}) {
    return svg("svg", { viewBox: `0 0 ${size} ${size}`, ...attrs }, tileNode(tile, 0, 0, size));
  }

  function backIcon(size = 34) {
    return svg("svg", { viewBox: `0 0 ${size} ${size}`, "data-rack-back": "" },
      svg("title", {}, "a hidden tile"),
      svg("rect", { x: 1.5, y: 1.5, width: size - 3, height: size - 3, rx: size * 0.14, fill: "#2b313c", stroke: "#4b5563" }),
      svg("text", { x: size / 2, y: size / 2 + 4, "text-anchor": "middle", fill: "#6b7280", "font-size": 11, "font-weight": 700 }, "Q"));
  }

  // ---- board geometry

  const key = (x, y) => `${x},${y}`;

  function boardMap(view) {
    const cells = new Map();
    for (const placement of list(view.board)) {
      const x = int(placement.x);
      const y = int(placement.y);
      cells.set(key(x, y), { x, y, tile: placement.tile || {} });
    }
    return cells;
  }

  function placementsOf(move) {
    const place = move && move.place;
    return place ? list(place.placements).map((p) => ({ x: int(p.x), y: int(p.y), tile: p.tile || {} })) : [];
  }

  function moveOf(frame) {
    const applied = frame.event && frame.event.moveApplied;
    return applied && applied.move ? applied.move.qwirkle || null : null;
  }

  /** The maximal run of tiles through (x, y) along (dx, dy), as cells. */
  function runThrough(cells, x, y, dx, dy) {
    let startX = x;
    let startY = y;
    while (cells.has(key(startX - dx, startY - dy))) { startX -= dx; startY -= dy; }
    const run = [];
    for (let cx = startX, cy = startY; cells.has(key(cx, cy)); cx += dx, cy += dy) run.push({ x: cx, y: cy });
    return run;
  }

  /** Every line of six on the board, each once: [{cells, horizontal}]. */
  function qwirkles(cells) {
    const found = new Map();
    for (const cell of cells.values()) {
      for (const [dx, dy] of [[1, 0], [0, 1]]) {
        const run = runThrough(cells, cell.x, cell.y, dx, dy);
        if (run.length === LINE) found.set(`${dx}:${key(run[0].x, run[0].y)}`, { cells: run, horizontal: dx === 1 });
      }
    }
    return [...found.values()];
  }

  /** The Qwirkles a placement made: lines of six through one of its cells. */
  function madeQwirkles(cells, placements) {
    const placed = new Set(placements.map((p) => key(p.x, p.y)));
    return qwirkles(cells).filter((line) => line.cells.some((c) => placed.has(key(c.x, c.y))));
  }

  function extent(views) {
    const box = { minX: 0, maxX: 0, minY: 0, maxY: 0 };
    for (const view of views) {
      for (const p of list(view && view.board)) {
        const x = int(p.x);
        const y = int(p.y);
        box.minX = Math.min(box.minX, x); box.maxX = Math.max(box.maxX, x);
        box.minY = Math.min(box.minY, y); box.maxY = Math.max(box.maxY, y);
      }
    }
    // One free cell around the tiles, and at least a 9 x 7 board early in the game.
    const grow = (lo, hi, least) => {
      const missing = Math.max(0, least - (hi - lo + 3));
      return [lo - 1 - Math.floor(missing / 2), hi + 1 + Math.ceil(missing / 2)];
    };
    const [minX, maxX] = grow(box.minX, box.maxX, 9);
    const [minY, maxY] = grow(box.minY, box.maxY, 7);
    return { minX, maxX, minY, maxY };
  }

  function drawBoard(frame) {
    const view = frame.view;
    const cells = boardMap(view);
    const box = extent([view, frame.final]);
    const columns = box.maxX - box.minX + 1;
    const rows = box.maxY - box.minY + 1;
    const px = (x) => (x - box.minX) * CELL;
    const py = (y) => (y - box.minY) * CELL;
    const board = svg("svg", {
      class: "qw-board", viewBox: `-6 -6 ${columns * CELL + 12} ${rows * CELL + 12}`,
      preserveAspectRatio: "xMidYMid meet", role: "img", "aria-label": `Qwirkle board, ${plural(cells.size, "tile")}`,
      "data-tiles": cells.size,
    });
    const grid = svg("g", { opacity: 0.5 });
    for (let y = box.minY; y <= box.maxY; y += 1) {
      for (let x = box.minX; x <= box.maxX; x += 1) {
        grid.append(svg("rect", { x: px(x) + 2, y: py(y) + 2, width: CELL - 4, height: CELL - 4, rx: 5, fill: "none", stroke: "#2f5d53", "stroke-width": 1 }));
      }
    }
    board.append(grid);

    const placements = placementsOf(moveOf(frame));
    const made = madeQwirkles(cells, placements);
    const madeKeys = new Set(made.map((line) => `${line.horizontal}:${key(line.cells[0].x, line.cells[0].y)}`));
    // Every Qwirkle on the board: a gold band behind its six tiles; this move's glows.
    for (const line of qwirkles(cells)) {
      const first = line.cells[0];
      const last = line.cells[line.cells.length - 1];
      const fresh = madeKeys.has(`${line.horizontal}:${key(first.x, first.y)}`);
      board.append(svg("rect", {
        x: px(first.x) - 3, y: py(first.y) - 3,
        width: px(last.x) - px(first.x) + CELL + 6, height: py(last.y) - py(first.y) + CELL + 6,
        rx: 9, fill: fresh ? "rgba(252, 211, 77, 0.55)" : "rgba(252, 211, 77, 0.18)",
        stroke: "#fcd34d", "stroke-width": fresh ? 3 : 1.5, "data-qwirkle": fresh ? "new" : "",
      }, svg("title", {}, "Qwirkle: a line of six")));
    }
    const placed = new Set(placements.map((p) => key(p.x, p.y)));
    for (const cell of cells.values()) {
      const last = placed.has(key(cell.x, cell.y));
      board.append(tileNode(cell.tile, px(cell.x), py(cell.y), CELL, { "data-tile": tileLabel(cell.tile), "data-x": cell.x, "data-y": cell.y, "data-last": last ? "" : null }));
    }
    for (const p of placements) {
      board.append(svg("rect", { x: px(p.x) + 0.5, y: py(p.y) + 0.5, width: CELL - 1, height: CELL - 1, rx: 7, fill: "none", stroke: "#fde68a", "stroke-width": 3, "pointer-events": "none" }));
    }
    if (placements.length) {
      // The score of the move, beside its last tile in reading order.
      const anchor = placements.reduce((a, b) => (b.y > a.y || (b.y === a.y && b.x > a.x) ? b : a));
      const score = int(moveOf(frame).place.score);
      const label = made.length ? `+${score} QWIRKLE!` : `+${score}`;
      const width = 14 + label.length * 10.5;
      const bx = Math.min(px(anchor.x) + CELL - 10, columns * CELL - width);
      const by = Math.max(py(anchor.y) - 16, -4);
      board.append(svg("g", { "data-move-score": score, "pointer-events": "none" },
        svg("rect", { x: bx, y: by, width, height: 25, rx: 12.5, fill: made.length ? "#f59e0b" : "#fde68a", stroke: "#1a1a1a", "stroke-width": 1.2 }),
        svg("text", { x: bx + width / 2, y: by + 18, "text-anchor": "middle", "font-size": 17, "font-weight": 800, fill: "#1a1a1a" }, label)));
    }
    return board;
  }

  function drawRacks(frame) {
    const view = frame.view;
    const current = view.currentSeat === undefined ? null : int(view.currentSeat);
    const seats = list(view.seats);
    return el("div", { class: `qw-racks${frame.seats.length > 2 ? " qw-two-columns" : ""}` }, frame.seats.map((seat) => {
      const status = seats.find((s) => int(s.seat) === seat.seat) || {};
      const own = frame.seatViews ? frame.seatViews[seat.seat] : null;
      const size = int(status.rackSize);
      let tiles;
      if (own) {
        tiles = list(own.rack).map((tile) => tileIcon(tile, 34, { "data-rack-tile": tileLabel(tile) }));
      } else {
        tiles = Array.from({ length: size }, () => backIcon());
      }
      if (!tiles.length) tiles = [el("span", { class: "qw-empty" }, "no tiles left")];
      return el("div", { class: `qw-rack${current === seat.seat ? " qw-current" : ""}`, "data-rack": seat.seat },
        el("span", { class: "ba-dot", style: { background: seatColour(seat.seat) } }),
        el("span", { class: "qw-rack-name", title: seat.name }, seat.name),
        el("span", { class: "qw-rack-score" }, int(status.score)),
        el("span", { class: "qw-rack-tiles" }, tiles));
    }));
  }

  function render(root, frame) {
    const view = frame.view;
    const current = view.currentSeat === undefined ? null : int(view.currentSeat);
    const info = el("div", { class: "qw-info" },
      el("span", { class: "ba-chip", "data-testid": "bag" }, "bag ", el("b", {}, int(view.bagSize)), ` ${int(view.bagSize) === 1 ? "tile" : "tiles"}`),
      el("span", { class: "ba-chip" }, el("b", {}, list(view.board).length), " on the board"),
      current !== null ? el("span", { class: "ba-chip" }, "to play: ", el("b", { style: { color: seatColour(current) } }, frame.seats[current] ? frame.seats[current].name : `seat ${current}`)) : null,
      frame.seatViews ? null : el("span", { class: "ba-chip" }, "racks hidden (spectator view)"));
    root.append(el("div", { class: "qw" }, info, el("div", { class: "qw-board-wrap" }, drawBoard(frame)), drawRacks(frame)));
  }

  function describeMove(move, frame) {
    if (move.place) {
      const placements = placementsOf(move);
      const made = madeQwirkles(boardMap(frame.view), placements);
      return el("span", {},
        `placed ${plural(placements.length, "tile")} for ${int(move.place.score)}`,
        el("span", { class: "qw-mini" }, placements.map((p) => tileIcon(p.tile, 16))),
        made.length ? el("span", { class: "ba-chip ba-win" }, made.length > 1 ? `${made.length} Qwirkles!` : "Qwirkle!") : null);
    }
    if (move.exchange) {
      const tiles = list(move.exchange.tiles);
      const count = int(move.exchange.tileCount) || tiles.length;
      return el("span", {}, `exchanged ${plural(count, "tile")}`,
        tiles.length ? el("span", { class: "qw-mini" }, tiles.map((t) => tileIcon(t, 16))) : null);
    }
    if (move.pass) return "passed";
    return "moved";
  }

  addStyle("ba-qwirkle-style", CSS);
  botarena.register("qwirkle", {
    title: "Qwirkle",
    render,
    scores: (view) => bySeat(view.seats, (status) => int(status.score)),
    toAct: (view) => (view.currentSeat === undefined ? [] : [int(view.currentSeat)]),
    describeMove,
  });
})();
