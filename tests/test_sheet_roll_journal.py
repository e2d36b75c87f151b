"""A roll from a character's sheet reaches the journal of the table where the character sits
(issue 23): a ``sheet_rolled`` line in each running match that seats the character, carrying
the roll log's signed entry (not signed twice), seen as the roll is — a roll for the GM only,
or for its roller and the GM, is « rolled the dice in secret » to everyone else. It changes
nothing at the table: the state folds the same, and a form chosen before it still acts."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.models import Character, Match, MatchEvent, Roll
from app.rules.dice import ScriptedDice
from app.rules.tiamat.profiles import voyous
from app.rules.tiamat.sheet import jack
from app.services import tables
from tests.helpers import soup
from tests.seating import campaign_access, campaign_with_players, user_ids
from tests.test_character_creation_rolls import api_login

pytest_plugins = ["tests.match_fixtures"]

SECRET = "test-secret"


@pytest.fixture
def shanghai(db, web, new_client, libre_dice):
    """GM Christophe; Nicolas plays Jack, Pia plays nobody (each a browser, and the same
    account over the API). Jack sits at the warehouse and at a finished match; another
    running match seats only the GM's voyous."""
    browsers = {name: web(name) for name in ("christophe", "nicolas", "pia")}
    ids = user_ids(db, browsers)
    users = {name: api_login(new_client, browser) for name, browser in browsers.items()}
    for name, user in users.items():
        user.id = ids[name]
    campaign = campaign_with_players(db, ids["christophe"], [ids["nicolas"], ids["pia"]],
                                     name="Tiamat", system="tiamat")
    hero = Character(campaign_id=campaign.id, owner_id=ids["nicolas"], name="Jack",
                     sheet=jack())
    thugs = Character(campaign_id=campaign.id, name="Voyous", sheet=voyous())
    db.add_all([hero, thugs])
    db.commit()
    access = campaign_access(db, ids, campaign.id)

    def opened(name: str, seated: list[int]) -> Match:
        return tables.create_match(db=db, secret=SECRET, access=access["christophe"],
                                   name=name, character_ids=seated, options={},
                                   dice=ScriptedDice([]))

    warehouse = opened("Entrepôt n°8", [hero.id, thugs.id])
    done = opened("Le quai", [hero.id, thugs.id])
    tables.apply_action(db=db, secret=SECRET, access=access["christophe"], match_id=done.id,
                        action={"kind": "end_match"}, expected_seq=None, dice=ScriptedDice([]))
    elsewhere = opened("La ruelle", [thugs.id])
    return {"users": users, "browsers": browsers, "campaign": campaign.id, "jack": hero.id,
            "dice": libre_dice, "warehouse": warehouse.id, "done": done.id,
            "elsewhere": elsewhere.id,
            "access": access}


def log(user, shanghai, match: str) -> list[dict]:
    base = f"/campaigns/{shanghai['campaign']}/matches/{shanghai[match]}"
    answer = user.get(base + "/log")
    assert answer.status_code == 200, answer.text
    return answer.json()["events"]


def roll(user, shanghai, **body) -> list[dict]:
    shanghai["dice"].script(3, 7)
    made = user.post(f"/campaigns/{shanghai['campaign']}/characters/{shanghai['jack']}/rolls",
                     json={"roll": "skill:informatique", "options": {"difficulty": "difficile"},
                           **body})
    assert made.status_code == 201, made.text
    return made.json()


def test_a_sheet_roll_is_a_line_of_the_journal_where_the_character_sits(db, shanghai):
    users = shanghai["users"]
    before = {name: log(users["christophe"], shanghai, name)
              for name in ("warehouse", "done", "elsewhere")}
    state = db.get(Match, shanghai["warehouse"]).state
    (entry,) = roll(users["nicolas"], shanghai)

    line = log(users["christophe"], shanghai, "warehouse")[-1]
    assert line["kind"] == "sheet_rolled" and line["visibility"] == "public"
    assert line["actor_id"] == users["nicolas"].id
    assert line["payload"]["character_id"] == shanghai["jack"]
    assert line["payload"]["name"] == "Jack"
    assert line["payload"]["roll_ids"] == [entry["id"]]
    (record,) = line["payload"]["rolls"]
    assert (record["expression"], record["total"], record["outcome"]) == ("2d10t", 10,
                                                                         "success")
    # Everyone at the table reads it; a finished match and one without Jack do not.
    assert log(users["pia"], shanghai, "warehouse")[-1] == line
    for other in ("done", "elsewhere"):
        assert log(users["christophe"], shanghai, other) == before[other]
    # The roll log holds it once, signed with the character, at no match.
    db.commit()  # a new transaction: the requests' commits are seen
    (logged,) = db.scalars(select(Roll))
    assert (logged.id, logged.character_id, logged.match_id) == (entry["id"],
                                                                 shanghai["jack"], None)
    # Nothing changed at the table: the snapshot is the state before, and the fold of the log.
    match = db.get(Match, shanghai["warehouse"])
    assert match.state == state
    assert tables.fold_log(db, match) == match.state


