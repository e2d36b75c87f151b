"""Rolls from a Mutatior sheet (``app.rules.sheet_rolls``): the fight's d6 tests, one mutant.

- « Jet de pompe » (§ 1-6): 2d6 at most the pump, +1 a dead limb; a natural 7 fails, a
  natural 12 fails with an infarctus (reported; the sheet is not changed).
- Initiative (§ 1-1): 1d6 + the brain.
- A limb's attack and defence (§ 1-3 Attaque au corps à corps): 1d6 + its muscles, the
  attack adding its offensive implant; the trunk never attacks, a dead or muscle-less limb
  neither (a limb without muscle defends with a bare d6, § 1-5).
- A limb's shot (§ 1-4 Attaque à distance): 1d6 + its biomoteurs, −1 a dead organ; a
  modified die of 1 or less misses, 6 or more hits the limb aimed at, otherwise a random one.

The dice are those of ``combat`` (the table's), so a sheet roll reads like the table's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules import notation
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.mutatior.body import Limb, Mutant
from app.rules.mutatior.combat import pump_roll
from app.rules.mutatior.content import catalogue, rule
from app.rules.mutatior.sheet import mutant_of
from app.rules.purposes import Purpose
from app.rules.sheet_rolls import SheetRoll, find
from app.rules.system import NO_CONTENT, Content

R_PUMP = rule("1-6 Jet de pompe")
R_INITIATIVE = rule("1-1 Initiative")
R_MELEE = rule("1-3 Attaque au corps à corps")
R_SHOT = rule("1-4 Attaque à distance")
OPTIONS = ()


def _mutant(sheet: Mapping[str, Any], content: Content, name: str = "mutant") -> Mutant:
    return mutant_of(sheet, name, catalogue=catalogue(content))


def _plus(value: int) -> str:
    return f" + {value}" if value > 0 else f" − {-value}" if value < 0 else ""


def sheet_rolls(sheet: Mapping[str, Any], content: Content = NO_CONTENT) -> list[SheetRoll]:
    """The pump roll, the initiative, and each living limb's attack, defence and shot."""
    mutant = _mutant(sheet, content)
    rolls = [SheetRoll("pump", "pompe", "test", f"2d6 ≤ {mutant.live_pump}", R_PUMP),
             SheetRoll("initiative", "initiative", "test", "1d6" + _plus(mutant.live_brain),
                       R_INITIATIVE)]
    for index, limb in enumerate(mutant.limbs):
        if limb.dead:
            continue
        if not limb.trunk and limb.live_muscles > 0:
            rolls.append(SheetRoll(f"attack:{index}", limb.name, "attack", "1d6" + _plus(
                limb.live_muscles + mutant.attack_bonus(limb)), R_MELEE))
        rolls.append(SheetRoll(f"defence:{index}", limb.name, "defence",
                               "1d6" + _plus(limb.live_muscles), R_MELEE))
        if limb.live_biomoteurs > 0:
            rolls.append(SheetRoll(f"shot:{index}", limb.name, "shot", "1d6" + _plus(
                limb.live_biomoteurs - mutant.lost_organs), R_SHOT))
    return rolls


def roll_on_sheet(sheet: Mapping[str, Any], key: str, options: Mapping[str, Any],
                  dice: Dice, *, name: str, content: Content = NO_CONTENT) -> list[RollRecord]:
    """The test behind ``key`` (see the module's docstring), its purpose naming ``name``."""
    chosen = find(sheet_rolls(sheet, content), key)
    mutant = _mutant(sheet, content, name)
    if chosen.key == "pump":
        return [pump_roll(mutant, dice, purpose=Purpose("pump — {name}", name=name)).record]
    if chosen.key == "initiative":
        return [_d6(dice, Purpose("initiative {name}", name=name),
                    (Modifier(mutant.live_brain, "cerveau"),))]
    kind, _, index = chosen.key.partition(":")
    limb = mutant.limbs[int(index)]
    if kind == "attack":
        return [_d6(dice, Purpose("attack {name} ({limb})", name=name, limb=limb.name), (
            Modifier(limb.live_muscles, "muscles"),
            Modifier(mutant.attack_bonus(limb), _implant_name(mutant, limb.offensive))))]
    if kind == "defence":
        return [_d6(dice, Purpose("defence {name} ({limb})", name=name, limb=limb.name),
                    (Modifier(limb.live_muscles, "muscles"),))]
    return [_shot(mutant, limb, dice, name)]


def _implant_name(mutant: Mutant, key: str | None) -> str:
    implant = mutant.implant(key)
    return implant.name if implant else ""


def _d6(dice: Dice, purpose: str, modifiers: tuple[Modifier, ...]) -> RollRecord:
    kept = tuple(modifier for modifier in modifiers if modifier.value)
    return notation.roll("1d6", dice, purpose=purpose).with_modifiers(*kept)


def _shot(mutant: Mutant, limb: Limb, dice: Dice, name: str) -> RollRecord:
    """The shot's own die (§ 1-4): the outcome says whether it misses, hits the limb aimed
    at, or a random one; the target's side (mimétisme, the limb hit, 1d6 damage) is the
    table's."""
    wounds = Modifier(-mutant.lost_organs, Purpose("dead organs"))
    record = _d6(dice, Purpose("shot {name} ({limb})", name=name, limb=limb.name),
                 (Modifier(limb.live_biomoteurs, "biomoteurs"), wounds))
    die = record.dice[0].value + wounds.value
    outcome = ("raté (1)" if die <= 1 else "touché : membre visé" if die >= 6
               else "touché : membre au hasard")
    return record.with_target(None, outcome)
