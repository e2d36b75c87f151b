"""Tiamat invariants under random legal play: hundreds of matches where every action is picked
among ``legal_actions`` with seeded dice never raise anything but a refusal, never push a
counter below 0 or above its maximum, never let a dead or KO fighter act, and fold(log) ==
the state at every step."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.rules.dice import SeededDice
from app.rules.match import Actor, IllegalAction, MatchSetup, ParticipantSetup, fold
from app.rules.tiamat.combat import TERRAINS
from app.rules.tiamat.match import active
from app.rules.tiamat.match_actions import MANOEUVRES, RECOVERY, STATE_WORDS, WOUND_WORDS
from app.rules.tiamat.profiles import jin, ryu, voyous
from app.rules.tiamat.sheet import jack
from app.rules.tiamat.system import TIAMAT

GM = Actor(user_id=1, is_gm=True)


def _gear(name: str, techniques: list[str], weapons: list[str], talents: list[str]) -> dict:
    sheet = jin()
    sheet.update(techniques=techniques, weapons=weapons, talents=talents, arts=["ninjutsu"],
                 art_talents={})
    return sheet


# Ammunition, the kusarigama, Gotonpo and every automatic talent in play.
NINJA = _gear("Ninja", ["capture_du_kusarigama", "gotonpo", "shuriken", "metsubushi",
                        "enchainement_d_iga", "nukite", "coup_dans_l_entrejambe"],
              ["kusarigama", "senban"], ["agilite_du_singe", "combat_aveugle", "tenacite",
                                         "vision_du_ki", "zen", "sursaut_d_energie"])
GUNNER = _gear("Tireur", ["tir_rapide", "straight_punch", "coup_de_tete"],
               ["pistolet_mitrailleur", "pistolet_9mm"],
               ["boost_d_energie", "oeil_d_aigle", "concentration", "frenesie",
                "rage_du_taureau", "instinct_de_survie", "immunite_biologique",
                "reflexes_du_guepard", "resistance_de_l_ours", "course_du_jaguar",
                "vivacite_du_chat", "aura"])
# Ground fighting and holds: a wrestler's throws and ground holds, a kung-fu fighter who
# strikes from the ground, a kendoka's two-handed sword, a ninja's draw-and-strike.
WRESTLER = _gear("Lutteur", ["projection", "immobilisation", "prise_de_l_ours", "ciseaux",
                             "prise_du_scorpion", "prise_du_sommeil", "portes_de_l_enfer",
                             "coup_de_la_corde_a_linge", "elbow_drop", "straight_punch",
                             "straight_elbow_strike", "enchainement_de_la_mort",
                             "contre_prise", "degagement"], [], [])
PANTHER = _gear("Panthère", ["ruade_du_cheval", "panthere_bondissante", "piqure_du_scorpion",
                             "salto", "ma_sutemi_waza", "tettsui_uchi",
                             "enchainement_de_la_panthere", "oi_zuki"], [], [])
KENDOKA = _gear("Kendoka", ["kesa_giri", "do_giri", "tsuki", "shomen", "kiri_kaeshi",
                            "nukitsuke", "tai_sabaki", "age_uke", "oi_zuki"],
                ["katana"], [])
ROSTERS = [
    [("Jack", jack()), ("Voyous", voyous())],
    [("Jack", jack()), ("Jin", jin())],
    [("Ryu", ryu()), ("Jack", jack()), ("Voyous", voyous()), ("Jin", jin())],
    [("Ninja", NINJA), ("Tireur", GUNNER)],
    [("Ninja", NINJA), ("Jack", jack()), ("Tireur", GUNNER), ("Voyous", voyous())],
    [("Lutteur", WRESTLER), ("Panthère", PANTHER)],
    [("Lutteur", WRESTLER), ("Kendoka", KENDOKA), ("Jack", jack())],
]


def pick(form, state: dict, rng: random.Random) -> dict | None:
    c = form.choices
    if form.kind == "attack":
        return {"kind": "attack", "technique": rng.choice(c["techniques"]),
                "target": rng.choice(c["targets"]),
                "location": rng.choice(c["locations"]), "range": rng.choice(c["ranges"]),
                "ranged": rng.choice(["", "on"]),
                "boost": "on" if c.get("boost") and rng.random() < 0.5 else ""}
    if form.kind == "defend":
        choice = rng.choice(["instinctive", *c["options"]])
        return {"kind": "defend", "technique": choice,
                "hang": "on" if choice == "gotonpo" and rng.random() < 0.7 else ""}
    if form.kind == "combo":
        return {"kind": "combo", "option": rng.randrange(len(c["options"]))}
    if form.kind == "manoeuvre":  # fleeing ends a fight: rarely
        moves = [m for m in MANOEUVRES if m != "flee" or rng.random() < 0.05]
        return {"kind": "manoeuvre", "what": rng.choice(moves),
                "weapon": rng.choice(["", *c["weapons"]]),
                "terrain": rng.choice(list(TERRAINS))}
    if form.kind == "kusarigama_throw":
        return {"kind": "kusarigama_throw", "target": rng.choice(c["targets"])}
    if form.kind == "gm_adjust" and rng.random() < 0.3:
        field = rng.choice(["state", "wound"])
        words = STATE_WORDS if field == "state" else WOUND_WORDS
        return {"kind": "gm_adjust", "participant": rng.choice(c["participants"]),
                "field": field, "value": rng.choice(list(words.values())),
                "roll_rounds": rng.choice(["", "on"]), "rounds": rng.randint(0, 3)}
    if form.kind == "standing_defence":
        pid = rng.choice(c["participants"])
        return {"kind": "standing_defence", "participant": pid,
                "technique": rng.choice(["", "instinctive", *c["options"][pid]])}
    if form.kind == "coup_de_grace":
        return {"kind": "coup_de_grace", "target": rng.choice(c["targets"])}
    if form.kind == "test":
        return {"kind": "test", "participant": rng.choice(c["participants"]),
                "characteristic": "force", "difficulty": "difficile"}
    if form.kind == "recover":
        return {"kind": "recover", "participant": rng.choice(c["participants"]),
                "what": rng.choice(RECOVERY), "amount": rng.randint(1, 3)}
    if form.kind in ("roll_initiative", "end_turn", "escape", "skip_combo"):
        return {"kind": form.kind}
    return None  # other corrections and end are left to the GM's judgement


def check(state: dict) -> None:
    for p in state["participants"].values():
        assert 0 <= p["sante"] <= p["sante_max"]
        assert 0 <= p["energie"] <= p["energie_max"]
        assert 0 <= p["furie"] <= p["furie_max"]
        assert 0 <= p["actions_left"] <= p["actions"]
        assert 0 <= p["down"] <= max(p["members"], 0)
        if p["dead"]:
            assert p["ko"]
        for key, spec in p["arsenal"].items():  # « Munitions »: 0 … the magazine
            if spec.get("ammo"):
                assert 0 <= p["ammo"].get(key, spec["ammo"]) <= spec["ammo"]
        assert set(p["temp_wounds"]) <= set(p["wounds"])
        if p["hanging"]:
            assert p["furie"] == 0
    turn = state.get("turn")
    if TIAMAT.outcome(state) is not None:  # a decided fight asks nobody to play
        assert turn is None and not state.get("combo")
        return
    if turn is not None and state.get("pending") is None and not state.get("combo"):
        # a turn with nothing left to do has passed by itself
        assert state["participants"][turn]["actions_left"] > 0
    if turn is not None and state.get("pending") is None:
        assert active(state["participants"][turn]) or not any(
            f.kind == "attack" for f in TIAMAT.legal_actions(state, GM))


def play(seed: int, roster: int, steps: int = 80) -> tuple[dict, list]:
    """A match of random legal actions (seeded): the state and the log, checked at each
    step."""
    rng = random.Random(seed)
    dice = SeededDice(seed)
    setup = MatchSetup("Aléatoire", tuple(ParticipantSetup(name, sheet=sheet)
                                          for name, sheet in ROSTERS[roster]))
    log = TIAMAT.start(setup, dice)
    state = fold(TIAMAT, log)
    for _ in range(steps):
        forms = [f for f in TIAMAT.legal_actions(state, GM) if f.kind != "end_match"]
        if not forms:
            break
        action = pick(rng.choice(forms), state, rng)
        if action is None:
            continue
        before = repr(state)
        try:
            events = TIAMAT.decide(state, action, GM, dice)
        except IllegalAction:
            assert repr(state) == before  # a refusal changes nothing
            continue
        for event in events:
            state = TIAMAT.evolve(state, event)
        log += events
        check(state)
        for event in events:  # a dead fighter never acts
            payload = event.payload
            if event.kind == "attack_declared":
                attacker = next(p for p in state["participants"].values()
                                if p["name"] == payload["attacker"])
                assert not attacker["dead"]
    return state, log


# derandomize: the same 60 matches on every run, so CI never turns red by chance; the
# examples are matches random play once broke (seed 50: a held fighter with no action left
# tried to break free, and went to −1 action).
@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.sampled_from(range(len(ROSTERS))))
@example(50, 2)
def test_random_legal_play_keeps_the_invariants(seed: int, roster: int) -> None:
    state, log = play(seed, roster)
    assert fold(TIAMAT, log) == state


def test_random_play_fights_on_the_ground_and_in_holds() -> None:
    """The wrestler's rosters: random play reaches holds (tries to break free), attacks
    on a fighter on the ground and from the ground."""
    seen: set[str] = set()
    for seed in range(12):
        _, log = play(seed, len(ROSTERS) - 2, steps=120)
        state: dict = {}
        for event in log:
            if event.kind == "attack_declared":
                fighters = {p["name"]: p for p in state["participants"].values()}
                if fighters[event.payload["target"]]["posture"] != "debout":
                    seen.add("on a fighter on the ground")
                if fighters[event.payload["attacker"]]["posture"] != "debout":
                    seen.add("from the ground")
            if event.kind == "escape_tried":
                seen.add("a hold")
            state = TIAMAT.evolve(state, event)
    assert seen == {"on a fighter on the ground", "from the ground", "a hold"}
