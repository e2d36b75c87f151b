"""The heaviest action forms of Tiamat and Cyborg Anti-Alien, for ``python -m bench odds``
(docs/odds.md § Speed): each built on a table set up by the rules engine (the tests'
tables: tests/rules/test_tiamat_odds.py, test_cyborg_odds.py), its odds worked out from
scratch (the cache of the pools' distributions emptied before each sample).

- Tiamat: Jack's Oi-zuki at Jin Chun-Fung, who may still choose his defence (the figures
  against the défense instinctive and the chance against each defence he may choose), and
  a lethal blow parried bare-handed (each puissance against each parry's);
- Cyborg: a burst of five rounds at a wounded cyborg (santé carried round to round, the
  wounds' locations and constitution tests) and a round of a car chase (both driving d100s,
  the accidents).
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from app.rules.dice import ScriptedDice
from app.rules.match import Actor, MatchSetup, ParticipantSetup, apply, fold
from app.rules.registry import get_system

GM = Actor(1, is_gm=True)


def _fresh() -> None:
    from app.rules.odds.groups import _fresh_sets_of
    from app.rules.tiamat.odds import law_of

    law_of.cache_clear()
    _fresh_sets_of.cache_clear()


def _tiamat(form: str) -> Callable[[], object]:
    from app.rules.tiamat.profiles import jin
    from app.rules.tiamat.sheet import jack

    system = get_system("tiamat")
    nicolas = Actor(2, character_ids=frozenset({10}))
    hero = jack()
    hero["weapons"] = ["couteau"]
    setup = MatchSetup("Dojo", (ParticipantSetup("Jack", character_id=10, owner_id=2,
                                                 sheet=hero),
                                ParticipantSetup("Jin Chun-Fung", sheet=jin())))
    state = fold(system, system.start(setup, ScriptedDice([])))
    state = apply(system, state, {"kind": "roll_initiative"}, GM,
                  ScriptedDice([9, 1, 1, 1, 1, 1]))[1]
    if form == "attack":
        view = system.view(state, nicolas)
        action = {"kind": "attack", "technique": "oi_zuki", "target": "p2"}
        actor = nicolas
    else:
        state = apply(system, state, {"kind": "manoeuvre", "what": "draw",
                                      "weapon": "couteau"}, nicolas, ScriptedDice([]))[1]
        state = apply(system, state, {"kind": "attack", "technique": "attaque_armee",
                                      "target": "p2"}, nicolas, ScriptedDice([]))[1]
        view = system.view(state, GM)
        action = {"kind": "defend", "technique": "blocage"}
        actor = GM
        jin_p = view["participants"]["p2"]
        jin_p["techniques"] = [*jin_p["techniques"], "blocage"]

    def work() -> object:
        _fresh()
        return system.odds(view, action, actor)
    return work


def _cyborg(form: str) -> Callable[[], object]:
    from app.rules.cyborg.profiles import PROFILES

    system = get_system("cyborg")
    setup = MatchSetup("Labo", (
        ParticipantSetup("Kenji", 10, 7, copy.deepcopy(PROFILES["kenji"].sheet)),
        ParticipantSetup("Pieuvre", 11, None, PROFILES["pieuvre"].sheet),
        ParticipantSetup("Infiltré", 12, None, PROFILES["infiltre"].sheet),
        ParticipantSetup("Vigile", 13, None, PROFILES["vigile"].sheet)))
    state = fold(system, system.start(setup, ScriptedDice([])))
    state = apply(system, state, {"kind": "roll_initiative", "surprise": "aliens"}, GM,
                  ScriptedDice([]))[1]
    state = copy.deepcopy(state)
    if form == "burst":
        state["tokens"]["t1"].update(sante=6, lost_limbs=["left_arm"])
        action = {"kind": "attack", "armed": "t3:pistolet_mitrailleur", "target": "t1",
                  "shots": "5"}
    else:
        state["tokens"]["t3"]["skills"]["conduite"] = state["tokens"]["t1"]["skills"][
            "conduite"]
        state = apply(system, state, {
            "kind": "start_chase", "pursuer": "t1", "quarry": "t3", "mode": "vehicle",
            "distance": "courte", "pursuer_vehicle": "voiture", "quarry_vehicle": "jeep",
            "pursuer_passenger_t4": "on"}, GM, ScriptedDice([]))[1]
        action = {"kind": "chase_round"}
    return lambda: system.odds(state, action, GM)


FORMS: tuple[tuple[str, Callable[[], Callable[[], object]]], ...] = (
    ("Tiamat: the attack form's odds (every defence the target may choose)",
     lambda: _tiamat("attack")),
    ("Tiamat: a lethal blow parried bare-handed", lambda: _tiamat("defend")),
    ("Cyborg: a burst of five rounds at a wounded cyborg", lambda: _cyborg("burst")),
    ("Cyborg: a round of a car chase", lambda: _cyborg("chase")),
)
