"""Between two fights, how a trainer may change a saved mutant (``validate_change``).

000_e34df4ff7a8d792c.txt § 3-2 Fin du carnage: experience and biomass come from the fights
(the table writes them, ``match.between_matches``); 6 XP buy a new skill; a wounded mutant is
healed with biomass; no new limb is added, but a dead limb may be replaced; lobes and
biomoteurs may be moved to another limb with room, muscles never; a trainer may kill a
mutant to get its biomass back. § 2-3 Greffon allows a new limb after a fight survived.

A player's save is judged from the sheet before and after (the GM's edits are corrections and
pass, the platform does not call this for them). The biomass is the sheet's ``reserve_kg``:
care is paid from it at the organs' weights (``content.ORGAN_WEIGHTS``, the same prices as
``campaign.heal`` / ``campaign.replace_dead_limb``). The body's legality itself is
``body.validate``'s (``validate_sheet`` runs first). Every problem cites its section.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from app.rules.mutatior.body import Limb, limb_biomass
from app.rules.mutatior.campaign import XP_PER_SKILL, recycle
from app.rules.mutatior.content import IMPLANTS, ORGAN_WEIGHTS, Implant, rule
from app.rules.mutatior.sheet import limb_of, mutant_of, shape_problems
from app.rules.system import N_, Problem

R_CARE = rule("3-2 Fin du carnage / Soins")
R_XP = rule("3-2 Fin du carnage / expérience")
R_GAINS = rule("3-2 Fin du carnage / Gain de biomasse")
R_POPULARITY = rule("3-2 Fin du carnage / popularité")
R_GREFFON = rule("2-3 Compétences / Greffon")
ORGANS = (("muscles", "muscle"), ("biomoteurs", "biomoteur"), ("lobes", "lobe"))
MOVABLE = (("biomoteurs", "biomoteur"), ("lobes", "lobe"))  # § 3-2 Soins: muscles never move
IMPLANT_KEYS = ("offensive", "defensive", "special")


@dataclass
class _Bill:
    """What a save costs in kg of biomass, and what is wrong with it; ``catalogue`` weighs
    the implants (the campaign's custom ones included)."""

    catalogue: Mapping[str, Implant] = field(default_factory=lambda: IMPLANTS)
    kg: int = 0
    problems: list[Problem] = field(default_factory=list)

    def refuse(self, where: str, message: str, section: str, **params: Any) -> None:
        self.problems.append(Problem(where, message, section, params))


def _key(limb: Mapping[str, Any]) -> str:
    return str(limb.get("name", "")).strip().casefold()


def pair_limbs(before: list[dict], after: list[dict]
               ) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Which limb of ``after`` is which limb of ``before``: by name, then the unmatched ones in
    order (a renamed limb is the same limb). Returns (before index, after index) pairs, the
    limbs removed (before indices) and the limbs added (after indices)."""
    by_name = {_key(limb): index for index, limb in enumerate(before)}
    pairs, added = [], []
    matched_before: set[int] = set()
    for index, limb in enumerate(after):
        old = by_name.get(_key(limb))
        if old is not None and old not in matched_before:
            pairs.append((old, index))
            matched_before.add(old)
        else:
            added.append(index)
    removed = [index for index in range(len(before)) if index not in matched_before]
    renamed = list(zip(removed, added, strict=False))
    pairs += renamed
    return (sorted(pairs, key=lambda pair: pair[1]), removed[len(renamed):],
            added[len(renamed):])


def _implants(limb: Limb) -> tuple[str | None, list[str], str | None]:
    return limb.offensive, sorted(limb.defensive), limb.special


def _same_limb(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """The same limb, whatever its name and the order of its defensive implants."""
    def norm(limb: Mapping[str, Any]) -> Limb:
        read = limb_of(limb)
        return replace(read, name="", defensive=tuple(sorted(read.defensive)))
    return norm(old) == norm(new)


def _same_mutant(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Body, skills, XP and popularity unchanged (the team name and damage order are free)."""
    old, new = list(before["limbs"]), list(after["limbs"])
    return (len(old) == len(new) and all(map(_same_limb, old, new))
            and sorted(before.get("skills") or []) == sorted(after.get("skills") or [])
            and all(int(before.get(key, 0) or 0) == int(after.get(key, 0) or 0)
                    for key in ("xp", "fame")))


def _whole(limb: Mapping[str, Any], key: str) -> int:
    return int(limb.get(key, 0) or 0)


_count = _whole  # a sheet's counters (xp, fame, reserve_kg, fights, grafts), read the same way


def _alive(limb: Mapping[str, Any]) -> bool:
    return not limb_of(limb).dead


def _new_limb(bill: _Bill, where: str, limb: Mapping[str, Any]) -> None:
    """A replaced or grafted limb is built anew: no wounds; its muscles and implants are
    paid here (its lobes and biomoteurs in ``_movable``, as some may have been moved in)."""
    if any(_whole(limb, f"lost_{organ}") for organ, _ in ORGANS):
        bill.refuse(where, N_("A new limb is built whole, without wounds."), R_CARE)
    paid = limb_of({**limb, "biomoteurs": 0, "lobes": 0, "lost_biomoteurs": 0, "lost_lobes": 0})
    bill.kg += limb_biomass(paid, bill.catalogue, live=False)


def _kept_limb(bill: _Bill, where: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    """A living limb kept: its wounds only heal (paid), its muscles stay, its implants and
    its being the trunk stay."""
    for organ, weight_key in ORGANS:
        lost_before, lost_after = _whole(old, f"lost_{organ}"), _whole(new, f"lost_{organ}")
        if lost_after > lost_before:
            bill.refuse(f"{where}.lost_{organ}", N_("Wounds come from the fights: a player "
                                                    "does not add lost organs."), R_CARE)
        else:
            bill.kg += (lost_before - lost_after) * ORGAN_WEIGHTS[weight_key]
    if _whole(new, "muscles") != _whole(old, "muscles"):
        bill.refuse(f"{where}.muscles", N_("Muscles are not moved, added nor removed between "
                                           "fights (the limb had %(n)s)."), R_CARE,
                    n=_whole(old, "muscles"))
    if _implants(limb_of(new)) != _implants(limb_of(old)):
        bill.refuse(where, N_("The implants of a living limb stay as they are between fights "
                              "(only a dead limb is replaced)."), R_CARE)
    if bool(new.get("trunk")) != bool(old.get("trunk")):
        bill.refuse(f"{where}.trunk", N_("The trunk stays the trunk."), rule("2-1 Corps"))


def _movable(bill: _Bill, before: list[dict], after: list[dict],
             pairs: list[tuple[int, int]], added: list[int]) -> None:
    """Lobes and biomoteurs may move (§ 3-2 Soins): summed over the body, the living ones
    after are those kept plus those healed plus those built in a new limb (paid); none is
    added to a kept limb, none vanishes."""
    new_limbs = set(added) | {a for b, a in pairs
                              if not _alive(before[b]) and not _same_limb(before[b], after[a])}
    for organ, weight_key in MOVABLE:
        kept = [(before[b], after[a]) for b, a in pairs if _alive(before[b])]
        living_before = sum(_whole(old, organ) - _whole(old, f"lost_{organ}") for old, _ in kept)
        healed = sum(max(0, _whole(old, f"lost_{organ}") - _whole(new, f"lost_{organ}"))
                     for old, new in kept)
        living_after = sum(_whole(limb, organ) - _whole(limb, f"lost_{organ}")
                           for limb in after)
        bought = living_after - living_before - healed
        room_in_new = sum(_whole(after[index], organ) for index in new_limbs)
        if bought < 0:
            bill.refuse(organ, N_("%(n)s living %(organ)s would vanish: organs are moved, not "
                                  "removed (recycle the whole mutant instead)."), R_CARE,
                        n=-bought, organ=organ)
        elif bought > room_in_new:
            bill.refuse(organ, N_("%(n)s new %(organ)s: between fights organs are only "
                                  "healed or moved, and built only in a new limb."), R_CARE,
                        n=bought - room_in_new, organ=organ)
        else:
            bill.kg += bought * ORGAN_WEIGHTS[weight_key]


def _body(bill: _Bill, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    old_limbs, new_limbs = list(before["limbs"]), list(after["limbs"])
    pairs, removed, added = pair_limbs(old_limbs, new_limbs)
    for index in removed:
        if _alive(old_limbs[index]):
            bill.refuse("limbs", N_("The living limb '%(limb)s' cannot be removed."), R_CARE,
                        limb=old_limbs[index].get("name", ""))
    for b, a in pairs:
        old, new, where = old_limbs[b], new_limbs[a], f"limbs.{a}"
        if _alive(old):
            _kept_limb(bill, where, old, new)
        elif not _same_limb(old, new):  # § 3-2 Soins: "vous pouvez remplacer un membre mort"
            if bool(new.get("trunk")) != bool(old.get("trunk")):
                bill.refuse(f"{where}.trunk", N_("The trunk stays the trunk."), rule("2-1 Corps"))
            _new_limb(bill, where, new)
    grafts_before, grafts_after = _count(before, "grafts"), _count(after, "grafts")
    if added and "greffon" not in (before.get("skills") or []):
        bill.refuse("limbs", N_("No new limb is added to a mutant (only Greffon allows "
                                "one)."), R_CARE)
    elif grafts_after != grafts_before + len(added):
        bill.refuse("grafts", N_("Count each limb Greffon adds: %(n)s so far, %(expected)s "
                                 "with this save."), R_GREFFON,
                    n=grafts_before, expected=grafts_before + len(added))
    elif grafts_after > _count(before, "fights"):
        bill.refuse("limbs", N_("Greffon adds one new limb per fight survived (fights "
                                "survived: %(fights)s, limbs grafted: %(n)s)."), R_GREFFON,
                    fights=_count(before, "fights"), n=grafts_after)
    for index in added:
        _new_limb(bill, f"limbs.{index}", new_limbs[index])
    _movable(bill, old_limbs, new_limbs, pairs, added)


def _skills_and_xp(bill: _Bill, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    old, new = list(before.get("skills") or []), list(after.get("skills") or [])
    if set(old) - set(new):
        bill.refuse("skills", N_("A skill learnt is kept (popularity counts the skills)."),
                    R_POPULARITY)
    learnt = len(set(new) - set(old))
    xp_before, xp_after = int(before.get("xp", 0) or 0), int(after.get("xp", 0) or 0)
    expected = xp_before - learnt * XP_PER_SKILL
    if expected < 0:
        bill.refuse("skills", N_("A new skill costs %(cost)s XP: learning %(n)s takes "
                                 "%(need)s XP, the mutant has %(xp)s."), R_XP,
                    cost=XP_PER_SKILL, n=learnt, need=learnt * XP_PER_SKILL, xp=xp_before)
    elif xp_after != expected:
        bill.refuse("xp", N_("Experience comes from the fights and goes only into new skills "
                             "(%(cost)s XP each): it should be %(xp)s."), R_XP,
                    cost=XP_PER_SKILL, xp=expected)
    _counters(bill, before, after)


def _counters(bill: _Bill, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    if _count(after, "fame") != _count(before, "fame"):
        bill.refuse("fame", N_("Popularity is won in the arena, not written in."), R_POPULARITY)
    if _count(after, "fights") != _count(before, "fights"):
        bill.refuse("fights", N_("The table counts the fights."), R_GAINS)


def validate_change(before: Any, after: Any,
                    catalogue: Mapping[str, Implant] = IMPLANTS) -> list[Problem]:
    """What is wrong with how a player changed a saved sheet; ``catalogue`` holds the
    implants the campaign knows (``content.catalogue``).

    ``after`` passed ``validate_sheet``; a ``before`` of the wrong shape (an old sheet) is not
    judged. The reserve must go down by exactly what the care costs."""
    if shape_problems(before) or shape_problems(after):
        return []
    bill = _Bill(catalogue)
    reserve_before = int(before.get("reserve_kg", 0) or 0)
    reserve_after = int(after.get("reserve_kg", 0) or 0)
    was_dead = bool(before.get("dead")) or mutant_of(before, catalogue=catalogue).dead
    if was_dead:
        if (not _same_mutant(before, after) or reserve_after != reserve_before
                or bool(after.get("dead")) != bool(before.get("dead"))):
            bill.refuse("dead", N_("A dead mutant is neither healed nor changed: its biomass "
                                   "went back to its team (only the GM corrects it)."),
                        R_GAINS)
        return bill.problems
    if after.get("dead"):  # § 3-2 Soins: "si vous décidez de le tuer…"
        worth = recycle(mutant_of(before, catalogue=catalogue))
        if not _same_mutant(before, after) or reserve_after != reserve_before + worth:
            bill.refuse("dead", N_("Recycling a mutant gives back its remaining biomass, "
                                   "%(kg)s kg, into its reserve (%(reserve)s kg), and changes "
                                   "nothing else."), R_CARE, kg=worth,
                        reserve=reserve_before + worth)
        return bill.problems
    if not _count(before, "fights"):
        # Never fought: still being built (§ 2- Genèse des mutants), its biomass is the
        # team's to choose; only what the fights give stays out of the player's hands.
        _counters(bill, before, after)
        if _count(after, "xp") != _count(before, "xp"):
            bill.refuse("xp", N_("Experience comes from the fights."), R_XP)
        if _count(after, "grafts") != _count(before, "grafts"):
            bill.refuse("grafts", N_("Grafts are counted when Greffon adds a limb, after a "
                                     "fight."), R_GREFFON)
        if reserve_after > reserve_before:
            bill.refuse("reserve_kg", N_("Biomass comes from the fights (the GM hands it "
                                         "over between mutants)."), R_GAINS)
        return bill.problems
    _body(bill, before, after)
    _skills_and_xp(bill, before, after)
    if bill.kg > reserve_before:
        bill.refuse("reserve_kg", N_("The care costs %(cost)s kg of biomass; the reserve holds "
                                     "%(reserve)s kg."), R_CARE,
                    cost=bill.kg, reserve=reserve_before)
    elif reserve_after != reserve_before - bill.kg:
        bill.refuse("reserve_kg", N_("The reserve is spent only on care (%(cost)s kg here): it "
                                     "should be %(reserve)s kg; gains come from the fights."),
                    R_GAINS, cost=bill.kg, reserve=reserve_before - bill.kg)
    return bill.problems
