"""Cyborg Anti-Alien at the table: what every action handler shares — the refusal with its
reasons in both languages, reading an action's fields, who may act, and a shot as the log
reads it (``match_actions.py`` and ``match_chase.py`` use these).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app.rules.action_fields import flag, int_field
from app.rules.board import board_distance
from app.rules.cyborg import combat
from app.rules.cyborg.combat import Target, modifier_table
from app.rules.cyborg.content import MAX_RESISTANCE, damage_correction
from app.rules.cyborg.damage import damage_points
from app.rules.cyborg.match import (
    can_dodge,
    characteristic,
    is_gone,
    may_act,
    skill,
)
from app.rules.dice import Modifier
from app.rules.errors import RulesError
from app.rules.match import Actor, IllegalAction, State
from app.rules.purposes import Purpose

NAME_MAX = 80
TEXT_MAX = 500


class CyborgRefusal(IllegalAction):
    """The table refuses a Cyborg Anti-Alien action; the reason in both languages."""

    templates_en: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_en,
        "cannot_act": "{name} cannot act now",
        "no_combat": "roll initiative first",
        "not_a_target": "{name} cannot be targeted",
        "not_your_weapon": "{name} cannot use this weapon",
        "first_aid_today": "first aid was already tried on {name} today",
        "no_chase": "no chase is running",
        "chase_running": "a chase is already running",
        "not_riding": "{name} is not in a vehicle of the chase",
        "gm_malus": "only the GM sets a test's malus",
        "wrecked": "a vehicle of the chase has already crashed",
        "gm_crush": "only the GM says that the whole target is crushed",
        "no_camouflage": "{name} has no Camouflage skill",
        "no_seeker": "choose who is looking",
        "rules": "{reason}",
        "same_pursuer": "the quarry cannot be its own pursuer: choose two different "
                        "participants",
        "out_of_reach": "{name} is {distance} from {target}: a melee attack needs contact, "
                        "{limit} at most (move closer, or the GM allows it)",
        "gm_reach": "only the GM allows a melee attack out of reach",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_fr,
        "cannot_act": "{name} ne peut pas agir maintenant",
        "no_combat": "lancez d'abord l'initiative",
        "not_a_target": "{name} ne peut pas être pris pour cible",
        "not_your_weapon": "{name} ne peut pas utiliser cette arme",
        "first_aid_today": "les premiers soins ont déjà été tentés sur {name} aujourd'hui",
        "no_chase": "aucune poursuite en cours",
        "chase_running": "une poursuite est déjà en cours",
        "not_riding": "{name} n'est dans aucun véhicule de la poursuite",
        "gm_malus": "seul le MJ fixe le malus d'un test",
        "wrecked": "un véhicule de la poursuite a déjà eu un accident",
        "gm_crush": "seul le MJ décide que la cible est écrasée dans sa totalité",
        "no_camouflage": "{name} n'a pas la compétence Camouflage",
        "no_seeker": "choisissez qui cherche",
        "rules": "{reason_fr}",
        "same_pursuer": "la proie ne peut pas être son propre poursuivant : choisissez deux "
                        "participants différents",
        "out_of_reach": "{name} est à {distance} de {target} : une attaque au corps à corps "
                        "demande le contact, {limit} au plus (approchez-vous, ou le MJ "
                        "l'autorise)",
        "gm_reach": "seul le MJ autorise une attaque au corps à corps hors de portée",
    }

    def _format_fields(self, lang: str) -> dict[str, Any]:
        """Distances in the board's unit as the reader writes them (« 4,5 cases »)."""
        fields = super()._format_fields(lang)
        if "unit" in fields:
            for key in ("distance", "limit"):
                if isinstance(fields.get(key), int | float):
                    fields[key] = board_distance(fields[key], str(fields["unit"]), lang)
        return fields


def refuse(code: str, **fields: Any) -> CyborgRefusal:
    return CyborgRefusal(code, **fields)


def rules_refusal(error: RulesError) -> CyborgRefusal:
    return refuse("rules", reason=str(error.message), reason_fr=error.message_fr())


# — reading an action's fields (the shared readers, and what only Cyborg needs) ——————————

def key_field(action: Mapping[str, Any], field: str) -> str:
    """A field that names something (a key, an id): text or nothing."""
    value = action.get(field)
    return value if isinstance(value, str) else ""


