// The table page's action panel and journal (templates/matches/table.html), beside board.js
// (which keeps what is typed across live updates): choices kept in step with the state, a
// refusal shown by its field, the focus after an action, one Tab stop for the journal, and
// the board's proportions for the wide layout (table.css). The page works without it.
"use strict";

(() => {
  const panel = () => document.getElementById("action-panel");

  // — choices that the state took away ————————————————————————————————————————————————
  // A live update redraws the panel with the choices the rules offer now, and board.js puts
  // back what the user had chosen. A choice no longer offered (a target now dead) would
  // leave its list on no option at all, and the form would send nothing for it. The list
  // goes back to the option the server chose and says, beside it, what was taken away; the
  // form's next « send » only brings the user to it, so no one acts on a choice they did
  // not make.

  let chosenBefore = new Map(); // select id → the text of its option, before a live update

  document.addEventListener("htmx:sseBeforeMessage", () => {
    chosenBefore = new Map();
    panel()?.querySelectorAll("form.action select[id]:not([multiple])").forEach((select) => {
      const option = select.options[select.selectedIndex];
      if (option) chosenBefore.set(select.id, option.textContent.trim());
    });
  });

  function settleChoices(root) {
    root.querySelectorAll("form.action select:not([multiple])").forEach((select) => {
      if (select.selectedIndex >= 0 || !select.options.length) return;
      const chosen = Array.from(select.options).find((option) => option.defaultSelected);
      select.selectedIndex = chosen ? chosen.index : 0;
      select.dataset.stale = "true";
      const text = (root.dataset.staleChoice || "").replace("{name}", chosenBefore.get(select.id) || "");
      noteBeside(select, text);
    });
  }

  function noteBeside(field, text) {
    if (!text) return;
    const holder = field.closest(".field") || field;
    const id = `${field.id || field.name}-stale`;
    document.getElementById(id)?.remove();
    const note = document.createElement("p");
    note.className = "help stale-choice";
    note.id = id;
    note.textContent = text;
    holder.after(note);
    describeBy(field, id);
    field.addEventListener("change", () => {
      note.remove();
      delete field.dataset.stale;
    }, { once: true });
  }

  // Sending a form whose choice was taken away: the first « send » goes to that choice.
  document.addEventListener("submit", (event) => {
    const form = event.target.closest && event.target.closest("#action-panel form.action");
    const stale = form && form.querySelector("select[data-stale]");
    if (!stale) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    form.querySelectorAll("select[data-stale]").forEach((select) => delete select.dataset.stale);
    stale.focus();
  }, true);

  function describeBy(field, id) {
    const ids = (field.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
    if (!ids.includes(id)) ids.push(id);
    field.setAttribute("aria-describedby", ids.join(" "));
  }

  // — a refusal, by the field it is about ——————————————————————————————————————————————
  // The server renders the reason at the end of the form, naming the field (data-field)
  // when the rules named one: move it under that field, mark the field invalid and
  // described by it (WCAG 3.3.1). Without a name, the form's first field carries it.

  function placeErrors(root) {
    root.querySelectorAll("form.action .form-error[id]").forEach((error) => {
      const field = errorField(error);
      if (!field) return;
      field.setAttribute("aria-invalid", "true");
      describeBy(field, error.id);
      const holder = field.closest(".field, fieldset") || field;
      if (holder.contains(error) || holder === error.previousElementSibling) return;
      holder.after(error);
    });
  }

  function errorField(error) {
    const form = error.closest("form");
    const name = error.dataset.field;
    const named = name && form.querySelector(`[name="${CSS.escape(name)}"]:not([type=hidden])`);
    return named || form.querySelector("input:not([type=hidden]), select, textarea");
  }

  // — the focus after an action ————————————————————————————————————————————————————————
  // The answer to a form of the panel redraws the panel, and the live stream may redraw it
  // again a moment later: the focus must land on an element with an id (board.js puts the
  // focus back by id). A refusal: the field it is about. Else the same form if it is still
  // offered (its field, or its button), else the next thing to do (the pinned action, or
  // the panel's first one), else the panel's title.

  let sent = null; // {form, field} of the form being sent

  document.addEventListener("htmx:beforeRequest", (event) => {
    // The form's own request only: a part of it that asks the server something (its odds,
    // again at each live state) sends no action, and takes no focus.
    const form = event.target.matches && event.target.matches("#action-panel form.action")
      ? event.target : null;
    if (!form) return;
    const active = document.activeElement;
    const mine = { form: form.id, field: active && form.contains(active) && active.id &&
      active.matches("input, select, textarea") ? active.id : null,
    open: Array.from(panel().querySelectorAll("details[open]"), (details) => details.className),
    outcome: outcomeText(panel()) };
    sent = mine;
    // Once htmx has put the answer in place (it swaps on "load"). When a live update redrew
    // the panel first, the answer went to the panel it replaced and htmx's events stay
    // there: the end of the request is the one sure moment.
    event.detail.xhr.addEventListener("loadend", () => {
      if (sent === mine) focusAfterSending();
    });
  });

  // The answer redraws the panel: the sections and cards the user had opened stay open.
  function reopen(root, classNames) {
    root.querySelectorAll("details").forEach((details) => {
      if (classNames.includes(details.className)) details.open = true;
    });
  }

  // The GM's tools and the map's stay open or folded as the user left them, from one page
  // to the next.
  const toolsKey = (name) => `tablee:${name}:${window.location.pathname}`;

  function rememberTools(root) {
    [["action-gm-tools", "gm-tools"], ["action-map-tools", "map-tools"]].forEach(([className, name]) => {
      const tools = root.querySelector(`details.${className}`);
      if (!tools) return;
      try {
        if (sessionStorage.getItem(toolsKey(name)) === "open") tools.open = true;
      } catch (_error) { /* storage refused: they start folded */ }
      if (tools.dataset.remembered) return;
      tools.dataset.remembered = "true";
      tools.addEventListener("toggle", () => {
        try {
          sessionStorage.setItem(toolsKey(name), tools.open ? "open" : "folded");
        } catch (_error) { /* nothing to keep it in */ }
      });
    });
  }

  // An odds panel's « Details » is redrawn folded at each change of the form (and each live
  // state): once the user has opened it, the next ones open too, on this page's forms.
  function rememberOddsDetails(root) {
    root.querySelectorAll("details.odds-more").forEach((more) => {
      try {
        if (sessionStorage.getItem(toolsKey("odds-more")) === "open") more.open = true;
      } catch (_error) { /* storage refused: folded */ }
      if (more.dataset.remembered) return;
      more.dataset.remembered = "true";
      more.addEventListener("toggle", () => {
        try {
          sessionStorage.setItem(toolsKey("odds-more"), more.open ? "open" : "folded");
        } catch (_error) { /* nothing to keep it in */ }
      });
    });
  }

  function focusAfterSending() {
    const done = sent;
    sent = null;
    const root = panel();
    if (!done || !root) return;
    reopen(root, done.open);
    const form = document.getElementById(done.form);
    const error = form && form.querySelector(".form-error[id]");
    const target = (error && errorField(error)) ||
      (form && visible(document.getElementById(done.field || "")) && document.getElementById(done.field)) ||
      (form && firstControl(form)) || nextAction(root) || title(root);
    // The action decided the fight: the result at the panel's top is what to read now.
    const decided = !error && outcomeText(root) !== "" && outcomeText(root) !== done.outcome;
    if (target) target.focus({ preventScroll: decided || (!error && root.contains(target) && inView(target)) });
    showOutcome(root);
  }

  // — who won ———————————————————————————————————————————————————————————————————————————
  // The panel says who won at its top (#outcome-now). When it appears or changes (decided,
  // then over), it is brought into view — again at each redraw of the panel (the action's
  // answer, a live update, in either order) until the user scrolls, taps or types.
  const outcomeText = (root) => root?.querySelector("#outcome-now")?.textContent.trim() || "";
  let outcomeSeen = outcomeText(panel());
  let outcomeUnread = false;

  function showOutcome(root) {
    const text = outcomeText(root);
    if (text !== outcomeSeen) {
      outcomeSeen = text;
      outcomeUnread = text !== "";
    }
    if (outcomeUnread) root.querySelector("#outcome-now")?.scrollIntoView({ block: "nearest" });
  }

  ["wheel", "touchstart", "keydown", "pointerdown"].forEach((type) => {
    document.addEventListener(type, () => { outcomeUnread = false; }, { passive: true });
  });

  function visible(element) {
    return Boolean(element && element.offsetParent !== null);
  }

  function inView(element) {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight;
  }

  function firstControl(form) {
    const card = form.closest("details");
    if (card && !card.open) return card.querySelector("summary");
    const field = form.querySelector("input:not([type=hidden]), select, textarea, button[type=submit]");
    return visible(field) ? field : null;
  }

  function nextAction(root) {
    const first = root.querySelector(".action-now form.action, .action-forms form.action");
    if (!first) return null;
    const card = first.closest("details");
    return card && !card.open ? card.querySelector("summary") : first.querySelector(
      "input:not([type=hidden]), select, textarea, button[type=submit]");
  }

  function title(root) {
    const heading = root.querySelector("#actions-title");
    if (heading) heading.setAttribute("tabindex", "-1");
    return heading;
  }

  document.addEventListener("htmx:afterSwap", () => {
    const root = panel();
    if (!root) return;
    rememberTools(root);
    rememberOddsDetails(root);
    settleChoices(root);
    placeErrors(root);
  });

  // A live update redrew the panel; board.js has put back what was typed and the focus, by
  // id. When the focused control is gone with it (the form is no longer offered), the
  // focus goes to the next thing to do rather than to the page's body.
  let focusInPanel = false;
  document.addEventListener("htmx:sseBeforeMessage", () => {
    focusInPanel = Boolean(panel()?.contains(document.activeElement));
  });

  document.addEventListener("htmx:sseMessage", () => {
    const root = panel();
    if (!root) return;
    rememberTools(root);
    settleChoices(root);
    placeErrors(root);
    const lost = !document.activeElement || document.activeElement === document.body;
    if (focusInPanel && lost) (nextAction(root) || title(root))?.focus({ preventScroll: true });
    showOutcome(root);
  });

  // — the journal: one Tab stop —————————————————————————————————————————————————————————
  // Each roll's details and each "undo to here" would be a Tab stop of their own (dozens
  // in a long evening). The server draws them out of the Tab order (tabindex -1, so that a
  // line redrawn by an undo is the same markup); the journal keeps one stop, and the up and
  // down arrows go through them (Home and End: the first and the last), Escape back to the
  // journal.

  const CONTROLS = "summary, button, a[href]";

  function journalKeys(log) {
    log.addEventListener("keydown", (event) => {
      const keys = ["ArrowDown", "ArrowUp", "Home", "End", "Escape"];
      if (!keys.includes(event.key) || event.altKey || event.ctrlKey || event.metaKey) return;
      const controls = Array.from(log.querySelectorAll(CONTROLS)).filter(visible);
      const index = controls.indexOf(document.activeElement);
      let next = null;
      if (event.key === "Escape") next = index >= 0 ? log : null;
      else if (event.key === "Home") next = controls[0];
      else if (event.key === "End") next = controls[controls.length - 1];
      else if (index < 0) next = nearest(log, controls, event.key === "ArrowDown");
      else next = controls[index + (event.key === "ArrowDown" ? 1 : -1)] || controls[index];
      if (!next) return;
      event.preventDefault();
      next.focus();
    });
  }

  // From the journal itself: the first control on screen going down, the last going up.
  function nearest(log, controls, down) {
    const frame = log.getBoundingClientRect();
    const seen = controls.filter((control) => {
      const box = control.getBoundingClientRect();
      return box.bottom > frame.top && box.top < frame.bottom;
    });
    const pool = seen.length ? seen : controls;
    return down ? pool[0] : pool[pool.length - 1];
  }

  // — the board's proportions, for the wide layout's column (table.css) ————————————————

  function boardRatio() {
    const root = document.getElementById("table");
    const svg = document.getElementById("board");
    if (!root || !svg) return;
    const box = svg.viewBox && svg.viewBox.baseVal; // the board and its edges' coordinates
    const ratio = box && box.height ? box.width / box.height
      : Number(svg.dataset.width) / Number(svg.dataset.height);
    if (ratio > 0 && Number.isFinite(ratio)) root.style.setProperty("--board-ratio", ratio.toFixed(3));
  }

  const started = new WeakSet();
  function start() {
    const root = document.getElementById("table");
    if (!root || started.has(root)) return;
    started.add(root);
    boardRatio();
    const actions = panel();
    if (actions) {
      rememberTools(actions);
      settleChoices(actions);
      placeErrors(actions);
    }
    const log = document.getElementById("log");
    if (log) journalKeys(log);
  }

  document.addEventListener("htmx:sseMessage", boardRatio);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
  document.addEventListener("htmx:load", start);
})();
