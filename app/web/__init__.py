"""HTML pages: one router module per resource (parse, authorise, call a service, render)."""

from fastapi import APIRouter

# "matches" first: the order requests walk the routes (app.main._include_routers).
WEB_MODULES = ("matches", "pages", "accounts", "campaigns", "members", "invites",
               "characters", "transfer", "admin", "rolls", "content", "chat",
               "simulations")


def routers() -> list[APIRouter]:
    from importlib import import_module

    from app.http.ops import router as ops_router  # /healthz, /readyz, /metrics

    return [ops_router, *(import_module(f"app.web.{name}").router for name in WEB_MODULES)]
