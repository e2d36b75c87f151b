"""Every word in the reader's language: the pages of every game's demo campaign, read as
French, hold no English word, no internal key and no file name; read as English, no French
sentence outside the game's own terms and the table's own content.

The crawl follows every link a GM and a player can follow from "My campaigns" (downloads,
streams and destructive confirmations aside), so a new page or a new game is read too.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from sqlalchemy import select

from app.db import write_transaction
from app.models import Campaign, Roll
from app.rules import notation
from app.rules.cyborg.checks import characteristic_test
from app.rules.dice import ScriptedDice
from app.services import demo, rolls
from tests.helpers import csrf_from, soup

# English words that are not French words too ("on", "note", "passe", "match", "initiative"
# and "implant" are both). A page in French must not show them.
ENGLISH = frozenset((
    "the", "and", "of", "with", "is", "are", "your", "you", "this", "that", "for", "from",
    "was", "has", "have", "not", "by", "it", "its", "which", "will", "can", "cannot",
    "should", "must", "when", "who", "what", "rolls", "success", "failure", "hit", "miss",
    "damage", "attack", "target", "turn", "round", "player", "players", "left", "right",
    "arm", "leg", "head", "torso", "yes", "edit", "delete", "save", "back", "next",
    "previous", "character", "characters", "skill", "skills", "weapon", "weapons", "limb",
    "limbs", "body", "brain", "pump", "weight", "biomass", "team", "teams", "speed", "free",
    "dice", "house", "rule", "sheet", "outcome", "master", "stroke", "roll",
))
# French words that are not English words; allowed on an English page only inside the
# table's own content (names, descriptions) and the games' terms, which the pages mark up.
FRENCH = frozenset((
    "le", "la", "les", "des", "du", "et", "avec", "pour", "une", "est", "sur", "dans",
    "aucun", "aucune", "votre", "vos", "nous", "vous", "sont", "être", "fiche", "joueur",
    "joueuse", "partie", "lancer", "règle", "tour", "membre", "membres",
))
CITATION = re.compile(r"§.*")  # a citation ends its sentence
RAW_KEY = re.compile(r"\b[a-z]+_[a-z0-9_]+\b")
FILE_NAME = re.compile(r"\b[\w-]+\.(?:md|toml|json|txt|py)\b")
SKIP = re.compile(r"logout|/stream|export|/delete|\.json|\.txt|/static/|/api/|^/docs|/print"
                  r"|/leave|/language")
def _login(new_client, username: str, language: str):
    client = new_client(language=language)
    token = csrf_from(client.get("/login"))
    response = client.post("/login", data={"csrf_token": token, "username": username,
                                           "password": demo.DEMO_PASSWORD},
                           follow_redirects=False)
    assert response.status_code == 303, response.text
    token = csrf_from(client.get("/account"))
    name = demo.DISPLAY_NAMES[username]
    client.post("/account", data={"csrf_token": token, "display_name": name,
                                  "locale": language})
    return client


def _texts(page) -> list[str]:
    main = page.select_one("main") or page
    for tag in main.select("script, style, code, pre"):
        tag.decompose()
    texts = list(main.stripped_strings)
    for element in main.select("[title], [placeholder], [aria-label]"):
        texts += [element[name] for name in ("title", "placeholder", "aria-label")
                  if element.get(name)]
    return texts


def crawl(client, check, texts=_texts) -> tuple[int, dict[str, set[str]]]:
    seen: set[str] = set()
    queue = ["/", "/campaigns"]
    found: dict[str, set[str]] = defaultdict(set)
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        if response.status_code != 200 or "text/html" not in response.headers["content-type"]:
            continue
        page = soup(response)
        links = [a["href"].split("#")[0] for a in page.select("a[href]")]
        for text in texts(page):
            if check(text):
                found[text[:120]].add(url)
        queue += [link for link in links
                  if link.startswith("/") and not SKIP.search(link) and link not in seen]
    return len(seen), found


def english_or_raw(text: str) -> bool:
    words = {word.lower() for word in re.findall(r"[A-Za-zÀ-ÿ']+", text)}
    return bool(words & ENGLISH or RAW_KEY.search(text) or FILE_NAME.search(text))


@pytest.fixture
def demo_tables(settings, app):
    demo.ensure_demo(settings)


@pytest.mark.same_on_every_database
@pytest.mark.parametrize("username", [demo.GM_USERNAME, "alice"])
def test_every_page_of_every_demo_game_is_french(demo_tables, new_client, username):
    pages, found = crawl(_login(new_client, username, "fr"), english_or_raw)
    assert pages > 40  # every game's campaign, roster, sheets, tables and content
    assert dict(found) == {}


def test_outcome_words_are_the_readers(settings, app, db, new_client, demo_tables):
    """A Cyborg test is stored with the rules' word ("success"); the log says « réussite »."""
    gm = _login(new_client, demo.GM_USERNAME, "fr")
    campaign_id = db.scalar(select(Campaign.id).where(Campaign.system == "cyborg"))
    test = characteristic_test(ScriptedDice([4]), 12, purpose="Force")
    master = notation.roll("1d100", ScriptedDice([99])).with_target(70, "master stroke")
    with write_transaction(db):
        rolls.record_rolls(db=db, secret=settings.secret_key, campaign_id=campaign_id,
                           user_id=None, visibility="public",
                           records=[test.record.to_dict(), master.to_dict()])
    outcomes = [tag.text for tag in soup(gm.get(f"/campaigns/{campaign_id}/rolls"))
                .select(".roll-entry .outcome")]
    assert outcomes[:2] == ["coup de maître", "réussite"]
    assert db.query(Roll).filter_by(campaign_id=campaign_id).count() >= 2


