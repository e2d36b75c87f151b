"""Throwing weapons and melee (seed § Tirs, § Bonus et malus au tir, and the combat
paragraphs that follow it). Pure: figures are plain dicts, dice are injected.

A strike: a D6 to hit (≥ the weapon's value against the defender's class), then, when it
hits, the defender's save (a D6 ≥ the save value: only grazed; "(*) sauvegarde impossible":
a save of 0 here, the wound is certain). The numbers are house content (``data/weapons.toml``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.chasse.content import mass_class
from app.rules.chasse.geometry import CONTACT, distance, o_pos, rounded
from app.rules.chasse.resolve import d6
from app.rules.dice import Dice
from app.rules.purposes import Purpose

RULE_SHOT = "Chasse préhistorique § Tirs"
RULE_MELEE = "Chasse préhistorique § Tirs / corps à corps (combats simultanés)"
SMALL_MASS = 1  # "petite bête (catégorie M1)"


def shot_range(weapon: Mapping[str, Any], span: float) -> str | None:
    """"short", "long" or None (out of reach, or within 1": § Tirs "à condition de ne pas être
    à moins de 1" de sa cible" — a figure in contact, 1" away, throws nothing: after a
    charge that ends in contact, no point-blank javelin)."""
    short, long_ = weapon["throw"]
    if span <= CONTACT + 0.01:
        return None
    if span <= short:
        return "short"
    if span <= long_:
        return "long"
    return None


def strike(dice: Dice, *, attacker: Mapping[str, Any], defender: Mapping[str, Any],
           weapon: Mapping[str, Any], modifiers: tuple[tuple[int, str], ...],
           purpose: str) -> dict[str, Any]:
    """One attack roll and, on a hit, the defender's save. Returns the rolls and the outcome
    ("miss", "grazed", "wound")."""
    klass = mass_class(int(defender["masse"]))
    to_hit = int(weapon["to_hit"][klass])
    hit = d6(dice, Purpose("{kind} — {attacker} → {defender}", kind=purpose,
                              attacker=attacker["name"], defender=defender["name"]),
             modifiers=modifiers, target=to_hit)
    result = {"attacker": attacker["id"], "defender": defender["id"], "weapon": weapon["key"],
              "weapon_name": weapon["name"], "class": klass, "to_hit": to_hit,
              "rolls": [hit], "outcome": "miss", "save": None}
    if hit["total"] < to_hit:
        return result
    save = int(weapon["save"][klass])
    result["save"] = save
    if save == 0:  # (*) sauvegarde impossible
        result["outcome"] = "wound"
        return result
    saved = d6(dice, Purpose("save — {name}", name=defender["name"]), target=save)
    result["rolls"].append(saved)
    result["outcome"] = "grazed" if saved["total"] >= save else "wound"
    return result


def shoot(dice: Dice, *, shooter: Mapping[str, Any], target: Mapping[str, Any],
          weapon: Mapping[str, Any], extra: tuple[tuple[int, str], ...] = ()) -> dict[str, Any]:
    """§ Tirs: range by the measured distance; long range −1; a M1 target −1 except for
    bows and slings. The caller has checked the range is not None."""
    span = rounded(distance(o_pos(shooter), o_pos(target)))
    reach = shot_range(weapon, span)
    modifiers: list[tuple[int, str]] = []
    if reach == "long":
        modifiers.append((-1, "portée longue"))
    if int(target["masse"]) <= SMALL_MASS and not weapon.get("no_small_malus"):
        modifiers.append((-1, "petite bête (M1)"))
    modifiers += extra
    result = strike(dice, attacker=shooter, defender=target, weapon=weapon,
                    modifiers=tuple(modifiers), purpose=Purpose("shot"))
    result.update(distance=span, range=reach, modifiers=[list(m) for m in modifiers])
    return result


def melee_modifiers(fighter: Mapping[str, Any], *, supporters: int, charged: bool,
                    extra: tuple[tuple[int, str], ...] = ()) -> tuple[tuple[int, str], ...]:
    """+1 for a charge (first round), +1 per supporting figure, +1 for a Pataud (house)."""
    modifiers: list[tuple[int, str]] = []
    if charged:
        modifiers.append((1, "charge"))
    if supporters:
        modifiers.append((supporters, "soutien"))
    if fighter.get("melee_bonus"):
        modifiers.append((int(fighter["melee_bonus"]), "Pataud"))
    return tuple(modifiers) + extra
