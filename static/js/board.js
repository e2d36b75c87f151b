// The live table (templates/matches/table.html): the board's drag, tap and ruler, and the
// glue around the htmx SSE stream. The page works without it, through its forms.
"use strict";

(() => {
  const MOVE_THRESHOLD_PX = 5;
  // The highest SSE ids applied, per kind of message (see app/web/table_view.py).
  const seen = { log: 0, state: 0 };
  let gesture = null; // {kind: "drag" | "ruler", …} while a pointer is down on the board
  let selected = null; // a token chosen by a tap, waiting for its destination
  let deferredState = null; // a state that arrived mid-gesture, applied once it ends

  const tableRoot = () => document.getElementById("table");
  const boardSvg = () => document.getElementById("board");

  // The CSRF header htmx sends with every request, from the page's hx-headers.
  function csrfHeaders() {
    const root = tableRoot();
    const holder = (root && root.closest("[hx-headers]")) || document.querySelector("[hx-headers]");
    try {
      return JSON.parse((holder && holder.getAttribute("hx-headers")) || "{}");
    } catch (_error) {
      return {};
    }
  }

  function newKey() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function stateSeq() {
    const node = document.querySelector("#table-state [data-seq]");
    return node ? Number(node.dataset.seq) : 0;
  }

  // The freshest seq this tab knows: the state on screen, or a panel the server just sent.
  function currentSeq() {
    let seq = stateSeq();
    document.querySelectorAll('#table input[name="seq"]').forEach((input) => {
      seq = Math.max(seq, Number(input.value) || 0);
    });
    return seq;
  }

  // Every form posts the seq of the state on screen: keep them in step with the stream.
  function syncSeqInputs() {
    const seq = stateSeq();
    document.querySelectorAll('#table input[name="seq"]').forEach((input) => {
      if (Number(input.value) < seq) input.value = String(seq);
    });
  }

  // The seq of the last log line on screen (the page's own, or one the stream added).
  function lastLogSeq() {
    const lines = document.querySelectorAll("#log > li[data-seq]");
    const root = tableRoot();
    return lines.length ? Number(lines[lines.length - 1].dataset.seq)
      : Number((root && root.dataset.seq) || 0);
  }

  const started = new WeakSet();
  function start() {
    const root = tableRoot();
    if (!root || started.has(root)) return;
    started.add(root); // a table page (or one restored from history) is on screen
    seen.log = lastLogSeq();
    seen.state = stateSeq();
    scrollLogToEnd(true);
  }

  // — the stream ————————————————————————————————————————————————————————————————

  // When htmx has to open a new EventSource (after the server refused a reconnection), ask
  // only for what this tab has not seen; the browser's own reconnections send Last-Event-ID.
  if (window.htmx) {
    htmx.createEventSource = (url) => {
      const target = new URL(url, window.location.href);
      const root = tableRoot();
      const own = root && new URL(root.getAttribute("sse-connect"), window.location.href);
      if (own && own.pathname === target.pathname) {
        target.searchParams.set("after", String(lastLogSeq()));
      }
      return new EventSource(target.toString(), { withCredentials: true });
    };
  }

  document.addEventListener("htmx:sseBeforeMessage", (event) => {
    const message = event.detail;
    const id = Number(message.lastEventId || 0);
    if (message.type === "log" && id <= seen.log) {
      event.preventDefault(); // already on screen
    } else if (message.type === "logreset" && id < seen.log) {
      event.preventDefault();
    } else if (message.type === "state") {
      if (id < seen.state) {
        event.preventDefault();
      } else if (gesture) {
        deferredState = message.data; // do not pull the board from under a finger
        seen.state = id;
        event.preventDefault();
      }
    }
  });

  document.addEventListener("htmx:sseMessage", (event) => {
    const message = event.detail;
    const id = Number(message.lastEventId || 0);
    if (message.type === "log" || message.type === "logreset") {
      seen.log = Math.max(seen.log, id);
      scrollLogToEnd(false);
    } else if (message.type === "state") {
      seen.state = Math.max(seen.state, id);
      reselect();
      syncSeqInputs();
    }
  });

  function applyDeferredState() {
    const target = document.getElementById("table-state");
    if (deferredState !== null && target && window.htmx) {
      htmx.swap(target, deferredState, { swapStyle: "innerHTML" });
      syncSeqInputs();
    }
    deferredState = null;
    reselect();
  }

  // The board was drawn again: keep the token a tap chose, if it is still ours to move.
  function reselect() {
    const token = selected &&
      document.querySelector(`#board .token[data-token="${selected}"][data-movable="true"]`);
    select(token || null);
  }

  function scrollLogToEnd(force) {
    const log = document.getElementById("log");
    if (!log) return;
    const nearEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
    if (force || nearEnd) log.scrollTop = log.scrollHeight;
  }

  // A refused action comes back as the panel with the reason (422/409): show it, even where
  // the page's htmx configuration would not swap an error response.
  document.addEventListener("htmx:beforeSwap", (event) => {
    const status = event.detail.xhr.status;
    if ((status === 409 || status === 422) && event.target.closest && event.target.closest("#table")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  document.addEventListener("htmx:afterSwap", (event) => {
    if (event.target.id === "action-panel" || event.target.closest?.("#action-panel")) syncSeqInputs();
  });

  // — the board —————————————————————————————————————————————————————————————————

  function boardPoint(svg, clientX, clientY) {
    const point = svg.createSVGPoint();
    point.x = clientX;
    point.y = clientY;
    const local = point.matrixTransform(svg.getScreenCTM().inverse());
    const width = Number(svg.dataset.width);
    const height = Number(svg.dataset.height);
    return {
      x: Math.min(Math.max(local.x, 0), width),
      y: Math.min(Math.max(local.y, 0), height),
    };
  }

  function placeToken(token, x, y) {
    token.setAttribute("transform", `translate(${x} ${y})`);
  }

  function say(message) {
    const alert = document.getElementById("board-alert");
    if (alert) alert.textContent = message || "";
  }

  function select(token) {
    document.querySelectorAll("#board .token.selected").forEach((other) => {
      other.classList.remove("selected");
      other.setAttribute("aria-pressed", "false");
    });
    selected = token ? token.dataset.token : null;
    if (!token) return;
    token.classList.add("selected");
    token.setAttribute("aria-pressed", "true");
    // The move form follows the board, for whoever prefers typing the numbers.
    const choice = document.getElementById("move-token");
    if (choice) choice.value = selected;
  }

  async function postMove(tokenId, x, y) {
    const root = tableRoot();
    const token = document.querySelector(`#board .token[data-token="${tokenId}"]`);
    const body = new URLSearchParams({
      kind: "move", token: tokenId, x: String(Math.round(x)), y: String(Math.round(y)),
      seq: String(currentSeq()), idempotency_key: newKey(),
    });
    say("");
    try {
      const response = await fetch(root.dataset.actionsUrl, {
        method: "POST", body, credentials: "same-origin",
        headers: { ...csrfHeaders(), "HX-Request": "true" },
      });
      if (response.ok) return; // the stream brings the new position to everyone
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const reason = page.querySelector('[role="alert"]');
      say(reason ? reason.textContent.trim() : response.statusText);
    } catch (_error) {
      say(root.dataset.offline);
    }
    if (token) placeToken(token, token.dataset.x, token.dataset.y); // back where it was
  }

  function showRuler(svg, from, to) {
    const ruler = svg.querySelector("#ruler");
    if (!ruler) return;
    const line = ruler.querySelector("line");
    const label = ruler.querySelector("text");
    line.setAttribute("x1", from.x);
    line.setAttribute("y1", from.y);
    line.setAttribute("x2", to.x);
    line.setAttribute("y2", to.y);
    const distance = Math.hypot(to.x - from.x, to.y - from.y);
    label.setAttribute("x", (from.x + to.x) / 2);
    label.setAttribute("y", (from.y + to.y) / 2);
    label.textContent = `${distance.toFixed(1)} ${svg.dataset.unit}`;
    ruler.classList.add("active");
  }

  document.addEventListener("pointerdown", (event) => {
    const svg = event.target.closest && event.target.closest("#board");
    if (!svg || event.button > 0) return;
    const point = boardPoint(svg, event.clientX, event.clientY);
    const token = event.target.closest(".token");
    svg.querySelector("#ruler")?.classList.remove("active");
    if (token && token.dataset.movable === "true") {
      gesture = { kind: "drag", token: token.dataset.token, startX: event.clientX,
        startY: event.clientY, moved: false, point };
    } else if (selected && !token) {
      const tokenId = selected;
      const chosen = document.querySelector(`#board .token[data-token="${tokenId}"]`);
      select(null);
      if (chosen) placeToken(chosen, Math.round(point.x), Math.round(point.y));
      postMove(tokenId, point.x, point.y);
      return;
    } else {
      gesture = { kind: "ruler", from: point };
    }
    svg.setPointerCapture(event.pointerId);
    event.preventDefault();
  });

  document.addEventListener("pointermove", (event) => {
    const svg = boardSvg();
    if (!gesture || !svg) return;
    const point = boardPoint(svg, event.clientX, event.clientY);
    if (gesture.kind === "ruler") {
      showRuler(svg, gesture.from, point);
      return;
    }
    const far = Math.hypot(event.clientX - gesture.startX, event.clientY - gesture.startY);
    if (far >= MOVE_THRESHOLD_PX) gesture.moved = true;
    const token = svg.querySelector(`.token[data-token="${gesture.token}"]`);
    if (gesture.moved && token) {
      placeToken(token, point.x, point.y);
      showRuler(svg, { x: Number(token.dataset.x), y: Number(token.dataset.y) }, point);
    }
    gesture.point = point;
  });

  function endGesture(event) {
    const done = gesture;
    gesture = null;
    const svg = boardSvg();
    if (!done || !svg) return;
    if (done.kind === "drag") {
      const token = svg.querySelector(`.token[data-token="${done.token}"]`);
      if (done.moved && event.type === "pointerup") {
        const point = boardPoint(svg, event.clientX, event.clientY);
        svg.querySelector("#ruler")?.classList.remove("active");
        postMove(done.token, point.x, point.y);
      } else if (!done.moved) {
        select(selected === done.token ? null : token); // a tap: now tap the destination
      } else if (token) {
        placeToken(token, token.dataset.x, token.dataset.y);
      }
    }
    applyDeferredState();
  }

  document.addEventListener("pointerup", endGesture);
  document.addEventListener("pointercancel", endGesture);

  // Keyboard: Enter or Space on one's own token selects it (then the move form, or a tap).
  document.addEventListener("keydown", (event) => {
    const token = event.target.closest && event.target.closest("#board .token[data-movable]");
    if (!token || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    select(selected === token.dataset.token ? null : token);
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
  document.addEventListener("htmx:load", start);
})();