def armed(action: Mapping[str, Any]) -> Mapping[str, Any]:
    """The table's attack and reload forms choose who and with what in one list, so that
    only the chosen participant's weapons are offered: ``armed`` = "t1:fusil_a_canon_scie"
    (a participant's id holds no colon; a weapon's key may: "gm:…"). The API may send
    ``token`` and ``weapon`` apart."""
    value = action.get("armed")
    if not isinstance(value, str) or ":" not in value:
        return action
    token, _, weapon = value.partition(":")
    return {**action, "token": token, "weapon": weapon}


def token_of(state: State, action: Mapping[str, Any], field: str = "token") -> dict:
    token_id = action.get(field)
    token = state["tokens"].get(token_id) if isinstance(token_id, str) else None
    if token is None:
        raise refuse("unknown_participant", participant=str(token_id)[:40])
    return token


def controlled(state: State, action: Mapping[str, Any], actor: Actor,
                field: str = "token") -> dict:
    token = token_of(state, action, field)
    if not actor.controls(token):
        raise refuse("not_allowed")
    return token


def acting(state: State, action: Mapping[str, Any], actor: Actor) -> dict:
    """A participant of the actor's that may act now (up, its group's turn, not acted)."""
    token = controlled(state, action, actor)
    if not may_act(state, token):
        raise refuse("cannot_act", name=token["name"])
    return token


def target_of(state: State, action: Mapping[str, Any], field: str = "target") -> dict:
    """A participant still there to be chosen (not dead, not fled)."""
    target = token_of(state, action, field)
    if is_gone(target):
        raise refuse("not_a_target", name=target["name"])
    return target


def situational(token: Mapping[str, Any]) -> tuple[Modifier, ...]:
    """The GM's standing modifier on this participant (darkness, cover…), if any."""
    value, label = token["modifier"]["value"], token["modifier"]["label"]
    return (Modifier(value, label or Purpose("GM")),) if value else ()


def chosen_modifiers(action: Mapping[str, Any]) -> dict[str, int | None]:
    """The checked modifier boxes: ``modifiers`` (a JSON list, or a dict key → value) or the
    form's ``mod_<key>`` boxes with an optional harsher ``modv_<key>``."""
    chosen: dict[str, int | None] = {}
    raw = action.get("modifiers")
    if isinstance(raw, list):
        chosen.update({str(key): None for key in raw})
    elif isinstance(raw, dict):
        for key, value in raw.items():
            chosen[str(key)] = value if isinstance(value, int) and not isinstance(
                value, bool) else None
    for key in modifier_table():
        if flag(action, f"mod_{key}"):
            value = action.get(f"modv_{key}")
            chosen[key] = int_field(action, f"modv_{key}", -100, 100) \
                if value not in (None, "") else None
    return chosen


def target_for(state: State, target: dict, *, dodge: bool = True,
                extra_resistance: int = 0) -> Target:
    return Target(esquive=skill(target, "esquive_parade"),
                  resistance=target["resistance"] + extra_resistance, sante=target["sante"],
                  constitution=characteristic(target, "constitution"),
                  can_dodge=dodge and can_dodge(state, target),
                  lost_limbs=tuple(target["lost_limbs"]), humanoid=target["humanoid"])


def wound_dict(target: Mapping[str, Any], found: Any) -> dict[str, Any] | None:
    if found is None:
        return None
    data = found.to_dict() if hasattr(found, "to_dict") else dict(found)
    if target.get("locations") and data.get("location"):
        data["location_name"] = target["locations"][data["location"] - 1]
    return data


def shot_record(target: dict, result: combat.Attack, weapon: Any) -> dict[str, Any]:
    """One attack as the log reads it: the d100s, the cell of the damage table (and the house
    correction behind it, if any), the wound."""
    resistance = target["resistance"]
    return {"target": target["id"], "target_name": target["name"],
            "correction": damage_correction(weapon.factor, resistance) if result.hit else None,
            "attack": result.attack.record.to_dict(),
            "defence": result.defence.record.to_dict() if result.defence else None,
            "hit": result.hit, "master": result.attack.master and result.hit,
            "damage": result.damage, "factor": weapon.factor, "resistance": resistance,
            "cell": damage_points(weapon.factor, resistance) if resistance <= MAX_RESISTANCE
            else 0,
            "sante_before": target["sante"], "sante": result.sante if result.hit
            else target["sante"],
            "wound": wound_dict(target, result.wound),
            "attacker_unbalanced": result.attacker_unbalanced,
            "notes": list(result.notes)}


def all_rolls(shots: list[dict]) -> list[dict]:
    rolls = []
    for shot in shots:
        rolls += [shot["attack"]] if shot["attack"] else []
        rolls += [shot["defence"]] if shot["defence"] else []
        rolls += (shot["wound"] or {}).get("rolls", [])
    return rolls


