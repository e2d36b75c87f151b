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
    setUpTabs(root);
    linkActionErrors(document);
    announceTurn();
    setUpBoardView();
    scrollLogToEnd(true);
    const log = document.getElementById("log");
    if (log) {
      // Only the reader's own scrolling stops the following (not a reflow, a font, a swap).
      let touched = 0;
      ["wheel", "touchstart", "pointerdown", "keydown"].forEach((type) => {
        log.addEventListener(type, () => { touched = Date.now(); }, { passive: true });
      });
      log.addEventListener("scroll", () => {
        if (logNearEnd()) {
          following = true;
          showNews(false);
        } else if (Date.now() - touched < 1500) {
          following = false;
        } else if (following) {
          log.scrollTop = log.scrollHeight;
        }
      }, { passive: true });
      if (window.ResizeObserver) {
        new ResizeObserver(() => { if (following) log.scrollTop = log.scrollHeight; }).observe(log);
      }
    }
  }

  // — panels: tabs on a phone, the journal or the discussion on a wide screen —————————————

  function setUpTabs(root) {
    const tabs = root.querySelector(".table-tabs");
    if (!tabs) return;
    tabs.hidden = false;
    root.classList.add("tabbed");
    tabs.addEventListener("click", (event) => {
      const button = event.target.closest("[data-tab]");
      if (button) showTab(button.dataset.tab);
    });
    tabs.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
      const buttons = Array.from(tabs.querySelectorAll("[data-tab]"))
        .filter((button) => button.offsetParent !== null);
      const index = buttons.indexOf(document.activeElement);
      if (index < 0) return;
      const next = buttons[(index + (event.key === "ArrowRight" ? 1 : buttons.length - 1)) % buttons.length];
      next.focus();
      showTab(next.dataset.tab);
    });
  }

  function showTab(name) {
    const root = tableRoot();
    if (!root) return;
    root.dataset.tab = name;
    if (name === "log" || name === "chat") root.dataset.talk = name;
    root.querySelectorAll(".table-tabs [data-tab]").forEach((button) => {
      const wide = window.matchMedia("(min-width: 64rem)").matches;
      const on = wide && (name === "actions" || name === "state")
        ? button.dataset.tab === root.dataset.talk : button.dataset.tab === name;
      button.setAttribute("aria-selected", on ? "true" : "false");
    });
    // A phone: the tabs go to the top of the screen, the chosen panel fills the rest.
    const tabs = root.querySelector(".table-tabs");
    if (tabs && !window.matchMedia("(min-width: 64rem)").matches &&
        tabs.getBoundingClientRect().top > 0) {
      tabs.scrollIntoView({ block: "start" });
    }
    if (name === "log") {
      scrollLogToEnd(true);
      root.querySelector(".tab-news")?.setAttribute("hidden", "");
    }
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

  // An undo (or redo) sends the whole journal again: merge it into the one on screen, line by
  // line (by id), so a screen reader's log hears only what changed — a line struck through
  // changes its class in place, a new line is added, a line no longer there goes.
  // Every undo button carries the seq it was drawn at, and the journal and the stream lay
  // their lines out with different blank space: neither is a change of the line itself.
  function withoutSeq(html) {
    return html.replace(/(name="seq" value=")\d+"/g, '$1"').replace(/\s+/g, " ").trim();
  }

  function mergeLog(html) {
    const log = document.getElementById("log");
    if (!log) return false;
    const fresh = document.createElement("ol");
    fresh.innerHTML = html;
    const keep = new Set();
    let previous = null;
    for (const line of Array.from(fresh.children)) {
      if (!line.id) return false; // not a journal we know how to merge: let htmx swap it
      keep.add(line.id);
      const old = document.getElementById(line.id);
      if (!old || old.parentNode !== log) {
        if (previous) previous.after(line); else log.prepend(line);
        previous = line;
      } else if (withoutSeq(old.innerHTML) === withoutSeq(line.innerHTML)) {
        if (old.className !== line.className) old.className = line.className;
        old.querySelectorAll('input[name="seq"]').forEach((input) => {
          input.value = line.querySelector('input[name="seq"]')?.value || input.value;
        });
        previous = old;
      } else {
        old.replaceWith(line);
        previous = line;
      }
    }
    Array.from(log.children).forEach((line) => { if (!keep.has(line.id)) line.remove(); });
    if (window.htmx) htmx.process(log);
    return true;
  }

  // — moves glide: a token the new state puts elsewhere slides from where it stood (the
  // board is drawn again by each live state; the trail lines are the server's). Not for a
  // reader who asked for less motion (prefers-reduced-motion), nor for the hand that
  // dragged the token (it is already there).
  const lessMotion = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)")
    : null;
  let glideFrom = null;
  const handPlaced = new Map(); // token → where a drag or the keyboard put it down

  function tokenPlaces() {
    const places = new Map();
    document.querySelectorAll("#board .token[data-token]").forEach((token) => {
      const id = token.dataset.token;
      const drawn = { x: Number(token.dataset.x), y: Number(token.dataset.y) };
      places.set(id, handPlaced.get(id) || drawn);
    });
    handPlaced.clear(); // the next state is the one that carries the move
    return places;
  }

  function glide(before) {
    if (!before || (lessMotion && lessMotion.matches)) return;
    document.querySelectorAll("#board .token[data-token]").forEach((token) => {
      const was = before.get(token.dataset.token);
      const x = Number(token.dataset.x);
      const y = Number(token.dataset.y);
      if (!was || (Math.abs(was.x - x) < 1e-6 && Math.abs(was.y - y) < 1e-6)) return;
      // CSS translate in an SVG counts in the board's own units (its viewBox).
      token.style.transform = `translate(${was.x}px, ${was.y}px)`;
      token.getBoundingClientRect(); // the start position is drawn before the move begins
      token.classList.add("gliding");
      token.style.transform = `translate(${x}px, ${y}px)`;
      const done = () => {
        token.classList.remove("gliding");
        token.style.transform = "";
      };
      token.addEventListener("transitionend", done, { once: true });
      window.setTimeout(done, 1500); // a hidden tab sends no transitionend
    });
  }

  document.addEventListener("htmx:sseBeforeMessage", (event) => {
    const message = event.detail;
    const id = Number(message.lastEventId || 0);
    pending = snapshot();
    if (message.type === "state") glideFrom = tokenPlaces();
    if (message.type === "log" && id <= seen.log) {
      event.preventDefault(); // already on screen
    } else if (message.type === "logreset" && id < seen.log) {
      event.preventDefault();
    } else if (message.type === "logreset" && mergeLog(message.data)) {
      event.preventDefault(); // merged line by line: no whole journal read out again
      seen.log = Math.max(seen.log, id);
      restore(pending);
      pending = null;
      scrollLogToEnd(false);
    } else if (message.type === "state") {
      if (id < seen.state) {
        event.preventDefault();
      } else if (gesture || carried) {
        deferredState = message.data; // do not pull the board from under a finger or a key
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
      const root = tableRoot();
      if (root) root.dataset.live = "true"; // the stream's first state is on screen
      setUpBoardView();
      glide(glideFrom);
      glideFrom = null;
      reselect();
      syncSeqInputs();
    }
    restore(pending);
    pending = null;
    announceTurn();
  });

  function applyDeferredState() {
    const target = document.getElementById("table-state");
    if (deferredState !== null && target && window.htmx) {
      const snap = snapshot();
      const before = tokenPlaces();
      htmx.swap(target, deferredState, { swapStyle: "innerHTML" });
      setUpBoardView();
      glide(before);
      syncSeqInputs();
      restore(snap);
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

  // The journal follows the newest entry, unless the reader scrolled up: then a "new
  // entries" button brings them back.
  let following = true; // false once the reader scrolls up; true again at the end
  function logNearEnd() {
    const log = document.getElementById("log");
    return !log || log.scrollHeight - log.scrollTop - log.clientHeight < 60;
  }

  function showNews(on) {
    const button = document.getElementById("log-news");
    if (button) button.hidden = !on;
  }

  function scrollLogToEnd(force) {
    const log = document.getElementById("log");
    if (!log) return;
    const hidden = log.offsetParent === null; // a phone showing another tab
    if (force || following || hidden) {
      log.scrollTop = log.scrollHeight;
      following = true;
      showNews(false);
    } else {
      showNews(true);
    }
    if (hidden && !force) {
      document.querySelector(".table-tabs .tab-news")?.removeAttribute("hidden");
    }
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest("#log-news")) scrollLogToEnd(true);
  });

  // "Undo to here" says how many events it takes back before it does.
  document.addEventListener("click", (event) => {
    const button = event.target.closest("#log .undo-button");
    if (!button) return;
    const after = Number(button.closest("li[data-seq]").dataset.seq);
    const count = Array.from(document.querySelectorAll("#log > li.log-line[data-seq]"))
      .filter((line) => Number(line.dataset.seq) > after && !line.classList.contains("reverted") &&
        !line.classList.contains("kind-rewind") && !line.classList.contains("kind-redo")).length;
    const template = count === 0 ? button.dataset.confirmNone
      : count === 1 ? button.dataset.confirmOne : button.dataset.confirmMany;
    if (!template) return;
    if (count === 0) {
      window.alert(template);
      event.preventDefault();
    } else if (!window.confirm(template.replace("{n}", String(count)))) {
      event.preventDefault();
    }
    if (event.defaultPrevented) event.stopImmediatePropagation();
  }, true);

  // — live updates keep what a user is typing, and where their focus is ————————————————
  // The stream may redraw the state, the board or the action panel while someone types: keep
  // every field they changed (by id), the cards they opened, and their focus and selection.

  function snapshot() {
    const root = tableRoot();
    if (!root) return null;
    const active = document.activeElement;
    const fields = [];
    root.querySelectorAll("input[id], select[id], textarea[id]").forEach((field) => {
      if (field.type === "hidden") return;
      let dirty;
      if (field.type === "checkbox" || field.type === "radio") dirty = field.checked !== field.defaultChecked;
      else if (field.tagName === "SELECT") {
        dirty = Array.from(field.options).some((option) => option.selected !== option.defaultSelected);
      } else dirty = field.value !== field.defaultValue;
      if (dirty) fields.push({ id: field.id, value: field.value, checked: field.checked });
    });
    const open = Array.from(root.querySelectorAll("#action-panel details[open]"))
      .map((details) => details.className);
    const snap = { fields, open, focus: null };
    if (active && active !== document.body && root.contains(active) && active.id) {
      snap.focus = { id: active.id, start: null, end: null };
      try {
        snap.focus.start = active.selectionStart;
        snap.focus.end = active.selectionEnd;
      } catch (_error) { /* not a text field */ }
    }
    return snap;
  }

  function restore(snap) {
    if (!snap) return;
    snap.fields.forEach((saved) => {
      const field = document.getElementById(saved.id);
      if (!field) return;
      if (field.type === "checkbox" || field.type === "radio") field.checked = saved.checked;
      else if (field.value !== saved.value) field.value = saved.value;
    });
    const panel = document.getElementById("action-panel");
    snap.open.forEach((className) => {
      panel?.querySelectorAll("details").forEach((details) => {
        if (details.className === className) details.open = true;
      });
    });
    if (snap.focus) {
      const again = document.getElementById(snap.focus.id);
      if (again) {
        // htmx may have given the focus back already; the caret is ours to put back.
        if (document.activeElement !== again) again.focus({ preventScroll: true });
        if (snap.focus.start !== null && typeof again.setSelectionRange === "function") {
          try {
            again.setSelectionRange(snap.focus.start, snap.focus.end);
          } catch (_error) { /* not a text field */ }
        }
      }
    }
  }

  let pending = null; // the snapshot taken before a live message is swapped in

  // A refused action comes back as the panel with the reason (422/409): show it, even where
  // the page's htmx configuration would not swap an error response.
  document.addEventListener("htmx:beforeSwap", (event) => {
    const status = event.detail.xhr.status;
    if ((status === 409 || status === 422) && event.target.closest && event.target.closest("#table")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // A form of the panel was sent: the answer redraws the panel; focus goes back to the same
  // field (a refused roll: fix the expression) or, when it is gone, to the panel's title.
  let submitted = null;
  document.addEventListener("htmx:beforeRequest", (event) => {
    const form = event.target.closest && event.target.closest("#action-panel form");
    if (!form) return;
    const active = document.activeElement;
    const first = form.querySelector("input:not([type=hidden]), select, textarea");
    submitted = { focus: active && form.contains(active) && active.id ? active.id : null,
      first: first && first.id, form: form.id };
  });

  // "Your turn!" is said once when the turn comes to this player (the panel is redrawn by
  // every live update, so the notice itself cannot be the live region).
  let wasMyTurn = null;
  function announceTurn() {
    const panel = document.getElementById("action-panel");
    const status = document.getElementById("turn-status");
    if (!panel || !status) return;
    const mine = panel.dataset.myTurn === "true";
    if (mine && wasMyTurn === false) {
      status.textContent = panel.querySelector(".your-turn")?.textContent || "";
      // A phone on the state of a game without a board (its first tab, the forms one tab
      // over): the awaited decision opens the actions. A board game's page is left where it
      // is (opening a tab scrolls, under a finger on the board); a reader of another panel
      // gets the actions tab's badge.
      const root = tableRoot();
      if (root && root.classList.contains("tabbed") && root.classList.contains("no-board") &&
          root.dataset.tab === "state" &&
          !window.matchMedia("(min-width: 64rem)").matches) showTab("actions");
    } else if (!mine) {
      status.textContent = "";
    }
    document.querySelector(".table-tabs .tab-turn")?.toggleAttribute("hidden", !mine);
    wasMyTurn = mine;
  }

  // A refused action names the field it is about: mark it for assistive technology and
  // describe it by the error (WCAG 3.3.1); without a field, the form's first field is.
  function linkActionErrors(root) {
    root.querySelectorAll("form.action .form-error[id]").forEach((error) => {
      const form = error.closest("form");
      const named = error.dataset.field && form.querySelector(`[name="${CSS.escape(error.dataset.field)}"]`);
      const field = named || form.querySelector("input:not([type=hidden]), select, textarea");
      if (!field) return;
      field.setAttribute("aria-invalid", "true");
      const described = (field.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      if (!described.includes(error.id)) described.push(error.id);
      field.setAttribute("aria-describedby", described.join(" "));
    });
  }

  document.addEventListener("htmx:afterSwap", (event) => {
    if (event.target && event.target.querySelectorAll) linkActionErrors(event.target.parentNode || document);
    announceTurn();
    if (document.getElementById("action-panel")) syncSeqInputs();
    if (!submitted) return;
    const done = submitted;
    submitted = null;
    const panel = document.getElementById("action-panel");
    if (!panel) return;
    const error = panel.querySelector(`#${CSS.escape(done.form)} .form-error`);
    const target = (done.focus && document.getElementById(done.focus)) ||
      (done.first && document.getElementById(done.first));
    if (target && target.offsetParent !== null) {
      target.focus({ preventScroll: !error });
    } else {
      const title = document.getElementById("actions-title");
      if (title) {
        title.setAttribute("tabindex", "-1");
        title.focus({ preventScroll: true });
      }
    }
  });

  // — the board's view: zoom and pan (the vendored @panzoom/panzoom), fit, the ruler's switch —
  // The zoom applies to the board's slot (#board-slot), which stays while the live state
  // replaces the board inside it: the reader's view carries over, with no flicker.
  let zoom = null; // {stage, panzoom}
  let rulerOn = false;

  function setUpBoardView() {
    const stage = document.getElementById("board-slot");
    const svg = boardSvg();
    const frame = stage && stage.parentElement;
    if (!stage || !frame || typeof window.Panzoom !== "function") return;
    if (svg) {
      // A phone sizes the frame to the board (no empty bands); see table.css.
      frame.style.setProperty("--board-ratio",
        `${Number(svg.dataset.width) || 1} / ${Number(svg.dataset.height) || 1}`);
    }
    if (zoom && zoom.stage === stage) return;
    const panzoom = window.Panzoom(stage, {
      canvas: true, maxScale: 8, minScale: 1, step: 0.25, cursor: "grab",
      excludeClass: "movable", disablePan: rulerOn,
      // Not stopPropagation: board.js needs the pointer events (a tap chooses a destination).
      handleStartEvent: (event) => event.preventDefault(),
    });
    zoom = { stage, panzoom };
    const toolbar = document.querySelector(".board-toolbar");
    if (toolbar) toolbar.hidden = false;
    frame.addEventListener("wheel", (event) => {
      if (zoom && zoom.stage === stage) zoom.panzoom.zoomWithWheel(event);
    }, { passive: false });
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest(".board-toolbar button");
    if (!button || !zoom) return;
    if (button.id === "board-zoom-in") zoom.panzoom.zoomIn();
    else if (button.id === "board-zoom-out") zoom.panzoom.zoomOut();
    else if (button.id === "board-fit") zoom.panzoom.reset();
    else if (button.id === "board-ruler") {
      rulerOn = !rulerOn;
      button.setAttribute("aria-pressed", rulerOn ? "true" : "false");
      zoom.panzoom.setOptions({ disablePan: rulerOn });
      if (!rulerOn) boardSvg()?.querySelector("#ruler")?.classList.remove("active");
    }
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
    token.classList.remove("gliding"); // a hand takes it mid-glide: it follows the hand
    token.style.transform = "";
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
    // The hand already put it there: the live redraw must not glide it back from where it was.
    handPlaced.set(tokenId, { x: Math.round(x), y: Math.round(y) });
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
    handPlaced.delete(tokenId);
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
    } else if (rulerOn) {
      gesture = { kind: "ruler", from: point };
    } else {
      return; // the view's pan (panzoom) takes it
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

  // Keyboard (WCAG 2.1.1): Enter or Space on one's own token picks it up; the arrow keys
  // carry it a square at a time (Shift: a fifth) with the ruler showing the distance; Enter
  // puts it down (the same move a drag sends), Escape puts it back. A status line says where.
  let carried = null; // {token, from: {x, y}, at: {x, y}} while a token is moved by keyboard
  const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

  function announce(message) {
    const status = document.getElementById("board-status");
    if (status) status.textContent = message;
  }

  function dropCarried(confirm) {
    const svg = boardSvg();
    const done = carried;
    carried = null;
    if (!done || !svg) return;
    svg.querySelector("#ruler")?.classList.remove("active");
    select(null);
    const token = svg.querySelector(`.token[data-token="${done.token}"]`);
    const moved = done.at.x !== done.from.x || done.at.y !== done.from.y;
    if (confirm && moved) {
      postMove(done.token, done.at.x, done.at.y);
    } else if (token) {
      placeToken(token, done.from.x, done.from.y);
    }
    applyDeferredState();
  }

  document.addEventListener("keydown", (event) => {
    const token = event.target.closest && event.target.closest("#board .token[data-movable]");
    if (!token) return;
    const svg = boardSvg();
    const id = token.dataset.token;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (carried && carried.token === id) {
        dropCarried(true);
        return;
      }
      const from = { x: Number(token.dataset.x), y: Number(token.dataset.y) };
      carried = { token: id, from, at: { ...from } };
      select(token);
      announce(token.getAttribute("aria-label"));
    } else if (event.key === "Escape" && carried && carried.token === id) {
      event.preventDefault();
      dropCarried(false);
      announce(token.getAttribute("aria-label"));
    } else if (ARROWS[event.key] && carried && carried.token === id && svg) {
      event.preventDefault();
      const step = Number(svg.dataset.step || 1) / (event.shiftKey ? 5 : 1);
      const [dx, dy] = ARROWS[event.key];
      const width = Number(svg.dataset.width);
      const height = Number(svg.dataset.height);
      carried.at = {
        x: Math.round(Math.min(Math.max(carried.at.x + dx * step, 0), width) * 10) / 10,
        y: Math.round(Math.min(Math.max(carried.at.y + dy * step, 0), height) * 10) / 10,
      };
      placeToken(token, carried.at.x, carried.at.y);
      showRuler(svg, carried.from, carried.at);
      const distance = svg.querySelector("#ruler text")?.textContent || "";
      announce(`${carried.at.x}, ${carried.at.y} — ${distance}`);
    }
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
  document.addEventListener("htmx:load", start);
})();