def _as_written(db) -> list[str]:
    """What the table wrote (campaigns, characters) and the games' own terms (skills,
    implants): shown as written, whatever the reader's language. Longest first."""
    from app.models import Character, Match
    from app.rules.chasse.content import prey_species
    from app.rules.chasse.content import scenarios as chasse_scenarios
    from app.rules.chasse.content import weapons as chasse_weapons
    from app.rules.cyborg.chases import all_vehicles
    from app.rules.cyborg.combat import modifier_table
    from app.rules.cyborg.content import all_weapons
    from app.rules.cyborg.content import skills as cyborg_skills
    from app.rules.mecha_ring.content import PARTS as MECHA_PARTS
    from app.rules.mecha_ring.content import SFX as MECHA_SFX
    from app.rules.mutatior.content import IMPLANTS, SKILLS
    from app.web.table_view import short_label

    db.commit()
    texts = [name for (name,) in db.execute(select(Campaign.name))]
    texts += [text for (text,) in db.execute(select(Campaign.description))]
    texts += [name for (name,) in db.execute(select(Character.name))]
    texts += [text for (text,) in db.execute(select(Character.notes))]
    texts += [name for (name,) in db.execute(select(Match.name))]  # the GM's title
    # The GM's custom content (a demo campaign ships some): its name and what the GM typed
    # (a scenario's lines, its terrain labels and group names) are the table's words.
    from app.models import CustomContent
    from app.rules.chasse.scenario import from_item

    for kind, name, data in db.execute(select(CustomContent.kind, CustomContent.name,
                                              CustomContent.data)):
        texts.append(name)
        texts += [line for value in (data or {}).values() if isinstance(value, str)
                  for line in value.splitlines()]
        if kind == "scenario":
            entry = from_item(data or {}, prey_species())[0]
            texts += [shape["label"] for shape in entry["terrain"]]
            texts += [placed.get("group", "") for placed in entry["prey"]]
    # A token's label under it on the board: its name, cut between words.
    texts += [short_label(name) for (name,) in db.execute(select(Character.name))]
    texts += [skill.name for skill in SKILLS.values()] + [i.name for i in IMPLANTS.values()]
    texts += [skill.name for skill in cyborg_skills().values()]
    texts += [vehicle.name for vehicle in all_vehicles().values()]
    texts += [weapon.name for weapon in all_weapons().values()]
    # Cyborg's modifier tables name their rows in the seed's words (« Cible avec bouclier »).
    texts += [entry.label for entry in modifier_table().values()]
    # Mecha-Ring: the cards' names, and what a team's sheet says of its robot and its crew.
    texts += [card["name"] for card in (*MECHA_PARTS.values(), *MECHA_SFX.values())]
    texts += [str(sheet.get(field) or "") for (sheet,) in db.execute(
        select(Character.sheet).join(Campaign).where(Campaign.system == "mecha_ring"))
        for field in ("robot_name", "crew")]
    # Tiamat: techniques, talents, arts, characteristics, skills, attributes, types and gear
    # are the game's French terms; what a sheet says of its gear and past is the table's.
    from app.rules.tiamat import content as tiamat

    texts += [technique.name for technique in tiamat.techniques().values()]
    texts += [art.name for art in tiamat.ARTS.values()]
    texts += [weapon.name for weapon in tiamat.WEAPONS.values()]
    texts += [armour.name for armour in tiamat.ARMOURS.values() if armour.key != "aucune"]
    for names in (tiamat.TALENT_NAMES, tiamat.CHAR_NAMES, tiamat.SKILL_NAMES,
                  tiamat.ATTRIBUTE_NAMES, tiamat.TYPE_NAMES, tiamat.LOCATION_NAMES):
        texts += list(names.values())
    texts += [sheet["equipment"] for (sheet,) in db.execute(select(Character.sheet))
              if isinstance(sheet, dict) and isinstance(sheet.get("equipment"), str)]
    texts += [scenario["name"] for scenario in chasse_scenarios().values()]  # titles
    texts += [entry["name"] for entry in [*chasse_weapons().values(), *prey_species().values()]]
    return sorted({text for text in texts if text}, key=len, reverse=True)


