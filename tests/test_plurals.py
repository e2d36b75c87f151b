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

pytestmark = pytest.mark.same_on_every_database  # no database: the messages and their plurals

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


# — the journal's lines, rendered as the table draws them ———————————————————————————

def log_text(system_key: str, kind: str, payload: dict, language: str, *,
             visibility: str = "public", who: str | None = "Mia") -> str:
    """The journal line of one event, as a reader of ``language`` reads it."""
    from bs4 import BeautifulSoup

    from app.web.table_view import LogLine, fragment

    line = LogLine({"seq": 7, "kind": kind, "payload": payload, "reverted": False,
                    "visibility": visibility, "created_at": None, "actor_id": 1}, [], who)
    before = i18n.get_locale()
    i18n.set_locale(language)
    try:
        html = fragment("matches/_log_lines.html", {
            "lines": [line], "system_key": system_key, "url": "/m", "seq": 7,
            "can_undo": False, "gm_ids": set(), "csrf_token": "x"})
    finally:
        i18n.set_locale(before)
    return " ".join(BeautifulSoup(html, "html.parser").select_one("li").get_text().split())


MECHA_NAMES = {"s1": "Écurie Boulon", "s2": "Équipe Acier Hurlant"}


def strike(defence_dice: int) -> dict:
    return {"names": MECHA_NAMES, "attacker": "s1", "defender": "s2", "slot": "tete",
            "attack_dice": 3, "attack": [6, 2, 1], "attack_total": 9,
            "defence_dice": defence_dice, "defence": [4] * defence_dice,
            "defence_total": 4 * defence_dice, "hit": False}


def test_a_mecha_ring_strike_says_one_die_and_elides_before_a_team_s_vowel():
    """« défense 1 dés » and « tête de Équipe » were in the journal (issue 23)."""
    assert log_text("mecha_ring", "struck", strike(1), "fr") == (
        "#7 Écurie Boulon frappe tête d'Équipe Acier Hurlant : attaque 3 dés (6, 2, 1 = 9) "
        "contre défense 1 dé (4 = 4) — esquivé.")
    assert "défense 2 dés (4, 4 = 8)" in log_text("mecha_ring", "struck", strike(2), "fr")
    assert "against défense 1 die (4 = 4)" in log_text("mecha_ring", "struck", strike(1), "en")


@pytest.mark.parametrize(("system_key", "kind", "payload", "french", "english"), [
    ("tiamat", "manoeuvred", {"what": "reload", "name": "Jack", "weapon": "Pistolet",
                              "before": 0, "after": 1, "rule": "Tiamat § Armes"},
     "Jack recharge Pistolet : 0 → 1 munition. (règle : Tiamat § Armes)",
     "Jack reloads Pistolet: 0 → 1 munition. (rule: Tiamat § Armes)"),
    ("cyborg", "reloaded", {"name": "Kurt", "weapon_name": "Bazooka", "before": 0,
                            "magazine": 1},
     "Kurt recharge Bazooka : 0 → 1 munition.", "Kurt reloads Bazooka: 0 → 1 round."),
    ("cyborg", "hours_passed", {"hours": 1, "hour": 5, "tokens": {}},
     "1 heure passe (heure 5).", "1 hour passes (hour 5)."),
    ("chasse", "food_banked", {"name": "Ourk", "units": 1},
     "Ourk rapporte 1 unité de nourriture au camp.", "Ourk brings 1 food back to camp."),
    ("mecha_ring", "bought", {"names": {"s1": "Écurie Boulon", "c": "Bras-scie"}, "seat": "s1",
                              "card": "c", "cost": 0, "place": "hand"},
     "Écurie Boulon achète Bras-scie pour 0 crédit (dans la main).",
     "Écurie Boulon buys Bras-scie for 0 crédits (to the hand)."),
    ("mecha_ring", "modifier_set", {"names": MECHA_NAMES, "seat": "s2", "roll": "defence",
                                    "dice": -1, "reason": ""},
     "L'hôte donne à Équipe Acier Hurlant -1 dé de défense la prochaine fois qu'un morceau est "
     "visé.", "The host gives Équipe Acier Hurlant -1 défense die the next time a part is hit."),
    ("mecha_ring", "order_rolled", {"names": MECHA_NAMES, "round": 1, "order": ["s2", "s1"],
                                    "pools": {"s1": 0, "s2": 1}, "tiebreaks": [],
                                    "dice": {"s1": {"dice": [], "total": 0},
                                             "s2": {"dice": [4], "total": 4}}},
     "Ordre du tour 1 aux dés de Mouvement : Équipe Acier Hurlant (1 dé : 4 = 4), "
     "Écurie Boulon (0 dé : — = 0).", "Order of round 1 by the Mouvement dice: Équipe Acier "
     "Hurlant (1 die: 4 = 4), Écurie Boulon (0 dice: — = 0)."),
    ("mutatior", "turn_started", {"name": "Aldo", "allowance": 16, "effects": []},
     "Au tour d'Aldo : 16 cm de mouvement (pompe × 2).",
     "Aldo's turn: 16 cm of movement (pump × 2)."),
    ("libre", "note_added", {"text": "On y va"}, "Mia : On y va", "Mia: On y va"),
])
def test_journal_lines_say_one_in_the_singular_and_elide(system_key, kind, payload, french,
                                                         english):
    assert log_text(system_key, kind, payload, "fr") == f"#7 {french}"
    assert log_text(system_key, kind, payload, "en") == f"#7 {english}"


