// Starts Swagger UI on /docs from a file, so the page needs no inline script (CSP).
window.addEventListener("load", () => {
  const root = document.getElementById("swagger-ui");
  window.SwaggerUIBundle({ url: root.dataset.specUrl, dom_id: "#swagger-ui" });
});