@pytest.mark.same_on_every_database
def test_every_page_of_every_demo_game_is_english_outside_the_games_terms(
        demo_tables, db, new_client):
    written = _as_written(db)

    def french(text: str) -> bool:
        text = CITATION.sub(" ", text)  # « Cyborg § (III) Combats »: the rules' own titles
        for content in written:
            text = text.replace(content, " ")
        return bool({word.lower() for word in re.findall(r"[A-Za-zÀ-ÿ']+", text)} & FRENCH)

    pages, found = crawl(_login(new_client, demo.GM_USERNAME, "en"), french)
    assert pages > 40
    assert dict(found) == {}


def test_a_refused_field_is_named_by_its_label_with_what_it_may_be_in_words():
    from app.rules.action_fields import choice_field, int_field, text_field
    from app.rules.match import IllegalAction

    with pytest.raises(IllegalAction) as refused:
        int_field({"hp": "-3"}, "hp", 0, 50)
    assert refused.value.message_fr() == ("« Points de vie » : un nombre entier de 0 à 50 est "
                                          "attendu")
    assert refused.value.message == "“Hit points”: expected a whole number from 0 to 50"
    assert refused.value.to_dict()["low"] == 0  # the API keeps the figures
    with pytest.raises(IllegalAction) as refused:
        text_field({"statuses": "x" * 61}, "statuses", 60)
    assert refused.value.message_fr() == "« États » : de 1 à 60 caractères sont attendus"
    with pytest.raises(IllegalAction) as refused:
        choice_field({"side": "nord"}, "side", ("gauche", "droite"))
    assert refused.value.message_fr() == "« Camp » : attendu : l'un de gauche, droite"
    with pytest.raises(IllegalAction) as refused:
        int_field({"new_field": 9}, "new_field", 1, 3)
    assert refused.value.message_fr().startswith("« new field » : ")


def test_numbers_are_written_as_the_reader_writes_them():
    from app.i18n import gettext, number, set_locale

    message = "%(name)s moves %(d)s cm to (%(x)s, %(y)s); %(left)s cm left."
    set_locale("fr")
    try:
        french = gettext(message, name="Zetzet", d=9.5, x=12.25, y=40, left=2.0)
        assert "9,5 cm" in french and "(12,25, 40)" in french and "2 cm" in french
        assert number(1234.5) == "1\u202f234,5"
        set_locale("en")
        assert gettext(message, name="Zetzet", d=9.5, x=12.25, y=40, left=2.0) == (
            "Zetzet moves 9.5 cm to (12.25, 40); 2 cm left.")
    finally:
        set_locale("fr")


