"""Command line: ``python -m app <command>`` (run ``python -m app --help``)."""

from __future__ import annotations

import argparse
import sys

from app.config import Settings
from app.errors import AppError


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

    from app.http.ops import configure_request_log
    from app.main import create_app
    from app.runtime import settle_heap

    # One JSON line per request (app.http.ops) replaces uvicorn's access log.
    # X-Forwarded-For is believed only from TABLEE_TRUSTED_PROXIES (create_app), never by
    # uvicorn's default of trusting 127.0.0.1.
    options = {"host": args.host, "port": args.port, "proxy_headers": False,
               "log_level": "info", "access_log": False}
    if args.workers > 1:
        if settings.database_url.startswith("sqlite") or not settings.database_url:
            print("serve: several workers need PostgreSQL (TABLEE_DATABASE_URL) and Redis "
                  "(TABLEE_REDIS_URL); see docs/deploy.md", file=sys.stderr)
            sys.exit(2)
        # Each worker process builds its own app from the environment (app.asgi).
        uvicorn.run("app.asgi:create", factory=True, workers=args.workers, **options)
        return
    configure_request_log()
    app = create_app(settings)
    settle_heap()
    uvicorn.run(app, **options)


def _backup(settings: Settings, args: argparse.Namespace) -> None:
    from app.services.backup import backup_database

    print(backup_database(settings, target=args.target))


def _verify_log(settings: Settings, args: argparse.Namespace) -> None:
    """Check every signature of a roll-log export; exit 1 when one fails, 2 when unreadable."""
    import json
    from pathlib import Path
    from typing import NoReturn

    from app.services.rolls import ExportUnreadable, check_log

    def _fail(message: str) -> NoReturn:
        print(message, file=sys.stderr)
        sys.exit(2)

    if not args.secret and not settings.secret_key \
            and not (settings.data_dir / "secret_key").exists():
        _fail("verify-log: no secret key here: pass --secret, set TABLEE_SECRET_KEY, or run "
              "from the instance's directory (data_dir/secret_key)")
    try:
        document = json.loads(Path(args.file).read_text(encoding="utf-8"))
        found = check_log(args.secret or settings.resolved_secret_key, document)
    except (OSError, ValueError) as error:  # ExportUnreadable and JSON errors are ValueErrors
        reason = error if isinstance(error, ExportUnreadable | OSError) else f"not JSON ({error})"
        _fail(f"verify-log: cannot read {args.file}: {reason}")
    counts = (f"{found.rolled_here} entries rolled here, {found.imported} imported from a "
              "campaign file (not rolled here)")
    if found.tampered:
        ids = ", ".join(str(entry_id) for entry_id in found.tampered)
        print(f"{counts}; {len(found.tampered)} with an invalid signature: {ids}")
        sys.exit(1)
    print(f"{counts}; all signatures valid")


COMMANDS = {"migrate": _migrate, "demo": _demo, "serve": _serve, "backup": _backup,
            "verify-log": _verify_log}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app", description="Tablée")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate", help="apply the database migrations")
    sub.add_parser("demo", help="create the demo accounts and campaigns (once)")
    serve = sub.add_parser("serve", help="serve on HOST:PORT")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1,
                       help="worker processes (more than one: PostgreSQL and Redis)")
    backup = sub.add_parser("backup", help="write a consistent copy of the database")
    backup.add_argument("--target", default=None, help="file to write (default var/backups/…)")
    verify_log = sub.add_parser("verify-log", help="check the signatures of an exported roll "
                                "log (export.json)")
    verify_log.add_argument("file", help="the export.json file")
    verify_log.add_argument("--secret", default=None,
                            help="the instance's secret key (default: this instance's)")
    args = parser.parse_args(argv)
    try:
        COMMANDS[args.command](Settings(), args)
    except AppError as error:
        print(error.message, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
