"""The JSON API under ``/api/v1``: the same services and permissions as the pages."""

from fastapi import APIRouter

API_MODULES = ("systems", "accounts", "campaigns", "members", "invites", "characters",
               "transfer", "admin", "matches", "backgrounds", "rolls", "content", "chat")


def routers() -> list[APIRouter]:
    from importlib import import_module

    return [import_module(f"app.api.{name}").router for name in API_MODULES]
