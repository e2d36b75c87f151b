"""The heaviest action form of Mutatior, Mecha-Ring and Chasse préhistorique, for ``python
-m bench odds`` (docs/odds.md § Speed): each built on a table set up by the rules engine
(the tests' tables: tests/rules/test_*_odds.py), its odds worked out from scratch (the
caches of the strike's sums emptied before each sample).

- Mutatior: a second attack — its pump roll, Afflux sanguin, the clash, Coquet's die and
  sponge on a hit to the head, the tie's pump rolls;
- Mecha-Ring: the attack form — the radar, and the strike on each part of the opponent
  (six attack dice against one to four);
- Chasse: the charge (its handler run for each face of the D6: the walk through the ground)
  and the melee round (two strikes at once, with support).
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from app.rules.dice import ScriptedDice, SeededDice
from app.rules.match import Actor, MatchSetup, ParticipantSetup, apply, fold
from app.rules.registry import get_system

GM = Actor(1, is_gm=True)


def _mutatior_second_attack() -> Callable[[], object]:
    from app.rules.mutatior.samples import grosbaf, zetzet
    from app.rules.mutatior.sheet import sheet_of

    system = get_system("mutatior")
    patom, yetzar = Actor(10, character_ids=frozenset({1})), Actor(11, character_ids=frozenset(
        {2}))
    setup = MatchSetup("Le choc", (ParticipantSetup("Grosbaf", 1, 10, sheet_of(grosbaf())),
                                   ParticipantSetup("Zetzet", 2, 11, sheet_of(zetzet()))))
    state = fold(system, system.start(setup, ScriptedDice([])))
    for actor, action, faces in (
            (patom, {"kind": "move", "token": "m1", "x": 30, "y": 20}, []),
            (yetzar, {"kind": "move", "token": "m2", "x": 30, "y": 50}, []),
            (GM, {"kind": "start_fight", "uneven": True}, [5, 6, 1]),
            (patom, {"kind": "move", "token": "m1", "x": 30, "y": 32}, []),
            (patom, {"kind": "end_turn", "token": "m1"}, []),
            (yetzar, {"kind": "move", "token": "m2", "x": 30, "y": 36}, []),
            (yetzar, {"kind": "end_turn", "token": "m2"}, [5, 2])):
        state = apply(system, state, action, actor, ScriptedDice(faces))[1]
    state = copy.deepcopy(state)
    state["bodies"]["m1"]["skills"] = ["afflux_sanguin"]
    arm = next(limb for limb in state["bodies"]["m1"]["limbs"] if limb["name"] == "bras gauche")
    arm["biomoteurs"] = 2
    state["bodies"]["m2"]["skills"] = ["coquet"]
    horn = {"kind": "attack", "limb": "m1:tête", "target": "m2:torse"}
    state = apply(system, state, horn, patom, ScriptedDice([3, 2]))[1]
    view = system.view(state, patom)
    claws = {"kind": "attack", "limb": "m1:bras gauche", "target": "m2:tête", "surge": "1"}
    return lambda: system.odds(view, claws, patom)


def _mecha_ring_attack() -> Callable[[], object]:
    from app.rules.mecha_ring import odds as mecha_odds

    system = get_system("mecha_ring")
    anna = Actor(10, character_ids=frozenset({1}))
    setup = MatchSetup("Tournoi", tuple(
        ParticipantSetup(f"P{i + 1}", character_id=i + 1, owner_id=10 + i,
                         sheet={"implants": implants}) for i, implants in enumerate((5, 0))))
    state = fold(system, system.start(setup, SeededDice(7)))
    strong = {"tete": "tete_parabole#1", "bras_g": "bras_marteau_pilon#1",
              "bras_d": "bras_marteau_pilon#2", "jambes": "jambes_sprinter#1",
              "torse": "chassis_enclume#1"}
    weak = {"tete": "crane_blinde#1", "bras_g": "bras_bouclier#1", "bras_d": "poing_rouille#1",
            "jambes": "chenilles#1", "torse": "tronc_rouille#1"}
    state = copy.deepcopy(state)
    state["window"] = None
    state["fight"].update(step="order", order=[], rolls={}, climb_queue=[], attacker=0,
                          pending=None)
    state["turn"] = None
    for tid, robot in zip(state["seats"], (strong, weak), strict=True):
        state["tokens"][tid]["robot"] = {slot: {"card": card, "energy": 4}
                                         for slot, card in robot.items()}
        state["piles"]["sfx"] += state["tokens"][tid]["sfx_hand"]
        state["tokens"][tid]["sfx_hand"] = []
    state = apply(system, state, {"kind": "roll_order"}, GM, ScriptedDice([6, 6, 6, 1]))[1]
    state = apply(system, state, {"kind": "climb"}, GM, ScriptedDice([]))[1]
    view = system.view(state, anna)
    attack = {"kind": "attack", "target": state["seats"][1]}

    def work() -> object:
        mecha_odds.strike_chances.cache_clear()  # nothing kept from the last sample
        mecha_odds._attack_sums.cache_clear()
        return system.odds(view, attack, anna)
    return work


def _chasse(kind: str) -> Callable[[], object]:
    from app.rules.chasse.sheet import blank_sheet

    system = get_system("chasse")
    paul = Actor(7, character_ids=frozenset({11, 12}))
    setup = MatchSetup("Chasse", (
        ParticipantSetup("Ourk", character_id=11, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["javelot", "couteau"]}),
        ParticipantSetup("Ghâ", character_id=12, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["fronde"]})))
    state = fold(system, list(system.start(setup, ScriptedDice([]))))
    for action, actor in (({"kind": "add_prey", "species": "sanglier", "x": 24, "y": 28}, GM),
                          ({"kind": "begin_hunt"}, GM)):
        state = apply(system, state, action, actor, ScriptedDice([]))[1]
    state = copy.deepcopy(state)
    if kind == "move":
        state["tokens"]["t1"].update(x=33, y=28)  # 9" from the boar: a charge from step 2
        action = {"kind": "move", "token": "t1", "target": "t3"}
    else:
        for action, actor in (({"kind": "next_step"}, paul),
                              ({"kind": "move", "token": "t1", "x": 20, "y": 32}, paul),
                              ({"kind": "next_step"}, paul)):
            state = apply(system, state, action, actor, ScriptedDice([]))[1]
        state["tokens"]["t1"].update(x=24, y=29)  # Ourk and Ghâ in contact with the boar
        state["tokens"]["t2"].update(x=25, y=28)
        action = {"kind": "melee", "fight": "t1|t3|couteau"}
    view = system.view(state, paul)
    return lambda: system.odds(view, action, paul)


FORMS: tuple[tuple[str, Callable[[], Callable[[], object]]], ...] = (
    ("Mutatior: a second attack's odds (pump, surge, Coquet)", _mutatior_second_attack),
    ("Mecha-Ring: the attack form's odds (radar, every part)", _mecha_ring_attack),
    ("Chasse: the charge form's odds", lambda: _chasse("move")),
    ("Chasse: the melee form's odds", lambda: _chasse("melee")),
)
