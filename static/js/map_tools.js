// The map's tools on the board (templates/matches/table.html, app/rules/map_actions.py):
// pings, drawing (freehand ink, lines, rectangles, circles, text), area templates snapped to
// the grid, the eraser, and the GM's fog of war. Each tool is a button of the board's toolbar
// (aria-pressed) with its options in a row under it; while one is on, a drag on the board
// draws instead of panning (board.js holds its pan and its live redraws meanwhile), and what
// is drawn is sent as an action (TableeBoard.send): the live stream brings it to everyone.
// Every tool also has a form in the panel's « Outils de carte »: the keyboard's and a screen
// reader's way, and the page's without JavaScript.
"use strict";

(() => {
  const SVG_NS = "http://www.w3.org/2000/svg";
  const board = () => window.TableeBoard;
  const root = () => document.getElementById("table");
  const svg = () => document.getElementById("board");
  const round = (value) => Math.round(value * 100) / 100;

  let draft = null; // {points: [{x, y, pressure}], pointer} while something is being drawn

  // — switching tools ————————————————————————————————————————————————————————————————

  function activeTool() {
    return root()?.dataset.mapTool || "";
  }

  function row(name = activeTool()) {
    return document.querySelector(`.map-toolrow[data-toolrow="${name}"]`);
  }

  function option(name) {
    const chosen = document.querySelector(`.map-toolrow input[name="${name}"]:checked`);
    return chosen ? chosen.value : "";
  }

  function setTool(name) {
    const table = root();
    if (!table) return;
    cancelDraft();
    if (name) table.dataset.mapTool = name;
    else delete table.dataset.mapTool;
    document.querySelectorAll("[data-tool-button]").forEach((button) => {
      button.setAttribute("aria-pressed", button.dataset.toolButton === name ? "true" : "false");
    });
    document.querySelectorAll(".map-toolrow").forEach((toolRow) => {
      toolRow.hidden = toolRow.dataset.toolrow !== name;
    });
    // The ruler and a map tool both take the drag: one at a time.
    const ruler = document.getElementById("board-ruler");
    if (name && ruler && ruler.getAttribute("aria-pressed") === "true") ruler.click();
    board()?.toolChanged();
    sayHelp();
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-tool-button]");
    if (button) {
      setTool(activeTool() === button.dataset.toolButton ? "" : button.dataset.toolButton);
    } else if (event.target.closest("#board-ruler") && activeTool()) {
      setTool("");
    }
  });

  // The shape a tool draws now (its row's first choice of shape).
  function shape() {
    return { fog: option("fog-shape"), draw: option("draw-shape"),
      template: option("template-shape") }[activeTool()] || "";
  }

  // What to do now, under the tool row (a screen reader hears it: role="status").
  function sayHelp() {
    const help = row()?.querySelector(".map-tool-help");
    if (!help) return;
    const kind = shape();
    const key = kind ? `help${kind.replace(/^./, (c) => c.toUpperCase())}` : "help";
    help.textContent = help.dataset[key] || help.dataset.help || "";
    const finish = document.getElementById("fog-finish");
    if (finish) finish.hidden = !(activeTool() === "fog" && kind === "poly");
    const text = row("draw")?.querySelector(".map-tool-text");
    if (text) text.hidden = !(activeTool() === "draw" && kind === "text");
  }

  document.addEventListener("change", (event) => {
    if (event.target.closest(".map-toolrow")) {
      cancelDraft();
      sayHelp();
    }
  });

  // The panel's map forms show the fields of the shape chosen (all of them without script).
  function fitShapeFields(scope) {
    scope.querySelectorAll("select[data-shape-fields]").forEach((select) => {
      select.closest("form")?.querySelectorAll("[data-for-shape]").forEach((field) => {
        field.hidden = !field.dataset.forShape.split(" ").includes(select.value);
      });
    });
  }
  document.addEventListener("change", (event) => {
    if (event.target.matches && event.target.matches("select[data-shape-fields]")) {
      fitShapeFields(event.target.closest("form") || document);
    }
  });
  document.addEventListener("htmx:load", (event) => fitShapeFields(event.target));
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => fitShapeFields(document));
  } else {
    fitShapeFields(document);
  }

  // — the draft on the board ———————————————————————————————————————————————————————————

  function draftLayer() {
    const boardSvg = svg();
    if (!boardSvg) return null;
    let layer = boardSvg.querySelector("#map-draft");
    if (!layer) {
      layer = document.createElementNS(SVG_NS, "g");
      layer.id = "map-draft";
      layer.setAttribute("class", "map-draft");
      boardSvg.appendChild(layer);
    }
    return layer;
  }

  function cancelDraft() {
    draft = null;
    svg()?.querySelector("#map-draft")?.remove();
    board()?.busy(false);
  }

  function element(kind, attributes, text) {
    const made = document.createElementNS(SVG_NS, kind);
    Object.entries(attributes).forEach(([name, value]) => made.setAttribute(name, String(value)));
    if (text) made.textContent = text;
    return made;
  }

  const pointsText = (points) => points.map((p) => `${round(p.x)},${round(p.y)}`).join(" ");
  const boardWidth = () => Number(svg()?.dataset.width) || 100;
  const boardHeight = () => Number(svg()?.dataset.height) || 100;

  function brushRadius() {
    const select = document.getElementById("fog-brush");
    return round(boardWidth() * (Number(select?.value) || 0.03));
  }

  const inkWidth = () => round(Math.max(boardWidth(), boardHeight()) / 150);

  function drawDraft() {
    const layer = draftLayer();
    if (!layer || !draft) return;
    layer.replaceChildren();
    const [first] = draft.points;
    const last = draft.points[draft.points.length - 1];
    const kind = shape();
    const tool = activeTool();
    if (tool === "template") {
      const template = snappedTemplate();
      templateShapes(template).forEach((made) => layer.appendChild(made));
      return;
    }
    if (kind === "rect") {
      layer.appendChild(element("rect", { x: Math.min(first.x, last.x), y: Math.min(first.y, last.y),
        width: Math.abs(last.x - first.x), height: Math.abs(last.y - first.y) }));
    } else if (kind === "circle") {
      layer.appendChild(element("circle", { cx: first.x, cy: first.y,
        r: Math.hypot(last.x - first.x, last.y - first.y) }));
    } else if (kind === "poly" || kind === "line") {
      layer.appendChild(element("polyline", { points: pointsText(draft.points), class: "outline" }));
    } else {
      const width = tool === "fog" ? brushRadius() * 2 : inkWidth();
      layer.appendChild(element("polyline", { points: pointsText(draft.points), class: "brush",
        "stroke-width": width }));
    }
  }

  // — templates: snapped to the grid as the server snaps them (map_drawings.py) ——————————————

  function snapped(value, step) {
    return Math.round(Math.round(value / step) * step * 100) / 100;
  }

  function snappedTemplate() {
    const templateRow = row("template");
    const originStep = Number(templateRow?.dataset.snapOrigin) || 1;
    const sizeStep = Number(templateRow?.dataset.snapSize) || 1;
    const [first] = draft.points;
    const last = draft.points[draft.points.length - 1];
    const x = snapped(first.x, originStep);
    const y = snapped(first.y, originStep);
    const size = Math.max(sizeStep, snapped(Math.hypot(last.x - x, last.y - y), sizeStep));
    const degrees = (Math.atan2(last.y - y, last.x - x) * 180) / Math.PI;
    const angle = ((snapped(degrees, 15) % 360) + 360) % 360;
    return { shape: shape(), x, y, size, angle, width: sizeStep };
  }

  const turn = (x, y, length, degrees) => {
    const radians = (degrees * Math.PI) / 180;
    return [x + length * Math.cos(radians), y + length * Math.sin(radians)];
  };

  function templateCorners(template) {
    const { x, y, size, angle } = template;
    if (template.shape === "square") {
      const half = size / 2;
      return [[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]];
    }
    if (template.shape === "cone") {
      const half = (Math.atan(0.5) * 180) / Math.PI;
      const edge = size / Math.cos((half * Math.PI) / 180);
      return [[x, y], turn(x, y, edge, angle - half), turn(x, y, edge, angle + half)];
    }
    const end = turn(x, y, size, angle);
    const w = template.width / 2;
    return [turn(x, y, w, angle - 90), turn(end[0], end[1], w, angle - 90),
      turn(end[0], end[1], w, angle + 90), turn(x, y, w, angle + 90)];
  }

  function measure(template) {
    const templateRow = row("template");
    const lang = document.documentElement.lang || undefined;
    const figure = new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(template.size);
    const plural = new Intl.PluralRules(lang).select(template.size);
    const unit = plural === "one" ? templateRow?.dataset.unitOne : templateRow?.dataset.unitMany;
    const label = templateRow?.dataset[`label${template.shape.replace(/^./, (c) => c.toUpperCase())}`] || "{size}";
    return label.replace("{size}", `${figure} ${unit || ""}`.trim());
  }

  function templateShapes(template) {
    const made = [];
    if (template.shape === "circle") {
      made.push(element("circle", { cx: template.x, cy: template.y, r: template.size }));
    } else {
      made.push(element("polygon", { points: templateCorners(template).map((p) => `${p[0]},${p[1]}`).join(" ") }));
    }
    // where the size reads (map_drawings.label_place): clear of the figure at the origin
    const radius = Number(svg()?.dataset.radius) || 1;
    const [lx, ly] = ["cone", "line"].includes(template.shape)
      ? turn(template.x, template.y, template.size + radius * 1.5, template.angle)
      : [template.x, template.y - radius * 1.4];
    made.push(element("text", { x: lx, y: ly, "font-size": radius * 0.9, "text-anchor": "middle",
      "dominant-baseline": "middle", class: "draft-label" }, measure(template)));
    return made;
  }

  // — what a finished draft sends ————————————————————————————————————————————————————————

  // A stroke's points, one every few hundredths of the board (a brush sends hundreds).
  function simplify(points, most) {
    const step = boardWidth() / 150;
    const kept = [];
    points.forEach((point) => {
      const previous = kept[kept.length - 1];
      if (!previous || Math.hypot(point.x - previous.x, point.y - previous.y) >= step) kept.push(point);
    });
    const lastPoint = points[points.length - 1];
    if (kept.length > 1 && kept[kept.length - 1] !== lastPoint) kept.push(lastPoint);
    return kept.slice(0, most);
  }

  function common() {
    const tool = activeTool();
    const gmOnly = document.getElementById(`${tool}-gm-only`)?.checked;
    return { colour: option(`${tool}-colour`) || "red", ...(gmOnly ? { gm_only: "1" } : {}) };
  }

  function boxFields(first, last) {
    return { x: round(Math.min(first.x, last.x)), y: round(Math.min(first.y, last.y)),
      w: round(Math.abs(last.x - first.x)), h: round(Math.abs(last.y - first.y)) };
  }

  function fogFields() {
    const kind = shape() || "rect";
    const fields = { kind: "map_fog", op: option("fog-op") || "reveal", shape: kind };
    const [first] = draft.points;
    const last = draft.points[draft.points.length - 1];
    if (kind === "rect") {
      Object.assign(fields, boxFields(first, last));
      if (fields.w <= 0 || fields.h <= 0) return null;
    } else if (kind === "circle") {
      Object.assign(fields, { x: round(first.x), y: round(first.y),
        r: round(Math.hypot(last.x - first.x, last.y - first.y)) });
      if (fields.r <= 0) return null;
    } else if (kind === "poly") {
      if (draft.points.length < 3) return null;
      fields.points = pointsText(draft.points);
    } else {
      fields.points = pointsText(simplify(draft.points, 600));
      fields.r = brushRadius();
    }
    return fields;
  }

  function drawFields() {
    const kind = shape() || "free";
    const fields = { kind: "map_draw", shape: kind, ...common() };
    const [first] = draft.points;
    const last = draft.points[draft.points.length - 1];
    if (kind === "free") {
      const points = simplify(draft.points, 600);
      if (points.length < 2) return null;
      fields.points = pointsText(points);
      fields.width = inkWidth();
      if (window.TableeInk) {
        const outline = window.TableeInk.outline(draft.points.map((p) => [p.x, p.y, p.pressure]),
          inkWidth() * 2);
        const kept = simplify(outline.map(([x, y]) => ({ x, y })), 1500);
        if (kept.length >= 3) fields.outline = pointsText(kept);
      }
    } else if (kind === "line") {
      if (Math.hypot(last.x - first.x, last.y - first.y) <= 0) return null;
      fields.points = pointsText([first, last]);
    } else if (kind === "rect") {
      Object.assign(fields, boxFields(first, last));
      if (fields.w <= 0 || fields.h <= 0) return null;
    } else if (kind === "circle") {
      Object.assign(fields, { x: round(first.x), y: round(first.y),
        r: round(Math.hypot(last.x - first.x, last.y - first.y)) });
      if (fields.r <= 0) return null;
    } else {
      const text = document.getElementById("draw-text")?.value.trim();
      if (!text) return null;
      Object.assign(fields, { x: round(first.x), y: round(first.y), text });
    }
    return fields;
  }

  function templateFields() {
    const template = snappedTemplate();
    return { kind: "map_template", shape: template.shape, x: template.x, y: template.y,
      size: template.size, angle: template.angle, ...common() };
  }

  async function commit() {
    if (!draft) return;
    const make = { fog: fogFields, draw: drawFields, template: templateFields }[activeTool()];
    const fields = make && make();
    if (!fields) {
      const help = row()?.querySelector(".map-tool-help");
      const tellText = activeTool() === "draw" && shape() === "text";
      board()?.say(tellText ? help?.dataset.textFirst || "" : help?.textContent || "");
      cancelDraft();
      return;
    }
    board()?.say("");
    const refused = await board().send(fields);
    cancelDraft();
    if (refused) board().say(refused);
  }

  async function erase(fields) {
    board()?.say("");
    const refused = await board().send({ kind: "map_erase", ...fields });
    if (refused) board().say(refused);
  }

  // — the pointer ————————————————————————————————————————————————————————————————————————

  document.addEventListener("pointerdown", (event) => {
    const tool = activeTool();
    if (!tool || event.button > 0 || !(event.target.closest && event.target.closest("#board"))) return;
    event.preventDefault();
    if (tool === "erase") {
      const drawing = event.target.closest(".drawing.erasable[data-drawing]");
      if (drawing) erase({ drawing: drawing.dataset.drawing });
      return;
    }
    const point = board()?.point(event);
    if (!point) return;
    if (tool === "ping") {
      sendPing(point.x, point.y);
      return;
    }
    point.pressure = event.pressure || 0.5;
    if (tool === "fog" && shape() === "poly") {
      if (!draft) {
        draft = { points: [] };
        board().busy(true);
      }
      draft.points.push(point);
      drawDraft();
      return;
    }
    if (tool === "draw" && shape() === "text") {
      draft = { points: [point] };
      commit();
      return;
    }
    draft = { points: [point], pointer: event.pointerId };
    board().busy(true);
    svg()?.setPointerCapture(event.pointerId);
    drawDraft();
  });

  document.addEventListener("pointermove", (event) => {
    if (!draft || draft.pointer !== event.pointerId) return;
    const point = board()?.point(event);
    if (!point) return;
    point.pressure = event.pressure || 0.5;
    const kind = shape();
    if (kind === "brush" || kind === "free") draft.points.push(point);
    else draft.points[1] = point;
    drawDraft();
  });

  function endPointer(event) {
    if (!draft || draft.pointer !== event.pointerId) return;
    if (event.type === "pointercancel") cancelDraft();
    else commit();
  }
  document.addEventListener("pointerup", endPointer);
  document.addEventListener("pointercancel", endPointer);

  document.addEventListener("click", (event) => {
    if (event.target.closest("#fog-finish") && draft) commit();
    if (event.target.closest("#erase-all") && !event.defaultPrevented) erase({ all: "1" });
  });

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    if (draft) {
      cancelDraft();
    } else if (activeTool() && event.target.closest && event.target.closest(".board-area")) {
      setTool("");
    }
  });

  // — pings: a place pointed at pulses on every viewer's board for a moment ——————————————
  // They come from their own stream (app/http/pings.py), not the match's: a ping is not an
  // event of the match. The last one is said under the board, with a button that brings it
  // into view.

  const PING_SECONDS = 4;
  let pulses = []; // {x, y, name, until}
  let lastPing = null;

  async function sendPing(x, y) {
    const url = root()?.dataset.pings;
    if (!url) return;
    board()?.say("");
    let headers = {}; // the page's CSRF header, as htmx sends it
    try {
      headers = JSON.parse(document.querySelector("[hx-headers]")?.getAttribute("hx-headers") || "{}");
    } catch (_error) { headers = {}; }
    try {
      const response = await fetch(url, {
        method: "POST", credentials: "same-origin",
        headers: { ...headers, "Content-Type": "application/json" },
        body: JSON.stringify({ x: round(x), y: round(y) }),
      });
      if (!response.ok) {
        const answer = await response.json().catch(() => null);
        board()?.say(answer?.error?.message || response.statusText);
      }
    } catch (_error) {
      board()?.say(root()?.dataset.offline || "");
    }
  }

  document.addEventListener("submit", (event) => {
    if (event.target.id !== "ping-form") return;
    event.preventDefault();
    const x = Number(document.getElementById("ping-x")?.value);
    const y = Number(document.getElementById("ping-y")?.value);
    sendPing(x, y);
  });

  function drawPulses() {
    const boardSvg = svg();
    if (!boardSvg) return;
    boardSvg.querySelectorAll(".ping-pulse").forEach((pulse) => pulse.remove());
    const now = Date.now();
    pulses = pulses.filter((pulse) => pulse.until > now);
    const radius = Number(boardSvg.dataset.radius) || 1;
    pulses.forEach((pulse) => {
      const group = element("g", { class: "ping-pulse", transform: `translate(${pulse.x} ${pulse.y})` });
      group.appendChild(element("circle", { r: radius * 3, class: "ping-wave" }));
      group.appendChild(element("circle", { r: radius * 3, class: "ping-wave late" }));
      group.appendChild(element("circle", { r: radius * 0.45, class: "ping-dot" }));
      group.appendChild(element("text", { y: -radius * 1.2, "font-size": radius * 0.9,
        "text-anchor": "middle", class: "ping-name" }, pulse.name));
      boardSvg.appendChild(group);
    });
  }

  function showPing(ping) {
    const until = Date.now() + PING_SECONDS * 1000;
    pulses.push({ ...ping, until });
    lastPing = ping;
    drawPulses();
    window.setTimeout(drawPulses, PING_SECONDS * 1000 + 50);
    const notice = document.getElementById("ping-notice");
    if (notice) {
      const lang = document.documentElement.lang || undefined;
      const figure = (value) => new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(value);
      notice.querySelector(".ping-words").textContent = (notice.dataset.said || "")
        .replace("{name}", ping.name || "").replace("{x}", figure(ping.x)).replace("{y}", figure(ping.y));
      notice.hidden = false;
    }
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest("#ping-show") && lastPing) board()?.panTo(lastPing.x, lastPing.y);
  });

  let pingSource = null;
  function listenToPings() {
    const url = root()?.dataset.pings;
    if (!url || pingSource || typeof EventSource !== "function") return;
    pingSource = new EventSource(`${url}/stream`, { withCredentials: true });
    pingSource.addEventListener("ping", (event) => {
      try {
        showPing(JSON.parse(event.data));
      } catch (_error) { /* not a ping */ }
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", listenToPings);
  } else {
    listenToPings();
  }
  window.addEventListener("pagehide", () => {
    pingSource?.close();
    pingSource = null;
  });
  window.addEventListener("pageshow", listenToPings);

  // — handouts: one opens over the table, in a dialog (its page without script) ———————————

  document.addEventListener("click", async (event) => {
    const link = event.target.closest && event.target.closest("a.handout-link");
    const dialog = document.getElementById("handout-dialog");
    if (!link || !dialog || typeof dialog.showModal !== "function" || event.ctrlKey ||
      event.metaKey || event.shiftKey) return;
    event.preventDefault();
    try {
      const response = await fetch(link.href, { credentials: "same-origin" });
      if (!response.ok) throw new Error(response.statusText);
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const body = page.getElementById("handout-body");
      if (!body) throw new Error("no handout");
      dialog.querySelector(".handout-dialog-body").replaceChildren(document.importNode(body, true));
      dialog.showModal();
    } catch (_error) {
      window.location.href = link.href; // its own page, then
    }
  });

  // The GM's « for whom »: ticking a player unticks « everyone », and the other way round.
  document.addEventListener("change", (event) => {
    const box = event.target.closest && event.target.closest('.handout-to input[name="to"]');
    if (!box || !box.checked) return;
    box.closest(".handout-to").querySelectorAll('input[name="to"]').forEach((other) => {
      if (other !== box && (box.value === "everyone" || other.value === "everyone")) other.checked = false;
    });
  });

  // A live redraw of the board drops the draft's layer and the pulses: draw them again.
  document.addEventListener("htmx:sseMessage", () => {
    if (draft) drawDraft();
    if (pulses.length) drawPulses();
  });
})();
