/* The botarena replay viewer: the page around a game's renderer.
 *
 * It reads a botarena.v1.Replay (binary protobuf, which protobuf.js decodes into its
 * proto3 JSON object; docs/replays.md) and shows one step at a time: the game's renderer
 * draws the board, the viewer draws everything every game has (players, a score chart,
 * the move list, the controls). Renderers register themselves
 * with `botarena.register(game, renderer)`; the contract is in docs/replays.md,
 * "Browser renderers". Plain modern JavaScript: no framework, no network.
 */
"use strict";

(() => {
  const SVG_NS = "http://www.w3.org/2000/svg";
  const SEAT_COLOURS = ["#60a5fa", "#f472b6", "#34d399", "#fb923c", "#c084fc"];
  const STEP_MS = 700;
  const renderers = new Map();

  // ------------------------------------------------------------------ helpers

  function append(node, children) {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) append(node, child);
      else node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function setAttributes(node, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "on") {
        for (const [type, handler] of Object.entries(value)) node.addEventListener(type, handler);
      } else if (key === "style" && typeof value === "object") {
        for (const [name, css] of Object.entries(value)) {
          if (name.startsWith("--")) node.style.setProperty(name, String(css));
          else node.style[name] = css;
        }
      } else {
        node.setAttribute(key, value === true ? "" : String(value));
      }
    }
    return node;
  }

  /** An HTML element: el("div", {class: "x", "data-n": 3}, child, "text", [more]). */
  function el(tag, attrs, ...children) {
    return append(setAttributes(document.createElement(tag), attrs), children);
  }

  /** An SVG element, like el(); svg("title", {}, "text") gives a native tooltip. */
  function svg(tag, attrs, ...children) {
    return append(setAttributes(document.createElementNS(SVG_NS, tag), attrs), children);
  }

  /** A proto3 JSON number (int64 arrives as a string; a default 0 is left out). */
  function int(value) {
    return value === undefined || value === null ? 0 : Number(value);
  }

  /** A proto3 JSON repeated field (an empty list is left out). */
  function list(value) {
    return Array.isArray(value) ? value : [];
  }

  /** The values of `items` (messages with a `seat` field) by seat: bySeat(view.seats, (s) => s.score). */
  function bySeat(items, value) {
    const all = list(items);
    return all.map((_, seat) => value(all.find((item) => int(item.seat) === seat) || {}));
  }

  /** A proto3 JSON Duration ("0.030s") in seconds; null when absent. */
  function seconds(value) {
    if (value === undefined || value === null) return null;
    return Number(String(value).replace(/s$/, ""));
  }

  /** "QWIRKLE_COLOUR_RED" with prefix "QWIRKLE_COLOUR_" -> "red". */
  function enumLabel(value, prefix) {
    if (!value) return "";
    const name = String(value).startsWith(prefix) ? String(value).slice(prefix.length) : value;
    return String(name).toLowerCase().replace(/_/g, " ");
  }

  /** Add a renderer's stylesheet to the page once (renderers ship their CSS in their JS). */
  function addStyle(id, css) {
    if (document.getElementById(id)) return;
    document.head.append(el("style", { id }, css));
  }

  function seatColour(seat) {
    return SEAT_COLOURS[int(seat) % SEAT_COLOURS.length];
  }

  function plural(count, word, many) {
    return `${count} ${count === 1 ? word : many || word + "s"}`;
  }

  function formatThink(secondsValue) {
    if (secondsValue === null) return "";
    if (secondsValue < 1) return `${Math.round(secondsValue * 1000)} ms`;
    return `${secondsValue.toFixed(secondsValue < 10 ? 2 : 1)} s`;
  }

  function ordinal(rank) {
    return `${rank}${{ 1: "st", 2: "nd", 3: "rd" }[rank] || "th"}`;
  }

  /** The game's case of a PlayerView (or Move) oneof: the one key besides "seat". */
  function gameCase(message) {
    return Object.keys(message || {}).find((key) => key !== "seat") || null;
  }

  const EVENT_KINDS = ["matchStarted", "moveApplied", "decisionRequested", "seatForfeited", "matchFinished"];

  /** The case of a MatchEvent's `kind` oneof ("moveApplied", ...). */
  function eventKind(event) {
    return EVENT_KINDS.find((kind) => event && kind in event) || "";
  }

  const END_REASONS = {
    went_out: "a player went out",
    blocked: "nobody could play",
    penalties: "four penalties",
    two_rows_locked: "two rows locked",
    completed: "all rounds played",
    forfeit: "fewer than two seats left",
    abandoned: "nobody played",
  };

  function endReason(reason) {
    return END_REASONS[reason] || String(reason || "").replace(/_/g, " ");
  }

  const ICONS = {
    first: "M5 4h2v16H5zM20 4v16L9 12z",
    prev: "M6 4h2v16H6zM20 4v16L10 12z",
    play: "M7 4v16l13-8z",
    pause: "M6 4h4v16H6zM14 4h4v16h-4z",
    next: "M16 4h2v16h-2zM4 4v16l10-8z",
    last: "M17 4h2v16h-2zM4 4v16l11-8z",
  };

  function icon(name) {
    return svg("svg", { viewBox: "0 0 24 24", "aria-hidden": "true" }, svg("path", { d: ICONS[name] }));
  }

  // ------------------------------------------------------------------ data

  /**
   * Decode the replay embedded in a <script type="application/octet-stream"> element: a
   * replay file's bytes in base64, gzip'd binary protobuf (or an older file's proto3
   * JSON), into its proto3 JSON object. `schema` is the <script type="application/json">
   * holding the protobuf decoder's table (viewers/_schema.py).
   */
  async function decodeReplay(element, schema = document.getElementById("botarena-schema")) {
    const text = element.textContent.trim();
    if (element.dataset.encoding === "json") return JSON.parse(text);
    if (typeof DecompressionStream === "undefined") {
      throw new Error("This browser cannot unpack the replay (no DecompressionStream).");
    }
    return decodeReplayFile(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)), schema);
  }

  /** Decode a replay file's bytes (gzip'd binary protobuf, or proto3 JSON) likewise. */
  async function decodeReplayFile(packed, schema = document.getElementById("botarena-schema")) {
    const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    // Proto3 JSON starts with "{" after any white space; binary protobuf never does.
    const first = bytes.findIndex((byte) => byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d);
    if (first >= 0 && bytes[first] === 0x7b) return JSON.parse(new TextDecoder().decode(bytes));
    if (!schema) throw new Error("The page has no schema to decode the replay with.");
    return botarenaProtobuf.decode(JSON.parse(schema.textContent), bytes);
  }

  // ------------------------------------------------------------------ the viewer

  class Viewer {
    constructor(root, replay, live = false) {
      this.root = root;
      this.live = live;
      this.index = -1;
      this.timer = null;
      this.speed = 1;
      this.load(replay);
    }

    /** Show `replay` (a live page's grown one): kept at its step, or at the end if it was there. */
    load(replay) {
      const following = this.index < 0 || this.index === this.steps.length - 1;
      const index = this.index;
      this.pause();
      this.replay = replay;
      this.match = replay.match || {};
      this.steps = list(replay.steps);
      if (!this.steps.length) throw new Error("The replay has no steps.");
      this.game = gameCase(this.steps[0].spectatorView);
      this.renderer = renderers.get(this.game);
      if (!this.renderer) throw new Error(`No renderer for the game "${this.game}".`);
      const config = this.match.config || {};
      const count = int(config.seatCount) || list(this.match.seats).length;
      const names = list(config.seatNames);
      const statuses = list(this.match.seats);
      this.seats = Array.from({ length: count }, (_, seat) => {
        const status = statuses.find((s) => int(s.seat) === seat) || {};
        return { seat, name: status.displayName || names[seat] || `seat ${seat}`, status };
      });
      this.views = this.steps.map((step) => (step.spectatorView || {})[this.game] || {});
      this.seatViews = this.steps.map((step) =>
        list(step.seatViews).length ? list(step.seatViews).map((view) => view[this.game] || {}) : null,
      );
      this.scores = this.views.map((view) => this.renderer.scores(view).map(int));
      this.build();
      this.rows = this.steps.map((step, index) => this.moveRow(step, index));
      this.moveList.replaceChildren(...this.rows);
      this.drawChart();
      if (index >= 0) {
        this.index = -1;
        this.go(following ? this.steps.length - 1 : index);
      }
    }

    frame(index) {
      const step = this.steps[index];
      return {
        game: this.game,
        version: int(step.event && step.event.stateVersion),
        index,
        event: step.event || null,
        view: this.views[index],
        seatViews: this.seatViews[index],
        previous: index > 0 ? this.views[index - 1] : null,
        final: this.views[this.views.length - 1],
        seats: this.seats,
      };
    }

    // ---- layout

    build() {
      const outcome = this.match.outcome || {};
      const results = list(outcome.results);
      const names = this.seats.map((s) => s.name);
      const title = this.renderer.title || this.game;
      const finished = this.match.state === "STATE_FINISHED" || this.match.state === "STATE_ABANDONED";
      let result = this.live && !finished ? "Live" : "Not finished";
      if (this.match.state === "STATE_ABANDONED") {
        result = "Abandoned: no winner";
      } else if (results.length) {
        const winners = results.filter((r) => int(r.rank) === 1).map((r) => names[int(r.seat)]);
        const scores = this.seats.map((s) => {
          const r = results.find((x) => int(x.seat) === s.seat);
          return r ? int(r.score) : 0;
        });
        result = `${winners.join(" & ")} ${winners.length > 1 ? "share the win" : "wins"} · ${scores.join(" – ")}`;
      }
      const config = this.match.config || {};
      const sub = [
        this.match.name,
        config.seed !== undefined ? `seed ${config.seed}` : null,
        this.match.createTime ? new Date(this.match.createTime).toLocaleString() : null,
      ].filter(Boolean).join(" · ");

      this.status = el("div", { class: "ba-status", "data-testid": "status" });
      this.board = el("div", { class: "ba-board", "data-testid": "board" });
      this.players = el("div", { "data-testid": "players" });
      this.chart = el("div", { "data-testid": "chart" });
      this.moveList = el("ol", { "data-testid": "moves" });
      this.slider = el("input", {
        class: "ba-slider", type: "range", min: 0, max: this.steps.length - 1, value: 0,
        "aria-label": "Version", on: { input: () => this.go(Number(this.slider.value)) },
      });
      this.counter = el("span", { class: "ba-counter", "data-testid": "counter" });
      this.playButton = el("button", {
        class: "ba-button ba-play", title: "Play / pause (space)", "aria-label": "Play",
        on: { click: () => this.toggle() },
      }, icon("play"));
      const button = (name, label, action) =>
        el("button", { class: "ba-button", title: label, "aria-label": label, on: { click: action } }, icon(name));
      const speed = el("select", {
        class: "ba-speed", "aria-label": "Speed",
        on: { change: (e) => { this.speed = Number(e.target.value); if (this.timer) { this.pause(); this.play(); } } },
      }, ...[0.5, 1, 2, 4, 8].map((s) => el("option", { value: s, selected: s === 1 }, `${s}×`)));

      this.root.replaceChildren(
        el("div", { class: "ba-app", "data-game": this.game },
          el("header", { class: "ba-header" },
            this.root.dataset.index
              ? el("a", { class: "ba-brand", href: this.root.dataset.index, title: "Every game of the run" }, "← all games")
              : el("div", { class: "ba-brand" }, "botarena"),
            el("div", { class: "ba-titles" },
              el("h1", {}, `${title}: ${names.join(" vs ")}`),
              el("div", { class: "ba-sub" }, sub)),
            el("div", { class: "ba-result", "data-testid": "result" },
              result,
              finished && outcome.reason ? el("span", { class: "ba-reason", "data-testid": "end-reason" },
                `(${endReason(outcome.reason)})`) : null)),
          el("main", { class: "ba-main" },
            el("section", { class: "ba-stage" }, this.status, this.board),
            el("aside", { class: "ba-side" },
              el("div", { class: "ba-panel ba-players" }, el("h2", {}, "Players"), this.players),
              el("div", { class: "ba-panel ba-chart" }, el("h2", {}, "Score over time"), this.chart),
              el("div", { class: "ba-panel ba-moves" }, el("h2", {}, "Moves"), this.moveList))),
          el("footer", { class: "ba-controls" },
            button("first", "First (Home)", () => this.go(0)),
            button("prev", "Back (←)", () => this.go(this.index - 1)),
            this.playButton,
            button("next", "Forward (→)", () => this.go(this.index + 1)),
            button("last", "Last (End)", () => this.go(this.steps.length - 1)),
            this.slider,
            this.counter,
            speed,
            el("span", { class: "ba-help" },
              el("kbd", {}, "←"), " ", el("kbd", {}, "→"), " step · ",
              el("kbd", {}, "space"), " play · ", el("kbd", {}, "Home"), " ", el("kbd", {}, "End")))));
    }

    // ---- the move list

    moveRow(step, index) {
      const event = step.event || {};
      const frame = this.frame(index);
      const row = el("li", { class: "ba-move", "data-version": frame.version, on: { click: () => this.go(index) } });
      const chips = [];
      let seat = null;
      let what;
      let time = "";
      if (event.moveApplied) {
        const applied = event.moveApplied;
        seat = int(applied.seat);
        const move = (applied.move || {})[this.game] || {};
        what = this.renderer.describeMove ? this.renderer.describeMove(move, frame) : gameCase(move);
        time = formatThink(seconds(applied.thinkTime));
        if (applied.byTimeoutPolicy) {
          chips.push(el("span", { class: "ba-chip ba-stand-in", title: "The server played this move for the seat (timeout or too many illegal moves)" }, "stand-in"));
        }
      } else if (event.seatForfeited) {
        seat = int(event.seatForfeited.seat);
        what = "forfeited";
        chips.push(el("span", { class: "ba-chip ba-forfeit" }, `forfeit: ${String(event.seatForfeited.reason || "").replace(/_/g, " ")}`));
      } else if (event.matchStarted) {
        row.classList.add("ba-system");
        what = "Match started";
      } else if (event.matchFinished) {
        row.classList.add("ba-system", "ba-end");
        const outcome = event.matchFinished.outcome || {};
        what = `Game over: ${endReason(outcome.reason)}`;
      } else {
        row.classList.add("ba-system");
        what = eventKind(event) || "event";
      }
      const who = seat === null ? null : el("span", { class: "ba-who", style: { color: seatColour(seat) } }, this.seats[seat] ? this.seats[seat].name : `seat ${seat}`);
      append(row, [
        el("span", { class: "ba-v" }, frame.version),
        el("span", { class: "ba-dot", style: { background: seat === null ? "transparent" : seatColour(seat) } }),
        el("span", { class: "ba-what" }, who, what, chips),
        el("span", { class: "ba-time", title: "Think time" }, time),
      ]);
      row.dataset.kind = eventKind(event);
      return row;
    }

    // ---- players

    drawPlayers(index) {
      const scores = this.scores[index];
      const toAct = new Set(this.renderer.toAct ? this.renderer.toAct(this.views[index]).map(int) : []);
      const last = index === this.steps.length - 1;
      const results = list((this.match.outcome || {}).results);
      const forfeitedNow = new Map();
      for (let i = 0; i <= index; i += 1) {
        const event = this.steps[i].event || {};
        if (event.seatForfeited) forfeitedNow.set(int(event.seatForfeited.seat), event.seatForfeited.reason || "");
      }
      this.players.replaceChildren(...this.seats.map((seat) => {
        const status = seat.status || {};
        const chips = [];
        const result = results.find((r) => int(r.seat) === seat.seat);
        if (last && result) {
          const rank = int(result.rank);
          chips.push(el("span", { class: rank === 1 && this.match.state !== "STATE_ABANDONED" ? "ba-chip ba-win" : "ba-chip" }, rank === 1 && this.match.state !== "STATE_ABANDONED" ? "winner" : ordinal(rank)));
        }
        if (toAct.has(seat.seat) && !last) chips.push(el("span", { class: "ba-chip ba-turn" }, "to move"));
        if (forfeitedNow.has(seat.seat)) chips.push(el("span", { class: "ba-chip ba-forfeit" }, `forfeit: ${forfeitedNow.get(seat.seat).replace(/_/g, " ")}`));
        const counts = [
          [int(status.standInMoves), "stand-in", "ba-stand-in"],
          [int(status.illegalMoves), "illegal", "ba-illegal"],
          [int(status.timeouts), "timeout", "ba-stand-in"],
        ];
        for (const [count, word, cls] of counts) {
          if (count) chips.push(el("span", { class: `ba-chip ${cls}`, title: "In the whole match" }, plural(count, word, word === "illegal" ? "illegal" : undefined)));
        }
        return el("div", { class: `ba-player${toAct.has(seat.seat) && !last ? " ba-to-act" : ""}`, "data-seat": seat.seat },
          el("span", { class: "ba-dot", style: { background: seatColour(seat.seat) } }),
          el("span", { class: "ba-player-name" }, seat.name, el("span", { class: "ba-seat" }, `seat ${seat.seat}`)),
          el("span", { class: "ba-player-score", "data-testid": `score-${seat.seat}` }, scores[seat.seat] ?? 0),
          chips.length ? el("div", { class: "ba-player-chips" }, chips) : null);
      }));
    }

    // ---- the score chart

    drawChart() {
      const width = 336;
      const height = 130;
      const pad = { left: 30, right: 30, top: 8, bottom: 16 };
      const all = this.scores.flat();
      const high = Math.max(1, ...all);
      const low = Math.min(0, ...all);
      const n = Math.max(1, this.steps.length - 1);
      const x = (i) => pad.left + (i / n) * (width - pad.left - pad.right);
      const y = (v) => pad.top + (1 - (v - low) / (high - low)) * (height - pad.top - pad.bottom);
      const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "Score over time", preserveAspectRatio: "none" });
      chart.append(
        svg("line", { class: "ba-axis", x1: pad.left, x2: width - pad.right, y1: y(low), y2: y(low) }),
        svg("line", { class: "ba-axis", x1: pad.left, x2: pad.left, y1: pad.top, y2: y(low) }),
        svg("text", { x: pad.left - 4, y: y(high) + 4, "text-anchor": "end" }, high),
        svg("text", { x: pad.left - 4, y: y(low), "text-anchor": "end" }, low),
        svg("text", { x: pad.left, y: height - 3 }, "v0"),
        svg("text", { x: width - pad.right, y: height - 3, "text-anchor": "end" }, `v${n}`),
      );
      if (low < 0) chart.append(svg("line", { class: "ba-axis", x1: pad.left, x2: width - pad.right, y1: y(0), y2: y(0), "stroke-dasharray": "2 3" }));
      const finals = this.scores[this.scores.length - 1];
      // The final scores' labels, nudged apart so that close scores stay readable.
      const labels = this.seats.map((seat) => ({ seat: seat.seat, value: finals[seat.seat] ?? 0 }))
        .sort((a, b) => b.value - a.value);
      labels.forEach((label, i) => {
        label.y = Math.max(y(label.value) + 3, i ? labels[i - 1].y + 10 : -Infinity);
      });
      for (const seat of this.seats) {
        const points = this.scores.map((scores, i) => `${x(i).toFixed(1)},${y(scores[seat.seat] ?? 0).toFixed(1)}`);
        chart.append(svg("polyline", { points: points.join(" "), fill: "none", stroke: seatColour(seat.seat), "stroke-width": 2, "stroke-linejoin": "round", "vector-effect": "non-scaling-stroke" }));
      }
      for (const label of labels) {
        chart.append(svg("text", { x: width - pad.right + 3, y: label.y, style: `fill:${seatColour(label.seat)}` }, label.value));
      }
      this.cursor = svg("line", { class: "ba-cursor", y1: pad.top, y2: y(low), x1: pad.left, x2: pad.left });
      chart.append(this.cursor);
      chart.addEventListener("click", (event) => {
        const box = chart.getBoundingClientRect();
        const fraction = ((event.clientX - box.left) / box.width * width - pad.left) / (width - pad.left - pad.right);
        this.go(Math.round(Math.min(1, Math.max(0, fraction)) * n));
      });
      this.chartX = x;
      this.chart.replaceChildren(chart);
    }

    // ---- stepping

    go(index) {
      const target = Math.max(0, Math.min(this.steps.length - 1, Math.round(Number(index) || 0)));
      if (target === this.index) return;
      const previous = this.rows[this.index];
      if (previous) previous.classList.remove("ba-current");
      this.index = target;
      const frame = this.frame(target);
      this.board.replaceChildren();
      try {
        this.renderer.render(this.board, frame);
      } catch (error) {
        console.error(error);
        this.board.replaceChildren(el("div", { class: "ba-error" }, `The ${this.game} renderer failed at version ${frame.version}: ${error.message}`));
      }
      const row = this.rows[target];
      row.classList.add("ba-current");
      const think = row.querySelector(".ba-time").textContent;
      this.status.replaceChildren(append(el("span", {}), [
        el("span", { class: "ba-version" }, `v${frame.version} `),
        Array.from(row.querySelector(".ba-what").childNodes, (node) => node.cloneNode(true)),
        think ? el("span", { class: "ba-version" }, ` · thought ${think}`) : null,
      ]));
      this.drawPlayers(target);
      this.cursor.setAttribute("x1", this.chartX(target));
      this.cursor.setAttribute("x2", this.chartX(target));
      this.slider.value = target;
      this.counter.replaceChildren("v ", el("b", {}, frame.version), ` / ${this.steps.length - 1}`);
      this.root.dataset.version = frame.version;
      if (location.hash !== `#v=${frame.version}`) history.replaceState(null, "", `#v=${frame.version}`);
      // Last: the players' panel above may have changed the list's height.
      row.scrollIntoView({ block: "nearest" });
      if (target === this.steps.length - 1) this.pause();
    }

    play() {
      if (this.timer) return;
      if (this.index >= this.steps.length - 1) this.go(0);
      this.timer = setInterval(() => this.go(this.index + 1), STEP_MS / this.speed);
      this.playButton.replaceChildren(icon("pause"));
      this.playButton.setAttribute("aria-label", "Pause");
    }

    pause() {
      if (!this.timer) return;
      clearInterval(this.timer);
      this.timer = null;
      this.playButton.replaceChildren(icon("play"));
      this.playButton.setAttribute("aria-label", "Play");
    }

    toggle() {
      if (this.timer) this.pause();
      else this.play();
    }

    versionFromHash() {
      const match = /(?:^#|&)v=(\d+)/.exec(location.hash);
      if (!match) return null;
      const version = Number(match[1]);
      const index = this.steps.findIndex((step) => int(step.event && step.event.stateVersion) >= version);
      return index === -1 ? this.steps.length - 1 : index;
    }

    listen() {
      document.addEventListener("keydown", (event) => {
        if (event.target instanceof HTMLSelectElement || event.altKey || event.ctrlKey || event.metaKey) return;
        // A focused button keeps its own Space and Enter (it clicks).
        if (event.target instanceof HTMLButtonElement && (event.key === " " || event.key === "Enter")) return;
        const jump = event.shiftKey ? 10 : 1;
        const actions = {
          ArrowLeft: () => this.go(this.index - jump),
          ArrowRight: () => this.go(this.index + jump),
          Home: () => this.go(0),
          End: () => this.go(this.steps.length - 1),
          " ": () => this.toggle(),
        };
        const action = actions[event.key];
        if (!action) return;
        event.preventDefault();
        if (event.key !== " ") this.pause();
        action();
      });
      window.addEventListener("hashchange", () => {
        const index = this.versionFromHash();
        if (index !== null) this.go(index);
      });
    }
  }

  // ------------------------------------------------------------------ start-up

  /** Show the replay of the data element in root; the page's entry point. */
  async function start(root = document.getElementById("botarena-viewer"), data = document.getElementById("botarena-replay")) {
    try {
      const replay = await decodeReplay(data);
      const viewer = new Viewer(root, replay);
      viewer.listen();
      const fromHash = viewer.versionFromHash();
      viewer.go(fromHash === null ? viewer.steps.length - 1 : fromHash);
      window.botarenaViewer = viewer;
      root.dataset.ready = "true";
      return viewer;
    } catch (error) {
      console.error(error);
      root.replaceChildren(el("div", { class: "ba-error", "data-testid": "error" }, `This replay cannot be shown: ${error.message}`));
      root.dataset.ready = "error";
      return null;
    }
  }

  window.botarena = Object.freeze({
    register(game, renderer) {
      if (typeof renderer.render !== "function" || typeof renderer.scores !== "function") {
        throw new Error(`The ${game} renderer needs render(root, frame) and scores(view).`);
      }
      renderers.set(game, renderer);
    },
    renderer: (game) => renderers.get(game) || null,
    el, svg, int, list, bySeat, seconds, enumLabel, seatColour, plural, endReason, addStyle,
    decodeReplay, decodeReplayFile, Viewer, start,
  });
})();
