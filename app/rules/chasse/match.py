"""The hunt at the table: the forms each viewer may use now, what they see, and what the
hunt leaves on the sheets (seed § Séquence de jeu, § Pillage / dépeçage)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.chasse.combat import shot_range
from app.rules.chasse.fights import enemies, in_contact
from app.rules.chasse.geometry import CONTACT, distance, o_pos, sight_blocker
from app.rules.chasse.setup import hunt_scenarios
from app.rules.chasse.state import active_side, alive, carcasses, controls_side, hunters
from app.rules.match import ActionForm, Actor, State


def _names(state: State, tokens: list[dict[str, Any]]) -> list[list[str]]:
    return [[t["id"], t["name"]] for t in sorted(tokens, key=lambda t: int(t["id"][1:]))]


def _targets(state: State, hunter: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in state["tokens"].values() if alive(t) and enemies(hunter, t)]


def _step_forms(state: State, mine: list[dict[str, Any]]) -> list[ActionForm]:
    step, weapons = state["step"], state["catalogue"]["weapons"]
    forms: list[ActionForm] = []
    if step == 2:
        ready = [h for h in mine if not h["lit"]]
        if ready:
            forms.append(ActionForm("light_fire", "Light a fire", "chasse/_light_fire.html",
                                    {"tokens": _names(state, ready)}))
    elif step == 4:
        ready = [h for h in mine if not h.get("charged") and h.get("spent", 0) < h["dmax"]]
        if ready:
            chargers = [h for h in ready if not h.get("charged_last") and not h.get("spent")]
            terrain = state["board"]["terrain"]  # a charge needs to see its target (house)
            targets = {h["id"]: _names(state, [t for t in _targets(state, h) if sight_blocker(
                o_pos(h), o_pos(t), terrain) is None]) for h in chargers}
            forms.append(ActionForm("move", "Move or charge", "chasse/_move.html",
                                    {"tokens": [h["id"] for h in ready],
                                     "names": _names(state, ready), "targets": targets}))
    elif step == 6:
        shots = {}
        for hunter in mine:
            if hunter["shot"]:
                continue
            throws = [k for k in hunter["weapons"] if (weapons.get(k) or {}).get("throw")]
            terrain = state["board"]["terrain"]
            options = [[t["id"], t["name"], k] for t in _targets(state, hunter) for k in throws
                       if shot_range(weapons[k], distance(o_pos(hunter), o_pos(t)))
                       and sight_blocker(o_pos(hunter), o_pos(t), terrain) is None]
            if options:
                shots[hunter["id"]] = options
        if shots:
            forms.append(ActionForm("shoot", "Throw", "chasse/_shoot.html",
                                    {"shots": shots, "names": _names(state, mine)}))
    elif step == 7:
        fights = {}
        for hunter in mine:
            if hunter["fought"]:
                continue
            near = [t for t in _targets(state, hunter) if in_contact(hunter, t)]
            if near:
                usable = [k for k in hunter["weapons"] if (weapons.get(k) or {}).get("melee")]
                fights[hunter["id"]] = {"targets": _names(state, near),
                                        "weapons": [*usable, "mains_nues"]}
        if fights:
            forms.append(ActionForm("melee", "Melee", "chasse/_melee.html",
                                    {"fights": fights, "names": _names(state, mine)}))
    elif step == 10:
        meat = {}
        for hunter in mine:
            room = (1 if hunter["moved"] else 3) - hunter.get("picked", 0)
            near = [c for c in carcasses(state) if in_contact(hunter, c)]
            if room > 0 and near:
                meat[hunter["id"]] = {"carcasses": _names(state, near),
                                      "room": min(room, max(c["food"] for c in near))}
        if meat:
            forms.append(ActionForm("butcher", "Butcher", "chasse/_butcher.html",
                                    {"meat": meat, "names": _names(state, mine)}))
    if step in (4, 10):
        pickable = {h["id"]: [[item["id"], item["name"]] for item in state.get("ground", [])
                              if distance(o_pos(h), o_pos(item)) <= CONTACT + 0.01]
                    for h in mine}
        pickable = {hunter: items for hunter, items in pickable.items() if items}
        if pickable:
            forms.append(ActionForm("pick_up", "Pick up a weapon", "chasse/_pick_up.html",
                                    {"items": pickable, "names": _names(state, mine)}))
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
        every = [t for t in state["tokens"].values() if t["state"] in ("ok", "dead")]
        terrain = [shape["id"] for shape in state["board"]["terrain"]]
        forms.append(ActionForm("add_terrain", "Add terrain", "chasse/_terrain.html"))
        if terrain:
            forms.append(ActionForm("remove_terrain", "Remove terrain",
                                    "board/_remove_terrain.html", {"terrain": terrain}))
        forms += [ActionForm("gm_modifier", "Situational modifier", "chasse/_modifier.html"),
                  ActionForm("correct", "Correct a value", "chasse/_correct.html",
                             {"tokens": _names(state, every)}),
                  ActionForm("end_hunt", "End the hunt", "chasse/_end_hunt.html")]
    return forms


def view(state: State, viewer: Actor) -> State:
    """Nothing is secret on a hunting ground: every figure and die is on the table."""
    return state


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
