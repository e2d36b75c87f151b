"""Free play at the table: tokens, hit points, statuses, initiative, board moves, rolls.

House rules (no seed): this is the toolbox a GM uses to run any game Tablée does not
automate. Nothing here judges the fiction; it keeps the numbers straight and shows them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from app.rules import notation
from app.rules.action_fields import int_field, require_gm, text_field
from app.rules.board import DECIDE as BOARD_DECIDE
from app.rules.board import EVOLVE as BOARD_EVOLVE
from app.rules.board import new_board
from app.rules.dice import Dice
from app.rules.errors import NotationError
from app.rules.match import (
    ActionForm,
    Actor,
    Event,
    IllegalAction,
    MatchSetup,
    State,
    check_visibility,
    copy_state,
    handler_for,
    visibilities_for,
)
from app.rules.notes import note_event
from app.rules.outcome import Outcome
from app.rules.system import N_

BOARD_LIMIT = 10_000  # in the board's unit
HP_LIMIT = 1_000_000
NAME_MAX = 80
TEXT_MAX = 500
DEFAULT_INITIATIVE = "1d20"


def _refuse(code: str, **fields: Any) -> IllegalAction:
    return IllegalAction(code, **fields)


# — who can still fight (house rule, docs/rules-notes.md) ——————————————————————————————
# The GM's own words for a token's state: these few mean dead or out of the fight, in either
# language; so does a token with hit points whose hit points are gone.
DEAD_WORDS = frozenset(("mort", "morte", "dead", "décédé", "décédée", "tué", "tuée", "killed"))
OUT_WORDS = frozenset(("ko", "k.o.", "inconscient", "inconsciente", "unconscious",
                       "hors de combat", "à terre", "out", "down", "évanoui", "évanouie"))


def status_words(token: Mapping[str, Any]) -> list[str]:
    """The token's statuses, one per comma."""
    return [word.strip() for word in str(token.get("statuses") or "").split(",")
            if word.strip()]


def condition(token: Mapping[str, Any]) -> str:
    """``dead``, ``out`` (of the fight) or ``ok``."""
    said = {word.lower() for word in status_words(token)}
    if said & DEAD_WORDS:
        return "dead"
    hp, hp_max = token.get("hp") or 0, token.get("hp_max") or 0
    return "out" if said & OUT_WORDS or (hp_max and hp <= 0) else "ok"


def side_of(state: State, token: Mapping[str, Any]) -> str:
    """The GM's tokens (no owner) are one side, the players' another: in free play the
    characters fight the GM's creatures together, though the board colours each player's
    apart so that one sees whose figure it is. With no token of the GM's on the board,
    each player is a side (a duel between players), as the board colours them
    (``table_view.side_key``)."""
    owner = token.get("owner_id")
    if owner is None:
        return "gm"
    gm_present = any(other.get("owner_id") is None for other in state["tokens"].values())
    return "players" if gm_present else f"owner-{owner}"


def standing(state: State) -> dict[str, list[str]]:
    """Each side's tokens still in the fight, in the turn order."""
    sides: dict[str, list[str]] = {}
    for tid in state.get("order", []):
        token = state["tokens"][tid]
        side = sides.setdefault(side_of(state, token), [])
        if condition(token) == "ok":
            side.append(tid)
    return sides


def decided(state: State) -> bool:
    """Two sides or more on the board, and at most one with a token still in the fight."""
    sides = standing(state)
    return len(sides) >= 2 and sum(1 for tokens in sides.values() if tokens) <= 1


def outcome(state: State) -> Outcome | None:
    """Who is left: once the fight is decided (the GM is offered to end the match), and
    when the match is over."""
    finished = state.get("status") == "finished"
    if not (finished or (state.get("tokens") and decided(state))):
        return None
    sides = standing(state) if decided(state) else {}
    # The GM's creatures are named to nobody: some may be hidden from the players (a
    # figure under the fog); the players' are theirs to see.
    left = tuple(state["tokens"][tid]["name"] for side, tokens in sides.items()
                 if side != "gm" for tid in tokens)
    if finished:
        return Outcome(left, N_("The GM ended the match."), over=True)
    if sides.get("gm"):
        return Outcome((), N_("Only the GM's creatures are left: every other side is at 0 "
                              "hit points or out of the fight."))
    if left:
        return Outcome(left, N_("Every other side is at 0 hit points or out of the fight."))
    return Outcome((), N_("Every token is at 0 hit points or out of the fight."))