def test_registration_accepts_accented_names_and_tells_every_problem_at_once(new_client):
    from tests.conftest import TEST_PASSWORD
    from tests.helpers import WebUser

    gaelle = WebUser(new_client(language="fr"), "Gaëlle")
    gaelle.register(TEST_PASSWORD)
    # The same name typed with a combining diaeresis is the same account.
    api = new_client()
    response = api.post("/api/v1/auth/login", json={"username": "gae\u0308lle",
                                                    "password": TEST_PASSWORD})
    assert response.status_code == 200 and response.json()["user"]["username"] == "Gaëlle"
    assert api.post("/api/v1/auth/register", json={
        "username": "Гаэль", "password": TEST_PASSWORD}).status_code == 422  # not Latin

    browser = new_client(language="fr")
    token = csrf_from(browser.get("/register"))
    refused = browser.post("/register", data={"csrf_token": token, "username": "é",
                                              "password": "court", "display_name": ""})
    assert refused.status_code == 422
    errors = {tag["id"]: tag.text for tag in soup(refused).select(".field-error")}
    assert set(errors) == {"username-error", "password-error"}
    assert errors["password-error"] == "Au moins 10 caractères."
    body = api.post("/api/v1/auth/register", json={"username": "x", "password": "court"}
                    ).json()["error"]
    assert set(body["details"]["errors"]) == {"username", "password"}


def test_every_games_compendium_lists_its_catalogue_and_the_campaigns_own(
        demo_tables, db, new_client):
    from app.models import User
    from app.services import content
    from app.services.access import load_campaign_access

    db.commit()
    ids = dict(db.execute(select(Campaign.system, Campaign.id)).all())
    gm = db.scalar(select(User).where(User.username == demo.GM_USERNAME))
    saw = content.add_item(db=db, access=load_campaign_access(db, gm, ids["mutatior"]),
                           kind="offensive_implant", name="Scie circulaire",
                           fields={"attack": "2", "weight_kg": "30"})
    db.commit()
    alice = _login(new_client, "alice", "fr")

    def rows(system: str, query: str = "") -> dict[str, dict[str, list[str]]]:
        page = soup(alice.get(f"/campaigns/{ids[system]}/compendium",
                              params={"q": query} if query else None))
        return {section.select_one("h2").contents[0].strip(): {
            row.select_one(".entry-name").contents[0].strip(): [
                cell.text for cell in row.select("td")]
            for row in section.select("tbody tr")} for section in page.select(
            ".compendium-section")}

    mutatior = rows("mutatior")
    assert mutatior["Implants offensifs"]["Scie circulaire"] == ["2", "30"]
    assert mutatior["Implants offensifs"]["Corne"] == ["1", "10"]
    assert "Coquet" in mutatior["Compétences"]
    cyborg = rows("cyborg")
    assert cyborg["Armes"]["Fusil de chasse"][:3] == ["à distance", "Arme à feu", "perforation"]
    assert set(cyborg) == {"Armes", "Véhicules", "Compétences"}
    # Searching ignores case and accents; a campaign without a catalogue lists its own.
    assert rows("cyborg", "FUSIL DE CHASSE") == {"Armes": {"Fusil de chasse": cyborg[
        "Armes"]["Fusil de chasse"]}}
    assert list(rows("mutatior", "scie")) == ["Implants offensifs"]
    assert set(rows("libre")) == {"Profil de créature"}
    assert saw.key.startswith("gm-")


def test_the_home_page_lists_the_games_that_exist_each_a_link_to_what_it_is(new_client):
    from app.rules.registry import all_systems

    visitor = new_client(language="fr")
    links = {a.text: a["href"] for a in soup(visitor.get("/")).select("ul.systems a")}
    assert sorted(links.values()) == sorted(f"/games/{s.key}" for s in all_systems())
    page = soup(visitor.get(links["Mutatior — le choc des titans"]))
    assert page.select_one("h1").text == "Mutatior — le choc des titans"
    assert "membre par membre" in page.select_one(".game-summary").text
    assert "Corne" in page.select_one("#compendium-offensive").text
    assert visitor.get("/games/monopoly").status_code == 404


# — French typography ————————————————————————————————————————————————————————————

VOWEL = "AEIOUÀÂÄÉÈÊËÎÏÔÖÛÜŒaeiouàâäéèêëîïôöûüœ"
# « 1 points », « 0 crédits », « +1 dés »: a 0 or a 1 (French says both in the singular)
# followed by a word in the plural. Not a fraction (« 1/3 munitions ») nor a decimal.
ONE_PLURAL = re.compile(r"(?<![\d.,/])[+−-]?\b[01]\s+([^\W\d_]+[sx])\b")
# Words that end in s or x in the singular too.
INVARIABLE = frozenset(("fois", "bras", "corps", "dos", "poids", "temps", "mois", "os", "cas",
                        "succès", "accès", "progrès", "prix", "choix", "voix", "repos", "sfx",
                        "plus", "pas", "sous", "sans", "dans", "vers", "après", "très", "puis",
                        "aux", "des", "les", "ses", "ces", "mes", "nos", "vos"))
