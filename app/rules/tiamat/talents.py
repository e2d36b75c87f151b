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

RULE_TALENTS = "Tiamat § Conception du personnage / Talents (effets : maison)"

# talent → what it does in a match (French, as the documentation says it).
AUTOMATIC = {
    "sixieme_sens": "une attaque surprise ne le réduit pas à un seul dé de défense (texte)",
    "agilite_du_singe": "+1D10 aux tests d'Acrobatie et aux sauts",
    "aura": "+1D10 aux tests et jets d'opposition d'Intimidation",
    "boost_d_energie": "+1D10 en précision sur une attaque pour 2 points d'énergie (case à "
                       "cocher)",
    "combat_aveugle": "aveuglé : ni −1D10 en précision et en défense, ni limite aux attaques "
                      "« Aléatoire » (toujours pas d'attaque à distance)",
    "concentration": "« Se préparer » donne +2D10 au lieu de +1D10",
    "course_du_jaguar": "+1D10 aux tests de course en terrain difficile et aux tests de Course",
    "frenesie": "gagne 2 points de furie au lieu d'1 quand un coup lui ôte de la santé",
    "immunite_biologique": "ne peut être empoisonné ni malade",
    "instinct_de_survie": "+1D10 à la défense instinctive (pas contre une attaque surprise)",
    "oeil_d_aigle": "pas de malus de longue portée ; +1D10 aux tests de Perception",
    "rage_du_taureau": "+1D6 en puissance tant que sa furie atteint la moitié de son maximum",
    "reflexes_du_guepard": "+1 à l'initiative",
    "resistance_de_l_ours": "+1 en Endurance contre les dommages",
    "sursaut_d_energie": "une fois par combat, quand son énergie tombe à 0, en regagne "
                         "Volonté au lieu d'être épuisé",
    "tenacite": "une fois par combat, un coup qui le mettrait KO (ou le tuerait) lui laisse "
                "1 point de santé",
    "vision_du_ki": "pas de malus d'obscurité ; +1D10 aux tests de Vigilance",
    "vivacite_du_chat": "se relever ne coûte pas d'action",
    "zen": "ne peut être terrorisé par une attaque",
}
SHEET_ONLY = {
    "transfert_d_energie": "donner de son énergie à un allié : le MJ corrige les deux jauges",
}

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
