"""The JSON API under ``/api/v1``: the same services and permissions as the pages."""

from fastapi import APIRouter

# "matches" first: the order requests walk the routes (app.main._include_routers).
API_MODULES = ("matches", "systems", "accounts", "campaigns", "members", "invites",
               "characters", "transfer", "admin", "backgrounds", "rolls", "content", "chat",
               "pings", "handouts", "dice", "simulations")


def routers() -> list[APIRouter]:
    from importlib import import_module

    return [import_module(f"app.api.{name}").router for name in API_MODULES]
