"""A melee round and the wounds it leaves (seed § Tirs, its combat paragraphs: "Les combats
sont simultanés"; "si plusieurs figurines combattent un même adversaire, choisir celle qui
mène l'attaque, et appliquer +1 au jet pour toucher par figurine supplémentaire"), written
into the scratch state as events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.chasse.combat import RULE_MELEE, melee_modifiers, strike
from app.rules.chasse.geometry import CONTACT, distance, o_pos
from app.rules.chasse.resolve import Acc
from app.rules.chasse.state import alive
from app.rules.dice import Dice
from app.rules.purposes import Purpose

EPSILON = 0.01


def in_contact(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return distance(o_pos(a), o_pos(b)) <= CONTACT + EPSILON


def allies(state: Mapping[str, Any], token: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Who fights on ``token``'s side: its side's hunters, or its group's prey."""
    found = []
    for other in state["tokens"].values():
        if other["id"] == token["id"] or not alive(other) or other["kind"] != token["kind"]:
            continue
        same_side = token["kind"] == "hunter" and other["side"] == token["side"]
        same_group = token["kind"] == "prey" and bool(token.get("group")) and \
            other.get("group") == token["group"]
        if same_side or same_group:
            found.append(other)
    return found


def enemies(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    if a["kind"] != b["kind"]:
        return True
    return a["kind"] == "hunter" and a["side"] != b["side"]


def supporters(state: Mapping[str, Any], leader: Mapping[str, Any],
               defender: Mapping[str, Any]) -> list[str]:
    """The figures of the leader's side (or group) in contact with the defender that have
    not fought this turn: +1 each (§ combats: "si plusieurs figurines combattent un même
    adversaire, choisir celle qui mène l'attaque, et appliquer +1 au jet pour toucher par
    figurine supplémentaire soutenant le combat"). They fight in this round, not again."""
    return [a["id"] for a in allies(state, leader)
            if in_contact(a, defender) and a["id"] != leader["id"] and not a.get("fought")]


def melee_weapon(state: Mapping[str, Any], fighter: Mapping[str, Any],
                 choice: str | None = None) -> dict[str, Any]:
    """A prey's natural weapon; a hunter's chosen melee weapon (its bare hands when it says
    so: the melee form offers them beside its weapons), else the first it carries, else its
    bare hands."""
    catalogue = state["catalogue"]["weapons"]
    if fighter["kind"] == "prey":
        return catalogue[fighter["weapon"]]
    usable = [key for key in fighter["weapons"] if catalogue.get(key, {}).get("melee")]
    if choice == "mains_nues":
        return catalogue["mains_nues"]
    if choice in usable:
        return catalogue[choice]
    return catalogue[usable[0]] if usable else catalogue["mains_nues"]


def damage(state: Mapping[str, Any], results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The wounds the results leave: mass = wounds a figure takes (§ Les blessures)."""
    wounds: dict[str, int] = {}
    for result in results:
        if result["outcome"] == "wound":
            wounds[result["defender"]] = wounds.get(result["defender"], 0) + 1
    found = []
    for token_id, count in wounds.items():
        token = state["tokens"][token_id]
        after = min(token["wounds"] + count, token["masse"])
        found.append({"token": token_id, "name": token["name"], "wounds": after,
                      "dead": after >= token["masse"]})
    return found


def melee_strikes(state: Mapping[str, Any], *, leader: str, defender: str,
                  weapon: str | None = None, extra: tuple[tuple[int, str], ...] = ()
                  ) -> tuple[list[str], bool, list[dict[str, Any]]]:
    """A round's two strikes before they are thrown: the leader's supporters, whether its
    charge reached this opponent, and each strike's figures (``combat.strike``'s arguments)
    — the leader's first, then the defender's back at it (the odds read them too)."""
    first, second = state["tokens"][leader], state["tokens"][defender]
    helping = supporters(state, first, second)
    charged = first.get("charge_target") == defender
    return helping, charged, [
        {"attacker": first, "defender": second, "weapon": melee_weapon(state, first, weapon),
         "modifiers": melee_modifiers(first, supporters=len(helping), charged=charged,
                                      extra=extra),
         "purpose": Purpose("melee")},
        # A figure charged at by… its own target: its charge's +1 holds in this first
        # round even when the other struck first (§ Charge).
        {"attacker": second, "defender": first, "weapon": melee_weapon(state, second),
         "modifiers": melee_modifiers(second, supporters=0,
                                      charged=second.get("charge_target") == first["id"]),
         "purpose": Purpose("riposte")}]


def melee_round(acc: Acc, dice: Dice, *, leader: str, defender: str,
                weapon: str | None = None, extra: tuple[tuple[int, str], ...] = (),
                cause: str = "melee") -> None:
    """One simultaneous round: the leader strikes (with its support: the others of its side
    in contact, who fight with it and not again this turn), the defender strikes back once,
    at the leader; both wounds land after. A charge's +1 holds in the first round only: for
    a figure whose charge this turn reached this very opponent (§ Charge; the prey's "+1 au
    jet pour blesser … lors du premier tour" read the same)."""
    state = acc.state
    first, second = state["tokens"][leader], state["tokens"][defender]
    helping, charged, strikes = melee_strikes(state, leader=leader, defender=defender,
                                              weapon=weapon, extra=extra)
    results = [strike(dice, **figures) for figures in strikes]
    acc.emit("melee", {"leader": leader, "defender": defender, "leader_name": first["name"],
                       "defender_name": second["name"], "supporters": helping,
                       "charged": charged, "cause": cause, "results": results,
                       "supporters_fight": True,
                       "damage": damage(state, results), "modifier_used": bool(extra),
                       "rolls": [roll for result in results for roll in result["rolls"]],
                       "rule": RULE_MELEE})
