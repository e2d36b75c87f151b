// Every time on a page in the reader's own time zone. The server writes a moment once, in UTC
// (<time datetime="2026-12-06T20:15:03Z" data-local="time">20:15 UTC</time>, see
// local_time in app/web/templating.py); this rewrites its text in the browser's zone, in
// the page's language, and names the zone in its title. Lines the live streams add later
// are rewritten as they arrive. Without script, the UTC text stays, marked UTC.
(function () {
  "use strict";

  var language = document.documentElement.lang || undefined;
  var DAY = {year: "numeric", month: "short", day: "numeric"};
  var FORMATS = {
    date: DAY,
    time: {hour: "2-digit", minute: "2-digit"},
    datetime: Object.assign({hour: "2-digit", minute: "2-digit", timeZoneName: "short"}, DAY),
    "datetime-seconds": Object.assign(
      {hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short"}, DAY),
  };
  var formatters = {};

  function formatter(kind) {
    if (!formatters[kind]) {
      formatters[kind] = new Intl.DateTimeFormat(language, FORMATS[kind] || FORMATS.datetime);
    }
    return formatters[kind];
  }

  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  var full = new Intl.DateTimeFormat(language, {dateStyle: "full", timeStyle: "long"});

  function localise(element) {
    var moment = new Date(element.getAttribute("datetime"));
    if (isNaN(moment.getTime())) return;
    element.textContent = formatter(element.dataset.local).format(moment);
    element.title = full.format(moment) + (zone ? " (" + zone + ")" : "");
    element.dataset.localised = "";
  }

  function localiseWithin(root) {
    if (root.matches && root.matches("time[data-local]")) localise(root);
    if (root.querySelectorAll) root.querySelectorAll("time[data-local]").forEach(localise);
  }

  // The journal's merge (board.js) compares a redrawn line with the one on screen: it
  // localises the new one first, or every line would differ by its time's text.
  window.TableeTimes = {localiseWithin: localiseWithin};

  localiseWithin(document);
  new MutationObserver(function (changes) {
    changes.forEach(function (change) {
      change.addedNodes.forEach(function (node) {
        if (node.nodeType === Node.ELEMENT_NODE) localiseWithin(node);
      });
    });
  }).observe(document.documentElement, {childList: true, subtree: true});
})();
