"""Talent effects at the table — house content.

The seed lists the twenty talents and their D10 × D6 table (« Conception du personnage /
Talents ») but their descriptions are in a chapter « Talents » page 57 that the players' part
does not contain; only Sixième sens is described (in « Attaque surprise »). Each effect below
is therefore **house**, drawn from the talent's name and the art that grants it, and kept small
(one die, one point, once a fight). ``AUTOMATIC`` ones apply by themselves in a match;
``SHEET_ONLY`` ones need a choice the table makes (the GM applies them with a correction).
docs/rules-notes.md § Tiamat / Talents lists them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.system import N_

RULE_TALENTS = "Tiamat § Conception du personnage / Talents (effets : maison)"

# talent → what it does in a match (an English message id; French in the catalogue).
AUTOMATIC = {
    "sixieme_sens": N_("a surprise attack does not cut its defence to a single die (the "
                       "text)"),
    "agilite_du_singe": N_("+1D10 to Acrobatie tests and jumps"),
    "aura": N_("+1D10 to Intimidation tests and opposed rolls"),
    "boost_d_energie": N_("+1D10 précision on an attack for 2 énergie (a box on the attack "
                          "form)"),
    "combat_aveugle": N_("aveuglé: no −1D10 to précision and defence, not limited to "
                         "« Aléatoire » attacks (still no ranged attack)"),
    "concentration": N_("« Se préparer » gives +2D10 instead of +1D10"),
    "course_du_jaguar": N_("+1D10 to Course tests and to running on rough ground"),
    "frenesie": N_("gains 2 furie instead of 1 when a blow takes santé"),
    "immunite_biologique": N_("can be neither empoisonné nor malade"),
    "instinct_de_survie": N_("+1D10 to the défense instinctive (not against a surprise "
                             "attack)"),
    "oeil_d_aigle": N_("no long-range malus; +1D10 to Perception tests"),
    "rage_du_taureau": N_("+1D6 puissance while its furie is at least half its maximum"),
    "reflexes_du_guepard": N_("+1 to initiative"),
    "resistance_de_l_ours": N_("+1 Endurance against damage"),
    "sursaut_d_energie": N_("once a fight, when its énergie falls to 0, gets Volonté énergie "
                            "back instead of being épuisé"),
    "tenacite": N_("once a fight, a blow that would put it KO (or kill it) leaves it 1 santé"),
    "vision_du_ki": N_("no darkness malus; +1D10 to Vigilance tests"),
    "vivacite_du_chat": N_("standing up costs no action"),
    "zen": N_("a Terrorisante attack does not terrorise it"),
}
SHEET_ONLY = {
    "transfert_d_energie": N_("giving énergie to an ally: the GM corrects both gauges"),
}
EFFECTS = {**AUTOMATIC, **SHEET_ONLY}

# Test bonuses: (talent, characteristic or None, skill or None) → +1D10.
TEST_DICE = (("agilite_du_singe", None, "acrobatie"), ("aura", None, "intimidation"),
             ("oeil_d_aigle", "perception", None), ("vision_du_ki", None, "vigilance"),
             ("course_du_jaguar", None, "course"))


def has(fighter: Mapping[str, Any], talent: str) -> bool:
    return talent in (fighter.get("talents") or ())


def test_dice(fighter: Mapping[str, Any], characteristic: str | None, skill: str | None
              ) -> list[str]:
    """The talents that add a D10 to this test."""
    return [talent for talent, char, sk in TEST_DICE if has(fighter, talent) and (
        (char and char == characteristic) or (sk and sk == skill))]


def blind_fighter(fighter: Mapping[str, Any]) -> bool:
    return has(fighter, "combat_aveugle")


def once_left(fighter: Mapping[str, Any], talent: str) -> bool:
    return has(fighter, talent) and talent not in (fighter.get("talent_used") or ())