# « de Alice », « que Alpha », « le Aurochs »: a word French elides before a vowel.
NOT_ELIDED = re.compile(rf"(?<!-)\b(?:[Dd]e|[Qq]ue|[Ll][ea])\s+[{VOWEL}]")  # not « nommez-la ici »
# « Joué par: », « 1d6: 4 », « Annuler? »: a word, a figure or a bracket right against
# « : ; ! ? » (a time, a ratio, a URL or the dice notation's « d6! » aside).
NO_SPACE_BEFORE = re.compile(r"(?:[^\W_]|\))[:;?](?=\s|$)|(?:[^\W\d_]|\))!(?=\s|$)")


def _reader_texts(page) -> list[str]:
    """Each text of the page as a reader meets it: a text node (a message and its values are
    one), joined to the word before it when it starts with « : » right against a tag
    (``<span>Alice</span>: …``), and the labels a screen reader says."""
    main = page.select_one("main") or page
    for tag in main.select("script, style, code, pre, .expression"):
        tag.decompose()
    texts, previous = [], ""
    for node in main.find_all(string=True):
        text = str(node)
        if text[:1] in ":;!?" and previous[-1:].strip():
            texts.append(previous.split()[-1] + text)
        texts.append(text)
        if text.strip():
            previous = text
    for element in main.select("[title], [placeholder], [aria-label]"):
        texts += [element[name] for name in ("title", "placeholder", "aria-label")
                  if element.get(name)]
    return [" ".join(text.split()) for text in texts if text.strip()]


def french_slip(text: str) -> bool:
    plural = any(word.lower() not in INVARIABLE for word in ONE_PLURAL.findall(text))
    return plural or bool(NOT_ELIDED.search(text) or NO_SPACE_BEFORE.search(text))


@pytest.mark.same_on_every_database
@pytest.mark.parametrize("username", [demo.GM_USERNAME, "alice"])
def test_every_french_page_of_every_demo_game_reads_as_french_is_written(
        demo_tables, new_client, username):
    """No « 1 points », no « de Alice », no « Joué par: » on any page of the demo games."""
    pages, found = crawl(_login(new_client, username, "fr"), french_slip, _reader_texts)
    assert pages > 40
    assert dict(found) == {}


def test_every_game_on_the_home_page_says_what_it_is(new_client):
    from app.rules.registry import all_systems

    page = soup(new_client(language="fr").get("/"))
    entries = {item.select_one("a")["href"]: item for item in page.select("ul.systems li")}
    assert len(entries) == len(all_systems())
    for href, item in entries.items():
        summary = item.select_one(".muted")
        assert summary is not None and len(summary.text) > 40, href
    assert "Combatanks" in entries["/games/mecha_ring"].select_one(".muted").text


def test_the_favicon_is_linked_from_every_page_and_answers_at_favicon_ico(new_client):
    from pathlib import Path

    visitor = new_client(language="fr")
    icon = soup(visitor.get("/login")).select_one('link[rel="icon"]')
    assert icon is not None and icon["type"] == "image/svg+xml"
    linked = visitor.get(icon["href"])
    legacy = visitor.get("/favicon.ico")
    assert legacy.status_code == 200 and legacy.headers["content-type"] == "image/svg+xml"
    assert legacy.content == linked.content == (
        Path(__file__).resolve().parent.parent / "static/favicon.svg").read_bytes()


@pytest.mark.same_on_every_database
def test_every_time_on_every_demo_page_is_one_instant_the_browser_localises(
        demo_tables, new_client):
    """One way for every time (issue 23: the rolls page said UTC, the journal the same hours
    unsaid): ``<time datetime="…Z" data-local>``, in UTC and saying so until
    static/js/times.js writes it in the reader's zone (tests/e2e/test_times.py)."""
    seen = []

    def times(page) -> list[str]:
        found = page.select("time")
        seen.extend(found)
        return [str(element) for element in found
                if not (element.get("data-local") and element.get("datetime", "").endswith("Z")
                        and (element["data-local"] == "date" or element.text.endswith(" UTC")))]

    pages, found = crawl(_login(new_client, demo.GM_USERNAME, "fr"), lambda html: True, times)
    assert dict(found) == {}
    assert pages > 40 and len(seen) > 20  # the journal's lines, the rolls, the matches