# — set-up ————————————————————————————————————————————————————————————————

def start(setup: MatchSetup, dice: Dice) -> list[Event]:
    options = setup.options
    board = new_board(options, unit="cm", width=120, height=80)
    # The GM's creature profiles, copied now: later edits do not change this match's log.
    profiles = [{"key": item["key"], "name": item["name"], "hp_max": int(item["hp_max"]),
                 "statuses": str(item.get("statuses", ""))}
                for item in (options.get("content") or {}).get("creature", [])]
    events = [Event("match_started", {"name": setup.name, "board": board,
                                      "profiles": profiles})]
    for index, participant in enumerate(setup.participants):
        sheet = participant.sheet or {}
        hp_max = int(sheet.get("hp_max", 10))
        token = {"id": f"t{index + 1}", "name": participant.name,
                 "character_id": participant.character_id, "owner_id": participant.owner_id,
                 "hp": int(sheet.get("hp", hp_max)), "hp_max": hp_max,
                 "statuses": str(sheet.get("statuses", "")),
                 "x": _spread(index, len(setup.participants), board["width"]),
                 "y": min(10, board["height"]), "initiative": None}
        events.append(Event("token_added", {"token": token}))
    return events


def _spread(index: int, count: int, width: int) -> int:
    """Place the arrivals evenly along the board's top edge, so no labels overlap."""
    return round((index + 1) * width / (count + 1))


# — the fold (pure, no dice) ————————————————————————————————————————————————

def evolve(state: State, event: Event) -> State:
    handler = _EVOLVE.get(event.kind)
    if handler is not None:
        handler(state, event.payload)
    return state


def _started(state: State, payload: dict) -> None:
    state.update(name=payload["name"], board=payload["board"], tokens={}, order=[], turn=None,
                 round=0, next_token=1, status="running", notes=0, rolls=0,
                 profiles=payload.get("profiles", []))


def _token_added(state: State, payload: dict) -> None:
    token = dict(payload["token"])
    state["tokens"][token["id"]] = token
    state["next_token"] = max(state["next_token"], int(token["id"][1:]) + 1)
    state["order"] = _initiative_order(state["tokens"])


def _token_removed(state: State, payload: dict) -> None:
    state["tokens"].pop(payload["token"], None)
    state["order"] = _initiative_order(state["tokens"])
    if state["turn"] == payload["token"]:
        state["turn"] = payload.get("next_turn")


def _set_field(field: str) -> Callable[[State, dict], None]:
    def handler(state: State, payload: dict) -> None:
        state["tokens"][payload["token"]][field] = payload["after"]
        if field == "initiative":
            state["order"] = _initiative_order(state["tokens"])
    return handler


def _moved(state: State, payload: dict) -> None:
    token = state["tokens"][payload["token"]]
    token["x"], token["y"] = payload["to"]


def _turn(state: State, payload: dict) -> None:
    state["turn"], state["round"] = payload["to"], payload["round"]


def _delayed(state: State, payload: dict) -> None:
    state["order"], state["turn"] = payload["order"], payload["to"]
    state["tokens"][payload["token"]]["initiative"] = payload["initiative"]


def _counter(key: str) -> Callable[[State, dict], None]:
    def handler(state: State, _payload: dict) -> None:
        state[key] += 1
    return handler


def _board(state: State, payload: dict) -> None:
    state["board"].update(payload["board"])


def _ended(state: State, _payload: dict) -> None:
    state["status"] = "finished"


def _fight_decided(state: State, _payload: dict) -> None:
    state["turn"] = None


_EVOLVE: dict[str, Callable[[State, dict], None]] = {
    "match_started": _started,
    "token_added": _token_added,
    "token_removed": _token_removed,
    "hp_changed": _set_field("hp"),
    "statuses_set": _set_field("statuses"),
    "initiative_set": _set_field("initiative"),
    "initiative_rolled": _set_field("initiative"),
    "token_moved": _moved,
    "turn_advanced": _turn,
    "turn_delayed": _delayed,
    "note_added": _counter("notes"),
    "rolled": _counter("rolls"),
    "board_set": _board,
    **BOARD_EVOLVE,
    "match_ended": _ended,
    "fight_decided": _fight_decided,
}


