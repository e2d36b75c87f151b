"""The hunt at the table: the forms each viewer may use now, what they see, and what the
hunt leaves on the sheets (seed § Séquence de jeu, § Pillage / dépeçage)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.chasse.combat import shot_range
from app.rules.chasse.ending import decided
from app.rules.chasse.fights import enemies, in_contact, supporters
from app.rules.chasse.geometry import CONTACT, distance, o_pos, sight_blocker
from app.rules.chasse.setup import hunt_scenarios
from app.rules.chasse.state import active_side, alive, carcasses, controls_side, hunters
from app.rules.match import ActionForm, Actor, State


def _names(state: State, tokens: list[dict[str, Any]]) -> list[list[str]]:
    return [[t["id"], t["name"]] for t in sorted(tokens, key=lambda t: int(t["id"][1:]))]


def _targets(state: State, hunter: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in state["tokens"].values() if alive(t) and enemies(hunter, t)]


def _fire_forms(state: State, mine: list[dict[str, Any]]) -> list[ActionForm]:
    ready = [h for h in mine if not h["lit"]]
    return [ActionForm("light_fire", "Light a fire", "chasse/_light_fire.html",
                       {"tokens": _names(state, ready)})] if ready else []


def _move_forms(state: State, mine: list[dict[str, Any]]) -> list[ActionForm]:
    ready = [h for h in mine if not h.get("charged") and h.get("spent", 0) < h["dmax"]]
    if not ready:
        return []
    chargers = [h for h in ready if not h.get("charged_last") and not h.get("spent")]
    targets = {h["id"]: _names(state, charge_targets(state, h)) for h in chargers}
    return [ActionForm("move", "Move or charge", "chasse/_move.html",
                       {"tokens": [h["id"] for h in ready], "names": _names(state, ready),
                        "targets": targets})]


def charge_targets(state: State, hunter: dict[str, Any]) -> list[dict[str, Any]]:
    """What a hunter may charge: a figure it sees (house) and is not in contact with
    already (a move of 0" is no charge)."""
    terrain = state["board"]["terrain"]
    return [t for t in _targets(state, hunter) if not in_contact(hunter, t)
            and sight_blocker(o_pos(hunter), o_pos(t), terrain) is None]


def shots(state: State, hunter: dict[str, Any]) -> list[list[Any]]:
    """Every throw a hunter may make now: ``[target, name, weapon, distance, is a hunter]``
    for each target in range (more than 1" away) and in sight, and each weapon in hand that
    reaches it."""
    weapons, terrain = state["catalogue"]["weapons"], state["board"]["terrain"]
    if hunter["shot"]:
        return []
    throws = [k for k in hunter["weapons"] if (weapons.get(k) or {}).get("throw")]
    found = []
    for target in sorted(_targets(state, hunter), key=lambda t: int(t["id"][1:])):
        span = distance(o_pos(hunter), o_pos(target))
        if sight_blocker(o_pos(hunter), o_pos(target), terrain) is not None:
            continue
        found += [[target["id"], target["name"], key, round(span, 1),
                   target["kind"] == "hunter"]
                  for key in throws if shot_range(weapons[key], span)]
    return found


def _shot_forms(state: State, mine: list[dict[str, Any]]) -> list[ActionForm]:
    options = {h["id"]: found for h in mine if (found := shots(state, h))}
    if not options:
        return []
    return [ActionForm("shoot", "Throw", "chasse/_shoot.html",
                       {"shots": options, "names": _names(state, mine)})]


def fights(state: State, hunter: dict[str, Any]) -> list[list[Any]]:
    """The melee rounds a hunter may lead now: ``[opponent, name, [supporters' names]]`` for
    each figure in contact (§ combats: "choisir celle qui mène l'attaque", the others of
    its side in contact support it)."""
    if hunter["fought"]:
        return []
    found = []
    for target in sorted(_targets(state, hunter), key=lambda t: int(t["id"][1:])):
        if in_contact(hunter, target):
            helping = supporters(state, hunter, target)
            found.append([target["id"], target["name"],
                          [state["tokens"][h]["name"] for h in helping]])
    return found


def _melee_forms(state: State, mine: list[dict[str, Any]]) -> list[ActionForm]:
    weapons = state["catalogue"]["weapons"]
    options = {}
    for hunter in mine:
        found = fights(state, hunter)
        if found:
            usable = [k for k in hunter["weapons"] if (weapons.get(k) or {}).get("melee")]
            options[hunter["id"]] = {"targets": found, "weapons": [*usable, "mains_nues"]}
    if not options:
        return []
    return [ActionForm("melee", "Melee", "chasse/_melee.html",
                       {"fights": options, "names": _names(state, mine)})]


def _butcher_forms(state: State, mine: list[dict[str, Any]]) -> list[ActionForm]:
    meat = {}
    for hunter in mine:
        room = (1 if hunter["moved"] else 3) - hunter.get("picked", 0)
        near = [c for c in carcasses(state) if in_contact(hunter, c)]
        if room > 0 and near:
            meat[hunter["id"]] = {"carcasses": _names(state, near),
                                  "room": min(room, max(c["food"] for c in near))}
    return [ActionForm("butcher", "Butcher", "chasse/_butcher.html",
                       {"meat": meat, "names": _names(state, mine)})] if meat else []


def _pick_forms(state: State, mine: list[dict[str, Any]]) -> list[ActionForm]:
    pickable = {h["id"]: [[item["id"], item["name"]] for item in state.get("ground", [])
                          if distance(o_pos(h), o_pos(item)) <= CONTACT + 0.01]
                for h in mine}
    pickable = {hunter: items for hunter, items in pickable.items() if items}
    return [ActionForm("pick_up", "Pick up a weapon", "chasse/_pick_up.html",
                       {"items": pickable, "names": _names(state, mine)})] if pickable else []


STEP_FORMS = {2: (_fire_forms,), 4: (_move_forms, _pick_forms), 6: (_shot_forms,),
              7: (_melee_forms,), 10: (_butcher_forms, _pick_forms)}
# A player step's forms come with those of the next player step when no automatic step lies
# between that a move of this one could change: at step 2 a hunter may walk at once (the
# fires were lit or not: step 3 only moves prey from a fire), at step 6 fight at once. Acting
# on the later step closes the earlier ones (``steps.advance_to``).
AHEAD = {2: 4, 6: 7}


def step_forms(state: State, mine: list[dict[str, Any]], step: int) -> list[ActionForm]:
    """What these hunters may do at ``step`` of their tribe's turn (seed § Séquence de
    jeu); none: the step has nothing to do and passes by itself (``steps.settle``)."""
    return [form for build in STEP_FORMS.get(step, ()) for form in build(state, mine)]


def _step_forms(state: State, mine: list[dict[str, Any]]) -> list[ActionForm]:
    step = state["step"]
    forms = step_forms(state, mine, step)
    if step in AHEAD:
        kinds = {form.kind for form in forms}
        forms += [form for form in step_forms(state, mine, AHEAD[step])
                  if form.kind not in kinds]
    return forms


def legal_actions(state: State, actor: Actor) -> list[ActionForm]:
    if actor.is_spectator or state.get("status") == "finished":
        return []
    forms: list[ActionForm] = []
    if state["status"] == "setup":
        if actor.is_gm:
            forms += [ActionForm("choose_scenario", "Scenario", "chasse/_scenario.html",
                                 {"scenarios": [[k, s["name"]] for k, s in
                                                hunt_scenarios(state).items()]}),
                      ActionForm("add_prey", "Add a prey", "chasse/_add_prey.html",
                                 {"species": [[k, s["name"]] for k, s in
                                              state["catalogue"]["prey"].items()]}),
                      ActionForm("add_terrain", "Add terrain", "chasse/_terrain.html"),
                      ActionForm("set_reaction", "Prey reaction tables",
                                 "chasse/_set_reaction.html")]
            if any(t["kind"] == "prey" for t in state["tokens"].values()):
                forms.append(ActionForm("begin_hunt", "Begin the hunt",
                                        "chasse/_begin.html"))
    elif decided(state) is not None:
        if actor.is_gm:  # nothing is left to play for: ending the hunt is awaited
            forms.append(ActionForm("end_hunt", "End the hunt", "chasse/_end_hunt.html",
                                    {"awaited": True}))
    else:
        side = active_side(state)
        mine = [h for h in hunters(state, side["id"]) if actor.controls(h)] if side else []
        if side and controls_side(state, side, actor):
            forms += _step_forms(state, mine)
            if state["step"] < 10:
                forms.append(ActionForm("next_step", "Next step", "chasse/_next_step.html"))
            else:
                forms.append(ActionForm("end_turn", "End the turn", "chasse/_end_turn.html"))
    forms.append(ActionForm("note", "Add a note", "chasse/_note.html"))
    if actor.is_gm and state["status"] == "running":
        forms += _gm_forms(state)
    return forms


def _gm_forms(state: State) -> list[ActionForm]:
    """The GM's tools while the hunt runs (ending it among them until it is decided:
    ``legal_actions`` then puts it first, awaited)."""
    every = [t for t in state["tokens"].values() if t["state"] in ("ok", "dead")]
    terrain = [shape["id"] for shape in state["board"]["terrain"]]
    forms = [ActionForm("add_terrain", "Add terrain", "chasse/_terrain.html")]
    if terrain:
        forms.append(ActionForm("remove_terrain", "Remove terrain",
                                "board/_remove_terrain.html", {"terrain": terrain}))
    forms += [ActionForm("gm_modifier", "Situational modifier", "chasse/_modifier.html"),
              ActionForm("correct", "Correct a value", "chasse/_correct.html",
                         {"tokens": _names(state, every)})]
    if decided(state) is None:
        forms.append(ActionForm("end_hunt", "End the hunt", "chasse/_end_hunt.html"))
    return forms


def view(state: State, viewer: Actor) -> State:
    """Nothing is secret on a hunting ground: every figure and die is on the table. A hunt
    decided while still open says why (``decided``: the page's banner; the GM ends it)."""
    reason = decided(state)
    return {**state, "decided": reason} if reason else state


def between_matches(state: State, sheets: Mapping[int, dict]) -> dict[int, dict]:
    """House (the text says nothing of a campaign): a hunter who came back adds the food it
    brought to its sheet and one hunt; its wounds heal between hunts; a dead or burnt
    hunter is marked dead."""
    changed = {}
    for token in state.get("tokens", {}).values():
        sheet = sheets.get(token.get("character_id"))
        if token["kind"] != "hunter" or sheet is None:
            continue
        dead = token["state"] in ("dead", "burnt")
        changed[token["character_id"]] = {
            **sheet, "food": int(sheet.get("food", 0)) + int(token.get("brought", 0)),
            "hunts": int(sheet.get("hunts", 0)) + 1, "wounds": 0, "dead": dead}
    return changed
