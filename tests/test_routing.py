"""The order of the routes: the hottest first (``app.main._include_routers``), and yet every
route is still the first to match its own paths, so reordering never hands a request to
another route."""

from __future__ import annotations

import re

SAMPLE = {"int": "7", "path": "a/b", "str": "abc", "float": "1.5", "uuid":
          "12345678-1234-5678-1234-567812345678"}


def sample_path(path: str) -> str:
    """``/campaigns/{campaign_id:int}/x`` → ``/campaigns/7/x`` (a path the route takes)."""
    def fill(found: re.Match[str]) -> str:
        _name, _, convertor = found.group(1).partition(":")
        return SAMPLE[convertor or "str"]
    return re.sub(r"\{([^}]+)\}", fill, path)


def test_every_route_is_the_first_to_match_its_own_paths(app):
    order = app.state.route_order
    assert len(order) > 100
    for index, (regex, methods, path) in enumerate(order):
        sample = sample_path(path)
        first = next(i for i, (other, other_methods, _path) in enumerate(order)
                     if other.match(sample) and other_methods & methods)
        assert order[first][2] == path, (sample, path, order[first][2])


def test_an_action_at_the_table_is_among_the_first_routes_walked(app):
    paths = [path for _regex, _methods, path in app.state.route_order]
    assert paths.index("/api/v1/campaigns/{campaign_id}/matches/{match_id}/actions") < 15
    assert paths.index("/campaigns/{campaign_id}/matches/{match_id}/actions") < \
        len([p for p in paths if p.startswith("/api/")]) + 15


def test_the_schema_documents_every_api_route_and_no_page(client, app):
    """Each router gives its routes their whole path and their place in the schema: the API's
    under ``/api/v1`` and documented, the pages' (and the probes') left out."""
    documented = client.get("/openapi.json").json()["paths"]
    paths = {re.sub(r":\w+}", "}", path)  # the schema names no convertor
             for _regex, _methods, path in app.state.route_order}
    api = {path for path in paths if path.startswith("/api/v1/")}
    assert set(documented) == api
    assert "/campaigns/{campaign_id}/matches/{match_id}" in paths - api
    assert "/healthz" in paths - api

