"""Real plurals: « 1 jour de repos », « 3 jours de repos », never « jour(s) ».

French counts 0 and 1 as singular (``nplurals=2; plural=(n > 1)``), English only 1. The
templates' ``ngettext`` takes the message's other variables too (a character's name).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from app import i18n
from app.web.templating import templates
from tests.test_i18n import _source_messages

ROOT = Path(__file__).resolve().parent.parent
# « jour(s) », "six(es)", « morceau(x) », « perdu(e) » — but not a placeholder's « %(s)s ».
OPTIONAL_ENDING = re.compile(r"[^\W\d_]\((?:s|es|x|e)\)")


@pytest.fixture
def locale():
    def use(language: str) -> None:
        i18n.set_locale(language)
    yield use
    i18n.set_locale(i18n.DEFAULT_LOCALE)


def _catalogue(language: str):
    with open(ROOT / f"app/translations/{language}/LC_MESSAGES/messages.po", "rb") as handle:
        return read_po(handle, locale=language)


def test_french_has_two_forms_and_one_is_singular():
    catalogue = _catalogue("fr")
    assert catalogue.plural_forms == "nplurals=2; plural=(n > 1);"
    for message in catalogue:
        if isinstance(message.id, tuple | list):
            assert len(message.string) == 2 and all(message.string), message.id


@pytest.mark.parametrize("language", ["fr", "en"])
def test_no_message_says_s_in_brackets(language):
    texts = []
    for message in _catalogue(language):
        texts += message.string if isinstance(message.string, tuple | list) else [
            message.string]
    assert [text for text in texts if OPTIONAL_ENDING.search(text)] == []


def test_no_message_in_the_code_says_s_in_brackets():
    assert sorted(m for m in _source_messages() if OPTIONAL_ENDING.search(m)) == []


CASES = [
    ('ngettext("%(num)s day of rest", "%(num)s days of rest", n)',
     {1: ("1 jour de repos", "1 day of rest"), 3: ("3 jours de repos", "3 days of rest")}),
    ('ngettext("%(name)s has %(num)s free attack on %(target)s.", '
     '"%(name)s has %(num)s free attacks on %(target)s.", n, name="Bouffon", target="Nurglie")',
     {1: ("Bouffon a 1 attaque gratuite sur Nurglie.", "Bouffon has 1 free attack on Nurglie."),
      3: ("Bouffon a 3 attaques gratuites sur Nurglie.",
          "Bouffon has 3 free attacks on Nurglie.")}),
    ('ngettext("%(num)s of %(total)s henchmen standing", '
     '"%(num)s of %(total)s henchmen standing", n, total=4)',
     {1: ("1 homme de main debout sur 4", "1 of 4 henchmen standing"),
      3: ("3 hommes de main debout sur 4", "3 of 4 henchmen standing")}),
    ('ngettext("%(weapon)s: %(num)s shot, %(left)s left.", '
     '"%(weapon)s: %(num)s shots, %(left)s left.", n, weapon="Fusil", left=2)',
     {1: ("Fusil : 1 munition tirée, reste 2.", "Fusil: 1 shot, 2 left."),
      3: ("Fusil : 3 munitions tirées, reste 2.", "Fusil: 3 shots, 2 left.")}),
    ('_("losses: %(losses)s", losses=[ngettext("%(num)s muscle", "%(num)s muscles", n), '
     'ngettext("%(num)s biomoteur", "%(num)s biomoteurs", 1), '
     'ngettext("%(num)s lobe", "%(num)s lobes", 0)]|join(", "))',
     {1: ("pertes : 1 muscle, 1 biomoteur, 0 lobe", "losses: 1 muscle, 1 biomoteur, 0 lobes"),
      3: ("pertes : 3 muscles, 1 biomoteur, 0 lobe",
          "losses: 3 muscles, 1 biomoteur, 0 lobes")}),
    ('_("%(organs)s, %(limbs)s; healing costs %(kg)s kg", '
     'organs=ngettext("%(num)s organ lost", "%(num)s organs lost", n), '
     'limbs=ngettext("%(num)s dead limb", "%(num)s dead limbs", n), kg=20)',
     {1: ("1 organe perdu, 1 membre mort ; soigner coûte 20 kg",
          "1 organ lost, 1 dead limb; healing costs 20 kg"),
      3: ("3 organes perdus, 3 membres morts ; soigner coûte 20 kg",
          "3 organs lost, 3 dead limbs; healing costs 20 kg")}),
    ('ngettext("Fight %(fight)s: %(name)s wins in %(num)s round.", '
     '"Fight %(fight)s: %(name)s wins in %(num)s rounds.", n, fight=2, name="Boulon")',
     {1: ("Combat 2 : Boulon gagne en 1 tour.", "Fight 2: Boulon wins in 1 round."),
      3: ("Combat 2 : Boulon gagne en 3 tours.", "Fight 2: Boulon wins in 3 rounds.")}),
]


@pytest.mark.parametrize(("expression", "expected"), CASES)
@pytest.mark.parametrize("n", [1, 3])
def test_templates_say_one_and_three(locale, expression, expected, n):
    template = templates.env.from_string("{{ " + expression + " }}")
    for language, text in zip(("fr", "en"), expected[n], strict=True):
        locale(language)
        assert template.render(n=n) == text


def test_french_zero_is_singular_english_zero_is_plural(locale):
    template = templates.env.from_string(
        '{{ ngettext("with %(num)s helper", "with %(num)s helpers", 0) }}')
    locale("fr")
    assert template.render() == "avec 0 équipier"
    locale("en")
    assert template.render() == "with 0 helpers"


def test_services_ngettext_still_formats_the_count(locale):
    locale("fr")
    assert i18n.ngettext("%(num)d fight won", "%(num)d fights won", 1) == "1 combat gagné"
    assert i18n.ngettext("%(num)d fight won", "%(num)d fights won", 3) == "3 combats gagnés"
    locale("en")
    assert i18n.ngettext("%(num)s entry", "%(num)s entries", 1) == "1 entry"
