"""ASGI entry point for uvicorn workers: ``uvicorn --factory app.asgi:create``."""

from fastapi import FastAPI

from app.main import create_app


def create() -> FastAPI:
    return create_app()
