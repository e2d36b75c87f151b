// The live table (templates/matches/table.html): the board's drag, tap and ruler, and the
// glue around the htmx SSE stream. The page works without it, through its forms.
"use strict";

(() => {
  const MOVE_THRESHOLD_PX = 5;
  // The highest SSE ids applied, per kind of message (see app/web/table_view.py).
  const seen = { log: 0, state: 0 };
  let gesture = null; // {kind: "drag" | "ruler", …} while a pointer is down on the board
  let selected = null; // a token chosen by a tap, waiting for its destination
  // States that arrived mid-gesture, applied in order once it ends (one may carry the board
  // and a later one not: the server sends the board only when it changed).
  let deferredStates = [];
  let mapBusy = false; // a map tool (map_tools.js) is drawing on the board

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

  // A message's id is the seq it brings the tab to; a state's is followed by the names of the
  // action panel and the board it leaves the tab with ("41.3fa0….9b1c…", table_view.panel_tag
  // and board_tag).
  const messageSeq = (message) => parseInt(message.lastEventId || "0", 10) || 0;
  let boardHeld = null; // the board's name from the last state on screen (null: the page's)

  // When htmx has to open a new EventSource (after the server refused a reconnection), ask
  // only for what this tab has not seen, and say which action panel and board it holds (each
  // is sent again only if it changed); the browser's own reconnections send Last-Event-ID.
  if (window.htmx) {
    htmx.createEventSource = (url) => {
      const target = new URL(url, window.location.href);
      const root = tableRoot();
      const own = root && new URL(root.getAttribute("sse-connect"), window.location.href);
      if (own && own.pathname === target.pathname) {
        target.searchParams.set("after", String(lastLogSeq()));
        const panel = document.getElementById("action-panel");
        if (panel && panel.dataset.basis) target.searchParams.set("panel", panel.dataset.basis);
        else target.searchParams.delete("panel");
        if (boardHeld) target.searchParams.set("board", boardHeld);
        else if (boardHeld === "") target.searchParams.delete("board");
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
    window.TableeTimes?.localiseWithin(fresh); // as the lines on screen were
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
    const id = messageSeq(message);
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
      } else if (gesture || carried || mapBusy) {
        deferredStates.push(message.data); // do not pull the board from under a finger or a key
        seen.state = id;
        event.preventDefault();
      }
    }
  });

  document.addEventListener("htmx:sseMessage", (event) => {
    const message = event.detail;
    const id = messageSeq(message);
    if (message.type === "log" || message.type === "logreset") {
      seen.log = Math.max(seen.log, id);
      scrollLogToEnd(false);
    } else if (message.type === "state") {
      if (id >= seen.state) boardHeld = (message.lastEventId || "").split(".")[2] || "";
      seen.state = Math.max(seen.state, id);
      const root = tableRoot();
      if (root) root.dataset.live = "true"; // the stream's first state is on screen
      setUpBoardView();
      glide(glideFrom);
      glideFrom = null;
      reselect();
      syncSeqInputs();
      note(""); // what a tap said may no longer hold
    }
    restore(pending);
    pending = null;
    announceTurn();
  });

  function applyDeferredState() {
    const target = document.getElementById("table-state");
    if (deferredStates.length && target && window.htmx) {
      const snap = snapshot();
      const before = tokenPlaces();
      deferredStates.forEach((html) => htmx.swap(target, html, { swapStyle: "innerHTML" }));
      setUpBoardView();
      glide(before);
      syncSeqInputs();
      restore(snap);
    }
    deferredStates = [];
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
      else if (field.tagName === "SELECT") dirty = selectChanged(field);
      else dirty = field.value !== field.defaultValue;
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

  // A list the user left alone shows its marked option, or its first when none is marked:
  // only a choice they made is theirs to keep (else a redrawn list with a new first option
  // was taken for one the user chose, and « no longer offered »).
  function selectChanged(field) {
    const options = Array.from(field.options);
    if (field.multiple) return options.some((option) => option.selected !== option.defaultSelected);
    const marked = options.findIndex((option) => option.defaultSelected);
    return field.selectedIndex !== (marked === -1 ? 0 : marked);
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

  // The focus after a form of the panel is sent, and a refusal's link to its field:
  // table_panel.js.
  document.addEventListener("htmx:afterSwap", () => {
    announceTurn();
    if (document.getElementById("action-panel")) syncSeqInputs();
  });

  // — the board's view: zoom and pan (the vendored @panzoom/panzoom), fit, the ruler's switch —
  // The zoom applies to the board's slot (#board-slot), which stays while the live state
  // replaces the board inside it: the reader's view carries over, with no flicker.
  let zoom = null; // {stage, panzoom}
  let rulerOn = false;
  // A drag pans the view unless the ruler or a map tool (map_tools.js) takes it.
  const mapTool = () => tableRoot()?.dataset.mapTool || "";
  const panAllowed = () => !rulerOn && !mapTool();

  function setUpBoardView() {
    const stage = document.getElementById("board-slot");
    const svg = boardSvg();
    const frame = stage && stage.parentElement;
    placeLabels();
    if (!stage || !frame || typeof window.Panzoom !== "function") return;
    if (svg) {
      // A phone sizes the frame to the board and its rulers' margin (no empty bands); see
      // table.css.
      const margin = 2 * (Number(svg.dataset.margin) || 0);
      frame.style.setProperty("--board-ratio", `${(Number(svg.dataset.width) || 1) + margin} / ${
        (Number(svg.dataset.height) || 1) + margin}`);
    }
    // Another scene (app/rules/map_scenes.py): the whole board again, and said.
    const scene = svg ? svg.dataset.scene || "" : "";
    if (zoom && zoom.stage === stage && zoom.scene !== scene) {
      zoom.scene = scene;
      zoom.panzoom.reset({ animate: false });
      const caption = document.getElementById("scene-caption");
      if (caption && caption.textContent.trim()) announce(caption.textContent.trim());
    }
    if (zoom && zoom.stage === stage) return;
    const panzoom = window.Panzoom(stage, {
      canvas: true, maxScale: 8, minScale: 1, step: 0.25, cursor: "grab",
      excludeClass: "movable", disablePan: !panAllowed(),
      // Not stopPropagation: board.js needs the pointer events (a tap chooses a destination).
      handleStartEvent: (event) => event.preventDefault(),
    });
    zoom = { stage, panzoom, scene };
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
      zoom.panzoom.setOptions({ disablePan: !panAllowed() });
      if (!rulerOn) boardSvg()?.querySelector("#ruler")?.classList.remove("active");
    }
  });

  // — names on the board, clear of each other (issue 23) ————————————————————————————
  // Deterministic, in drawing order: each name tries below its token, above, right, left,
  // then farther out, row by row; it takes the first place that touches no name already
  // placed (nor a piece of ground's name, the compass, the rulers' numbers), preferring one
  // that also keeps off the other tokens and inside the board. The full name first; the
  // short one when the full one finds no room near its token. A name pushed away is tied to
  // its token by a thin line. Measured in the board's units (getBBox), so the zoom does not
  // matter; the phone's larger tokens and names are CSS's --body-scale and --label-scale
  // (board.css: a name scales round its own middle).
  const LABEL_RINGS = 8;

  function cssScale(svg, name) {
    const value = parseFloat(getComputedStyle(svg).getPropertyValue(name));
    return Number.isFinite(value) && value > 0 ? value : 1;
  }

  function overlaps(a, b) {
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }

  // An element's box in the board's units, whatever transforms it has (the compass turns).
  function boardBox(svg, element) {
    const rect = element.getBoundingClientRect();
    const inverse = svg.getScreenCTM().inverse();
    const corner = (x, y) => new DOMPoint(x, y).matrixTransform(inverse);
    const a = corner(rect.left, rect.top);
    const b = corner(rect.right, rect.bottom);
    return { left: Math.min(a.x, b.x), top: Math.min(a.y, b.y),
      right: Math.max(a.x, b.x), bottom: Math.max(a.y, b.y) };
  }

  function hitsDisc(box, disc) {
    const nx = Math.min(Math.max(disc.x, box.left), box.right);
    const ny = Math.min(Math.max(disc.y, box.top), box.bottom);
    return Math.hypot(nx - disc.x, ny - disc.y) < disc.r;
  }

  // Where a name of this size may go, its box's centre from the token's: the four sides,
  // then rows farther out (``far``: not beside the token, so a line ties it back).
  function labelSpots(size, near, nearAbove) {
    const right = near + size.w / 2;
    const below = near + size.h / 2;
    const above = nearAbove + size.h / 2;
    const spots = [{ dx: 0, dy: below }, { dx: 0, dy: -above }, { dx: right, dy: 0 },
      { dx: -right, dy: 0 }];
    const row = size.h * 1.1;
    for (let k = 1; k <= LABEL_RINGS; k += 1) {
      spots.push({ dx: 0, dy: below + k * row, far: true }, { dx: 0, dy: -above - k * row, far: true },
        { dx: right, dy: k * row, far: true }, { dx: right, dy: -k * row, far: true },
        { dx: -right, dy: k * row, far: true }, { dx: -right, dy: -k * row, far: true });
    }
    return spots;
  }

  function placeLabels() {
    const svg = boardSvg();
    if (!svg || typeof svg.getScreenCTM !== "function" || !svg.getScreenCTM()) return;
    const tokens = Array.from(svg.querySelectorAll(".token[data-token]"));
    const radius = Number(svg.dataset.radius) || 1;
    const body = cssScale(svg, "--body-scale");
    const scale = cssScale(svg, "--label-scale");
    // The piece with its health ring, and the badges on its upper side.
    const near = radius * body * 1.5;
    const nearAbove = radius * body * 1.75;
    const margin = Number(svg.dataset.margin) || 0;
    const frame = { left: -margin, top: -margin, right: Number(svg.dataset.width) + margin,
      bottom: Number(svg.dataset.height) + margin };
    // The current token's halo reaches farther than the others' rings.
    const reachOut = (token) => (token.classList.contains("current") ? radius * body * 1.75 : near);
    const discs = tokens.map((token) => ({ id: token.dataset.token, x: Number(token.dataset.x),
      y: Number(token.dataset.y), r: reachOut(token) }));
    const placed = Array.from(svg.querySelectorAll(".terrain text, .compass, .rulers text"))
      .map((element) => boardBox(svg, element));
    tokens.forEach((token) => {
      const label = token.querySelector(".token-label");
      if (!label) return;
      const x = Number(token.dataset.x);
      const y = Number(token.dataset.y);
      const texts = [label.dataset.full, label.dataset.short]
        .filter((text, index, all) => text && all.indexOf(text) === index);
      const sizes = texts.map((text) => {
        label.textContent = text;
        label.setAttribute("x", "0");
        label.setAttribute("y", "0");
        const box = label.getBBox();
        return { text, w: box.width * scale, h: box.height * scale,
          cx: box.x + box.width / 2, cy: box.y + box.height / 2 };
      });
      const others = discs.filter((disc) => disc.id !== token.dataset.token);
      const own = reachOut(token);
      const boxAt = (size, spot) => ({
        left: x + spot.dx - size.w / 2, right: x + spot.dx + size.w / 2,
        top: y + spot.dy - size.h / 2, bottom: y + spot.dy + size.h / 2 });
      const free = (box) => !placed.some((other) => overlaps(box, other));
      const clear = (box) => free(box) && !others.some((disc) => hitsDisc(box, disc)) &&
        box.left >= frame.left && box.right <= frame.right && box.top >= frame.top &&
        box.bottom <= frame.bottom;
      const tries = [];
      const spotsFor = (size) => labelSpots(size, own, Math.max(own, nearAbove));
      sizes.forEach((size) => tries.push({ size, spots: spotsFor(size).slice(0, 4), ok: clear }));
      sizes.forEach((size) => tries.push({ size, spots: spotsFor(size).slice(4), ok: clear }));
      const last = sizes[sizes.length - 1];
      tries.push({ size: last, spots: spotsFor(last), ok: free });
      let chosen = null;
      for (const attempt of tries) {
        const spot = attempt.spots.find((candidate) => attempt.ok(boxAt(attempt.size, candidate)));
        if (spot) {
          chosen = { size: attempt.size, spot };
          break;
        }
      }
      if (!chosen) { // everything near is taken: straight down until a row is free
        let dy = own + last.h / 2;
        while (!free(boxAt(last, { dx: 0, dy }))) dy += last.h * 1.1;
        chosen = { size: last, spot: { dx: 0, dy, far: true } };
      }
      const { size, spot } = chosen;
      label.textContent = size.text;
      // CSS scales the name round its own middle: put that middle on the spot.
      label.setAttribute("x", String(spot.dx - size.cx));
      label.setAttribute("y", String(spot.dy - size.cy));
      label.classList.toggle("short", size.text !== label.dataset.full);
      // A little air round each name, so that two neighbours never touch.
      const box = boxAt(size, spot);
      const pad = size.h * 0.08;
      placed.push({ left: box.left - pad, right: box.right + pad, top: box.top - pad,
        bottom: box.bottom + pad });
      const leader = token.querySelector(".label-leader");
      if (leader) {
        const nx = Math.min(Math.max(0, spot.dx - size.w / 2), spot.dx + size.w / 2);
        const ny = Math.min(Math.max(0, spot.dy - size.h / 2), spot.dy + size.h / 2);
        const length = Math.hypot(nx, ny) || 1;
        leader.setAttribute("x1", String((nx / length) * radius * body));
        leader.setAttribute("y1", String((ny / length) * radius * body));
        leader.setAttribute("x2", String(nx));
        leader.setAttribute("y2", String(ny));
        leader.classList.toggle("shown", Boolean(spot.far));
      }
    });
  }

  // The phone's and the desktop's sizes differ: place the names again when the page crosses
  // the breakpoint, and once the fonts are in (a name's width depends on them).
  if (window.matchMedia) {
    window.matchMedia("(min-width: 64rem)").addEventListener("change", () => placeLabels());
  }
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(() => placeLabels());

  // — the reach: how far the token in hand may still go this turn —————————————————————

  function showReach(token) {
    const circle = boardSvg()?.querySelector("#reach");
    if (!circle) return;
    const reach = token && token.dataset.reach !== undefined ? Number(token.dataset.reach) : NaN;
    if (!Number.isFinite(reach)) {
      circle.classList.remove("active");
      return;
    }
    circle.setAttribute("cx", token.dataset.x);
    circle.setAttribute("cy", token.dataset.y);
    circle.setAttribute("r", String(reach));
    circle.classList.add("active");
  }

  // — what a tap did not do, said under the board ——————————————————————————————————————

  function note(message) {
    let line = document.getElementById("board-note");
    const frame = document.getElementById("board-frame");
    if (!line && frame) {
      line = document.createElement("p");
      line.id = "board-note";
      line.className = "board-note";
      line.setAttribute("role", "status");
      frame.after(line);
    }
    if (line) line.textContent = message || "";
  }

  // A tap that moves nothing: say what the token is, or why nothing can move.
  function explainTap(svg, token) {
    if (token) {
      const still = token.dataset.still ? ` ${token.dataset.still}` : "";
      note(`${token.dataset.info || token.dataset.name}.${still}`);
    } else if (svg.dataset.still) {
      note(svg.dataset.still);
    } else if (svg.querySelector(".token[data-movable]")) {
      note(svg.dataset.tapFirst);
    }
  }

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
    showReach(token);
    if (!token) return;
    token.classList.add("selected");
    token.setAttribute("aria-pressed", "true");
    // The move form follows the board, for whoever prefers typing the numbers.
    const choice = document.getElementById("move-token");
    if (choice) choice.value = selected;
  }

  // Send one action as the panel's forms do; the refusal's reason, or "" once it is done
  // (the stream brings the new state to everyone). A refusal comes as 200 with its status in
  // a header (app/web/middleware.py).
  async function postAction(fields) {
    const root = tableRoot();
    const body = new URLSearchParams({ ...fields, seq: String(currentSeq()), idempotency_key: newKey() });
    try {
      const response = await fetch(root.dataset.actionsUrl, {
        method: "POST", body, credentials: "same-origin",
        headers: { ...csrfHeaders(), "HX-Request": "true" },
      });
      if (response.ok && !response.headers.has("Tablee-Refused")) return "";
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const reason = page.querySelector('[role="alert"]');
      return reason ? reason.textContent.trim() : response.statusText;
    } catch (_error) {
      return root.dataset.offline;
    }
  }

  async function postMove(tokenId, x, y) {
    const token = document.querySelector(`#board .token[data-token="${tokenId}"]`);
    // The hand already put it there: the live redraw must not glide it back from where it was.
    handPlaced.set(tokenId, { x: Math.round(x), y: Math.round(y) });
    say("");
    const refused = await postAction({ kind: "move", token: tokenId, x: String(Math.round(x)),
      y: String(Math.round(y)) });
    if (!refused) return;
    say(refused);
    handPlaced.delete(tokenId);
    if (token) placeToken(token, token.dataset.x, token.dataset.y); // back where it was
  }

  // A distance as the page's language writes it (« 12,5 cm »), to a tenth.
  function distanceText(svg, value) {
    const lang = document.documentElement.lang || undefined;
    const figure = new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(value);
    return `${figure} ${svg.dataset.unit}`;
  }

  // The ruler from ``from`` to ``to``; with the token in hand's reach, the distance left
  // too, and red beyond it.
  function showRuler(svg, from, to, reach) {
    const ruler = svg.querySelector("#ruler");
    if (!ruler) return;
    const line = ruler.querySelector("line");
    const label = ruler.querySelector("text");
    line.setAttribute("x1", from.x);
    line.setAttribute("y1", from.y);
    line.setAttribute("x2", to.x);
    line.setAttribute("y2", to.y);
    const distance = Math.hypot(to.x - from.x, to.y - from.y);
    // Above the line's middle, clear of the token in hand at its end.
    label.setAttribute("x", (from.x + to.x) / 2);
    label.setAttribute("y", (from.y + to.y) / 2 - Number(label.getAttribute("font-size") || 0));
    const measured = distanceText(svg, distance);
    const limited = Number.isFinite(reach) && svg.dataset.left;
    label.textContent = limited ? svg.dataset.left.replace("{distance}", measured)
      .replace("{reach}", distanceText(svg, reach)) : measured;
    ruler.classList.toggle("beyond", Boolean(limited) && distance > reach + 0.05);
    ruler.classList.add("active");
  }

  function reachOf(token) {
    return token && token.dataset.reach !== undefined ? Number(token.dataset.reach) : NaN;
  }

  document.addEventListener("pointerdown", (event) => {
    const svg = event.target.closest && event.target.closest("#board");
    if (!svg || event.button > 0 || mapTool()) return; // a map tool draws (map_tools.js)
    const point = boardPoint(svg, event.clientX, event.clientY);
    const token = event.target.closest(".token");
    svg.querySelector("#ruler")?.classList.remove("active");
    if (token && token.dataset.movable === "true") {
      gesture = { kind: "drag", token: token.dataset.token, startX: event.clientX,
        startY: event.clientY, moved: false, point };
      showReach(token);
    } else if (selected && !rulerOn) {
      // A token in hand goes where the tap lands, even on another figure's (large) target.
      const tokenId = selected;
      const chosen = document.querySelector(`#board .token[data-token="${tokenId}"]`);
      select(null);
      note("");
      if (chosen) placeToken(chosen, Math.round(point.x), Math.round(point.y));
      postMove(tokenId, point.x, point.y);
      return;
    } else if (rulerOn) {
      gesture = { kind: "ruler", from: point };
    } else {
      // The view's pan (panzoom) takes it; if it turns out to be a tap, say what it shows.
      tap = { token: token ? token.dataset.token : null, x: event.clientX, y: event.clientY };
      return;
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
      showRuler(svg, { x: Number(token.dataset.x), y: Number(token.dataset.y) }, point,
        reachOf(token));
    }
    gesture.point = point;
  });

  let tap = null; // a pointer down on the board that panzoom pans, unless it is a tap

  function endGesture(event) {
    const done = gesture;
    const tapped = tap;
    gesture = null;
    tap = null;
    const svg = boardSvg();
    if (tapped && svg && event.type === "pointerup" &&
        Math.hypot(event.clientX - tapped.x, event.clientY - tapped.y) < MOVE_THRESHOLD_PX) {
      explainTap(svg, tapped.token &&
        svg.querySelector(`.token[data-token="${CSS.escape(tapped.token)}"]`));
    }
    if (!done || !svg) return;
    if (done.kind === "drag") {
      const token = svg.querySelector(`.token[data-token="${done.token}"]`);
      if (done.moved && event.type === "pointerup") {
        const point = boardPoint(svg, event.clientX, event.clientY);
        svg.querySelector("#ruler")?.classList.remove("active");
        showReach(null);
        note("");
        postMove(done.token, point.x, point.y);
      } else if (!done.moved) {
        select(selected === done.token ? null : token); // a tap: now tap the destination
        if (selected) note(token.dataset.info ? `${token.dataset.info}.` : "");
      } else if (token) {
        showReach(null);
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
      showRuler(svg, carried.from, carried.at, reachOf(token));
      const distance = svg.querySelector("#ruler text")?.textContent || "";
      announce(`${carried.at.x}, ${carried.at.y} — ${distance}`);
    }
  });

  // What the map's tools (map_tools.js) use of the board: where a pointer is on it, the
  // view's pan held while they draw, the live redraws held back meanwhile, sending an action,
  // saying why it was refused, and bringing a place into view.
  window.TableeBoard = {
    point(event) {
      const svg = boardSvg();
      return svg ? boardPoint(svg, event.clientX, event.clientY) : null;
    },
    toolChanged() {
      if (zoom) zoom.panzoom.setOptions({ disablePan: !panAllowed() });
      if (mapTool()) select(null);
    },
    busy(on) {
      mapBusy = on;
      if (!on) applyDeferredState();
    },
    send: postAction,
    say,
    panTo(x, y) {
      const svg = boardSvg();
      const frame = document.getElementById("board-frame");
      if (!zoom || !svg || !frame) return;
      const scale = Math.max(zoom.panzoom.getScale(), 2);
      zoom.panzoom.zoom(scale, { animate: false });
      // Once the zoom is drawn: where (x, y) is on screen, and the pan that brings it to the
      // frame's middle (panzoom's pan counts before the scale).
      window.requestAnimationFrame(() => {
        const point = svg.createSVGPoint();
        point.x = x;
        point.y = y;
        const screen = point.matrixTransform(svg.getScreenCTM());
        const box = frame.getBoundingClientRect();
        const pan = zoom.panzoom.getPan();
        zoom.panzoom.pan(pan.x + (box.left + box.width / 2 - screen.x) / scale,
          pan.y + (box.top + box.height / 2 - screen.y) / scale,
          { animate: !(lessMotion && lessMotion.matches) });
      });
    },
  };

  // The names are placed on any page that draws a board (the replay too, which has no table).
  const ready = () => {
    placeLabels();
    start();
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
  document.addEventListener("htmx:load", start);
})();
