"""Command line: ``python -m app <command>`` (run ``python -m app --help``)."""

from __future__ import annotations

import argparse
import sys

from app.config import Settings


def _migrate(settings: Settings, _args: argparse.Namespace) -> None:
    from app.migrate import upgrade

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.resolved_database_url)


def _demo(settings: Settings, _args: argparse.Namespace) -> None:
    from app.services.demo import ensure_demo

    for line in ensure_demo(settings):
        print(line)


def _serve(settings: Settings, args: argparse.Namespace) -> None:
    import uvicorn

    from app.main import create_app

    uvicorn.run(create_app(settings), host=args.host, port=args.port, proxy_headers=True,
                log_level="info")


def _backup(settings: Settings, args: argparse.Namespace) -> None:
    from app.services.backup import backup_database

    print(backup_database(settings, target=args.target))


COMMANDS = {"migrate": _migrate, "demo": _demo, "serve": _serve, "backup": _backup}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app", description="Tablée")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate", help="apply the database migrations")
    sub.add_parser("demo", help="create the demo accounts and campaigns (once)")
    serve = sub.add_parser("serve", help="serve on HOST:PORT")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    backup = sub.add_parser("backup", help="write a consistent copy of the database")
    backup.add_argument("--target", default=None, help="file to write (default var/backups/…)")
    args = parser.parse_args(argv)
    COMMANDS[args.command](Settings(), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
