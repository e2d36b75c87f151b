"""The Combatank and the dice of a fight: pure rules, dice injected.

A robot is five slots (``SLOTS``), each empty or ``{"card": "key#n", "energy": 0..4}``; the
catalogue (``content.deck``) gives each card's values. House: the text gives a robot "des bras"
and "des jambes"; Tablée has two arm slots (an arm card fits either) and one legs card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.rules.dice import Dice
from app.rules.mecha_ring.content import MAX_ENERGY, key_of, rule

SLOTS = ("tete", "bras_g", "bras_d", "jambes", "torse")
SLOT_FAMILY = {"tete": "tete", "bras_g": "bras", "bras_d": "bras", "jambes": "jambes",
               "torse": "torse"}
R_SETUP = rule("Mise en place")
R_TURN = rule("Tour de jeu")
R_MARKET = rule("Phase de marché")
R_SFX = rule("Cartes SFX")
R_END = rule("Fin du tournoi")

Robot = dict[str, Any]
Catalogue = Mapping[str, Mapping[str, Any]]


def empty_robot() -> Robot:
    return {slot: None for slot in SLOTS}


def card(catalogue: Catalogue, card_id: str) -> Mapping[str, Any]:
    return catalogue[key_of(card_id)]


def free_slot(robot: Robot, family: str) -> str | None:
    """The first empty slot a card of ``family`` fits, or None ("s'il a déjà cette pièce")."""
    return next((slot for slot in SLOTS if SLOT_FAMILY[slot] == family and robot[slot] is None),
                None)


def slots_for(family: str) -> list[str]:
    return [slot for slot in SLOTS if SLOT_FAMILY[slot] == family]


def complete(robot: Robot) -> bool:
    return all(robot[slot] is not None for slot in SLOTS)


def standing(robot: Robot) -> bool:
    """A Combatank stands while its torse has energy (§ Tour de jeu: "un Combatank n'est détruit
    que lorsque son torse est à 0 en énergie")."""
    torso = robot.get("torse")
    return torso is not None and torso["energy"] > 0


def total(robot: Robot, catalogue: Catalogue, value: str) -> int:
    """A robot's total Mouvement, Radar or Attaque: the sum over its parts in place."""
    return sum(card(catalogue, part["card"])[value] for part in robot.values() if part)


def robot_value(robot: Robot, catalogue: Catalogue) -> int:
    """The robot's value in crédits (§ Mise en place: "la valeur totale en crédits")."""
    return sum(card(catalogue, part["card"])["value"] for part in robot.values() if part)


def targets(robot: Robot) -> list[str]:
    """The slots an attack may aim at: every part in place, the torse only once another part
    is missing ("on ne peut viser le torse que s'il manque déjà un autre morceau")."""
    present = [slot for slot in SLOTS if robot[slot] is not None]
    if any(robot[slot] is None for slot in SLOTS if slot != "torse"):
        return present
    return [slot for slot in present if slot != "torse"]


def _floor(slot: str, last: bool) -> int:
    """The energy a part must keep when it spends one: none when its last point may go (the
    text, issue 25: the part is destroyed), but never the torse's (a Combatank does not fell
    itself); one before (the house rule of older tournaments)."""
    return 0 if last and slot != "torse" else 1


def radar_spendable(robot: Robot, catalogue: Catalogue, last: bool = False) -> list[str]:
    """Parts with a Radar value that can spend a point (``last``: its last one too)."""
    return [slot for slot in SLOTS if robot[slot] and robot[slot]["energy"] > _floor(slot, last)
            and card(catalogue, robot[slot]["card"])["radar"] > 0]


def legs_spendable(robot: Robot, last: bool = False) -> bool:
    legs = robot.get("jambes")
    return bool(legs) and legs["energy"] > _floor("jambes", last)


def missing_energy(robot: Robot) -> int:
    return sum(MAX_ENERGY - part["energy"] for part in robot.values() if part)


# — dice ——————————————————————————————————————————————————————————————————————————


def roll_pool(dice: Dice, count: int) -> list[int]:
    """``count`` d6 (none for a pool of 0)."""
    return dice.roll(6, count=count) if count > 0 else []


def order_by_movement(dice: Dice, pools: Mapping[str, int]) -> tuple[list[str], dict, list]:
    """The round's order (§ Tour de jeu): each rolls their Mouvement dice, highest first; tied
    players re-roll one die each until they part. Returns the order, each seat's dice and
    total, and the tie-break rolls (a list of ``{seat: face}`` rounds)."""
    rolled = {seat: roll_pool(dice, count) for seat, count in pools.items()}
    totals = {seat: sum(faces) for seat, faces in rolled.items()}
    tiebreaks: list[dict[str, int]] = []
    order = _break_ties(dice, sorted(pools, key=lambda s: -totals[s]), totals, tiebreaks)
    return order, {seat: {"dice": rolled[seat], "total": totals[seat]} for seat in pools}, \
        tiebreaks


def _break_ties(dice: Dice, seats: list[str], score: Mapping[str, int],
                tiebreaks: list[dict[str, int]]) -> list[str]:
    order: list[str] = []
    index = 0
    while index < len(seats):
        group = [seat for seat in seats[index:] if score[seat] == score[seats[index]]]
        if len(group) == 1:
            order.append(group[0])
        else:
            faces = {seat: dice.roll(6)[0] for seat in group}
            tiebreaks.append(faces)
            order += _break_ties(dice, sorted(group, key=lambda s: -faces[s]), faces, tiebreaks)
        index += len(group)
    return order


@dataclass(frozen=True)
class Strike:
    attack: tuple[int, ...]
    defence: tuple[int, ...]

    @property
    def hit(self) -> bool:
        """"L'attaque est réussie si la somme des dés dépasse celle de la défense"."""
        return sum(self.attack) > sum(self.defence)

    @property
    def sixes(self) -> int:
        return sum(1 for face in self.attack if face == 6)

    @property
    def damage(self) -> int:
        """"un point d'énergie, plus un point supplémentaire par 6 sorti dans le jet"."""
        return 1 + self.sixes if self.hit else 0


def strike(dice: Dice, attack_dice: int, defence_dice: int) -> Strike:
    return Strike(tuple(roll_pool(dice, attack_dice)), tuple(roll_pool(dice, defence_dice)))


def radar_success(faces: Sequence[int]) -> bool:
    """"S'il obtient un ou plusieurs chiffre(s) impair(s), il peut choisir le morceau"."""
    return any(face % 2 for face in faces)


def draw(dice: Dice, pile: list[str]) -> str | None:
    """Take one card from an unordered pile at random (the server shuffles by drawing at
    random, so no order of the deck is ever stored); ``pile`` loses it."""
    if not pile:
        return None
    index = dice.roll(len(pile))[0] - 1 if len(pile) > 1 else 0
    return pile.pop(index)
