"""Pages: rolls."""

from app.web.deps import protected_router

router = protected_router()
