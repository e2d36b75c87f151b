"""API: matches."""

from app.web.deps import protected_router

router = protected_router(tags=["matches"])
