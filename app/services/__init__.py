"""Services: the application's use cases, one module per domain.

Keyword-only functions over a SQLAlchemy session; each write runs in one transaction
(``app.db.write_transaction``), so a refused request changes nothing.
"""
