"""HTML pages: one router module per resource (parse, authorise, call a service, render)."""

from fastapi import APIRouter

WEB_MODULES = ("pages", "accounts", "campaigns", "members", "invites", "characters",
               "transfer", "admin", "matches", "rolls", "content", "chat")


def routers() -> list[APIRouter]:
    from importlib import import_module

    return [import_module(f"app.web.{name}").router for name in WEB_MODULES]
