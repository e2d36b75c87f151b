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