@pytest.mark.parametrize(("roller", "visibility"), [("nicolas", "self"),
                                                    ("christophe", "gm")])
def test_a_secret_sheet_roll_stays_secret_in_the_journal(db, shanghai, roller, visibility):
    users = shanghai["users"]
    roll(users[roller], shanghai, visibility=visibility)
    whole = log(users["christophe"], shanghai, "warehouse")[-1]
    assert whole["kind"] == "sheet_rolled" and whole["payload"]["rolls"][0]["total"] == 10
    assert log(users[roller], shanghai, "warehouse")[-1] == whole
    hidden = log(users["pia"], shanghai, "warehouse")[-1]
    assert hidden["kind"] == "hidden"
    assert hidden["payload"] == {"kind": "secret_roll", "by": users[roller].id,
                                 "visibility": visibility}
    assert "10" not in str(hidden["payload"])
    # The page's journal says so in words, and shows no dice.
    page = soup(pia_page(shanghai))
    last = page.select("#log > li")[-1]
    assert "rolled the dice in secret" in last.text and last.select(".die-face") == []


def pia_page(shanghai):
    """Pia's table page, in her browser."""
    return shanghai["browsers"]["pia"].get(f"/campaigns/{shanghai['campaign']}/matches/"
                                           f"{shanghai['warehouse']}")


def test_the_table_page_shows_the_line_with_its_dice(db, shanghai):
    users = shanghai["users"]
    roll(users["nicolas"], shanghai)
    page = soup(pia_page(shanghai))
    last = page.select("#log > li")[-1]
    assert last["data-kind"] == "sheet_rolled"
    text = " ".join(last.text.split())
    assert "Nicolas rolls from a sheet: Intelligence + Informatique — Jack." in text, text
    assert "Intelligence + Informatique" in text
    assert len(last.select(".die-row .die-face")) == 2, text


def test_a_form_chosen_before_a_sheet_roll_still_acts(db, shanghai):
    """A sheet roll changes nothing one chose from: the seq a page held is not stale."""
    access = shanghai["access"]
    seq = db.get(Match, shanghai["warehouse"]).seq
    roll(shanghai["users"]["nicolas"], shanghai)
    db.commit()
    assert db.get(Match, shanghai["warehouse"]).seq == seq + 1
    done = tables.apply_action(db=db, secret=SECRET, access=access["christophe"],
                               match_id=shanghai["warehouse"],
                               action={"kind": "roll_initiative"}, expected_seq=seq,
                               dice=ScriptedDice([3, 8, 5]))
    assert done.seq > seq + 1


def test_an_undone_sheet_roll_is_struck_through_and_redone(db, shanghai):
    users = shanghai["users"]
    roll(users["nicolas"], shanghai)
    base = f"/campaigns/{shanghai['campaign']}/matches/{shanghai['warehouse']}"
    line = log(users["christophe"], shanghai, "warehouse")[-1]
    undone = users["christophe"].post(base + "/rewind", json={"to_seq": line["seq"] - 1})
    assert undone.status_code == 200, undone.text
    assert log(users["christophe"], shanghai, "warehouse")[-2]["reverted"] is True
    assert users["christophe"].post(base + "/redo", json={}).status_code == 200
    db.commit()
    events = db.scalars(select(MatchEvent).where(
        MatchEvent.match_id == shanghai["warehouse"], MatchEvent.kind == "sheet_rolled"))
    assert [event.reverted for event in events] == [False]



def test_the_line_goes_out_and_comes_back_with_a_campaign_file(db, shanghai):
    """Export then import: the line names the new Jack and links the imported roll."""
    gm = shanghai["users"]["christophe"]
    roll(shanghai["users"]["nicolas"], shanghai)
    document = gm.get(f"/campaigns/{shanghai['campaign']}/export").json()
    imported = gm.post("/campaigns/import", json=document)
    assert imported.status_code == 201, imported.text
    db.commit()
    campaign_id = imported.json()["campaign_id"]
    (jack_again,) = db.scalars(select(Character.id).where(Character.campaign_id == campaign_id,
                                                          Character.name == "Jack"))
    (logged,) = db.scalars(select(Roll).where(Roll.campaign_id == campaign_id))
    (line,) = db.scalars(select(MatchEvent).join(Match).where(
        Match.campaign_id == campaign_id, MatchEvent.kind == "sheet_rolled"))
    assert line.payload["character_id"] == jack_again != shanghai["jack"]
    assert line.payload["roll_ids"] == [logged.id]
    assert line.payload["rolls"][0]["total"] == logged.record["total"] == 10
