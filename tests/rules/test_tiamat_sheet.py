"""The fighter's sheet (« Conception du personnage »), Jack's creation example figure by figure."""

from __future__ import annotations

import copy

from app.rules.dice import ScriptedDice
from app.rules.tiamat.content import actions_for, learnable, talent_from_dice, techniques
from app.rules.tiamat.sheet import derived, jack, roll_talents, validate, validate_change


def test_jack_comes_out_with_the_printed_figures() -> None:
    sheet = jack()
    assert validate(sheet) == []
    d = derived(sheet)
    assert d["sante_max"] == 26          # 2 x 10 + 3 + 3
    assert d["energie_max"] == 32        # 3 x 10 + 2
    assert d["furie_max"] == 4           # 2 x 2
    assert d["initiative"] == 2
    assert d["actions"] == 2 and d["defense_instinctive"] == 1
    assert d["skill_budget"] == 20 and d["skill_points"] == 20
    assert d["move"] == 8 and d["run"] == 24
    assert set(d["talents"]) == {"transfert_d_energie", "sursaut_d_energie",
                                 "vivacite_du_chat"}


def test_action_thresholds() -> None:
    assert [actions_for(n) for n in (0, 1, 6, 7, 12, 13, 19, 20, 29, 30)] == [
        1, 2, 2, 3, 3, 4, 4, 5, 5, 6]


def test_every_broken_rule_is_listed() -> None:
    sheet = jack()
    sheet["characteristics"]["force"] = 5
    sheet["skills"]["conduite"] = 7
    sheet["techniques"].append("nidan_geri")  # needs Mae tobi geri
    sheet["techniques"].append("straight_punch")  # not karate
    fields = {problem.field for problem in validate(sheet)}
    assert {"characteristics.force", "characteristics", "skills.conduite", "skills",
            "techniques"} <= fields
    messages = [p.params.get("name") for p in validate(sheet) if p.field == "techniques"]
    assert "Nidan geri" in messages and "Straight-punch" in messages


def test_prerequisites_open_the_tree() -> None:
    known = {"oi_zuki", "mae_geri", "age_uke", "gedan_barai"}
    options = set(learnable(known, ["karate"]))
    assert {"tettsui_uchi", "mawashi_geri", "mae_tobi_geri", "tai_sabaki"} <= options
    assert "nidan_geri" not in options and "kizami_zuki" not in options
    assert "kizami_zuki" in learnable(known | {"tai_sabaki"}, ["karate"])


def test_the_catalogue_holds_120_techniques_and_23_chains() -> None:
    catalogue = {k: t for k, t in techniques().items() if not t.animal}
    assert len(catalogue) == 120
    assert sum(1 for t in catalogue.values() if t.type == "enchainement") == 23
    assert all(t.source in ("seed", "house") for t in catalogue.values())
    assert [k for k, t in catalogue.items() if t.source == "house"] == ["kiri_kaeshi"]
    animals = [t for t in techniques().values() if t.animal]
    assert animals and all(t.source == "house" and t.reason for t in animals)


def test_talent_table_and_rerolls() -> None:
    assert talent_from_dice(7, 5) == "transfert_d_energie"
    assert talent_from_dice(5, 5) == "sursaut_d_energie"
    assert talent_from_dice(10, 4) == "zen"
    dice = ScriptedDice([7, 5, 7, 5, 4, 5])  # the same cell twice is rolled again
    talents, records = roll_talents(dice)
    dice.assert_exhausted()
    assert talents == ["transfert_d_energie", "sursaut_d_energie"] and len(records) == 6


def test_art_talent_when_already_held() -> None:
    sheet = jack()
    sheet["talents"] = ["vivacite_du_chat", "zen"]
    sheet["art_talents"] = {"karate": "aura"}
    assert validate(sheet) == []
    sheet["talents"] = ["zen"]
    assert any(p.field == "art_talents.karate" for p in validate(sheet))


def test_a_player_learns_only_with_the_gm() -> None:
    before = jack()
    after = copy.deepcopy(before)
    after["techniques"].append("mawashi_geri")
    assert [p.field for p in validate_change(before, after)] == ["techniques"]
    new = {"techniques": [], "arts": []}
    assert validate_change(new, before) == []


def test_every_special_rule_and_weapon_reads_in_english_too() -> None:
    """An English reader gets the special rules and the weapon needed in English
    (data/techniques_en.json); a French reader the seed's own words; names stay French."""
    catalogue = techniques()
    missing = [key for key, t in catalogue.items() if (t.special and not t.special_en)
               or (t.weapon and not t.weapon_en)]
    assert missing == []
    projection = catalogue["projection"]
    assert projection.special_for("fr") == ("L'adversaire doit être debout. Il est projeté à "
                                            "2 mètres et tombe à terre.")
    assert projection.special_for("en") == ("The opponent must be standing. They are thrown 2 "
                                            "metres and fall to the ground.")
    assert catalogue["lancer_de_projectile"].weapon_for("en") == "An object"
    assert catalogue["lancer_de_projectile"].weapon_for("fr") == "Un objet"
