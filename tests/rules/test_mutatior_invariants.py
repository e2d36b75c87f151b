"""Mutatior invariants under any damage and any dice (Hypothesis)."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from app.rules.dice import SeededDice
from app.rules.mutatior.body import Limb, Mutant, validate
from app.rules.mutatior.combat import (
    ATTACKER,
    IllegalMelee,
    apply_damage,
    apply_infarctus,
    clash,
    initiative,
    pump_roll,
    shoot,
)
from app.rules.mutatior.samples import nurglie, scarabator

limbs = st.builds(Limb, name=st.text(min_size=1, max_size=5),
                  muscles=st.integers(0, 12), biomoteurs=st.integers(0, 9),
                  lobes=st.integers(0, 9), trunk=st.booleans(), tentacle=st.booleans(),
                  defensive=st.lists(st.sampled_from(["carapace", "ecailles", "x"]),
                                     max_size=4).map(tuple))
mutants = st.builds(Mutant, name=st.text(max_size=5), limbs=st.lists(limbs, max_size=12)
                    .map(tuple), skills=st.lists(st.sampled_from(["obsede", "lobotomie", "?"]),
                                                 max_size=3).map(tuple))
hits = st.lists(st.tuples(st.integers(0, 10), st.integers(0, 15), st.booleans()), max_size=30)


@given(mutants)
def test_validate_never_raises(mutant: Mutant) -> None:
    for problem in validate(mutant):
        assert problem.rule


def _assert_sane(mutant: Mutant) -> None:
    for limb in mutant.limbs:
        for organ in ("muscles", "biomoteurs", "lobes"):
            assert 0 <= getattr(limb, f"lost_{organ}") <= getattr(limb, organ)
            assert getattr(limb, f"live_{organ}") >= 0


@given(st.sampled_from([scarabator, nurglie]), hits, st.integers(0, 2**32))
def test_damage_never_makes_a_negative_organ_and_the_dead_never_attack(
        make: Callable[[], Mutant], blows: list[tuple[int, int, bool]], seed: int) -> None:
    mutant = make()
    enemy = scarabator() if mutant.name == "Nurglie" else nurglie()
    dice = SeededDice(seed)
    for limb_index, amount, infarctus in blows:
        limb = mutant.limbs[limb_index % len(mutant.limbs)].name
        mutant = apply_infarctus(mutant) if infarctus else apply_damage(mutant, limb, amount)[0]
        _assert_sane(mutant)
        roll = pump_roll(mutant, dice)
        if roll.success:
            assert roll.natural not in (7, 12) and roll.record.total <= mutant.live_pump
        if mutant.dead:
            break
    attackers = [limb.name for limb in mutant.limbs if not limb.trunk]
    target = enemy.limbs[1].name
    for limb in attackers:
        try:
            result = clash(mutant, limb, enemy, target, dice)
        except IllegalMelee as refused:
            assert not mutant.dead or refused.code == "dead_mutant"
            continue
        assert not mutant.dead
        assert result.damage == (result.attack.total - result.defence.total
                                 if result.winner == ATTACKER else 0)
    if mutant.dead:
        assert mutant.name not in initiative([mutant, enemy], dice).order
        try:
            shoot(mutant, mutant.limbs[0].name, enemy, dice, aimed_limb=target)
        except IllegalMelee as refused:
            assert refused.code == "dead_mutant"
        else:
            raise AssertionError("a dead mutant shot")


@given(st.integers(0, 2**32))
def test_initiative_orders_every_living_mutant_once(seed: int) -> None:
    team = [scarabator(), nurglie(), Mutant("Bis", nurglie().limbs, ("voleur",))]
    order = initiative(team, SeededDice(seed)).order
    assert sorted(order) == ["Bis", "Nurglie", "Scarabator"]
