"""The template loader remembers what it did not find, unless templates reload
(``app.web.templating._Loader``): a game without its own state template is not looked for
on disk at every render of its table."""

from __future__ import annotations

import jinja2
import pytest

from app.web.templating import _Loader


@pytest.mark.parametrize("reloading", [False, True])
def test_a_missing_template_is_looked_for_once_unless_templates_reload(tmp_path, reloading):
    env = jinja2.Environment(loader=_Loader(str(tmp_path), remember_missing=not reloading))
    (tmp_path / "common.html").write_text("commun")
    template = '{% include ["own.html", "common.html"] %}'
    assert env.from_string(template).render() == "commun"
    (tmp_path / "own.html").write_text("propre")  # written while the server runs
    # remembered as missing: read again only by a server that reloads its templates
    assert env.from_string(template).render() == ("propre" if reloading else "commun")
