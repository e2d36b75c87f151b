"""Jinja2 set-up and the one ``render`` helper every page uses.

A page renders whole, or only its component when htmx asks for it (``HX-Request`` with
``partial``): one template, included by the page and returned alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
import jinja2.runtime
from fastapi import Request
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.responses import HTMLResponse

from app import i18n
from app.http.deps import CSRF_FIELD, CSRF_HEADER, csrf_token_for
from app.i18n import SUPPORTED_LOCALES, get_locale, language_name
from app.rules.board import board_distance
from app.rules.mutatior.content import catalogue as mutatior_catalogue
from app.rules.registry import all_systems, get_system
from app.rules.simulation import SIMULATORS
from app.services import rolls
from app.services import tables as _tables

ROOT = Path(__file__).resolve().parent.parent.parent
STATIC_DIR = ROOT / "static"

# Templates are read once per process: checking each one's mtime at every render (Jinja's
# default) cost ~2 % of the server's CPU under load (docs/benchmarks.md § The load
# harness). TABLEE_TEMPLATES_RELOAD=1 checks again, for whoever edits templates on a live server.
_RELOAD = os.environ.get("TABLEE_TEMPLATES_RELOAD") == "1"


class _Loader(jinja2.FileSystemLoader):
    """Jinja's loader, remembering the names it did not find (unless templates reload): an
    ``{% include [a game's own, the common one] %}`` looked for the game's file on disk
    at every render — each table state of a game without its own state template."""

    def __init__(self, path: str, *, remember_missing: bool) -> None:
        super().__init__(path)
        self._missing: set[str] | None = set() if remember_missing else None

    def get_source(self, environment: jinja2.Environment,
                   template: str) -> tuple[str, str | None, Callable[[], bool] | None]:
        if self._missing is not None and template in self._missing:
            raise jinja2.TemplateNotFound(template)
        try:
            return super().get_source(environment, template)
        except jinja2.TemplateNotFound:
            if self._missing is not None:
                self._missing.add(template)
            raise


templates = Jinja2Templates(env=jinja2.Environment(
    loader=_Loader(str(ROOT / "templates"), remember_missing=not _RELOAD),
    autoescape=True, extensions=["jinja2.ext.i18n"], auto_reload=_RELOAD))


def compile_templates() -> int:
    """Compile every template now rather than at its first render (``app.runtime``); how
    many there are."""
    names = templates.env.list_templates(extensions=["html"])
    for name in names:
        templates.env.get_template(name)
    return len(names)


@jinja2.pass_context
def _template_gettext(context: jinja2.runtime.Context, message: str, /, **variables: Any) -> str:
    """Jinja's newstyle ``gettext`` (escape the message, then fill in its variables), with
    French elision made for the values given (``i18n.elided``: « tête d'Équipe »)."""
    text = i18n.translations_for(get_locale()).gettext(message)
    return _format(context, i18n.elided(text, variables), variables)


@jinja2.pass_context
def _template_ngettext(context: jinja2.runtime.Context, singular: str, plural: str, n: int, /,
                       **variables: Any) -> str:
    """The catalogue's form for ``n``, filled in like ``_template_gettext`` (``num`` is n)."""
    variables.setdefault("num", n)
    text = i18n.translations_for(get_locale()).ngettext(singular, plural, n)
    return _format(context, i18n.elided(text, variables), variables)


def _format(context: jinja2.runtime.Context, text: str, variables: dict[str, Any]) -> str:
    if context.eval_ctx.autoescape:
        text = Markup(text)  # noqa: S704 — the catalogue's own text, as Jinja trusts it
    # always a format string, as in Jinja ("%%" is a percent sign); fractions as the reader
    # writes them (« Encore 4,8 cm », not 4.8)
    return text % i18n.localised(variables)


# What ``install_gettext_callables(..., newstyle=True)`` sets up, with the two functions above
# in place of Jinja's own wrappers (which never see the values before formatting).
templates.env.newstyle_gettext = True  # type: ignore[attr-defined]
templates.env.globals.update(gettext=_template_gettext, ngettext=_template_ngettext)


def _system_name(key: str) -> str:
    system = get_system(key)
    if system is None:
        return key
    return system.name_fr if get_locale() == "fr" else system.name_en


def _static_url(path: str) -> str:
    target = STATIC_DIR / path
    stamp = int(target.stat().st_mtime) if target.exists() else 0
    return f"/static/{path}?v={stamp}"


def _sentence(text: object) -> object:
    """Capitalise a sentence's first letter only: a name inside keeps its case (Jinja's
    ``capitalize`` lowercases the rest), and escaped markup stays markup."""
    if not isinstance(text, str):
        return text
    return text[:1].upper() + text[1:]


def _mutatior_implant(key: str, content: Any = None) -> str:
    """An implant's name, never its key (« Queue épineuse », not « queue_epineuse »): the
    match state keeps keys, the campaign's custom ones among them (``state.content``)."""
    implant = mutatior_catalogue(content).get(key)
    return implant.name if implant else key


# How a moment reads until static/js/times.js writes it in the reader's own time zone.
_UTC_FORMATS = {"date": "%Y-%m-%d", "time": "%H:%M UTC", "datetime": "%Y-%m-%d %H:%M UTC",
                "datetime-seconds": "%Y-%m-%d %H:%M:%S UTC"}


def _local_time(moment: datetime | str | None, kind: str = "datetime", css_class: str = ""
                ) -> Markup:
    """A moment on a page, the one way every page shows one: ``<time>`` holding its UTC
    instant, showing it in UTC (said so) until ``static/js/times.js`` rewrites it in the
    reader's time zone and names the zone in its title. ``kind``: a key of ``_UTC_FORMATS``."""
    if not moment:
        return Markup("")
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    instant = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)
    classes = Markup(' class="{}"').format(css_class) if css_class else ""
    return Markup('<time{} datetime="{}" data-local="{}">{}</time>').format(
        classes, instant.strftime("%Y-%m-%dT%H:%M:%SZ"), kind,
        instant.strftime(_UTC_FORMATS[kind]))


templates.env.filters["sentence"] = _sentence
# Stored outcome words ("success", "master stroke") in the reader's language.
templates.env.filters["outcome"] = rolls.outcome_label
templates.env.filters["roll_summary"] = rolls.roll_summary
# A roll's purpose in the reader's language (``roll.purpose|purpose`` or with its record).
templates.env.filters["purpose"] = rolls.purpose_label
templates.env.filters["modifier_label"] = rolls.modifier_label
# A fraction in the reader's locale (« 9,5 »); messages (``_()``) do it for their variables.
templates.env.filters["number"] = i18n.number
templates.env.filters["mutatior_implant"] = _mutatior_implant
# A distance on a Cyborg board in the reader's words (« 4,5 cases »).
templates.env.filters["board_distance"] = lambda value, unit: board_distance(
    value, unit, get_locale())
# An empty message stays empty (gettext("") would give the catalogue's header).
templates.env.filters["gettext_msg"] = lambda message: (
    i18n.gettext(str(message)) if str(message) else "")
templates.env.globals.update(
    static_url=_static_url,
    system_name=_system_name,
    all_systems=all_systems,
    supported_locales=SUPPORTED_LOCALES,
    language_name=language_name,
    current_locale=get_locale,
    local_time=_local_time,
    CSRF_FIELD=CSRF_FIELD,
    CSRF_HEADER=CSRF_HEADER,
    # the server's clock (a turn timer's seconds left are counted here, never by the page)
    server_now=lambda: _tables.clock(),
    # the games whose state panel has a simulation (templates/simulations/_slot.html)
    simulated_systems=frozenset(SIMULATORS),
)


def render(request: Request, name: str, context: dict[str, Any] | None = None, *,
           status_code: int = 200, partial: str | None = None) -> HTMLResponse:
    """Render ``name`` (or only ``partial`` for an htmx request) with the common context."""
    if partial and request.headers.get("hx-request") == "true" \
            and not request.headers.get("hx-boosted"):
        name = partial
    viewer = getattr(request.state, "viewer", None)
    full_context = {
        "viewer": viewer,
        "user": viewer.user if viewer else None,
        "csrf_token": csrf_token_for(request),
        **(context or {}),
    }
    return templates.TemplateResponse(request, name, full_context, status_code=status_code)