def test_a_line_only_its_player_and_the_gm_see_says_so_in_words():
    """Not a stray « MJ et lanceur » at the end of the line."""
    line = log_text("libre", "note_added", {"text": "Je fouille"}, "fr", visibility="self")
    assert line == "#7 vu par Mia et le MJ Mia : Je fouille"
    assert "MJ et lanceur" not in line
    assert log_text("libre", "note_added", {"text": "x"}, "fr", visibility="gm").startswith(
        "#7 MJ seul Mia")


# — the rules' own messages (app.rules.wording) ————————————————————————————————————

def test_rules_messages_count_with_the_right_noun():
    from app.rules.chasse.actions import HuntRefused
    from app.rules.cyborg.combat import CombatError
    from app.rules.mutatior.skills import IllegalSkill

    assert CombatError("magazine_empty", left=1).message_fr() == (
        "il ne reste que 1 munition dans le chargeur")
    assert CombatError("magazine_empty", left=1).message == "only 1 round left in the magazine"
    assert CombatError("magazine_empty", left=0).message == "only 0 rounds left in the magazine"
    assert CombatError("too_many_shots", weapon="Fusil", limit=1).message_fr() == (
        "Fusil tire au plus 1 coup par tour")
    assert HuntRefused("cannot_carry", name="Ourk", n=1).message_fr() == (
        "Ourk peut encore prendre au plus 1 unité ce tour-ci")
    assert IllegalSkill("no_room", count=1, organ="lobes", limb="tête").message_fr() == (
        "pas de place pour 1 lobe dans le membre « tête »")


def test_french_elides_before_a_name_that_starts_with_a_vowel():
    from app.rules import wording
    from app.rules.mutatior.match_state import IllegalFight

    assert IllegalFight("not_in_contact", mutant="Zetzet", target="Aldo").message_fr() == (
        "Zetzet n'est pas au contact d'Aldo")
    assert IllegalFight("not_in_contact", mutant="Zetzet", target="Bob").message_fr() == (
        "Zetzet n'est pas au contact de Bob")
    assert IllegalFight("not_in_contact", mutant="Zetzet", target="Aldo").message == (
        "Zetzet is not in contact with Aldo")
    template = "%(a)s de %(b)s, plus que %(c)s ; Le %(d)s avance ; la %(e)s"
    values = {"a": "tête", "b": "Équipe", "c": "Alpha", "d": "Aurochs", "e": "esquive"}
    assert wording.elide(template, values) % values == (
        "tête d'Équipe, plus qu'Alpha ; L'Aurochs avance ; l'esquive")
    # A number, an h or a y keep the full word (« de 8 », « de Hugues », « de Yann »).
    assert wording.elide("de %(n)s, de %(h)s, de %(y)s", {"n": 8, "h": "Hugues", "y": "Yann"}
                         ) == "de %(n)s, de %(h)s, de %(y)s"


def test_catalogue_messages_elide_in_templates_and_services(locale):
    template = templates.env.from_string('{{ _("Santé of %(name)s", name=who) }}')
    locale("fr")
    assert template.render(who="Alien à visage humain") == "Santé d'Alien à visage humain"
    assert template.render(who="Bob") == "Santé de Bob"
    assert i18n.gettext("Role of %(name)s", name="Alice") == "Rôle d'Alice"
    locale("en")
    assert template.render(who="Alien") == "Santé of Alien"
