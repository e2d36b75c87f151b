"""Exporting the roll log (signed JSON, readable text) and checking it with ``verify-log``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.__main__ import main
from app.db import write_transaction
from app.models import Match
from app.rules import notation
from app.rules.dice import ScriptedDice
from app.services import rolls
from tests.test_campaigns import Table, make_table

ROOT = Path(__file__).resolve().parent.parent


def rolled(table: Table, role: str, expression: str, visibility: str = "public") -> int:
    response = table.api[role].post(f"/campaigns/{table.campaign_id}/rolls",
                                    json={"expression": expression, "visibility": visibility})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def a_table_with_rolls(web, new_client, app, db, settings
                       ) -> tuple[Table, dict[str, int], int]:
    """Paul's public damage, Gina's secret ambush, a bite in a match, and its correction."""
    table = make_table(web, new_client)
    for role in ("gm", "player", "spectator"):
        assert table.api[role].patch("/me", json={"locale": "en"}).status_code == 200
    app.state.dice = ScriptedDice([(6, 3), (6, 4), (20, 17)])
    ids = {"damage": rolled(table, "player", "2d6+1 # dégâts"),
           "ambush": rolled(table, "gm", "1d20 # embuscade", "gm")}
    match = Match(campaign_id=table.campaign_id, system="libre", name="Escarmouche", state={})
    db.add(match)
    db.commit()
    bite = notation.roll("2d10kh1+2 # morsure", ScriptedDice([1, 6])).with_target(10, "échec")
    with write_transaction(db):
        (row,) = rolls.record_rolls(db=db, secret=settings.secret_key,
                                    campaign_id=table.campaign_id, user_id=table.api["gm"].id,
                                    match_id=match.id, records=[bite.to_dict()],
                                    visibility="public")
    ids["bite"] = row.id
    answer = table.api["gm"].post(
        f"/campaigns/{table.campaign_id}/rolls/{ids['damage']}/corrections",
        json={"total": 10, "reason": "bonus oublié"})
    assert answer.status_code == 201
    ids["correction"] = answer.json()["id"]
    return table, ids, match.id


def test_the_json_export_holds_every_entry_the_member_may_see_signed(web, new_client, app, db,
                                                                     settings):
    table, ids, _match = a_table_with_rolls(web, new_client, app, db, settings)
    response = table.web["player"].get(f"{table.url}/rolls/export.json")
    assert response.status_code == 200
    assert response.headers["content-disposition"].startswith(
        f'attachment; filename="tablee-rolls-{table.campaign_id}-')
    document = response.json()
    assert document["campaign"] == {"id": table.campaign_id, "name": "Les Ombres"}
    assert document["exported_at"]
    entries = {entry["id"]: entry for entry in document["entries"]}
    assert sorted(entries) == sorted([ids["damage"], ids["bite"], ids["correction"]])
    assert all(rolls.verify(settings.secret_key, entry) for entry in entries.values())
    assert entries[ids["bite"]]["match_name"] == "Escarmouche"
    assert entries[ids["correction"]]["corrects_id"] == ids["damage"]
    assert "embuscade" not in response.text

    gms = table.api["gm"].get(f"/campaigns/{table.campaign_id}/rolls/export").json()
    assert [entry["id"] for entry in gms["entries"]] == sorted(ids.values())
    assert gms["entries"][1]["purpose"] == "embuscade"


def test_the_text_export_tells_each_roll_with_its_context(web, new_client, app, db, settings):
    table, ids, match_id = a_table_with_rolls(web, new_client, app, db, settings)
    response = table.web["player"].get(f"{table.url}/rolls/export.txt")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    blocks = response.text.split("\n\n")
    assert blocks[0].splitlines()[0] == "Roll log of Les Ombres"
    by_id = {int(block.split()[2]): block.splitlines() for block in blocks[1:] if block}
    assert sorted(by_id) == sorted([ids["damage"], ids["bite"], ids["correction"]])
    damage = by_id[ids["damage"]]
    assert damage[0].startswith(f"Roll no. {ids['damage']} — ") and damage[0].endswith("Paul")
    assert damage[1:6] == ["For: dégâts", "Expression: 2d6+1", "Dice: d6 3, d6 4",
                           "Modifiers: +1", "Total: 8"]
    bite = by_id[ids["bite"]]
    assert "Dice: d10 1 (dropped), d10 6" in bite and "Modifiers: +2" in bite
    assert {"Target: 10", "Outcome: échec", f"Match: Escarmouche (no. {match_id})"} \
        <= set(bite)
    assert f"Corrects roll no. {ids['damage']}: 8 → 10, bonus oublié" in \
        by_id[ids["correction"]]
    assert "embuscade" not in response.text


@pytest.fixture
def exported(web, new_client, app, db, settings, tmp_path) -> tuple[Path, dict]:
    table, _ids, _match = a_table_with_rolls(web, new_client, app, db, settings)
    document = table.api["gm"].get(f"/campaigns/{table.campaign_id}/rolls/export").json()
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path, document


def test_verify_log_accepts_an_untouched_export(exported, settings, tmp_path):
    path, document = exported
    environment = {**os.environ, "TABLEE_SECRET_KEY": settings.secret_key,
                   "TABLEE_DATA_DIR": str(tmp_path / "elsewhere")}
    result = subprocess.run([sys.executable, "-m", "app", "verify-log", str(path)], cwd=ROOT,
                            env=environment, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        f"{len(document['entries'])} entries rolled here, 0 imported from a campaign file "
        "(not rolled here); all signatures valid")


def test_verify_log_names_each_tampered_entry(exported, settings, tmp_path, capsys):
    path, document = exported
    changed = document["entries"][1]
    changed["record"]["total"] = 20  # a better result than the dice gave
    document["entries"][2]["user_id"] = 999
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main(["verify-log", str(path), "--secret", settings.secret_key])
    assert exit_info.value.code == 1
    ids = f"{changed['id']}, {document['entries'][2]['id']}"
    assert capsys.readouterr().out.strip() == (
        f"{len(document['entries'])} entries rolled here, 0 imported from a campaign file "
        f"(not rolled here); 2 with an invalid signature: {ids}")


def test_verify_log_with_another_instances_secret_fails_every_entry(exported, capsys):
    path, document = exported
    with pytest.raises(SystemExit) as exit_info:
        main(["verify-log", str(path), "--secret", "not-the-secret"])
    assert exit_info.value.code == 1
    assert f"{len(document['entries'])} with an invalid signature" in capsys.readouterr().out


def test_verify_log_refuses_a_file_that_is_not_an_export(tmp_path, capsys):
    path = tmp_path / "notes.json"
    path.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main(["verify-log", str(path), "--secret", "s"])
    assert exit_info.value.code == 2
    assert "roll-log export" in capsys.readouterr().err
