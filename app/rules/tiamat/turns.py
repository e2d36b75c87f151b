"""The flow of a Tiamat fight: rounds (initiative), turns, what passes by itself, the
standing defences, and ending the match (``sides.py`` says when a fight is decided).

« Durée d'une action »: « Lorsque tous les personnages ont agit ou ont passé leur tour, on dit
que l'on a accompli un tour de jeu. Tous les personnages peuvent alors agir de nouveau »: so a
turn with no action left passes, and a round everyone has played opens the next one by
itself (``follow_on``); only the first round waits for the GM (who ticks the surprised)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.action_fields import flag, require_gm
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.match import Actor, Event, State, copy_state
from app.rules.tiamat.combat import hold_of
from app.rules.tiamat.content import techniques
from app.rules.tiamat.errors import TiamatRefusal
from app.rules.tiamat.match import active, evolve, known_defences, later_fighters
from app.rules.tiamat.pools import pool
from app.rules.tiamat.sides import GM_ENDED, decided, judge, outcome
from app.rules.tiamat.talents import has

RULE_INITIATIVE = "Tiamat § Combat « versus » / Initiative"
RULE_DELAY = "Tiamat § Combat « versus » / Retarder une action"
RULE_ROUND = "Tiamat § Tests et Actions / Durée d'une action"
# What a decided fight no longer lets anyone do: ending it, corrections, tests, rest and
# finishing off a beaten enemy (« Mise à mort ») remain.
PLAY_KINDS = ("roll_initiative", "end_turn", "delay_turn", "attack", "combo", "skip_combo",
              "defend", "manoeuvre", "escape", "kusarigama_throw", "jump", "write_orders",
              "reveal_orders", "standing_defence", "overcome_fear")


def refuse(code: str, **fields: Any) -> TiamatRefusal:
    return TiamatRefusal(code, **fields)


def rolls_of(*records: RollRecord | None) -> list[dict[str, Any]]:
    return [record.to_dict() for record in records if record is not None]


def control(actor: Actor, participant: Mapping[str, Any]) -> None:
    if not actor.controls(participant):
        raise refuse("not_allowed")


def _expire(participant: Mapping[str, Any], round_number: int) -> dict[str, Any]:
    return {name: until for name, until in (participant.get("states") or {}).items()
            if until >= round_number}


def _expiries(participant: Mapping[str, Any], round_number: int
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    """What ends when round ``round_number`` begins: states whose last round is over, and
    grave wounds that lasted « 1D6 tours » (« Les effets spéciaux … ne durent en général que
    jusqu'à la fin du tour suivant »). Returns (changes, what ended for the log)."""
    states = participant.get("states") or {}
    kept = _expire(participant, round_number)
    ended_states = [name for name in states if name not in kept and name != "court"]
    temp = participant.get("temp_wounds") or {}
    healed = sorted(where for where, until in temp.items() if until < round_number)
    changes: dict[str, Any] = {"states": kept}
    if healed:
        changes["temp_wounds"] = {w: u for w, u in temp.items() if w not in healed}
        changes["wounds"] = [w for w in participant["wounds"] if w not in healed]
    ended = {k: v for k, v in (("states", ended_states), ("wounds", healed)) if v}
    return changes, ended


def initiative(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
               ) -> list[Event]:
    """The GM opens a round (the first one, with who is caught by surprise; the next ones
    open by themselves when everyone has played, ``follow_on``)."""
    require_gm(actor)
    if state.get("pending"):
        raise refuse("attack_pending")
    surprised = [pid for pid in state["participants"] if flag(action, f"surprised_{pid}")]
    return roll_round(state, surprised if state["round"] == 0 else [], dice)


def roll_round(state: State, surprised: list[str], dice: Dice, *, auto: bool = False
                ) -> list[Event]:
    """« Chaque personnage lance autant de dés que sa valeur d'initiative … En cas d'égalité,
    c'est le personnage ayant la caractéristique Rapidité la plus élevée »; a group of
    henchmen rolls once and « S'ils ont une égalité avec un personnage unique, c'est ce
    dernier qui remportera l'initiative » (before Rapidité is compared); épuisé −1D10, ivre
    −1, a surprised fighter one die (first round), an Impulsion +1, Tai sabaki's +1D6 when
    initiative is the next roll, a sonné fighter acts last. A held fighter has one action
    (one try a turn) unless its hold allows more. What lasted until this round ends."""
    round_number = state["round"] + 1
    rolls: list[RollRecord] = []
    changes: dict[str, dict[str, Any]] = {}
    scores: dict[str, tuple] = {}
    ended: dict[str, dict[str, Any]] = {}
    for pid, p in state["participants"].items():
        expiry, over = _expiries(p, round_number)
        if over:
            ended[pid] = over
        if not active(p):
            changes[pid] = {"actions_left": 0, "initiative": None, **expiry}
            continue
        states = expiry["states"]
        d10 = p["characteristics"]["rapidite"] - ("epuise" in states) - ("aveugle" in states)
        if pid in surprised:
            d10 = 1
        labels = (Modifier(p["impulsion"], "Impulsion"),) if p["impulsion"] else ()
        if has(p, "reflexes_du_guepard"):  # house talent
            labels = (*labels, Modifier(1, "Réflexes du guépard"))
        if "ivre" in states:  # « un malus d'un point dans toutes ses actions »
            labels = (*labels, Modifier(-1, "ivre"))
        record = pool(dice, d10, d6=p.get("next_d6", 0), labels=labels,
                      purpose=f"initiative — {p['name']}")
        rolls.append(record)
        stunned = "sonne" in states
        left = max(0, p["actions"] - (1 if stunned else 0))
        if p.get("held_by") and hold_of(p).per_turn:
            left = min(left, hold_of(p).per_turn)
        changes[pid] = {"initiative": record.total, "actions_left": left, "impulsion": 0,
                        "chain": [], "next_d6": 0, "free_move": p["kind"] == "hommes_de_main",
                        **expiry}
        scores[pid] = (0 if stunned else 1, record.total,
                       0 if p["kind"] == "hommes_de_main" else 1,
                       p["characteristics"]["rapidite"])
    order = sorted(scores, key=lambda pid: scores[pid], reverse=True)
    ties = [[pid for pid in order if scores[pid] == key] for key in dict.fromkeys(
        scores[pid] for pid in order)]
    simultaneous = [group for group in ties if len(group) > 1]
    payload = {
        "round": round_number, "order": order,
        "scores": {pid: changes[pid]["initiative"] for pid in order},
        "simultaneous": simultaneous, "surprised": surprised, "rolls": rolls_of(*rolls),
        "ended": ended, "names": {pid: p["name"] for pid, p in state["participants"].items()},
        "changes": changes, "rule": RULE_INITIATIVE,
        "set": {"round": round_number, "order": order, "turn": order[0] if order else None,
                "combo": None, "surprised": surprised, "simultaneous": simultaneous,
                "orders": {}, "orders_revealed": {}}}
    if auto:
        payload["auto"] = True
    return [Event("initiative_rolled", payload)]


def require_turn(state: State, actor: Actor) -> dict[str, Any]:
    if not state.get("round"):
        raise refuse("no_round")
    if state.get("pending"):
        raise refuse("attack_pending")
    turn = state.get("turn")
    if turn is None:
        raise refuse("not_your_turn")
    me = state["participants"][turn]
    control(actor, me)
    return me


def next_turn(state: State, after: str) -> str | None:
    order = state["order"]
    start = order.index(after) + 1 if after in order else 0
    for pid in order[start:]:
        if active(state["participants"][pid]):
            return pid
    return None


def end_turn(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
             ) -> list[Event]:
    """« Un personnage peut mettre de côté un certain nombre d'actions qu'il pourra utiliser
    pendant le tour des joueurs restants … en vue de faire des parades, des esquives ou des
    contre-attaques »: actions not spent are kept to defend until the round ends."""
    me = require_turn(state, actor)
    following = next_turn(state, me["id"])
    return [Event("turn_ended", {"name": me["name"], "kept": me["actions_left"],
                                 "next": following and state["participants"][following]["name"],
                                 "set": {"turn": following, "combo": None}})]


def delay_turn(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
               ) -> list[Event]:
    """« Retarder une action »: « Un personnage n'ayant pas utilisé toutes ses actions peut
    décider de les jouer après un autre personnage qui n'a pas encore joué » — any action
    (move, attack, test…), not only a defence. The fighter takes its place in the order
    right after that one and plays again when its turn ends; meanwhile its actions still
    defend it."""
    me = require_turn(state, actor)
    if me["actions_left"] < 1:
        raise refuse("no_action_left", name=me["name"])
    after = action.get("after")
    if after not in later_fighters(state, me["id"]):
        raise refuse("not_later", name=me["name"])
    order = [pid for pid in state["order"] if pid != me["id"]]
    order.insert(order.index(after) + 1, me["id"])
    following = next_turn(state, me["id"])
    other = state["participants"][after]["name"]
    return [Event("turn_delayed", {
        "name": me["name"], "after": other, "kept": me["actions_left"], "rule": RULE_DELAY,
        "next": following and state["participants"][following]["name"],
        "set": {"order": order, "turn": following, "combo": None}})]


def folded(state: State, events: list[Event]) -> State:
    """The state after these events (``evolve`` on a copy)."""
    after = copy_state(state)
    for event in events:
        after = evolve(after, event)
    return after


# — what passes by itself ——————————————————————————————————————————————————————————

def follow_on(state: State, events: list[Event], dice: Dice) -> list[Event]:
    """The events that follow an action when nobody has anything to decide: a fight just
    decided stops asking anyone to play; a turn with no action left (and no combo on offer)
    passes; a round everyone has played opens the next one (once per action)."""
    after = folded(state, events)  # a copy of its own: each step folds into it in place
    extra: list[Event] = []
    rolled = any(event.kind == "initiative_rolled" for event in events)
    for _ in range(len(after.get("participants") or {}) + 2):
        step = _next_step(after, dice, rolled)
        if not step:
            break
        rolled = rolled or step[0].kind == "initiative_rolled"
        extra += step
        for event in step:  # ``evolve`` copies what it takes from a payload: none is shared
            after = evolve(after, event)
    return extra


def _next_step(state: State, dice: Dice, rolled: bool) -> list[Event]:
    if state.get("status") == "finished" or not state.get("round"):
        return []
    if decided(state):
        if not any(state.get(key) for key in (
                "turn", "combo", "simultaneous", "orders", "pending")):
            return []
        return [Event("fight_decided", {
            "outcome": judge(state["participants"]).to_dict(),
            "set": {"turn": None, "combo": None, "pending": None, "simultaneous": [],
                    "orders": {}}})]
    if state.get("pending") or state.get("combo"):
        return []  # a free follow-up on offer: its player chooses (or lets it go)
    turn = state.get("turn")
    if turn is not None:
        me = state["participants"][turn]
        if me["actions_left"] > 0 and active(me):
            return []
        following = next_turn(state, turn)
        return [Event("turn_ended", {
            "name": me["name"], "kept": 0, "auto": True,
            "next": following and state["participants"][following]["name"],
            "rule": RULE_ROUND, "set": {"turn": following, "combo": None}})]
    if rolled:
        return []
    return roll_round(state, [], dice, auto=True)


def refuse_when_decided(state: State, kind: str) -> None:
    """A decided fight plays on only after the GM corrects what decided it."""
    if kind in PLAY_KINDS and decided(state):
        raise refuse("fight_decided")


# — combos let go, standing defences, the end ————————————————————————————————————————

def skip_combo(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
               ) -> list[Event]:
    """The free follow-up on offer is let go: the turn may move on."""
    combo = state.get("combo")
    if not combo:
        raise refuse("no_combo")
    fighter = state["participants"][combo["pid"]]
    control(actor, fighter)
    return [Event("combo_declined", {"name": fighter["name"], "set": {"combo": None}})]


def standing_choice(action: Mapping[str, Any]) -> tuple[Any, str]:
    """(fighter id, defence) from the form's ``choice`` (« p1:age_uke ») or the API's
    ``participant`` and ``technique``; an empty defence clears it."""
    choice = action.get("choice")
    if isinstance(choice, str) and ":" in choice:
        pid, _, key = choice.partition(":")
        return pid, key
    key = action.get("technique")
    return action.get("participant"), key if isinstance(key, str) else ""


def standing_defence(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
                     ) -> list[Event]:
    """« toujours parer avec … »: the defence that answers every attack on this fighter by
    itself when it is legal and affordable then (else its player is asked); « instinctive »
    always answers with the défense instinctive; none asks every time. Only the fighter's
    player and the GM know it (``view``)."""
    pid, key = standing_choice(action)
    fighter = state["participants"].get(pid) if isinstance(pid, str) else None
    if fighter is None:
        raise refuse("unknown_participant", participant=str(pid)[:20])
    control(actor, fighter)
    allowed = known_defences(fighter)
    if key not in ("", "instinctive", *allowed):
        raise refuse("bad_field", field="technique", choices=[
            "défense instinctive", *(techniques()[k].name for k in allowed)])
    value = key or None
    return [Event("standing_defence_set", {
        "participant": pid, "name": fighter["name"], "technique": value,
        "technique_name": techniques()[key].name if key in techniques() else None,
        "changes": {pid: {"standing_defence": value}}}, "self")]


def end_match(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
              ) -> list[Event]:
    """The GM ends the match; its result stays in the state (``result``): the side still
    able to fight, or nobody when the GM stopped it before."""
    require_gm(actor)
    judged = outcome(state)
    result = judged.to_dict() if judged else {"winners": [], "reason": GM_ENDED, "params": {}}
    result["over"] = True
    return [Event("match_ended", {"result": result, "set": {
        "pending": None, "combo": None, "turn": None, "result": result}})]
