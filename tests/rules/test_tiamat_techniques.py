"""Every technique of « LISTE DES TECHNIQUES » (issue 24): for each one, a situation where the
text allows it, which the engine accepts and resolves; for each condition a technique
states (target on the ground, from the ground, standing target, a grave wound to an arm or a
leg, held, terrorisé, a sword in both hands), a refusal said in words.

The dice are loaded (every D10 shows 9, every D6 1: no critical, no grave wound by chance);
the GM's situational modifier decides who wins an exchange (+10: the attack goes through,
−10: the defence holds)."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest

from app.rules.match import Actor, Event, MatchSetup, ParticipantSetup, fold
from app.rules.tiamat.content import techniques
from app.rules.tiamat.errors import TiamatRefusal
from app.rules.tiamat.system import TIAMAT

GM = Actor(user_id=1, is_gm=True)
CATALOGUE = json.loads(resources.files("app.rules.tiamat").joinpath(
    "data/techniques.json").read_text("utf-8"))
KEYS = [entry["key"] for entry in CATALOGUE]
ATTACKS = [k for k in KEYS if techniques()[k].is_attack and not techniques()[k].counter_only
           and k != "degagement"]
DEFENCES = [k for k in KEYS if techniques()[k].is_defence]
CHAINS = [k for k in KEYS if techniques()[k].chain]
# The weapon each « Arme nécessaire » asks for, from the house gear.
GEAR = {"arme de kendo": "katana", "katana, wakizashi, ninjato ou sabre": "katana",
        "un couteau ou un bâton": "couteau", "deux couteaux ou bâtons": "couteau",
        "arme de contact": "couteau", "kusarigama": "kusarigama", "senban ou kunaï": "senban",
        "arme à feu": "pistolet_9mm", "arme d'attaque à distance": "pistolet_9mm",
        "arme de tir en rafale": "pistolet_mitrailleur",
        "sac de makibishi": "sac_de_makibishi", "artifice de ninja": "artifice_de_ninja",
        "senban ou kunaï ou kusarigama": "senban"}


class Loaded:
    """Every D10 shows 9 and every D6 1."""

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        return [9 if sides == 10 else 1] * count


def weapon_for(key: str) -> str | None:
    return GEAR.get(techniques()[key].weapon.lower())


def fighter(*known: str, weapons: tuple[str, ...] = (), **chars: int) -> dict:
    """A GM profile: every characteristic 4 (3 for a target), five actions, furie to spend
    (none for a technique asking « ne doit pas avoir de point de furie »)."""
    characteristics = dict.fromkeys(
        ("force", "endurance", "habilete", "rapidite", "perception", "intelligence",
         "temperament", "volonte"), chars.pop("all", 4)) | chars
    calm = any(techniques()[k].no_furie for k in known)
    return {"kind": "pnj", "characteristics": characteristics, "skills": {}, "talents": [],
            "arts": [], "techniques": list(known), "sante": None, "energie": None,
            "furie": 0 if calm else characteristics["temperament"] * 2, "armour": "aucune",
            "weapons": list(weapons), "wounds": [], "actions_override": 5}


def duel(attacker: dict, target: dict) -> dict:
    """p1 (the attacker) acts first; both in the fight, the target standing by default."""
    state = fold(TIAMAT, TIAMAT.start(MatchSetup("Dojo", (
        ParticipantSetup("Attaquant", sheet=attacker),
        ParticipantSetup("Cible", sheet=target))), Loaded()))
    state = act(state, {"kind": "roll_initiative"})
    assert state["turn"] == "p1"
    return state


def act(state: dict, action: dict) -> dict:
    state, _ = act_events(state, action)
    return state


def act_events(state: dict, action: dict) -> tuple[dict, list[Event]]:
    events = TIAMAT.decide(state, action, GM, Loaded())
    after = copy.deepcopy(state)
    for event in events:
        after = TIAMAT.evolve(after, event)
    return after, events


def refused(state: dict, action: dict) -> TiamatRefusal:
    before = copy.deepcopy(state)
    with pytest.raises(TiamatRefusal) as caught:
        TIAMAT.decide(state, action, GM, Loaded())
    assert state == before
    return caught.value


def resolved(events: list[Event]) -> dict:
    return next(e.payload for e in events if e.kind == "attack_resolved")


def armed(state: dict, pid: str, key: str) -> None:
    """The weapon the technique needs, in hand (a device is only carried)."""
    weapon = weapon_for(key)
    if weapon and state["participants"][pid]["arsenal"][weapon]["kind"] != "artifice":
        state["participants"][pid]["weapon"] = weapon


def attack_situation(key: str) -> tuple[dict, dict]:
    """A duel where the text allows ``key`` as an attack, and its action."""
    technique = techniques()[key]
    weapons = tuple(w for w in (weapon_for(key),) if w)
    state = duel(fighter(key, weapons=weapons), fighter(all=3))
    if key not in ("nukitsuke", "shuriken", "tir_rapide"):  # these draw by themselves
        armed(state, "p1", key)
    if technique.user == "down":
        state["participants"]["p1"]["posture"] = "a_terre"
    if technique.target == "down":
        state["participants"]["p2"]["posture"] = "a_terre"
    if key == "morsure_du_cobra":
        state["participants"]["p2"]["initiative"] = 1  # « supérieur à celui de son adversaire »
    state["participants"]["p2"]["standing_defence"] = "instinctive"
    return state, {"kind": "attack", "technique": key, "target": "p2", "gm_modifier": 10,
                   "location": "tete"}


@pytest.mark.parametrize("key", ATTACKS)
def test_every_attack_is_accepted_and_resolved_where_the_text_allows_it(key: str) -> None:
    state, action = attack_situation(key)
    after, events = act_events(state, action)
    payload = resolved(events)
    assert payload["hit"] and payload["technique"] == techniques()[key].name
    attacker = after["participants"]["p1"]
    if techniques()[key].ends == "standing":  # Panthère bondissante, Nukitsuke
        assert attacker["posture"] == "debout"
    if techniques()[key].ends == "down":  # Elbow drop
        assert attacker["posture"] == "a_terre"
    if techniques()[key].hold:
        assert after["participants"]["p2"]["held_by"] == "p1"


def defence_situation(key: str) -> tuple[dict, dict]:
    """A duel where ``p2`` attacks ``p1`` with something ``key`` may answer (the attack at
    −10: the defence holds); the defend action."""
    attack = {"gedan_barai": "coup_de_pied", "esquive_instinctive": "lancer_de_projectile",
              "makibishi": "frappe_du_jaguar"}.get(key, "coup_de_poing")
    weapons = tuple(w for w in (weapon_for(key),) if w)
    state = duel(fighter(key, weapons=weapons), fighter(attack, all=3))
    if key not in ("nukitsuke",):
        armed(state, "p1", key)
    state["turn"] = "p2"
    if key == "frappe_du_renard":  # « qu'en réponse à un Combo »: a free follow-up
        state["combo"] = {"pid": "p2", "target": "p1", "options": [
            {"technique": "coup_de_poing", "chain": None}]}
        state = act(state, {"kind": "combo", "option": 0, "gm_modifier": -10})
    else:
        state = act(state, {"kind": "attack", "technique": attack, "target": "p1",
                            "gm_modifier": -10})
    assert state["pending"]["target"] == "p1"
    return state, {"kind": "defend", "technique": key}


@pytest.mark.parametrize("key", DEFENCES)
def test_every_defence_is_accepted_and_resolved_where_the_text_allows_it(key: str) -> None:
    state, action = defence_situation(key)
    _, events = act_events(state, action)
    payload = resolved(events)
    assert payload["defence"] == techniques()[key].name and not payload["hit"]
    if techniques()[key].counter_only or techniques()[key].also_attack:
        assert payload["countered"]  # a counter-attack that wins strikes back


def chain_state(chain: str) -> dict:
    """A duel for ``chain``: every technique of its steps and finisher known, the weapons
    they ask for carried (the target holds a knife for Exécution's Braquage)."""
    info = techniques()[chain].chain
    needed = [*info.steps, *info.finisher]
    weapons = tuple(dict.fromkeys(w for w in map(weapon_for, [chain, *needed]) if w))
    if chain == "execution":
        weapons = ()
    target_weapons = ("couteau",) if chain == "execution" else ()
    state = duel(fighter(chain, *needed, weapons=weapons),
                 fighter("coup_de_poing", all=3, weapons=target_weapons))
    if chain == "execution":
        state["participants"]["p2"]["weapon"] = "couteau"
    kendo = [w for w in weapons if w == "katana"]
    if kendo and chain != "heritage_d_hanzo_hattori":  # Héritage: the sabre in its sheath
        state["participants"]["p1"]["weapon"] = "katana"
    state["participants"]["p2"]["standing_defence"] = "instinctive"
    return state


def play_step(state: dict, step: str) -> dict:
    """One step of a chain succeeds: an attack that hits, or a defence that holds."""
    technique = techniques()[step]
    if technique.is_attack and not technique.counter_only:
        state["turn"] = "p1"
        return act(state, {"kind": "attack", "technique": step, "target": "p2",
                           "gm_modifier": 10})
    state["turn"], state["participants"]["p2"]["standing_defence"] = "p2", None
    state = act(state, {"kind": "attack", "technique": "coup_de_poing", "target": "p1",
                        "gm_modifier": -10})
    state = act(state, {"kind": "defend", "technique": step})
    state["participants"]["p2"]["standing_defence"] = "instinctive"
    return state


@pytest.mark.parametrize("chain", CHAINS)
def test_every_chain_s_steps_open_its_finisher_which_resolves(chain: str) -> None:
    state = chain_state(chain)
    for step in techniques()[chain].chain.steps:
        state = play_step(state, step)
        state["participants"]["p1"]["actions_left"] = 5
    options = state["combo"]["options"]
    index = next(i for i, o in enumerate(options) if o["chain"] == chain)
    after, events = act_events(state, {"kind": "combo", "option": index, "gm_modifier": 10})
    payload = resolved(events)
    assert payload["chain"] == techniques()[chain].name and payload["hit"]
    if techniques()[chain].chain.stand_up:  # Enchaînement de la Panthère
        assert events[0].kind == "manoeuvred" and after["participants"]["p1"][
            "posture"] == "debout"


def test_there_are_120_techniques_and_each_is_played_above() -> None:
    played = set(ATTACKS) | set(DEFENCES) | set(CHAINS) | {"degagement"}
    assert len(KEYS) == 120 and played == set(KEYS)


# — the conditions a technique states, refused in words ——————————————————————————————

def refusal_for(key: str, change) -> TiamatRefusal:
    state, action = attack_situation(key)
    change(state)
    return refused(state, action)


@pytest.mark.parametrize("key", [k for k in ATTACKS if techniques()[k].target == "down"])
def test_a_technique_on_a_downed_target_is_refused_against_a_standing_one(key: str) -> None:
    refusal = refusal_for(key, lambda s: s["participants"]["p2"].update(posture="debout"))
    assert refusal.code == "target_must_be_down"
    assert refusal.message_fr() == f"{techniques()[key].name} demande un adversaire à terre"


@pytest.mark.parametrize("key", [k for k in ATTACKS if techniques()[k].target == "standing"])
def test_a_technique_on_a_standing_target_is_refused_against_a_downed_one(key: str) -> None:
    refusal = refusal_for(key, lambda s: s["participants"]["p2"].update(posture="a_terre"))
    assert refusal.message_fr() == f"{techniques()[key].name} demande un adversaire debout"


@pytest.mark.parametrize("key", [k for k in ATTACKS if techniques()[k].user == "standing"])
def test_a_technique_from_standing_is_refused_on_the_ground(key: str) -> None:
    refusal = refusal_for(key, lambda s: s["participants"]["p1"].update(posture="a_terre"))
    assert refusal.message_fr() == "Attaquant est à terre : relevez-vous d'abord"


def test_panthere_bondissante_is_made_only_from_the_ground() -> None:
    refusal = refusal_for("panthere_bondissante",
                          lambda s: s["participants"]["p1"].update(posture="debout"))
    assert refusal.message_fr() == "Panthère bondissante s'exécute à terre"


@pytest.mark.parametrize("key", [k for k in ATTACKS if techniques()[k].type in (
    "poings", "arme_contact", "prise") and "bras" not in techniques()[k].works_wounded])
def test_a_grave_arm_wound_forbids_every_punch_weapon_and_hold(key: str) -> None:
    refusal = refusal_for(key, lambda s: s["participants"]["p1"].update(wounds=["bras_droit"]))
    assert refusal.message_fr() == f"une blessure grave interdit {techniques()[key].name}"


@pytest.mark.parametrize("key", [k for k in ATTACKS if techniques()[k].type in (
    "pieds", "prise") and "jambes" not in techniques()[k].works_wounded])
def test_a_grave_leg_wound_forbids_every_kick_and_hold(key: str) -> None:
    """Coup dans l'entrejambe and Prise du scorpion too: by their type, not their text."""
    refusal = refusal_for(key, lambda s: s["participants"]["p1"].update(
        wounds=["jambe_gauche"]))
    assert refusal.message_fr() == f"une blessure grave interdit {techniques()[key].name}"


@pytest.mark.parametrize("key", ["coup_de_tete", "frappe_du_heron"])
def test_what_says_it_works_despite_a_wound_does(key: str) -> None:
    state, action = attack_situation(key)
    state["participants"]["p1"]["wounds"] = ["bras_droit", "jambe_droite"]
    assert resolved(act_events(state, action)[1])["hit"]


@pytest.mark.parametrize("key", ATTACKS[:12])
def test_a_held_fighter_may_not_attack(key: str) -> None:
    refusal = refusal_for(key, lambda s: s["participants"]["p1"].update(
        held_by="p2", hold="immobilisation"))
    assert refusal.message_fr() == "Attaquant est immobilisé : il ne peut que tenter de se " \
                                   "libérer"


@pytest.mark.parametrize("key", [k for k in ATTACKS if techniques()[k].energie])
def test_a_terrorised_fighter_spends_no_energie(key: str) -> None:
    refusal = refusal_for(key, lambda s: s["participants"]["p1"].update(
        states={"terrorise": 5}))
    assert refusal.code == "terrorised" and refusal.message_fr().startswith(
        "terrorisé : Attaquant ne peut dépenser aucun point d'énergie")


@pytest.mark.parametrize("key", [k for k in DEFENCES if techniques()[k].energie])
def test_a_terrorised_defender_spends_no_energie(key: str) -> None:
    state, action = defence_situation(key)
    state["participants"]["p1"]["states"] = {"terrorise": 5}
    assert refused(state, action).code == "terrorised"


@pytest.mark.parametrize("key", DEFENCES)
def test_on_the_ground_no_parry_dodge_or_counter(key: str) -> None:
    state, action = defence_situation(key)
    state["participants"]["p1"]["posture"] = "a_terre"
    refusal = refused(state, action)
    assert refusal.message_fr() == ("à terre : ni parade, ni esquive, ni contre-attaque (assis "
                                    "ou à genoux : les parades seulement)")


@pytest.mark.parametrize("key", [k for k in DEFENCES if techniques()[k].type == "parade"])
def test_sitting_or_kneeling_a_fighter_still_parries(key: str) -> None:
    state, action = defence_situation(key)
    state["participants"]["p1"]["posture"] = "a_genoux"
    assert not resolved(act_events(state, action)[1])["hit"]
