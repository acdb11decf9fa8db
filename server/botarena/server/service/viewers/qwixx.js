/* The Qwixx renderer of the botarena viewer (docs/replays.md, "Browser renderers").
 *
 * Draws a QwixxView (proto/botarena/v1/qwixx.proto): the dice of the turn, the decision
 * asked for, who chose what in the last action 1 and action 2, and every seat's sheet
 * with its crosses, locks, penalties and scores. Qwixx hides nothing that matters after
 * the fact, so the spectator's view is all it needs.
 */
"use strict";

(() => {
  const { el, svg, int, list, bySeat, enumLabel, seatColour, plural, addStyle } = botarena;

  const ROWS = [
    { colour: "QWIXX_COLOUR_RED", name: "red", solid: "#dc2626", tint: "#fee2e2", ink: "#991b1b", ascending: true },
    { colour: "QWIXX_COLOUR_YELLOW", name: "yellow", solid: "#eab308", tint: "#fef9c3", ink: "#854d0e", ascending: true },
    { colour: "QWIXX_COLOUR_GREEN", name: "green", solid: "#16a34a", tint: "#dcfce7", ink: "#166534", ascending: false },
    { colour: "QWIXX_COLOUR_BLUE", name: "blue", solid: "#2563eb", tint: "#dbeafe", ink: "#1e40af", ascending: false },
  ];
  const BY_COLOUR = Object.fromEntries(ROWS.map((row) => [row.colour, row]));
  const PENALTIES = 4; // RULES.md: the fourth penalty ends the game.

  const CSS = `
    .qx { display: flex; flex-direction: column; gap: 10px; height: 100%; }
    .qx-turn { display: grid; grid-template-columns: auto 1fr; gap: 14px; align-items: center;
      background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: 8px 12px; }
    .qx-dice { display: flex; gap: 6px; align-items: center; }
    .qx-dice svg { width: 40px; height: 40px; }
    .qx-dice .qx-sum { margin-left: 6px; color: var(--muted); font-size: 12px; line-height: 1.2; text-align: center; }
    .qx-dice .qx-sum b { display: block; font-size: 20px; color: var(--text); }
    .qx-choices { display: grid; gap: 3px; font-size: 13px; }
    .qx-choices .qx-label { color: var(--muted); margin-right: 6px; }
    .qx-choice { display: inline-flex; align-items: center; gap: 4px; margin-right: 12px; }
    .qx-swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; }
    .qx-sheets { display: grid; gap: 8px; overflow: auto; min-height: 0; --qx-rows: 2; }
    .qx-sheets.qx-two-columns { grid-template-columns: 1fr 1fr; }
    .qx-sheet { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: 4px 10px 6px; }
    .qx-sheet.qx-active { border-color: var(--accent); }
    .qx-sheet-head { display: flex; align-items: center; gap: 8px; margin-bottom: 4px; }
    .qx-sheet-head .qx-name { font-weight: 650; }
    .qx-sheet-head .qx-total { margin-left: auto; font-size: 18px; font-weight: 700; font-variant-numeric: tabular-nums; }
    .qx-sheet svg { display: block; max-width: 100%; width: auto;
      height: clamp(90px, calc((100vh - 330px) / var(--qx-rows) - 36px), 230px); }
  `;

  // ---- dice

  const PIPS = {
    1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
    4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
    6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
  };

  function die(value, face, pip, label) {
    const node = svg("svg", { viewBox: "0 0 40 40", "data-die": label, "data-value": value ?? "" },
      svg("title", {}, value === null ? `${label} die: removed (row locked)` : `${label} die: ${value}`));
    if (value === null) {
      node.append(svg("rect", { x: 3, y: 3, width: 34, height: 34, rx: 7, fill: "none", stroke: face, "stroke-width": 2, "stroke-dasharray": "4 3", opacity: 0.6 }));
      return node;
    }
    node.append(svg("rect", { x: 2, y: 2, width: 36, height: 36, rx: 7, fill: face, stroke: "#0005", "stroke-width": 1 }));
    for (const [dx, dy] of PIPS[value] || []) node.append(svg("circle", { cx: 20 + dx * 9.5, cy: 20 + dy * 9.5, r: 3.6, fill: pip }));
    return node;
  }

  function drawDice(view) {
    const dice = view.dice || {};
    const white = list(dice.white).map(int);
    const nodes = white.map((value, i) => die(value, "#f8fafc", "#111827", `white ${i + 1}`));
    for (const row of ROWS) {
      const value = dice[row.name] === undefined ? null : int(dice[row.name]);
      nodes.push(die(value, row.solid, "#fff", row.name));
    }
    const sum = white.length === 2 ? white[0] + white[1] : null;
    return el("div", { class: "qx-dice" }, nodes,
      sum === null ? null : el("span", { class: "qx-sum" }, el("b", {}, sum), "white sum"));
  }

  // ---- choices

  function swatch(colour) {
    const row = BY_COLOUR[colour];
    return el("span", { class: "qx-swatch", style: { background: row ? row.solid : "#888" } });
  }

  function nameOf(frame, seat) {
    return frame.seats[seat] ? frame.seats[seat].name : `seat ${seat}`;
  }

  function who(frame, seat) {
    return el("b", { style: { color: seatColour(seat) } }, nameOf(frame, seat));
  }

  function choiceText(move, number) {
    if (move.markWhiteSum) return [swatch(move.markWhiteSum.colour), `${enumLabel(move.markWhiteSum.colour, "QWIXX_COLOUR_")} ${int(move.markWhiteSum.number)}`];
    if (move.markColourSum) {
      const colour = move.markColourSum.colour;
      return [swatch(colour), `white ${int(move.markColourSum.white) + 1} + ${enumLabel(colour, "QWIXX_COLOUR_")}${number === null ? "" : ` = ${number}`}`];
    }
    if (move.decline) return ["declined"];
    return ["(sealed)"];
  }

  function drawChoices(frame) {
    const view = frame.view;
    const action = view.action || "QWIXX_ACTION_UNSPECIFIED";
    const active = int(view.activeSeat);
    const toAct = list(view.toAct).map(int);
    let asking;
    if (action === "QWIXX_ACTION_WHITE_SUM") {
      asking = ["Action 1: every seat may cross the white sum · waiting for ", toAct.map((seat, i) => [i ? ", " : "", who(frame, seat)])];
    } else if (action === "QWIXX_ACTION_COLOUR_SUM") {
      asking = ["Action 2: ", who(frame, active), " may cross a white die + a coloured die"];
    } else {
      asking = ["Game over"];
    }
    const white = list(view.lastWhiteSums);
    const colourSum = view.lastColourSum;
    return el("div", { class: "qx-choices", "data-testid": "choices" },
      el("div", {}, el("span", { class: "qx-label" }, "Now:"), asking),
      el("div", { "data-testid": "last-white-sums" }, el("span", { class: "qx-label" }, "Last action 1:"),
        white.length ? white.map((move, seat) => el("span", { class: "qx-choice" }, who(frame, seat), choiceText(move, null))) : "—"),
      el("div", { "data-testid": "last-colour-sum" }, el("span", { class: "qx-label" }, "Last action 2:"),
        colourSum ? el("span", { class: "qx-choice" }, who(frame, int(colourSum.seat)),
          choiceText(colourSum.choice || {}, colourSum.number === undefined ? null : int(colourSum.number))) : "—"));
  }

  // ---- sheets

  const CELL_W = 50;
  const CELL_H = 32;
  const GAP = 4;
  const LEFT = 6;
  const ROW_H = CELL_H + 6;

  function numbersOf(row) {
    const numbers = Array.from({ length: 11 }, (_, i) => i + 2);
    return row.ascending ? numbers : numbers.reverse();
  }

  function cross(x, y, w, h, colour, width = 4) {
    const inset = 7;
    return svg("g", { stroke: colour, "stroke-width": width, "stroke-linecap": "round" },
      svg("line", { x1: x + inset, y1: y + inset, x2: x + w - inset, y2: y + h - inset }),
      svg("line", { x1: x + w - inset, y1: y + inset, x2: x + inset, y2: y + h - inset }));
  }

  function lockIcon(cx, cy, colour) {
    return svg("g", { fill: "none", stroke: colour, "stroke-width": 2.4 },
      svg("path", { d: `M${cx - 6} ${cy - 1} v-5 a6 6 0 0 1 12 0 v5` }),
      svg("rect", { x: cx - 9, y: cy - 1, width: 18, height: 13, rx: 2, fill: colour, stroke: "none" }));
  }

  function drawSheet(sheet, previous, frame, locked) {
    const width = LEFT + 11 * (CELL_W + GAP) + 50 + 16 + 70;
    const height = ROWS.length * ROW_H + 40;
    const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `${nameOf(frame, int(sheet.seat))}'s sheet` });
    const rowsBy = Object.fromEntries(list(sheet.rows).map((row) => [row.colour, row]));
    const beforeBy = Object.fromEntries(list(previous && previous.rows).map((row) => [row.colour, row]));
    ROWS.forEach((spec, r) => {
      const row = rowsBy[spec.colour] || {};
      const marked = new Set(list(row.numbers).map(int));
      const before = new Set(list((beforeBy[spec.colour] || {}).numbers).map(int));
      const y = 4 + r * ROW_H;
      const closed = locked.has(spec.colour);
      root.append(svg("rect", { x: 0, y, width: LEFT + 11 * (CELL_W + GAP) + 54, height: ROW_H - 4, rx: 8, fill: spec.solid }));
      numbersOf(spec).forEach((number, i) => {
        const x = LEFT + i * (CELL_W + GAP);
        const cy = y + 1;
        const isMarked = marked.has(number);
        const fresh = isMarked && previous && !before.has(number);
        const cell = svg("g", { "data-cell": `${spec.name} ${number}` },
          svg("rect", { x, y: cy, width: CELL_W, height: CELL_H, rx: 6, fill: spec.tint, opacity: closed && !isMarked ? 0.45 : 1 }),
          svg("text", { x: x + CELL_W / 2, y: cy + CELL_H / 2 + 7, "text-anchor": "middle", "font-size": 19, "font-weight": 700, fill: spec.ink, opacity: isMarked ? 0.35 : 1 }, number));
        if (isMarked) {
          cell.setAttribute("data-mark", "");
          cell.append(cross(x, cy, CELL_W, CELL_H, "#111827"));
          if (fresh) cell.append(svg("rect", { x: x - 2, y: cy - 2, width: CELL_W + 4, height: CELL_H + 4, rx: 8, fill: "none", stroke: "#fde047", "stroke-width": 3.5, "data-fresh": "" }));
        }
        root.append(cell);
      });
      // The lock: crossed on the sheet of the seat that locked the row.
      const lx = LEFT + 11 * (CELL_W + GAP) + 4 + 20;
      const ly = y + ROW_H / 2 - 2;
      root.append(svg("circle", { cx: lx, cy: ly, r: 17, fill: spec.tint }));
      root.append(lockIcon(lx, ly - 3, spec.ink));
      if (row.lock) {
        root.append(svg("g", { "data-lock-mark": spec.name }, svg("title", {}, `locked the ${spec.name} row`), cross(lx - 17, ly - 17, 34, 34, "#111827")));
      }
      if (closed) {
        root.append(svg("text", { x: lx + 22, y: y + ROW_H / 2 + 2, "font-size": 10, fill: "#9aa4b3", "font-weight": 700, "letter-spacing": 0.5 }, "LOCKED"));
      }
      root.append(svg("text", { x: width - 8, y: y + ROW_H / 2 + 5, "text-anchor": "end", "font-size": 20, "font-weight": 700, fill: "#e8ebf0", "data-row-score": spec.name }, int(row.score)));
    });
    // Penalties and the total.
    const py = ROWS.length * ROW_H + 4;
    const penalties = int(sheet.penalties);
    const before = previous ? int(previous.penalties) : penalties;
    root.append(svg("text", { x: LEFT, y: py + 22, "font-size": 14, fill: "#9aa4b3" }, "penalties (−5 each)"));
    for (let i = 0; i < PENALTIES; i += 1) {
      const x = LEFT + 150 + i * 40;
      const box = svg("g", {}, svg("rect", { x, y: py + 4, width: 30, height: 28, rx: 5, fill: "#f1f5f9" }));
      if (i < penalties) {
        box.setAttribute("data-penalty", "");
        box.append(cross(x - 2, py + 2, 34, 32, "#dc2626", 3.5));
        if (i >= before) box.append(svg("rect", { x: x - 3, y: py + 1, width: 36, height: 34, rx: 7, fill: "none", stroke: "#fde047", "stroke-width": 3 }));
      }
      root.append(box);
    }
    const parts = list(sheet.rows).map((row) => int(row.score));
    root.append(svg("text", { x: width - 8, y: py + 23, "text-anchor": "end", "font-size": 14, fill: "#9aa4b3" },
      `${parts.join(" + ")}${penalties ? ` − ${penalties * 5}` : ""} = `,
      svg("tspan", { "font-size": 20, "font-weight": 800, fill: "#e8ebf0" }, int(sheet.score))));
    return root;
  }

  function render(root, frame) {
    const view = frame.view;
    const locked = new Set(list(view.lockedRows));
    const active = int(view.activeSeat);
    const toAct = new Set(list(view.toAct).map(int));
    const previousSheets = frame.previous ? list(frame.previous.sheets) : [];
    const sheets = list(view.sheets);
    const over = (view.action || "QWIXX_ACTION_UNSPECIFIED") === "QWIXX_ACTION_UNSPECIFIED";
    root.append(el("div", { class: "qx" },
      el("div", { class: "qx-turn" }, drawDice(view), drawChoices(frame)),
      el("div", {
        class: `qx-sheets${sheets.length > 3 ? " qx-two-columns" : ""}`,
        style: { "--qx-rows": Math.ceil(sheets.length / (sheets.length > 3 ? 2 : 1)) },
      }, sheets.map((sheet) => {
        const seat = int(sheet.seat);
        const previous = previousSheets.find((s) => int(s.seat) === seat) || null;
        return el("div", { class: `qx-sheet${seat === active && !over ? " qx-active" : ""}`, "data-sheet": seat },
          el("div", { class: "qx-sheet-head" },
            el("span", { class: "ba-dot", style: { background: seatColour(seat) } }),
            el("span", { class: "qx-name" }, nameOf(frame, seat)),
            seat === active && !over ? el("span", { class: "ba-chip" }, "rolled") : null,
            toAct.has(seat) && !over ? el("span", { class: "ba-chip ba-turn" }, "deciding") : null,
            el("span", { class: "qx-total" }, int(sheet.score))),
          drawSheet(sheet, previous, frame, locked));
      }))));
  }

  function describeMove(move, frame) {
    const applied = frame.event.moveApplied || {};
    const seat = int(applied.seat);
    const before = frame.previous || {};
    const sheetOf = (view) => list(view.sheets).find((s) => int(s.seat) === seat) || {};
    const penalised = int(sheetOf(frame.view).penalties) > int(sheetOf(before).penalties);
    const second = before.action === "QWIXX_ACTION_COLOUR_SUM" && int(before.activeSeat) === seat;
    if (move.markWhiteSum) return el("span", {}, "action 1: ", choiceText(move, null));
    if (move.markColourSum) {
      const last = frame.view.lastColourSum;
      const number = last && last.number !== undefined ? int(last.number) : null;
      return el("span", {}, "action 2: ", choiceText(move, number));
    }
    if (move.decline) {
      return el("span", {}, `action ${second ? 2 : 1}: declined`,
        penalised ? el("span", { class: "ba-chip ba-illegal" }, "penalty") : null);
    }
    return "moved";
  }

  addStyle("ba-qwixx-style", CSS);
  botarena.register("qwixx", {
    title: "Qwixx",
    render,
    scores: (view) => bySeat(view.sheets, (sheet) => int(sheet.score)),
    toAct: (view) => list(view.toAct).map(int),
    describeMove,
  });
})();
