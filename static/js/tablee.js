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
