"""Mutatior's body model: the sample sheets' figures and every building rule."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.i18n import translations_for
from app.rules.mutatior.body import Limb, Mutant, derived, free_rerolls, validate, validate_team
from app.rules.mutatior.content import IMPLANTS, ORGAN_WEIGHTS, SKILLS
from app.rules.mutatior.samples import nurglie, scarabator


def rules_of(mutant: Mutant) -> list[str]:
    return [problem.rule for problem in validate(mutant)]


def test_scarabator_matches_its_printed_sheet() -> None:
    mutant = scarabator()
    assert validate(mutant) == []
    assert derived(mutant) == {"biomass": 565, "brain": 5, "pump": 12, "muscle_mass_kg": 310,
                               "initiative_bonus": 5, "movement_cm": 24, "popularity": 1,
                               "xp": 0}


def test_nurglie_matches_its_printed_sheet() -> None:
    mutant = nurglie()
    assert validate(mutant) == []
    assert derived(mutant) == {"biomass": 355, "brain": 1, "pump": 5, "muscle_mass_kg": 260,
                               "initiative_bonus": 1, "movement_cm": 10, "popularity": 1,
                               "xp": 0}


def test_content_has_provenance_and_every_skill() -> None:
    assert set(ORGAN_WEIGHTS) == {"muscle", "biomoteur", "lobe"}
    assert len([s for s in SKILLS.values() if not s.weather]) == 18
    assert {"resistance_froid", "milieux_humides"} <= set(SKILLS)
    assert IMPLANTS["corne"].attack == 1 and IMPLANTS["corne"].source == "seed"


def small(**changes: object) -> Mutant:
    base = Mutant("Bidule", (Limb("tronc", muscles=4, biomoteurs=3, trunk=True),
                             Limb("tête", muscles=2, lobes=2)), skills=("voleur",))
    return replace(base, **changes)


def test_a_small_mutant_is_valid() -> None:
    assert validate(small()) == []


@pytest.mark.parametrize("limbs, section", [
    ((Limb("tronc", muscles=1, biomoteurs=1, lobes=1, trunk=True),), "2-1 Corps"),
    (tuple(Limb(f"m{i}", muscles=1, trunk=i == 0, biomoteurs=int(i == 0), lobes=int(i == 0))
           for i in range(11)), "2-1 Corps"),
    ((Limb("a", muscles=2, biomoteurs=1), Limb("b", muscles=1, lobes=1)), "2-1 Corps"),
])
def test_limb_count_and_trunk(limbs: tuple[Limb, ...], section: str) -> None:
    assert any(section in cited for cited in rules_of(small(limbs=limbs)))


def test_eight_organs_per_limb_but_the_trunk_gets_muscles() -> None:
    over = small(limbs=(Limb("tronc", muscles=4, biomoteurs=3, trunk=True),
                        Limb("tête", muscles=7, lobes=2)))
    assert [p.field for p in validate(over)] == ["limbs.1"]
    # One attached limb: the trunk may hold 9 organs if the ninth is a muscle.
    trunk_ok = small(limbs=(Limb("tronc", muscles=6, biomoteurs=3, trunk=True),
                            Limb("tête", muscles=2, lobes=2)))
    assert validate(trunk_ok) == []
    trunk_over = small(limbs=(Limb("tronc", muscles=7, biomoteurs=3, trunk=True),
                              Limb("tête", muscles=2, lobes=2)))
    assert [p.params for p in validate(trunk_over)] == [{"n": 9}]
    not_muscles = small(limbs=(Limb("tronc", muscles=1, biomoteurs=9, trunk=True),
                               Limb("tête", muscles=2, lobes=2), Limb("bras", muscles=1)))
    assert [p.message for p in validate(not_muscles)] == [
        "Only muscles may go beyond %(n)s organs in the trunk."]


def test_lobes_in_one_limb_and_multi_gelatine() -> None:
    split = small(limbs=(Limb("tronc", muscles=4, biomoteurs=3, lobes=1, trunk=True),
                         Limb("tête", muscles=2, lobes=2)))
    assert [(p.field, p.message) for p in validate(split)] == [
        ("brain", "Lobes must all be in one limb.")]
    assert validate(replace(split, skills=("multi_gelatine",))) == []
    four = small(limbs=(Limb("tronc", muscles=4, biomoteurs=3, lobes=1, trunk=True),
                        *(Limb(f"tête {i}", muscles=1, lobes=1) for i in range(3))),
                 skills=("multi_gelatine",))
    assert [(p.message, p.params) for p in validate(four) if p.field == "brain"] == [
        ("Lobes may be in at most %(n)s limbs.", {"n": 3})]
    french = translations_for("fr").gettext
    assert french("Lobes must all be in one limb.") == (
        "Les lobes doivent tous tenir dans un seul membre.")
    assert french("Lobes may be in at most %(n)s limbs.") % {"n": 3} == (
        "Les lobes tiennent dans 3 membres au plus.")
    no_brain = small(limbs=(Limb("tronc", muscles=4, biomoteurs=3, trunk=True),
                            Limb("tête", muscles=2)))
    assert [p.field for p in validate(no_brain)] == ["brain"]


def test_biomoteurs_in_two_limbs_three_with_double_coeur() -> None:
    three = small(limbs=(Limb("tronc", muscles=4, biomoteurs=3, trunk=True),
                         Limb("tête", muscles=2, lobes=2, biomoteurs=1),
                         Limb("bras", muscles=2, biomoteurs=1)))
    assert [p.field for p in validate(three)] == ["pump"]
    assert validate(replace(three, skills=("double_coeur",))) == []


def test_muscles_everywhere_lobotomie_and_skills() -> None:
    empty = small(limbs=(Limb("tronc", muscles=4, biomoteurs=3, trunk=True),
                         Limb("tête", lobes=2)))
    assert [p.field for p in validate(empty)] == ["limbs.1.muscles"]
    lobotomised = small(limbs=(Limb("tronc", muscles=4, biomoteurs=3, trunk=True),
                               Limb("tête", muscles=2, lobes=4)), skills=("lobotomie",))
    assert [p.rule for p in validate(lobotomised)] == [
        "Mutatior § 2-3 Compétences / Lobotomie"]
    assert [p.field for p in validate(small(skills=()))] == ["skills"]
    assert len(validate(small(skills=("voleur", "voleur", "nope")))) == 2


def test_implants_and_tentacles() -> None:
    limbs = (Limb("tronc", muscles=4, biomoteurs=3, trunk=True, tentacle=True),
             Limb("tête", muscles=2, lobes=2, defensive=("carapace", "carapace"),
                  offensive="carapace"),
             Limb("fouet", muscles=3, biomoteurs=1, tentacle=True))
    fields = sorted(p.field for p in validate(small(limbs=limbs)))
    assert fields == ["limbs.0.special", "limbs.0.tentacle", "limbs.0.tentacle",
                      "limbs.1.defensive",
                      "limbs.1.offensive", "limbs.2.special", "limbs.2.tentacle"]


def test_every_problem_cites_the_seed_or_the_house() -> None:
    broken = Mutant(" ", (Limb("x", muscles=-1, lost_muscles=2, trunk=True),), xp=-1)
    problems = validate(broken)
    assert len(problems) >= 5
    assert all(p.rule.startswith(("Mutatior § ", "house")) for p in problems)


def test_teams() -> None:
    team = [scarabator(), nurglie(), small()]
    assert validate_team(team, 2) == []
    assert [p.params for p in validate_team(team, 1)] == [{"total": 1045, "limit": 1000}]
    assert validate_team(team[:2], 2)[0].field == "mutants"
    heavy = [scarabator(), replace(scarabator(), name="Bis", skills=("voleur",)), nurglie()]
    assert [p.params for p in validate_team(heavy, 1)] == [{"total": 1485, "limit": 1000}]
    same = [scarabator(), replace(nurglie(), skills=("gros_tas",)), small()]
    assert len(validate_team(same, 2)) == 1
    assert free_rerolls([nurglie()], [scarabator()]) == 4  # 210 kg heavier: four full 50s
    assert free_rerolls([scarabator()], [nurglie()]) == 0
