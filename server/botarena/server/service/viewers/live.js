/* The botarena web UI's live match page: viewer.js's Viewer fed by server-sent events.
 *
 * Loaded after viewer.js, and only by the server's pages of a running match (an offline
 * replay page loads nothing from anywhere). The stream's "step" events each carry a
 * botarena.v1.Replay in base64 binary protobuf: the match as it is now and the next step,
 * a spectator's view only (no seat's view, no seed while the match runs); "end" says the
 * match is over, and the page then fetches the full replay (every seat's view) and shows
 * it in the same viewer. Plain modern JavaScript: no framework.
 */
"use strict";

(() => {
  const { el, int, list } = botarena;

  /**
   * Show a running match live: its steps arrive as server-sent events ("step": a
   * botarena.v1.Replay in base64 binary protobuf holding the match as it is now and the
   * next step, a spectator's only), and once it has ended ("end") the full replay
   * replaces them. root's data-live and data-replay attributes are the two addresses.
   */
  function start(root = document.getElementById("botarena-viewer")) {
    const schema = JSON.parse(document.getElementById("botarena-schema").textContent);
    const replay = { match: {}, steps: [] };
    let viewer = null;
    let pending = null;
    const show = () => {
      pending = null;
      if (!replay.steps.length) return;
      // A copy: the viewer tells whether it was at the end from the steps it was given.
      const shown = { match: replay.match, steps: replay.steps.slice() };
      try {
        if (viewer === null) {
          viewer = new botarena.Viewer(root, shown, true);
          viewer.listen();
          viewer.go(viewer.steps.length - 1);
          window.botarenaViewer = viewer;
          root.dataset.ready = "true";
        } else {
          viewer.load(shown);
        }
      } catch (error) {
        console.error(error);
        root.replaceChildren(el("div", { class: "ba-error", "data-testid": "error" }, `This match cannot be shown: ${error.message}`));
        root.dataset.ready = "error";
      }
    };
    const source = new EventSource(root.dataset.live);
    root.dataset.live = "connecting";
    source.addEventListener("open", () => { root.dataset.live = "live"; });
    source.addEventListener("step", (message) => {
      const bytes = Uint8Array.from(atob(message.data), (c) => c.charCodeAt(0));
      const chunk = botarenaProtobuf.decode(schema, bytes);
      if (chunk.match) replay.match = chunk.match;
      for (const step of list(chunk.steps)) {
        // A reconnected stream goes on after the last version seen, so nothing repeats,
        // but a step already shown is never shown twice.
        const version = int(step.event && step.event.stateVersion);
        if (version === replay.steps.length) replay.steps.push(step);
      }
      // Many steps in a burst (a page opened mid-match) are drawn once.
      if (pending === null) pending = setTimeout(show, 30);
    });
    source.addEventListener("end", async () => {
      source.close();
      if (pending !== null) { clearTimeout(pending); show(); }
      try {
        const response = await fetch(root.dataset.replay);
        if (!response.ok) throw new Error(`the replay answered ${response.status}`);
        const full = await botarena.decodeReplayFile(new Uint8Array(await response.arrayBuffer()));
        if (viewer === null) { replay.match = full.match; replay.steps = full.steps; show(); }
        else viewer.load(full);
      } catch (error) {
        console.warn(`The full replay did not load: ${error.message}`);
      }
      root.dataset.live = "ended";
    });
    source.addEventListener("error", () => {
      // The browser reconnects by itself (Last-Event-ID) unless the server refused.
      if (source.readyState === EventSource.CLOSED && root.dataset.live !== "ended") {
        root.dataset.live = "closed";
        if (viewer === null) {
          root.replaceChildren(el("div", { class: "ba-error", "data-testid": "error" }, "The live stream is not available (too many viewers, or the server stopped). Reload the page to try again."));
          root.dataset.ready = "error";
        }
      }
    });
    return source;
  }

  window.botarenaLive = Object.freeze({ start });
})();
