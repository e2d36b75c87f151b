// Small progressive helpers; every page works without them.
"use strict";

// <button data-confirm="…">: ask before submitting (deleting, removing a member…).
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-confirm]");
  if (button && !window.confirm(button.dataset.confirm)) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }
}, true);

// <button data-copy="#input-id">: copy an invite link to the clipboard.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  if (!source) return;
  try {
    await navigator.clipboard.writeText(source.value || source.textContent);
    button.dataset.copied = "true";
    button.textContent = button.dataset.copiedLabel || button.textContent;
  } catch (_error) {
    source.select && source.select();
  }
});

// <form data-busy="Importing…">: a long full-page post (an import) says it is working, and
// cannot be sent twice while it does.
document.addEventListener("submit", (event) => {
  const form = event.target.closest("form[data-busy]");
  if (!form || event.defaultPrevented) return;
  form.setAttribute("aria-busy", "true");
  form.querySelectorAll("button[type=submit], button:not([type])").forEach((button) => {
    button.disabled = true;
  });
  const status = form.querySelector("[data-busy-status]");
  if (status) status.textContent = form.dataset.busy;
});

// A table wider than its box scrolls inside its .table-wrap: a keyboard user must be able to
// reach and scroll it (WCAG 2.1.1), so a wrap that overflows becomes a focusable region named
// after its table's caption or the heading before it. One that fits stays out of the tab order.
function markScrollableTables(root) {
  root.querySelectorAll(".table-wrap").forEach((wrap) => {
    if (wrap.scrollWidth <= wrap.clientWidth + 1) {
      if (wrap.dataset.scrollable) {
        ["tabindex", "role", "aria-label", "data-scrollable"].forEach((a) => wrap.removeAttribute(a));
      }
      return;
    }
    if (wrap.dataset.scrollable) return;
    wrap.dataset.scrollable = "true";
    wrap.tabIndex = 0;
    const caption = wrap.querySelector("caption");
    let heading = wrap.previousElementSibling;
    while (heading && !/^H[1-6]$/.test(heading.tagName)) heading = heading.previousElementSibling;
    const name = (caption || heading || {}).textContent;
    if (name && name.trim()) {
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", name.trim());
    }
  });
}
markScrollableTables(document);
document.addEventListener("htmx:afterSettle", (event) => markScrollableTables(event.target));
let resizing;
window.addEventListener("resize", () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => markScrollableTables(document), 200);
});

// Turn timers (Mecha-Ring): the server renders the seconds left from its own clock
// (data-countdown); the page only counts them down. At zero a form marked data-auto-submit
// asks the server, which checks its clock again before applying the default. A short random
// stagger keeps several open pages from asking at the same instant.
const countdownEnds = new WeakMap();
setInterval(() => {
  document.querySelectorAll("[data-countdown]").forEach((node) => {
    if (!countdownEnds.has(node)) {
      const left = Number(node.dataset.countdown) || 0;
      countdownEnds.set(node, { end: performance.now() + left * 1000,
                                stagger: Math.random() * 2500 });
    }
    const { end, stagger } = countdownEnds.get(node);
    const now = performance.now();
    const left = Math.max(0, Math.ceil((end - now) / 1000));
    const value = node.querySelector(".countdown-value");
    if (value) value.textContent = String(left);
    if (now >= end + stagger && node.dataset.autoSubmit === "true" && !node.dataset.submitted) {
      const form = node.closest("form");
      if (form) {
        node.dataset.submitted = "true";
        form.requestSubmit();
      }
    }
  });
}, 1000);

// A phone folds the site's menu and the language behind one button, so a page's own content
// (the table's board) starts near the top. Without this script every link shows.
function setUpMenu() {
  const header = document.querySelector(".site-header");
  const toggle = header && header.querySelector(".menu-toggle");
  if (!toggle || header.classList.contains("folding")) return;
  header.classList.add("folding");
  toggle.hidden = false;
}

function openMenu(open) {
  const header = document.querySelector(".site-header.folding");
  const toggle = header && header.querySelector(".menu-toggle");
  if (!toggle) return;
  toggle.setAttribute("aria-expanded", open ? "true" : "false");
  header.classList.toggle("open", open);
}

document.addEventListener("click", (event) => {
  const toggle = event.target.closest(".site-header .menu-toggle");
  if (toggle) openMenu(toggle.getAttribute("aria-expanded") !== "true");
});
document.addEventListener("keydown", (event) => {
  const open = document.querySelector(".site-header.open");
  if (event.key !== "Escape" || !open) return;
  openMenu(false);
  open.querySelector(".menu-toggle").focus();
});
setUpMenu();
document.addEventListener("htmx:load", setUpMenu);