def _initiative_order(tokens: Mapping[str, dict]) -> list[str]:
    """Highest initiative first; ties by name then id; tokens without one at the end."""
    def key(token: dict) -> tuple:
        value = token.get("initiative")
        return (value is None, -(value or 0), token["name"].casefold(), int(token["id"][1:]))
    return [token["id"] for token in sorted(tokens.values(), key=key)]


# — deciding (dice are rolled here only) ————————————————————————————————————

def decide(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice) -> list[Event]:
    events = handler_for(_DECIDE, state, action, actor)(state, action, actor, dice)
    return events + _decided_now(state, events)


def _decided_now(state: State, events: list[Event]) -> list[Event]:
    """The event that says the fight is decided, when these events decide it: no turn
    runs any more (nobody is asked to play a fight that is over); the GM ends the match,
    or gives the next turn to go on."""
    if not state.get("tokens") or decided(state):
        return []
    after = copy_state(state)
    for event in events:
        after = evolve(after, event)
    if not decided(after):
        return []
    judged = outcome(after)
    return [Event("fight_decided", {"left": list(judged.winners) if judged else [],
                                    "gm": bool(standing(after).get("gm"))})]


def _token(state: State, action: Mapping[str, Any]) -> dict:
    token_id = action.get("token")
    token = state["tokens"].get(token_id) if isinstance(token_id, str) else None
    if token is None:
        raise _refuse("unknown_participant", participant=str(token_id)[:40])
    return token


def _controlled_token(state: State, action: Mapping[str, Any], actor: Actor) -> dict:
    token = _token(state, action)
    if not actor.controls(token):
        raise _refuse("not_allowed")
    return token


