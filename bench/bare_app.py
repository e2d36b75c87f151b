"""The baseline for the throughput ratio: a bare FastAPI endpoint doing one SQLite insert.

Served like Tablée (``uvicorn.run``, one worker, same log level) on the same engine set-up
(``app.db.make_engine``: WAL, ``synchronous=NORMAL``, ``BEGIN IMMEDIATE`` for the write),
so the ratio measures what Tablée's action path adds — authentication, the campaign and
match lookups, the rules, the event row, the snapshot, the signed roll — over the floor.

    python -m bench.bare_app --port 8123 --database /tmp/bare.db
"""

from __future__ import annotations

import argparse

import uvicorn
from fastapi import FastAPI
from pydantic import BaseModel, Field
from sqlalchemy import Column, Integer, MetaData, String, Table, insert

from app.db import make_engine

metadata = MetaData()
rows = Table("rows", metadata, Column("id", Integer, primary_key=True),
             Column("text", String(200), nullable=False))


class RowIn(BaseModel):
    text: str = Field(max_length=200)


class RowOut(BaseModel):
    id: int


def create_app(database: str) -> FastAPI:
    engine = make_engine(f"sqlite:///{database}")
    metadata.create_all(engine)
    writer = engine.execution_options(sqlite_begin="IMMEDIATE")
    app = FastAPI()

    @app.get("/healthz")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/rows", status_code=201)
    def add_row(body: RowIn) -> RowOut:  # sync, in the threadpool, like Tablée's routes
        with writer.begin() as connection:
            new_id = connection.execute(insert(rows).values(text=body.text)).inserted_primary_key
        return RowOut(id=new_id[0])

    return app


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bare_app")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database", required=True, help="SQLite file (created if missing)")
    args = parser.parse_args()
    # The same call as ``python -m app serve``.
    uvicorn.run(create_app(args.database), host=args.host, port=args.port, proxy_headers=True,
                log_level="info")


if __name__ == "__main__":
    main()
