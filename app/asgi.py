"""ASGI entry point for uvicorn workers: ``uvicorn --factory app.asgi:create``."""

from fastapi import FastAPI

from app.http.ops import configure_request_log
from app.main import create_app
from app.runtime import settle_heap


def create() -> FastAPI:
    configure_request_log()
    app = create_app()
    settle_heap()
    return app
