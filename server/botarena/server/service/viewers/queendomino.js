/* The Queendomino renderer of the botarena viewer (docs/replays.md, "Browser renderers").
 *
 * Draws a QueendominoView (proto/botarena/v1/queendomino.proto): every kingdom with its
 * terrains, crowns, buildings, knights and towers, each seat's coins, the current and
 * the next line with the kings on them, the builders' board with the dragon, and the
 * queen. Everything on the table is public, so the spectator's view is all it needs.
 */
"use strict";

(() => {
  const { el, svg, int, list, bySeat, enumLabel, seatColour, plural, addStyle } = botarena;

  const TERRAINS = {
    wheat: { fill: "#e8b923", label: "wheat" },
    forest: { fill: "#1f6f3a", label: "forest" },
    lake: { fill: "#2b8fd6", label: "lake" },
    grassland: { fill: "#8cc63f", label: "grassland" },
    swamp: { fill: "#8a7f5a", label: "swamp" },
    mine: { fill: "#4b4038", label: "mine" },
    town: { fill: "#c2352b", label: "town" },
  };
  const CELL = 48;
  const STEPS = {
    QUEENDOMINO_STEP_PLACE: "A · place the domino",
    QUEENDOMINO_STEP_TAX: "B · tax",
    QUEENDOMINO_STEP_BUILD: "C · build",
    QUEENDOMINO_STEP_DRAGON: "D · dragon",
    QUEENDOMINO_STEP_CHOOSE: "E · choose a domino",
  };
  const ROUNDS = 12; // RULES.md 3: 48 dominoes, 4 per line.

  const CSS = `
    .qd { display: flex; flex-direction: column; gap: 8px; height: 100%; min-height: 0; }
    .qd-info { display: flex; gap: 6px; flex-wrap: wrap; align-items: center; color: var(--muted); }
    .qd-info b { color: var(--text); }
    .qd-top { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 8px; }
    .qd-box { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: 6px 8px; min-width: 0; }
    .qd-box h3 { margin: 0 0 4px; font-size: 11px; text-transform: uppercase; letter-spacing: .08em; color: var(--muted); font-weight: 600; }
    .qd-line { display: flex; gap: 6px; align-items: center; min-height: 44px; }
    .qd-line + h3 { margin-top: 6px; }
    .qd-line svg { height: 44px; width: auto; }
    .qd-line .qd-none { color: var(--muted); font-style: italic; font-size: 12px; }
    .qd-builders { display: grid; grid-template-columns: repeat(6, minmax(0, 1fr)); gap: 5px; }
    .qd-space { position: relative; border: 1px solid var(--line); border-radius: 6px; padding: 3px 5px 4px; background: var(--panel-2);
      font-size: 11px; line-height: 1.25; min-height: 84px; overflow: hidden; }
    .qd-space.qd-empty { background: transparent; border-style: dashed; color: var(--muted); }
    .qd-space.qd-burned { border-color: #ef4444; box-shadow: inset 0 0 0 1px #ef4444; }
    .qd-space .qd-price { display: flex; margin-bottom: 2px; }
    .qd-space .qd-bname { font-weight: 650; display: block; }
    .qd-space .qd-bmeta { color: var(--muted); }
    .qd-space .qd-dragon { position: absolute; bottom: 2px; right: 3px; }
    .qd-board-info { display: flex; gap: 6px; flex-wrap: wrap; margin-bottom: 5px; }
    .qd-kingdoms { flex: 1; min-height: 0; display: grid; gap: 8px; grid-auto-rows: minmax(0, 1fr); }
    .qd-kingdom { display: flex; flex-direction: column; min-height: 0; background: var(--panel); border: 1px solid var(--line);
      border-radius: var(--radius); padding: 6px 8px; }
    .qd-kingdom.qd-current { border-color: var(--accent); }
    .qd-khead { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
    .qd-khead .qd-name { font-weight: 650; }
    .qd-khead .qd-score { margin-left: auto; font-size: 18px; font-weight: 700; font-variant-numeric: tabular-nums; }
    .qd-stat { display: inline-flex; align-items: center; gap: 3px; color: var(--muted); font-size: 12px; }
    .qd-stat b { color: var(--text); font-variant-numeric: tabular-nums; }
    .qd-stat svg { width: 16px; height: 16px; }
    .qd-grid { flex: 1; min-height: 0; display: flex; justify-content: center; }
    .qd-grid svg { width: 100%; height: 100%; }
    .qd-legend svg { width: 14px; height: 14px; }
  `;

  // ---- icons (drawn in a 20 x 20 box)

  function crownShape(x, y, size, fill = "#fcd34d", stroke = "#1c1917") {
    const s = size / 20;
    return svg("path", {
      d: "M2 15 L3 5 L7.5 9.5 L10 3 L12.5 9.5 L17 5 L18 15 Z",
      transform: `translate(${x},${y}) scale(${s})`, fill, stroke, "stroke-width": 1.6 / 1, "stroke-linejoin": "round",
    });
  }

  function knightShape(x, y, size) {
    const s = size / 20;
    return svg("g", { transform: `translate(${x},${y}) scale(${s})` },
      svg("circle", { cx: 10, cy: 10, r: 9.5, fill: "#111827", stroke: "#f8fafc", "stroke-width": 1.4 }),
      svg("path", { d: "M6 15.5h8.5v-1.8c0-3.4-1.2-5.8-3-7.6l.6-2.3-2.4 1.2C7.7 5.3 6.2 6.9 5.5 8.8l1.2 1.1 2.1-.8-.6 2.4-2.2 2.2z", fill: "#f8fafc" }));
  }

  function towerShape(x, y, size, fill = "#cbd5e1") {
    const s = size / 20;
    return svg("path", {
      d: "M5 18 V8 H4 V3 H6.5 V5 H8.5 V3 H11.5 V5 H13.5 V3 H16 V8 H15 V18 Z",
      transform: `translate(${x},${y}) scale(${s})`, fill, stroke: "#1c1917", "stroke-width": 1.2,
    });
  }

  function coinShape(x, y, size) {
    const s = size / 20;
    return svg("g", { transform: `translate(${x},${y}) scale(${s})` },
      svg("circle", { cx: 10, cy: 10, r: 8.5, fill: "#f5c542", stroke: "#92400e", "stroke-width": 1.5 }),
      svg("circle", { cx: 10, cy: 10, r: 5, fill: "none", stroke: "#b45309", "stroke-width": 1.2 }));
  }

  function dragonShape(x, y, size) {
    const s = size / 20;
    return svg("path", {
      d: "M2 14c3-1 4-4 4-7l3 2 2-5 2 5 3-2c0 3 1 6 4 7-3 1-5 3-6 5l-2-3-2 3c-1-2-5-4-8-5z",
      transform: `translate(${x},${y}) scale(${s})`, fill: "#ef4444", stroke: "#450a0a", "stroke-width": 1.2,
    });
  }

  function castleShape(x, y, size, fill) {
    const s = size / 20;
    return svg("path", {
      d: "M3 18V7h2.5v2.5H8V7h4v2.5h2.5V7H17v11h-5v-4.5a2 2 0 0 0-4 0V18z",
      transform: `translate(${x},${y}) scale(${s})`, fill, stroke: "#111827", "stroke-width": 1.2,
    });
  }

  function iconSvg(shape) {
    return svg("svg", { viewBox: "0 0 20 20" }, shape);
  }

  // ---- geometry and labels

  const terrainOf = (square) => enumLabel(square && square.terrain, "QUEENDOMINO_TERRAIN_");
  const fillOf = (square) => (TERRAINS[terrainOf(square)] || { fill: "#6b7280" }).fill;
  const cellOf = (cell) => ({ x: int(cell && cell.x), y: int(cell && cell.y) });
  const key = (cell) => `${cell.x},${cell.y}`;

  const OFFSETS = {
    QUEENDOMINO_ROTATION_EAST: [1, 0], QUEENDOMINO_ROTATION_SOUTH: [0, 1],
    QUEENDOMINO_ROTATION_WEST: [-1, 0], QUEENDOMINO_ROTATION_NORTH: [0, -1],
  };

  function placedCells(place) {
    if (!place) return [];
    const first = cellOf(place.cell);
    const [dx, dy] = OFFSETS[place.rotation] || [0, 0];
    return [first, { x: first.x + dx, y: first.y + dy }];
  }

  function playerOf(view, seat) {
    return list(view && view.players).find((p) => int(p.seat) === seat) || null;
  }

  /** The size x size window of cells a kingdom is drawn in (the final kingdom's, when known). */
  function windowOf(kingdom, final) {
    const size = int(kingdom.size) || 5;
    const cells = [{ x: 0, y: 0 }, ...list(kingdom.squares).map((s) => cellOf(s.cell)),
      ...list(final && final.squares).map((s) => cellOf(s.cell))];
    const span = (values) => {
      const lo = Math.min(...values);
      const hi = Math.max(...values);
      const free = Math.max(0, size - (hi - lo + 1));
      const start = lo - Math.floor(free / 2);
      return [start, start + Math.max(size, hi - lo + 1) - 1];
    };
    const [minX, maxX] = span(cells.map((c) => c.x));
    const [minY, maxY] = span(cells.map((c) => c.y));
    return { minX, maxX, minY, maxY, size };
  }

  function buildingText(building) {
    const parts = [];
    if (int(building.crowns)) parts.push(plural(int(building.crowns), "crown"));
    if (int(building.knights)) parts.push(`+${plural(int(building.knights), "knight")}`);
    if (int(building.towers)) parts.push(`+${plural(int(building.towers), "tower")}`);
    const effect = building.ongoingEffect;
    if (effect === "QUEENDOMINO_ONGOING_EFFECT_COIN_PER_KNIGHT") parts.push("tax +1 per knight");
    if (effect === "QUEENDOMINO_ONGOING_EFFECT_COIN_PER_TOWER") parts.push("tax +1 per tower");
    const scoring = building.endGameScoring;
    if (scoring) {
      const points = int(scoring.points);
      switch (scoring.kind) {
        case "QUEENDOMINO_SCORING_KIND_FLAT": parts.push(`${points} pts`); break;
        case "QUEENDOMINO_SCORING_KIND_PER_TERRITORY_OF_TERRAIN":
          parts.push(`${points}/${enumLabel(scoring.terrain, "QUEENDOMINO_TERRAIN_")} area`); break;
        case "QUEENDOMINO_SCORING_KIND_PER_TOWER": parts.push(`${points}/tower`); break;
        case "QUEENDOMINO_SCORING_KIND_PER_KNIGHT": parts.push(`${points}/knight`); break;
        default: break;
      }
    }
    return parts.join(" · ");
  }

  const shortName = (building) => String(building.name || building.typeId || "building").replace(/^The /, "");
  const nameOf = (frame, seat) => (frame.seats[seat] ? frame.seats[seat].name : `seat ${seat}`);

  // ---- dominoes of the lines

  function dominoNode(slot, frame) {
    const domino = slot.domino || {};
    const halves = list(domino.halves);
    const size = 34;
    const node = svg("svg", { viewBox: `0 0 ${size * 2 + 30} ${size + 10}`, "data-domino": int(domino.number), opacity: slot.done ? 0.45 : 1 },
      svg("title", {}, `domino ${int(domino.number)}: ${halves.map((h) => `${terrainOf(h)}${int(h.crowns) ? ` (${plural(int(h.crowns), "crown")})` : ""}`).join(" + ")}${slot.king !== undefined ? ` · ${nameOf(frame, int(slot.king))}'s king` : ""}${slot.done ? " · done" : ""}`),
      svg("text", { x: 12, y: size / 2 + 9, "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: "#9aa4b3" }, int(domino.number)));
    halves.forEach((half, i) => {
      const x = 26 + i * size;
      node.append(svg("rect", { x: x + 1, y: 6, width: size - 2, height: size - 2, rx: 4, fill: fillOf(half), stroke: "#0008" }));
      for (let c = 0; c < int(half.crowns); c += 1) node.append(crownShape(x + 3 + c * 10, 8, 11));
    });
    if (slot.king !== undefined) {
      const seat = int(slot.king);
      node.append(svg("g", { "data-king": seat },
        svg("circle", { cx: 26 + size, cy: 10, r: 9, fill: seatColour(seat), stroke: "#111827", "stroke-width": 1.5 }),
        crownShape(26 + size - 6.5, 3, 13, "#fff8", "#111827")));
    }
    return node;
  }

  function drawLines(frame) {
    const view = frame.view;
    const line = (slots, none) => el("div", { class: "qd-line" },
      slots.length ? slots.map((slot) => dominoNode(slot, frame)) : el("span", { class: "qd-none" }, none));
    return el("div", { class: "qd-box", "data-testid": "lines" },
      el("h3", {}, "Current line"), line(list(view.currentLine), "none: the kings are choosing"),
      el("h3", {}, "Next line"), line(list(view.nextLine), "none: the final round"));
  }

  // ---- the builders' board

  function drawBuilders(frame) {
    const view = frame.view;
    const dragon = view.dragonSpace === undefined ? null : int(view.dragonSpace);
    const queen = view.queen === undefined ? null : int(view.queen);
    const spaces = list(view.board);
    return el("div", { class: "qd-box", "data-testid": "builders" },
      el("h3", {}, "Builders' board"),
      el("div", { class: "qd-board-info" },
        el("span", { class: "ba-chip", "data-testid": "queen" }, queen === null ? "queen: at court" : el("span", {}, "queen: ", el("b", { style: { color: seatColour(queen) } }, nameOf(frame, queen)))),
        el("span", { class: "ba-chip", "data-testid": "dragon" }, dragon === null ? "dragon: in its cave" : `dragon: burned space ${dragon} this round`),
        el("span", { class: "ba-chip" }, `pile: ${plural(int(view.pileLeft), "building")}`)),
      el("div", { class: "qd-builders" }, Array.from({ length: 6 }, (_, index) => {
        const space = spaces.find((s) => int(s.space) === index) || { space: index };
        const building = space.building;
        const price = el("span", { class: "qd-price qd-stat" }, iconSvg(coinShape(0, 0, 20)), el("b", {}, int(space.price)));
        const burned = dragon === index;
        if (!building) {
          return el("div", { class: `qd-space qd-empty${burned ? " qd-burned" : ""}`, "data-space": index }, price,
            el("span", { class: "qd-bname" }, burned ? "burned" : "empty"),
            burned ? el("span", { class: "qd-dragon" }, svg("svg", { viewBox: "0 0 20 20", width: 22, height: 22 }, dragonShape(0, 0, 20))) : null);
        }
        return el("div", { class: "qd-space", "data-space": index, title: `${building.name}: ${buildingText(building)}` }, price,
          el("span", { class: "qd-bname" }, shortName(building)),
          el("span", { class: "qd-bmeta" }, buildingText(building)));
      })));
  }

  // ---- kingdoms

  function drawKingdom(player, frame, fresh) {
    const seat = int(player.seat);
    const kingdom = player.kingdom || {};
    const finalPlayer = playerOf(frame.final, seat);
    const box = windowOf(kingdom, finalPlayer && finalPlayer.kingdom);
    const columns = box.maxX - box.minX + 1;
    const rows = box.maxY - box.minY + 1;
    const px = (x) => (x - box.minX) * CELL;
    const py = (y) => (y - box.minY) * CELL;
    const squares = list(kingdom.squares);
    const root = svg("svg", {
      viewBox: `-3 -3 ${columns * CELL + 6} ${rows * CELL + 6}`, preserveAspectRatio: "xMidYMid meet",
      role: "img", "aria-label": `${nameOf(frame, seat)}'s kingdom: ${plural(squares.length, "square")}`, "data-squares": squares.length,
    });
    for (let y = box.minY; y <= box.maxY; y += 1) {
      for (let x = box.minX; x <= box.maxX; x += 1) {
        root.append(svg("rect", { x: px(x) + 1.5, y: py(y) + 1.5, width: CELL - 3, height: CELL - 3, rx: 4, fill: "none", stroke: "#3a4352", "stroke-dasharray": "3 3" }));
      }
    }
    // The castle: wild for placing, part of no territory.
    root.append(svg("g", { "data-castle": "" },
      svg("rect", { x: px(0) + 1, y: py(0) + 1, width: CELL - 2, height: CELL - 2, rx: 4, fill: "#9ca3af", stroke: "#111827" }),
      castleShape(px(0) + 7, py(0) + 5, 34, seatColour(seat)),
      svg("title", {}, "castle")));
    const knights = new Set(list(player.knightCells).map((c) => key(cellOf(c))));
    // The seat's towers stand on the buildings that brought them (the supply may run out).
    let towers = int(player.towers);
    for (const square of squares) {
      const cell = cellOf(square.cell);
      const x = px(cell.x);
      const y = py(cell.y);
      const crowns = int(square.square && square.square.crowns);
      const group = svg("g", { "data-square": terrainOf(square.square), "data-x": cell.x, "data-y": cell.y },
        svg("title", {}, `${terrainOf(square.square)}${crowns ? `, ${plural(crowns, "crown")}` : ""}${square.building ? ` · ${square.building.name} (${buildingText(square.building)})` : ""}${knights.has(key(cell)) ? " · knight" : ""}`),
        svg("rect", { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, rx: 4, fill: fillOf(square.square), stroke: "#0009" }));
      for (let c = 0; c < crowns; c += 1) group.append(svg("g", { "data-crown": "" }, crownShape(x + 3 + c * 13, y + 3, 14)));
      const building = square.building;
      if (building) {
        const b = svg("g", { "data-building": building.typeId || "" },
          svg("path", { d: `M${x + 10} ${y + 40} V${y + 24} L${x + 24} ${y + 12} L${x + 38} ${y + 24} V${y + 40} Z`, fill: "#fef3c7", stroke: "#451a03", "stroke-width": 1.5 }),
          svg("rect", { x: x + 20, y: y + 30, width: 8, height: 10, fill: "#92400e" }));
        for (let c = 0; c < int(building.crowns); c += 1) b.append(svg("g", { "data-crown": "" }, crownShape(x + 3 + c * 13, y + 3, 14)));
        const standing = Math.min(int(building.towers), towers);
        towers -= standing;
        for (let t = 0; t < standing; t += 1) b.append(svg("g", { "data-tower": "" }, towerShape(x + 30 - t * 9, y + 2, 16)));
        group.append(b);
      }
      if (knights.has(key(cell))) group.append(svg("g", { "data-knight": "" }, knightShape(x + CELL - 20, y + CELL - 20, 18)));
      root.append(group);
    }
    for (const cell of fresh) {
      root.append(svg("rect", { x: px(cell.x) - 0.5, y: py(cell.y) - 0.5, width: CELL + 1, height: CELL + 1, rx: 6, fill: "none", stroke: "#fde047", "stroke-width": 3.5, "pointer-events": "none", "data-fresh": "" }));
    }
    return root;
  }

  function moveOf(frame) {
    const applied = frame.event && frame.event.moveApplied;
    return applied && applied.move ? { seat: int(applied.seat), move: applied.move.queendomino || {} } : null;
  }

  /** The cells the frame's move changed in its seat's kingdom, to outline them. */
  function freshCells(frame, seat) {
    const moved = moveOf(frame);
    if (!moved || moved.seat !== seat) return [];
    const { move } = moved;
    if (move.place) return placedCells(move.place);
    if (move.tax) return list(move.tax.cells).map(cellOf);
    if (move.build) return [cellOf(move.build.cell)];
    return [];
  }

  function stat(shape, value, label) {
    return el("span", { class: "qd-stat", title: label }, iconSvg(shape), el("b", {}, value));
  }

  function drawKingdoms(frame) {
    const view = frame.view;
    const turnSeat = view.turn ? int(view.turn.seat) : null;
    const queen = view.queen === undefined ? null : int(view.queen);
    const players = list(view.players);
    const columns = players.length <= 2 ? players.length : 2;
    return el("div", { class: "qd-kingdoms", style: { gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` } }, players.map((player) => {
      const seat = int(player.seat);
      const placed = list(player.knightCells).length;
      return el("div", { class: `qd-kingdom${seat === turnSeat ? " qd-current" : ""}`, "data-kingdom": seat },
        el("div", { class: "qd-khead" },
          el("span", { class: "ba-dot", style: { background: seatColour(seat) } }),
          el("span", { class: "qd-name" }, nameOf(frame, seat)),
          seat === queen ? el("span", { class: "ba-chip ba-win", "data-queen": "" }, "♛ queen") : null,
          stat(coinShape(0, 0, 20), int(player.coins), "coins"),
          stat(knightShape(0, 0, 20), `${int(player.knights)} free · ${placed} placed`, "knights: unplaced (for tax) and placed"),
          stat(towerShape(0, 0, 20), int(player.towers), "towers"),
          el("span", { class: "qd-score" }, int(player.score))),
        el("div", { class: "qd-grid" }, drawKingdom(player, frame, freshCells(frame, seat))));
    }));
  }

  function legend() {
    return el("div", { class: "ba-legend qd-legend", "data-testid": "legend" },
      Object.values(TERRAINS).map((t) => el("span", {}, el("i", { style: { background: t.fill } }), t.label)),
      el("span", {}, iconSvg(crownShape(0, 2, 20)), "crown"),
      el("span", {}, iconSvg(knightShape(0, 0, 20)), "knight"),
      el("span", {}, iconSvg(towerShape(0, 0, 20)), "tower"),
      el("span", {}, iconSvg(svg("path", { d: "M3 18V9l7-6 7 6v9z", fill: "#fef3c7", stroke: "#451a03", "stroke-width": 1.4 })), "building"),
      el("span", {}, iconSvg(dragonShape(0, 0, 20)), "dragon"));
  }

  function render(root, frame) {
    const view = frame.view;
    const turn = view.turn;
    const round = int(view.round);
    root.append(el("div", { class: "qd" },
      el("div", { class: "qd-info" },
        el("span", { class: "ba-chip" }, round ? el("span", {}, "round ", el("b", {}, round), ` of ${ROUNDS}${view.finalRound ? " (final)" : ""}`) : "setup: the kings choose"),
        turn ? el("span", { class: "ba-chip" }, "to play: ", el("b", { style: { color: seatColour(int(turn.seat)) } }, nameOf(frame, int(turn.seat))), ` · ${STEPS[turn.step] || enumLabel(turn.step, "QUEENDOMINO_STEP_")}`) : el("span", { class: "ba-chip" }, "game over"),
        el("span", { class: "ba-chip" }, "deck ", el("b", {}, int(view.deckLeft))),
        list(view.removed).length ? el("span", { class: "ba-chip" }, `${plural(list(view.removed).length, "domino", "dominoes")} out of the game`) : null),
      el("div", { class: "qd-top" }, drawLines(frame), drawBuilders(frame)),
      drawKingdoms(frame),
      legend()));
  }

  function describeMove(move, frame) {
    const before = frame.previous || {};
    const turn = before.turn || {};
    const applied = frame.event.moveApplied || {};
    const seat = int(applied.seat);
    const domino = turn.domino ? int(turn.domino.number) : null;
    if (move.place) {
      const [a, b] = placedCells(move.place);
      return `placed domino ${domino ?? ""} on (${a.x},${a.y})–(${b.x},${b.y})`;
    }
    if (move.discard) return `discarded domino ${domino ?? ""}`;
    if (move.tax) {
      const coins = int((playerOf(frame.view, seat) || {}).coins) - int((playerOf(before, seat) || {}).coins);
      return `tax with ${plural(list(move.tax.cells).length, "knight")}: +${coins} coins`;
    }
    if (move.build) {
      const space = list(before.board).find((s) => int(s.space) === int(move.build.space)) || {};
      const name = space.building ? shortName(space.building) : `space ${int(move.build.space)}`;
      const paid = int((playerOf(before, seat) || {}).coins) - int((playerOf(frame.view, seat) || {}).coins);
      return `built ${name} for ${plural(paid, "coin")}`;
    }
    if (move.bribe) {
      const space = list(before.board).find((s) => int(s.space) === int(move.bribe.space)) || {};
      return `paid the dragon to burn ${space.building ? shortName(space.building) : `space ${int(move.bribe.space)}`}`;
    }
    if (move.choose) return `chose domino ${int(move.choose.domino)}`;
    if (move.skip) return `skipped ${(STEPS[turn.step] || "the step").replace(/^[A-E] · /, "")}`;
    return "moved";
  }

  addStyle("ba-queendomino-style", CSS);
  botarena.register("queendomino", {
    title: "Queendomino",
    render,
    scores: (view) => bySeat(view.players, (player) => int(player.score)),
    toAct: (view) => (view.turn ? [int(view.turn.seat)] : []),
    describeMove,
  });
})();
