"""The cyborg sheet: creation rolls (Cyborg § (I), (II), "(III) Le cyborg"), validation and
derived values."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.cyborg.content import CHARACTERISTICS, skills
from app.rules.cyborg.sheet import (
    blank_sheet,
    create_sheet,
    derived,
    draw_skills,
    given_skills,
    punch_factor,
    roll_characteristics,
    roll_sante,
    skill_value,
    validate,
)
from app.rules.dice import ScriptedDice, SeededDice

# One cyborg: force 13 (6,4,3 keep; 1 dropped) and the others below.
CHARACTERISTIC_FACES = [1, 6, 4, 3,  2, 5, 5, 4,  6, 6, 2, 3,  3, 3, 3, 3,  4, 4, 5, 1,  6, 5, 1, 1]
EXPECTED = {"force": 13, "constitution": 14, "dexterite": 15, "rapidite": 9, "volonte": 13,
            "intelligence": 12}
SANTE_FACES = [1, 2, 3, 4, 1, 2, 3, 4, 1, 2]  # 23 + 10


def d20d6(total: int) -> list[tuple[int, int]]:
    """The faces of (1D20 + 1D6) − 1 giving ``total`` (the d6 shows 1 unless it cannot)."""
    six = max(1, total + 1 - 20)
    return [(20, total + 1 - six), (6, six)]


def a_cyborg() -> dict:
    faces = CHARACTERISTIC_FACES + SANTE_FACES + d20d6(6) + d20d6(10) + d20d6(24)
    return create_sheet(ScriptedDice(faces)).sheet


class TestCreationRolls:
    def test_characteristics_are_4d6_keep_the_3_best_with_every_face_recorded(self) -> None:
        dice = ScriptedDice(CHARACTERISTIC_FACES)
        values, records = roll_characteristics(dice)
        dice.assert_exhausted()
        assert values == EXPECTED
        force = records[0]
        assert force.purpose == "force"
        assert [die.value for die in force.dice] == [1, 6, 4, 3]
        assert [die.value for die in force.dropped] == [1]
        assert force.describe() == "4d6kh3: 1, 6, 4, 3 = 13"

    def test_sante_is_10d4_plus_10(self) -> None:
        record = roll_sante(ScriptedDice(SANTE_FACES))
        assert record.total == 33
        assert len(record.dice) == 10 and all(die.sides == 4 for die in record.dice)

    def test_skill_draws_redraw_the_given_skills_and_skills_already_held(self) -> None:
        faces = d20d6(2) + d20d6(4) + d20d6(4) + [(20, 20), (6, 6)] + d20d6(10)
        dice = ScriptedDice(faces)
        drawn, records = draw_skills(dice)
        dice.assert_exhausted()
        assert drawn == ["electronique", "au_choix", "conduite"]
        assert [record.total for record in records] == [2, 4, 4, 25, 10]
        assert [record.outcome for record in records] == [
            "re-draw: given skill", "Électronique", "re-draw: already held",
            "Au choix du joueur", "Conduite"]

    def test_a_new_cyborg_has_the_given_skills_three_drawn_armour_7_and_its_weapons(
        self,
    ) -> None:
        faces = CHARACTERISTIC_FACES + SANTE_FACES + d20d6(6) + d20d6(10) + d20d6(24)
        dice = ScriptedDice(faces)
        creation = create_sheet(dice)
        dice.assert_exhausted()
        sheet = creation.sheet
        assert sheet["characteristics"] == EXPECTED
        assert sheet["sante"] == sheet["sante_max"] == 33
        assert sheet["resistance"] == 7
        assert list(sheet["skills"]) == [*given_skills(), "camouflage", "conduite", "reperage"]
        assert sheet["weapons"] == ["tronconneuse", "fusil_a_canon_scie", "lance_grenades"]
        assert len(creation.records) == 6 + 1 + 3
        assert validate(sheet) == []


class TestDerived:
    def test_each_skill_reads_base_plus_allocated_equals_total(self) -> None:
        sheet = a_cyborg()
        sheet["skills"].update({"arme_a_feu": 30, "esquive_parade": 16, "reperage": 10})
        lines = {line["key"]: line for line in derived(sheet)["skills"]}
        # Arme à feu: dex + dex + rap = 15 + 15 + 9
        assert (lines["arme_a_feu"]["base"], lines["arme_a_feu"]["total"]) == (39, 69)
        # Arme blanche: dex + rap + for = 15 + 9 + 13
        assert lines["arme_blanche"]["total"] == 37
        assert (lines["esquive_parade"]["base"], lines["esquive_parade"]["cap"]) == (24, 40)
        assert lines["reperage"]["base"] == 35
        assert derived(sheet)["credit_left"] == 80 - 56
        assert skill_value(sheet, "reperage") == 45
        assert skill_value(sheet, "chimie") == 0

    def test_the_players_own_skill_uses_the_chosen_name_and_characteristics(self) -> None:
        sheet = a_cyborg()
        sheet["skills"] = {**{key: 0 for key in given_skills()}, "chimie": 0, "conduite": 0,
                           "au_choix": 5}
        sheet["drawn"] = ["chimie", "conduite", "au_choix"]  # as if the dice gave these
        sheet["custom_skill"] = {"name": "Xénobiologie", "formula": ["intelligence"] * 3}
        line = next(li for li in derived(sheet)["skills"] if li["key"] == "au_choix")
        assert (line["name"], line["base"], line["total"]) == ("Xénobiologie", 36, 41)
        assert validate(sheet) == []

    def test_punches_by_force(self) -> None:
        assert [punch_factor(f) for f in (3, 6, 7, 12, 13, 18, 19)] == list("BBCCDDE")

    def test_derived_survives_a_half_typed_sheet(self) -> None:
        assert derived({"characteristics": "?", "skills": {"arme_a_feu": "x", "nope": 1}})


def problems_of(sheet: dict) -> dict[str, str]:
    return {problem.field: problem.rule for problem in validate(sheet)}


class TestValidate:
    def test_the_blank_sheet_is_valid_with_three_skills_to_draw(self) -> None:
        assert validate(blank_sheet()) == []
        assert derived(blank_sheet())["skills_to_draw"] == 3

    def test_characteristics_stay_between_3_and_18(self) -> None:
        sheet = a_cyborg()
        sheet["characteristics"]["force"] = 19
        sheet["characteristics"]["volonte"] = 2
        found = problems_of(sheet)
        assert set(found) == {"characteristics.force", "characteristics.volonte"}
        assert found["characteristics.force"] == "Cyborg § (I) Les caractéristiques"

    def test_a_missing_characteristic(self) -> None:
        sheet = a_cyborg()
        del sheet["characteristics"]["force"]
        assert set(problems_of(sheet)) == {"characteristics"}

    def test_sante_between_20_and_50_and_never_above_its_maximum(self) -> None:
        sheet = a_cyborg()
        sheet["sante_max"] = 51
        assert "sante_max" in problems_of(sheet)
        sheet = a_cyborg()
        sheet["sante"] = sheet["sante_max"] + 1
        assert "10D4 + 10" in problems_of(sheet)["sante"]

    def test_santé_may_be_negative(self) -> None:
        sheet = a_cyborg()
        sheet["sante"] = -4
        assert validate(sheet) == []

    def test_resistance_is_10_at_most(self) -> None:
        sheet = a_cyborg()
        sheet["resistance"] = 11
        assert "resistance" in problems_of(sheet)

    def test_the_credit_is_80_at_most(self) -> None:
        sheet = a_cyborg()
        sheet["skills"].update({"arme_a_feu": 50, "camouflage": 31})
        problems = validate(sheet)
        assert [(p.field, p.params["n"]) for p in problems] == [("skills", 80)]
        assert problems[0].rule == "Cyborg § (II) Les compétences"

    def test_esquive_parade_is_40_at_most(self) -> None:
        sheet = a_cyborg()  # base 24
        sheet["skills"]["esquive_parade"] = 16
        assert validate(sheet) == []
        sheet["skills"]["esquive_parade"] = 17
        assert problems_of(sheet) == {
            "skills.esquive_parade": "Cyborg § (II) Les compétences (N.B.)"}
        # It says what it limits: the base and the credit, at creation.
        (problem,) = validate(sheet)
        assert {key: problem.params[key] for key in ("base", "credit", "total", "n")} == {
            "base": 24, "credit": 17, "total": 41, "n": 40}
        assert "base and credit together" in problem.message

    def test_the_given_skills_are_required_and_three_are_drawn(self) -> None:
        sheet = a_cyborg()
        del sheet["skills"]["arme_a_feu"]
        del sheet["skills"]["reperage"]
        messages = [problem.message for problem in validate(sheet)]
        assert messages == ["Every cyborg has %(names)s.",
                            "A cyborg draws exactly %(n)s more skills."]

    def test_unknown_skills_negative_credit_weapons_and_fields(self) -> None:
        sheet = a_cyborg()
        sheet["skills"]["kung_fu"] = 10
        sheet["skills"]["arme_a_feu"] = -5
        sheet["weapons"].append("sabre_laser")
        sheet["xp"] = 3
        assert set(problems_of(sheet)) == {"skills", "skills.arme_a_feu", "weapons", "sheet"}

    def test_the_players_own_skill_needs_a_name_and_three_characteristics(self) -> None:
        sheet = a_cyborg()
        sheet["custom_skill"] = {"name": "  ", "formula": ["force", "chance"]}
        assert set(problems_of(sheet)) == {"custom_skill.name", "custom_skill.formula"}

    def test_not_a_sheet(self) -> None:
        assert [problem.field for problem in validate([])] == ["sheet"]  # type: ignore[arg-type]


class TestInvariants:
    @settings(max_examples=60)
    @given(seed=st.integers(0, 2**32))
    def test_every_created_cyborg_is_valid(self, seed: int) -> None:
        creation = create_sheet(SeededDice(seed))
        sheet = creation.sheet
        assert all(3 <= sheet["characteristics"][name] <= 18 for name in CHARACTERISTICS)
        assert 20 <= sheet["sante_max"] <= 50
        assert len(sheet["skills"]) == 6 and len(set(sheet["skills"])) == 6
        assert validate(sheet) == []
        assert all(record.dice for record in creation.records)

    @settings(max_examples=60)
    @given(seed=st.integers(0, 2**32), credit=st.lists(st.integers(0, 25), min_size=6,
                                                       max_size=6))
    def test_a_valid_sheet_never_breaks_a_cap(self, seed: int, credit: list[int]) -> None:
        sheet = create_sheet(SeededDice(seed)).sheet
        for key, amount in zip(list(sheet["skills"]), credit, strict=True):
            sheet["skills"][key] = amount
        if validate(sheet):
            return
        lines = derived(sheet)["skills"]
        assert sum(line["allocated"] for line in lines) <= 80
        assert all(line["total"] <= line["cap"] for line in lines if line["cap"])
        assert skill_value(sheet, "esquive_parade") <= 40

    @given(seed=st.integers(0, 2**32))
    def test_validation_does_not_change_the_sheet(self, seed: int) -> None:
        sheet = create_sheet(SeededDice(seed)).sheet
        before = copy.deepcopy(sheet)
        validate(sheet)
        derived(sheet)
        assert sheet == before


def test_the_skill_table_has_25_entries_with_their_provenance() -> None:
    table = skills()
    assert len(table) == 25
    assert all(skill.source in ("seed", "house") for skill in table.values())
    assert table["au_choix"].source == "house"
    assert table["reperage"].base == 35
