"""Rolls from a sheet: each game's own test, with the seed's worked examples where it has
them (app/rules/<game>/sheet_rolls.py)."""

from __future__ import annotations

import pytest

from app.rules.cyborg.profiles import CYBORGS
from app.rules.dice import ScriptedDice
from app.rules.registry import get_system
from app.rules.sheet_rolls import SheetRollRefused
from app.rules.tiamat.sheet import jack, roll_talents

TIAMAT, CYBORG, MUTATIOR, CHASSE = (get_system(key) for key in (
    "tiamat", "cyborg", "mutatior", "chasse"))


def roll(system, sheet, key, faces, **options):
    dice = ScriptedDice(faces)
    records = system.roll_on_sheet(sheet, key, options, dice, name="Jack")
    dice.assert_exhausted()
    return records


# — Tiamat: « Caractéristique x D10 + Compétence », the best D10 kept —

def test_tiamat_jack_deciphers_the_parchment_as_the_seed_tells_it() -> None:
    """« Jet de dés simple »: Intelligence 2 and Langue +2, the dice 1 and 6: 8, short of the
    10 a très difficile action needs."""
    (record,) = roll(TIAMAT, jack(), "skill:langue", [1, 6], difficulty="tres_difficile")
    assert (record.expression, record.total, record.target, record.outcome) == (
        "2d10t", 8, 10, "failure")
    assert [m.label for m in record.modifiers] == ["Langue"]


def test_tiamat_a_chosen_characteristic_and_a_critical() -> None:
    """Informatique with its usual Intelligence (« 3 et 7 … 10 (7+3) »), then with Perception
    chosen on the page; a 10 is a critical adding a D6."""
    (record,) = roll(TIAMAT, jack(), "skill:informatique", [3, 7], difficulty="difficile")
    assert (record.total, record.outcome) == (10, "success")
    (record,) = roll(TIAMAT, jack(), "skill:informatique", [10, 2, 4],
                     characteristic="perception")
    assert record.total == 10 + 4 + 3 and record.target is None


def test_tiamat_a_characteristic_alone_and_a_weapon() -> None:
    (force,) = roll(TIAMAT, jack(), "char:force", [2, 9, 5])  # Force 3: three D10
    assert (force.expression, force.total) == ("3d10t", 9)
    (gun,) = roll(TIAMAT, jack(), "weapon:pistolet_9mm", [3, 4])  # « inflige 2D6 »
    assert (gun.expression, gun.total) == ("2d6", 7)


def test_tiamat_the_same_talent_from_two_cells_is_rolled_again() -> None:
    """The table repeats its rows: D10 1 and 2 under D6 1 are both Agilité du singe."""
    talents, records = roll_talents(ScriptedDice([1, 1, 2, 1, 4, 2]))
    assert talents == ["agilite_du_singe", "concentration"]
    assert [r.outcome for r in records[1::2]] == ["Agilité du singe", "relancé",
                                                 "Concentration"]


# — Cyborg: percentile skill tests, characteristic tests on 1D20 —

KENJI = CYBORGS[0].sheet


def test_cyborg_a_skill_test_and_the_gm_modifier() -> None:
    (record,) = roll(CYBORG, KENJI, "skill:arme_a_feu", [73])
    assert (record.expression, record.target, record.outcome) == ("1d100", 72, "failure")
    (record,) = roll(CYBORG, KENJI, "skill:arme_a_feu", [61], modifier="-10")
    assert (record.target, record.outcome) == (62, "success")
    assert "−10 %" in record.purpose
    (record,) = roll(CYBORG, KENJI, "weapon:tronconneuse", [40])  # Arme blanche 61 %
    assert (record.target, record.outcome) == (61, "master stroke")


def test_cyborg_the_door_test_of_the_seed() -> None:
    """« il a une force de 13 … un malus de 3 : le joueur tire 1D20 et obtient 9 ; 9 + 3 =
    12 < 13 : c'est une réussite »."""
    sheet = {**KENJI, "characteristics": {**KENJI["characteristics"], "force": 13}}
    (record,) = roll(CYBORG, sheet, "char:force", [9], malus="3")
    assert (record.total, record.target, record.outcome) == (12, 13, "success")


# — Mutatior: the fight's d6 tests —

def test_mutatior_pump_initiative_attack_and_shot() -> None:
    scarabator = MUTATIOR.demo_characters()[0].sheet  # pump 12, brain 5
    (pump,) = roll(MUTATIOR, scarabator, "pump", [3, 4])
    assert (pump.target, pump.outcome) == (12, "7 naturel")  # a natural 7 always fails
    (initiative,) = roll(MUTATIOR, scarabator, "initiative", [2])
    assert initiative.total == 2 + 5
    (attack,) = roll(MUTATIOR, scarabator, "attack:1", [5])  # the head: 3 muscles, Mandibules
    assert attack.total == 5 + 3 + 1
    assert [m.label for m in attack.modifiers] == ["muscles", "Mandibules"]
    (shot,) = roll(MUTATIOR, scarabator, "shot:0", [6])  # the trunk shoots; a 6 is aimed
    assert shot.outcome == "touché : membre visé"
    with pytest.raises(SheetRollRefused):  # « le tronc n'attaque jamais »
        roll(MUTATIOR, scarabator, "attack:0", [])


# — Chasse: the D6 to hit against the defender's class —

def test_chasse_the_javelot_at_long_range() -> None:
    """« un javelot lancé sur un gibier situé à 4" est un tir à longue portée, et doit donc
    obtenir un 5 ou plus pour toucher »."""
    ourk = CHASSE.demo_characters()[0].sheet
    (miss,) = roll(CHASSE, ourk, "throw:javelot", [4], range="longue")
    (hit,) = roll(CHASSE, ourk, "throw:javelot", [5], range="longue")
    assert (miss.outcome, hit.outcome) == ("failure", "success")
    (fire,) = roll(CHASSE, ourk, "fire", [5], helpers="1")
    assert (fire.total, fire.target, fire.outcome) == (6, 6, "success")


# — Refusals: in both languages, naming the option —

@pytest.mark.parametrize(("system", "sheet", "key", "options", "code", "option"), [
    (TIAMAT, jack(), "skill:kung_fu", {}, "unknown_roll", None),
    (TIAMAT, jack(), "skill:langue", {"difficulty": "easy"}, "bad_choice", "difficulty"),
    (CYBORG, KENJI, "skill:conduite", {"modifier": "beaucoup"}, "bad_number", "modifier"),
    (CYBORG, KENJI, "char:force", {"malus": "99"}, "bad_number", "malus"),
])
def test_a_key_or_an_option_the_rules_do_not_know_is_refused(system, sheet, key, options,
                                                              code, option) -> None:
    with pytest.raises(SheetRollRefused) as refused:
        system.roll_on_sheet(sheet, key, options, ScriptedDice([]), name="X")
    assert refused.value.code == code and refused.value.fields.get("option") == option
    assert refused.value.message and refused.value.message_fr()


def test_each_game_offers_what_its_sheet_rolls() -> None:
    assert {r.group for r in TIAMAT.sheet_rolls(jack())} == {"characteristic", "skill", "weapon"}
    assert {r.group for r in CYBORG.sheet_rolls(KENJI)} == {"characteristic", "skill", "weapon"}
    assert get_system("mecha_ring").__class__.__dict__.get("roll_on_sheet") is None
