"""What the HTML pages (``app.web``) and the JSON API (``app.api``) share: request
dependencies (who asks, campaign access, the database session, the table's dice), the SSE
streams, uploads. Both routers stand on this package; neither imports the other
(docs/architecture.md § Layers).
"""
