"""The odds panel on Mutatior's, Mecha-Ring's and Chasse's action forms (docs/odds.md): each
form that gives odds has its panel, asked for the form as it stands, and the odds follow
the choice (another limb aimed at, another part, another opponent) — in the reader's
language, on what that viewer may see (tests/test_odds_pages.py is Chasse's throw)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from app.models import Match
from tests.odds_pages import ask, valley
from tests.table_harness import play
from tests.test_mecha_ring_table import one, open_tournament, pool
from tests.test_mecha_ring_table import ring as ring
from tests.test_mutatior_table import SECRET, open_bout, opening
from tests.test_mutatior_table import arena as arena
from tests.test_odds_pages import throw_ready as throw_ready


def sentence(shown: BeautifulSoup) -> str:
    found = shown.select_one(".odds-sentence")
    assert found is not None, shown.text
    return found.text


def panel(page: BeautifulSoup, kind: str, url: str) -> None:
    """The form of ``kind`` has its odds panel, posting the form to the odds route."""
    found = page.select_one(f"#action-{kind} .odds-panel")
    assert found is not None, f"no odds panel on the {kind} form"
    assert found["hx-post"] == url + "/odds" and found["hx-include"] == "closest form"


# — Mutatior ————————————————————————————————————————————————————————————————————

def test_mutatior_s_attack_shot_and_sprint_forms_show_their_odds(db, arena):
    gm, paul, pia = (arena["access"][name] for name in ("mia", "paul", "pia"))
    match = open_bout(db, arena, "Le choc")
    play(db, SECRET, match, opening(gm, paul, pia))  # round 2: Grosbaf's turn
    url = f"/campaigns/{arena['campaign']}/matches/{match.id}"
    grosbaf = arena["people"]["paul"]
    page = BeautifulSoup(grosbaf.client.get(url).text, "html.parser")
    for kind in ("attack", "shoot", "sprint", "sponge"):
        panel(page, kind, url)
    # d6 + 8 (7 muscles, the horn) against the torso's d6 + 6.
    torso = ask(grosbaf, url, kind="attack", limb="m1:tête", target="m2:torse")
    assert sentence(torso) == ("72% to hit; 2.28 organs lost on average; 76% to attack again; "
                               "21% of a counter-attack")
    assert "Attack: 1d6 + 7 (muscles) + 1 (corne); defence: 1d6 + 6 (muscles)." in torso.text
    # Another limb aimed at: the head defends with 5 muscles.
    head = ask(grosbaf, url, kind="attack", limb="m1:tête", target="m2:tête")
    assert sentence(head).startswith("83% to hit")
    # A shot at Zetzet (Mimétisme: 9 or more), a sprint (2d6 ≤ 6, never 7).
    assert sentence(ask(grosbaf, url, kind="shoot", limb="m1:tronc", target="m2:tête")) \
        .startswith("67% to hit; 17% on the limb aimed at")
    assert sentence(ask(grosbaf, url, kind="sprint", token="m1")) == \
        "42% to move as far again; 2.8% of an infarctus"
    grosbaf.post("/account", {"display_name": "Paul", "locale": "fr"})
    assert sentence(ask(grosbaf, url, kind="attack", limb="m1:tête", target="m2:torse")) == (
        "72\u202f% de toucher\u202f; 2,28 organes perdus en moyenne\u202f; 76\u202f% de "
        "pouvoir attaquer à nouveau\u202f; 21\u202f% de contre-attaque")
    # Zetzet's trainer may not attack in Grosbaf's turn: no odds, said without an error.
    zetzet = arena["people"]["pia"]
    assert "Choose the action" in ask(zetzet, url, kind="attack", limb="m1:tête",
                                      target="m2:torse").text


# — Mecha-Ring ——————————————————————————————————————————————————————————————————

def test_mecha_ring_s_attack_and_aim_forms_show_their_odds(db, ring):
    match = open_tournament(db, ring)
    gm, paul, pia = (ring["access"][name] for name in ("mia", "paul", "pia"))
    for seat in ("t1", "t2"):  # nobody can pay an SFX card: no reaction window
        one(db, match, gm, {"kind": "correct", "seat": seat, "field": "credits", "value": 0})
    seated = {"t1": paul, "t2": pia}
    people = {"t1": ring["people"]["paul"], "t2": ring["people"]["pia"]}
    first, second = match.state["fight"]["order"]
    if match.state["fight"]["step"] == "climb":
        one(db, match, seated[second], {"kind": "climb", "climb": ""})
    url = f"/campaigns/{ring['campaign']}/matches/{match.id}"
    attacker = people[first]
    page = BeautifulSoup(attacker.client.get(url).text, "html.parser")
    panel(page, "attack", url)
    radar = pool(match, first, "radar")
    shown = ask(attacker, url, kind="attack", target=second)
    assert sentence(shown).startswith(
        f"{round(100 * (1 - 0.5 ** radar))}% that your radar lets you choose the part")
    assert "Not counted: the SFX cards still in hand" in shown.text
    one(db, match, seated[first], {"kind": "attack", "target": second}, [1] * radar)
    chooser = people[match.state["fight"]["pending"]["chooser"]]
    page = BeautifulSoup(chooser.client.get(url).text, "html.parser")
    panel(page, "choose_part", url)
    slots = [slot for slot, part in match.state["tokens"][second]["robot"].items()
             if part and slot != "torse"]
    sentences = {slot: sentence(ask(chooser, url, kind="choose_part", slot=slot))
                 for slot in slots}
    assert all(" that the attack hits; " in text for text in sentences.values())
    # The parts' défense differ: the odds follow the part chosen.
    parts = match.state["catalogue"]["parts"]
    defences = {slot: parts[match.state["tokens"][second]["robot"][slot]["card"].split("#")[0]][
        "defense"] for slot in slots}
    assert len(set(defences.values())) > 1  # the draft of seed 11
    assert len(set(sentences.values())) > 1
    # The torse may not be aimed at while the other parts stand.
    assert "Choose the action" in ask(chooser, url, kind="choose_part", slot="torse").text


# — Chasse préhistorique ————————————————————————————————————————————————————————

def test_chasse_s_melee_form_shows_its_odds(throw_ready):
    people, url, act = throw_ready
    act(people["mia"], kind="correct", token="t1", field="y", value="29", reason="")
    paul = people["paul"]
    page = BeautifulSoup(paul.client.get(url).text, "html.parser")
    panel(page, "melee", url)  # at step 6, a fight may be taken at once
    shown = ask(paul, url, kind="melee", fight="t1|t2|mains_nues")
    # Bare hands against a boar: 5+, its save 3+; its tusks back: 4+, Ourk's save 6+.
    assert sentence(shown) == "33% to hit; 11% to wound; 42% that Ourk is wounded in return"
    # His javelin, a spear in melee: 4+, the boar's save 5+.
    assert sentence(ask(paul, url, kind="melee", fight="t1|t2|javelot")).startswith(
        "50% to hit; 33% to wound")
    assert "strikes back at the same time" in shown.text


@pytest.fixture
def hunt_start(db, web, libre_dice):
    """Paul's Ourk (javelin) at step 2 of the first turn (fires), a boar on the ground."""
    people, url, act = valley(db, web, libre_dice)
    act(people["mia"], kind="add_prey", species="sanglier", x="24", y="20")
    act(people["mia"], kind="begin_hunt")
    state = db.get(Match, int(url.rsplit("/", 1)[1])).state
    assert state["step"] == 2
    return people["paul"], url, state["tokens"]["t1"]


def test_chasse_s_fire_and_charge_forms_show_their_odds(hunt_start):
    paul, url, ourk = hunt_start
    page = BeautifulSoup(paul.client.get(url).text, "html.parser")
    panel(page, "light_fire", url)
    panel(page, "move", url)  # a walk or a charge may be taken at once, from step 2
    x, y = str(int(ourk["x"])), str(int(ourk["y"]))
    assert sentence(ask(paul, url, kind="light_fire", token="t1", x=x, y=y)) == \
        "17% to light the fire"  # a 6, no shaman, no helper
    walk = ask(paul, url, kind="move", token="t1", x=x, y=str(int(ourk["y"]) - 1), target="")
    assert sentence(walk) == "A move without a charge throws no die"
    charge = ask(paul, url, kind="move", token="t1", target="t2")
    assert " to reach Sanglier" in sentence(charge)
    assert "1D6 straight at Sanglier" in charge.text
