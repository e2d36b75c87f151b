"""ASGI entry point for uvicorn workers: ``uvicorn --factory app.asgi:create``."""

from fastapi import FastAPI

from app.http.ops import configure_request_log
from app.main import create_app


def create() -> FastAPI:
    configure_request_log()
    return create_app()