def _decide_add_token(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """A token off the roster: typed in, or from one of the GM's creature profiles (whose
    figures are the defaults; a name typed in wins, so three goblins can be told apart)."""
    require_gm(actor)
    profile = _profile(state, action.get("profile"))
    if profile and action.get("hp_max") in (None, ""):
        hp_max = profile["hp_max"]
    else:
        hp_max = int_field(action, "hp_max", 0, HP_LIMIT, default=10)
    name = text_field(action, "name", NAME_MAX, required=not profile) or profile["name"]
    token = {"id": f"t{state['next_token']}", "name": name,
             "character_id": None, "owner_id": None,
             "hp": int_field(action, "hp", 0, hp_max, default=hp_max), "hp_max": hp_max,
             "statuses": profile.get("statuses", ""), "initiative": None,
             "x": int_field(action, "x", 0, state["board"]["width"], default=0),
             "y": int_field(action, "y", 0, state["board"]["height"], default=0)}
    return [Event("token_added", {"token": token})]


def _profile(state: State, key: object) -> dict[str, Any]:
    """The GM's creature profile named ``key``; none when ``key`` is empty."""
    if key in (None, ""):
        return {}
    for profile in state.get("profiles", []):
        if profile["key"] == key:
            return profile
    raise _refuse("bad_field", field="profile", reason=str(key)[:40])


def _decide_remove_token(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    token = _token(state, action)
    payload: dict[str, Any] = {"token": token["id"], "name": token["name"]}
    if state["turn"] == token["id"]:
        order = [tid for tid in state["order"] if tid != token["id"]]
        payload["next_turn"] = _following(state["order"], token["id"], order)
    return [Event("token_removed", payload)]


def _following(order: list[str], current: str, remaining: list[str]) -> str | None:
    if not remaining:
        return None
    index = order.index(current)
    for candidate in order[index + 1:] + order[:index]:
        if candidate in remaining:
            return candidate
    return None


def _decide_adjust_hp(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    token = _controlled_token(state, action, actor)
    delta = int_field(action, "delta", -HP_LIMIT, HP_LIMIT)
    after = min(max(token["hp"] + delta, 0), token["hp_max"])
    return [Event("hp_changed", {"token": token["id"], "name": token["name"],
                                 "before": token["hp"], "after": after, "delta": delta})]


def _decide_statuses(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    token = _controlled_token(state, action, actor)
    statuses = text_field(action, "statuses", TEXT_MAX, required=False)
    return [Event("statuses_set", {"token": token["id"], "name": token["name"],
                                   "before": token["statuses"], "after": statuses})]


def _roll(expression: str, dice: Dice, purpose: str | None) -> dict:
    try:
        return notation.roll(expression, dice, purpose=purpose or None).to_dict()
    except NotationError as error:
        raise _refuse("bad_field", field="expression", reason=error.message,
                      reason_fr=error.message_fr()) from error


def _decide_roll(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    visibility = check_visibility(actor, action.get("visibility", "public"))
    expression = text_field(action, "expression", 200)
    purpose = text_field(action, "purpose", 200, required=False)
    record = _roll(expression, dice, purpose)
    return [Event("rolled", {"rolls": [record], "by": actor.user_id}, visibility=visibility)]


def _decide_roll_initiative(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    expression = text_field({"e": action.get("expression") or DEFAULT_INITIATIVE}, "e", 200)
    if action.get("token"):
        tokens = [_controlled_token(state, action, actor)]
    else:
        require_gm(actor)
        tokens = [state["tokens"][tid] for tid in state["order"]]
    events = []
    for token in tokens:
        record = _roll(expression, dice, f"initiative — {token['name']}")
        events.append(Event("initiative_rolled", {
            "token": token["id"], "name": token["name"], "before": token["initiative"],
            "after": record["total"], "rolls": [record]}))
    return events


def _decide_set_initiative(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    token = _token(state, action)
    value = int_field(action, "value", -1000, 1000)
    return [Event("initiative_set", {"token": token["id"], "name": token["name"],
                                     "before": token["initiative"], "after": value})]


def _may_end_turn(state: State, actor: Actor) -> None:
    current = state["tokens"].get(state["turn"]) if state["turn"] else None
    if not actor.is_gm and (current is None or not actor.controls(current)):
        raise _refuse("not_your_turn")


def _decide_next_turn(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _may_end_turn(state, actor)
    order = state["order"]
    if not order:
        raise _refuse("illegal_action")
    current = state["turn"]
    start = order.index(current) + 1 if current in order else len(order)
    # A token out of the fight has no turn to play: the next one standing plays (all down:
    # the next one, the GM decides).
    ahead = [order[index % len(order)] for index in range(start, start + len(order))]
    target = next((tid for tid in ahead if condition(state["tokens"][tid]) == "ok"), ahead[0])
    wraps = current not in order or ahead.index(target) >= len(order) - start
    round_number = max(state["round"], 0) + 1 if wraps else state["round"]
    skipped = [state["tokens"][tid]["name"] for tid in ahead[:ahead.index(target)]]
    return [Event("turn_advanced", {"from": current, "to": target, "round": round_number,
                                    "name": state["tokens"][target]["name"],
                                    "skipped": skipped})]


def _decide_delay(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The current token waits: it acts after the next one, this round and after."""
    _may_end_turn(state, actor)
    order, current = list(state["order"]), state["turn"]
    if current is None or len(order) < 2:
        raise _refuse("illegal_action")
    index = order.index(current)
    if index + 1 >= len(order):
        raise _refuse("illegal_action")
    following = order[index + 1]
    order[index], order[index + 1] = following, current
    # Its initiative drops just under the one it let pass, so the order stays sorted.
    new_initiative = (state["tokens"][following]["initiative"] or 0) - 1
    return [Event("turn_delayed", {"token": current, "name": state["tokens"][current]["name"],
                                   "order": order, "to": following,
                                   "initiative": new_initiative})]


def _decide_move(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    token = _controlled_token(state, action, actor)
    board = state["board"]
    x = int_field(action, "x", 0, board["width"])
    y = int_field(action, "y", 0, board["height"])
    return [Event("token_moved", {"token": token["id"], "name": token["name"],
                                  "from": [token["x"], token["y"]], "to": [x, y]})]


def _decide_note(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    return [note_event(action, actor, max_length=TEXT_MAX)]


def _decide_board(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    unit = action.get("unit", state["board"]["unit"])
    if unit not in ("cm", "in", "sq"):
        raise _refuse("bad_field", field="unit", reason="cm, in, sq")
    board = {"unit": unit, "width": int_field(action, "width", 10, BOARD_LIMIT),
             "height": int_field(action, "height", 10, BOARD_LIMIT)}
    return [Event("board_set", {"board": board})]


def _decide_end(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    return [Event("match_ended", {})]


_DECIDE: dict[str, Callable[[State, Mapping[str, Any], Actor, Dice], list[Event]]] = {
    "add_token": _decide_add_token,
    "remove_token": _decide_remove_token,
    "adjust_hp": _decide_adjust_hp,
    "set_statuses": _decide_statuses,
    "roll": _decide_roll,
    "roll_initiative": _decide_roll_initiative,
    "set_initiative": _decide_set_initiative,
    "next_turn": _decide_next_turn,
    "delay": _decide_delay,
    "move": _decide_move,
    "note": _decide_note,
    "set_board": _decide_board,
    **BOARD_DECIDE,
    "end_match": _decide_end,
}


def legal_actions(state: State, actor: Actor) -> list[ActionForm]:
    """The forms this actor may use now (the page shows only these)."""
    if actor.is_spectator or state.get("status") == "finished":
        return []
    mine = [tid for tid in state["order"] if actor.controls(state["tokens"][tid])]
    forms = [ActionForm("roll", "Roll dice", "libre/_roll.html",
                        {"visibilities": list(visibilities_for(actor))}),
             ActionForm("note", "Add a note", "libre/_note.html")]
    if mine:
        # A turn's own forms first (the panel pins them on the viewer's turn); initiative is
        # rolled once the round is under way: from then on it is a setting, not pinned.
        forms += [ActionForm("move", "Move", "libre/_move.html", {"tokens": mine}),
                  ActionForm("adjust_hp", "Hit points", "libre/_hp.html",
                             {"tokens": mine, "default": _likely_hit(state, mine)}),
                  ActionForm("set_statuses", "Statuses", "libre/_statuses.html",
                             {"tokens": mine}),
                  ActionForm("roll_initiative", "Roll initiative", "libre/_initiative.html",
                             {"tokens": mine, "setting": bool(state["turn"])})]
    current = state["tokens"].get(state["turn"]) if state["turn"] else None
    if actor.is_gm or (current and actor.controls(current)):
        forms += [ActionForm("next_turn", "Next turn", "libre/_next_turn.html"),
                  ActionForm("delay", "Delay", "libre/_delay.html")]
    if not actor.is_gm:
        return forms
    forms += _gm_tools(state)
    if decided(state):  # what the table awaits now: the GM ends the match (or goes on)
        return [ActionForm("end_match", "End the match", "libre/_end.html",
                           {"awaited": True, "left": list(outcome(state).winners),
                            "gm": bool(standing(state).get("gm"))}), *forms]
    return [*forms, ActionForm("end_match", "End the match", "libre/_end.html")]


def _likely_hit(state: State, choices: list[str]) -> str | None:
    """Whose hit points change next, most likely: the nearest token still in the fight on
    another side than the one whose turn it is (the form's default; any may be chosen)."""
    current = state["tokens"].get(state["turn"]) if state["turn"] else None
    if current is None:
        return None
    foes = [tid for tid in choices if side_of(state, state["tokens"][tid])
            != side_of(state, current) and condition(state["tokens"][tid]) == "ok"]
    return min(foes, default=None, key=lambda tid: math.dist(
        (current["x"], current["y"]), (state["tokens"][tid]["x"], state["tokens"][tid]["y"])))


def _gm_tools(state: State) -> list[ActionForm]:
    forms = [ActionForm("add_token", "Add a token", "libre/_add_token.html"),
             ActionForm("set_initiative", "Set initiative", "libre/_set_initiative.html",
                        {"tokens": list(state["order"])}),
             ActionForm("set_board", "Board", "libre/_board.html"),
             ActionForm("add_terrain", "Add terrain", "board/_terrain.html")]
    terrain = [shape["id"] for shape in state["board"]["terrain"]]
    if terrain:
        forms.append(ActionForm("remove_terrain", "Remove terrain",
                                "board/_remove_terrain.html", {"terrain": terrain}))
    if state["order"]:
        forms.append(ActionForm("remove_token", "Remove a token", "libre/_remove_token.html",
                                {"tokens": list(state["order"])}))
    return forms


def between_matches(state: State, sheets: Mapping[int, dict]) -> dict[int, dict]:
    """A character leaves the table with the hit points and statuses it ended with."""
    changed = {}
    for token in state.get("tokens", {}).values():
        sheet = sheets.get(token.get("character_id"))
        if sheet is None:
            continue
        hp = min(token["hp"], sheet.get("hp_max", token["hp"]))
        changed[token["character_id"]] = {**sheet, "hp": hp, "statuses": token["statuses"]}
    return changed


def view(state: State, viewer: Actor) -> State:
    """Free play hides nothing in its state; secret rolls are hidden as events."""
    return state
