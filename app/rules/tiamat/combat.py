"""Versus combat, the pure parts (« Combat "versus" »): which technique a fighter may use,
location tables, précision against défense, damage, grave wounds, furie, KO and death.

Functions here take plain dicts (a participant as the match keeps it) and dice, and return
what happened; ``match_actions`` turns that into events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.rules import notation
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.purposes import Purpose
from app.rules.tiamat.content import DEVICES, Technique, techniques
from app.rules.tiamat.pools import formula_pool, pool
from app.rules.tiamat.talents import blind_fighter, has

RULE_ATTACK = "Tiamat § Combat « versus » / Résolution d'une attaque"
RULE_DAMAGE = "Tiamat § Combat « versus » / Dommages"
RULE_LOCATION = "Tiamat § Combat « versus » / Localisation"
RULE_LETHAL = "Tiamat § Combat « versus » / Dommages létaux"
RULE_RANGED = "Tiamat § Combat « versus » / Attaque à distance"
RULE_SURPRISE = "Tiamat § Combat « versus » / Attaque surprise"
RULE_STATES = "Tiamat § États"
RULE_ATTRIBUTES = "Tiamat § Techniques / Attributs"
RULE_HENCHMEN = "Tiamat § Combat « Beat them all » / Points de santé"

GRAVE = 10  # « Si le personnage perd au moins 10 points de santé sur un même coup »
LOCATION_NAMES = {"tete": "tête", "torse": "torse ou dos", "bras_droit": "bras droit",
                  "bras_gauche": "bras gauche", "jambe_droite": "jambe droite",
                  "jambe_gauche": "jambe gauche"}
RANGE_MODIFIERS = {"bout_portant": 1, "courte": 0, "longue": -2}
SITUATION_MODIFIERS = {"vent": -1, "tempete": -2, "obscurite": -3, "cible_court": -3,
                       "couvert": -1, "cible_a_terre": -2, "planquee": -3}
SITUATION_NAMES = {"vent": "vent", "tempete": "tempête", "obscurite": "obscurité",
                   "cible_court": "la cible court", "couvert": "cible à couvert",
                   "cible_a_terre": "cible à terre", "planquee": "cible planquée"}
# « Course »: « Difficulté pour un test de course : Forêt : Moyennement facile (6) Neige, boue,
# eau peu profonde : difficile (8) Verglas : Très difficile (10) »; flat ground needs no test.
TERRAINS = {"plat": 0, "foret": 6, "neige": 8, "verglas": 10}
TERRAIN_NAMES = {"plat": "terrain dégagé", "foret": "forêt (6)",
                 "neige": "neige, boue, eau peu profonde (8)", "verglas": "verglas (10)"}
# Parades that hold a weapon or an object stop a lethal blow outright (« Dommages létaux »).
ARMED_PARADES = ("parade_armee", "parade_avec_arme_improvisee", "kiri_kaeshi",
                 "secret_d_ishikawa_goemon")


def location_from(table: str, face: int) -> str:
    """The three tables of « Localisation » (a 10 on the die reads as 0)."""
    value = face % 10
    if table == "haut":
        return ("tete" if value <= 1 else "torse" if value <= 5 else
                "bras_droit" if value <= 7 else "bras_gauche")
    if table == "jambes":
        return "jambe_droite" if value <= 4 else "jambe_gauche"
    return ("tete" if value == 0 else "torse" if value <= 3 else "bras_droit" if value == 4
            else "bras_gauche" if value == 5 else "jambe_droite" if value <= 7
            else "jambe_gauche")


def location_table(technique: Technique, target_down: bool, chosen: str | None) -> tuple[
        str | None, str | None]:
    """(table to roll on, or None) and (the location when none is rolled)."""
    loc = technique.location
    if loc == "haut":
        return "haut", None
    if loc == "bas":
        return ("aleatoire" if target_down else "jambes"), None
    if loc == "tete":
        return None, "tete"
    if loc == "torse":
        return None, "torse"
    if loc in ("bras", "jambes"):
        return ("haut_bras" if loc == "bras" else "jambes"), None
    if loc == "choix":
        return None, chosen if chosen in LOCATION_NAMES else "torse"
    return "aleatoire", None


def roll_location(dice: Dice, technique: Technique, target_down: bool,
                  chosen: str | None) -> tuple[str, RollRecord | None]:
    table, fixed = location_table(technique, target_down, chosen)
    if table is None:
        return fixed or "torse", None
    record = notation.roll("1d10", dice, purpose=Purpose("hit location"))
    if table == "haut_bras":  # « Bras »: which arm, as the legs' table splits the legs
        side = location_from("jambes", record.total)
        return ("bras_droit" if side == "jambe_droite" else "bras_gauche"), record
    return location_from(table, record.total), record


def _needs(special: str) -> str | None:
    text = special.lower()
    if "doit être à terre" in text:
        return "down"
    if "doit être debout" in text or "doit être de bout" in text or "ne doit pas être" in text:
        return "up"
    return None


def held_weapon(fighter: Mapping[str, Any]) -> dict[str, Any] | None:
    """The weapon in hand, as the match copied it (``arsenal``: key → spec)."""
    return (fighter.get("arsenal") or {}).get(fighter.get("weapon") or "")


def weapon_ok(technique: Technique, held: Mapping[str, Any] | None,
              carried: Mapping[str, Any] | None = None) -> bool:
    """Whether the weapon in hand (or, for a ninja's device, one carried: ``carried`` is
    the fighter's ``arsenal``) is what the technique's « Arme nécessaire » asks."""
    need = technique.weapon.lower()
    if not need or need.startswith("un objet"):
        return True
    if need in DEVICES:  # house: thrown from a pouch, never held (Makibishi, Metsubushi)
        return DEVICES[need] in (carried or {})
    if held is None:
        return False
    if "rafale" in need:  # « Armes § Tir en rafale »: only a weapon with that attribute
        return held["kind"] == "distance" and bool(held.get("rafale"))
    if "kusarigama" in need and (held["key"] == "kusarigama" or "kusarigama" in str(
            held.get("name", "")).lower()):
        return True
    if "kendo" in need or "katana" in need:
        return bool(held["kendo"])
    if "arme de contact" in need or "couteau" in need:
        return held["kind"] == "contact"
    if "distance" in need or "arme à feu" in need:
        return held["kind"] == "distance" and held["key"] != "senban"
    if "senban" in need:
        return held["key"] == "senban"
    return False


def degagement_cost(fighter: Mapping[str, Any]) -> int:
    """Dégagement's énergie (doubled by a grave wound to the torso)."""
    return techniques()["degagement"].energie * (
        2 if "torse" in (fighter.get("wounds") or []) else 1)


def rounds_left(fighter: Mapping[str, Any], key: str | None) -> int | None:
    """« Munitions »: the shots left in a weapon carried (None: a weapon whose ammunition is
    not counted). A weapon not yet fired holds a full magazine."""
    spec = (fighter.get("arsenal") or {}).get(key or "")
    if not spec or not spec.get("ammo"):
        return None
    return int((fighter.get("ammo") or {}).get(key, spec["ammo"]))


def fires(technique: Technique, ranged: bool) -> bool:
    """A shot or a throw that uses up ammunition: a ranged technique with its weapon."""
    return technique.type == "distance" or (technique.also_ranged and ranged)


def wound_blocks(technique: Technique, wounds: list[str]) -> bool:
    """« Blessures graves »: an arm stops Poings, Arme de contact and Prise; a leg stops
    Pieds and Prise — unless the technique says it works anyway."""
    special = technique.special.lower()
    arms = any(w.startswith("bras") for w in wounds)
    legs = any(w.startswith("jambe") for w in wounds)
    if arms and technique.type in ("poings", "arme_contact", "prise") and (
            "blessure grave aux bras" not in special):
        return True
    return legs and technique.type in ("pieds", "prise") and (
        "blessure grave aux jambes" not in special)


def attack_problem(attacker: Mapping[str, Any], target: Mapping[str, Any] | None,
                   technique: Technique, *, free: bool = False) -> str | None:
    """Why this attack may not be made now (a code), or None. « S'il ne remplit pas certaines
    conditions, l'attaque est un échec et l'action est perdue »: Tablée refuses it instead,
    so a click never wastes an action (docs/rules-notes.md § Tiamat)."""
    if not technique.is_attack:
        return "not_an_attack"
    if "contre-attaque" in technique.special.lower() or (
            "contre_attaque" in technique.attributes and technique.key not in (
                "nukitsuke",)):
        return "defence_only"
    if not free and attacker.get("actions_left", 0) < 1:
        return "no_action_left"
    down = attacker.get("posture") == "a_terre"
    special = technique.special.lower()
    if down and "à terre" not in special and technique.key not in ("visee",):
        return "attacker_down"
    if not down and technique.key == "panthere_bondissante":
        return "attacker_must_be_down"
    if not weapon_ok(technique, held_weapon(attacker), attacker.get("arsenal")):
        return "device_needed" if technique.weapon.lower() in DEVICES else "weapon_needed"
    if technique.type == "distance" and rounds_left(attacker, attacker.get("weapon")) == 0:
        return "no_ammo"  # « Munitions »: an empty weapon fires nothing until reloaded
    if "aveugle" in (attacker.get("states") or {}) and (technique.type == "distance" or (
            technique.location not in ("aleatoire", None) and not blind_fighter(attacker))):
        return "blinded"  # « États § Aveuglé »: Aléatoire only (Combat aveugle: any), no ranged
    if wound_blocks(technique, attacker.get("wounds") or []):
        return "wounded"
    if not free:
        energie = technique.energie * (2 if "torse" in (attacker.get("wounds") or []) else 1)
        if energie and (attacker.get("energie", 0) < energie or "terrorise" in (
                attacker.get("states") or {})):
            return "no_energie"
        if technique.furie and attacker.get("furie", 0) < technique.furie:
            return "no_furie"
    if technique.key in ("gotonpo", "maki_otoshi", "suriage_waza") and attacker.get("furie"):
        return "no_furie_allowed"
    if target is not None:
        target_down = target.get("posture") == "a_terre"
        need = _needs(technique.special)
        if need == "down" and not target_down:
            return "target_must_be_down"
        if need == "up" and target_down:
            return "target_must_be_up"
        if target_down and technique.location in ("haut", "tete", "torse", "bras") and (
                technique.key != "piqure_du_scorpion"):
            return "target_down"
        if target.get("quadruped") and (technique.location == "haut" or technique.type == "prise"):
            return "quadruped"  # « Combat contre un animal »
        if technique.key == "coup_dans_l_entrejambe" and target.get("sexe") == "feminin":
            return "target_not_male"  # « La cible doit être de sexe masculin » (sheet's sexe)
    return None


def defence_problem(defender: Mapping[str, Any], technique: Technique,
                    attack: Technique, attack_attributes: tuple[str, ...],
                    combo: bool = False, ranged: bool | None = None) -> str | None:
    """Why this defence may not answer this attack (a code), or None."""
    if not technique.is_defence:
        return "not_a_defence"
    if defender.get("actions_left", 0) < 1:
        return "no_action_left"
    if defender.get("posture") == "a_terre" and technique.type == "esquive":
        return "defender_down"
    if not weapon_ok(technique, held_weapon(defender), defender.get("arsenal")):
        return "device_needed" if technique.weapon.lower() in DEVICES else "weapon_needed"
    energie = technique.energie * (2 if "torse" in (defender.get("wounds") or []) else 1)
    if energie and defender.get("energie", 0) < energie:
        return "no_energie"
    if technique.furie and defender.get("furie", 0) < technique.furie:
        return "no_furie"
    if technique.key == "gotonpo" and defender.get("furie"):
        return "no_furie_allowed"  # « Le personnage ne doit pas avoir de point de furie »
    special = technique.special.lower()
    if ranged is None:  # a technique thrown « au choix » (Capture du Kusarigama) says so
        ranged = attack.type == "distance"
    if ranged and ("attaques à distance" in special and "peut être utilisée pour parer" not in
                   special and "uniquement contre" not in special):
        return "not_against_ranged"
    if technique.key == "esquive_instinctive" and not ranged:
        return "only_against_ranged"
    if attack.type == "prise" and "prises" in special:
        return "not_against_holds"
    if technique.key == "parade_instinctive" and "letale" in attack_attributes:
        return "not_against_lethal"
    if technique.key == "age_uke" and attack.location not in ("haut", "tete", "torse", "bras"):
        return "only_high"
    if technique.key == "gedan_barai" and attack.location not in ("bas", "jambes"):
        return "only_legs"
    if technique.key == "makibishi" and "mouvement" not in attack_attributes:
        return "only_against_movement"
    if technique.key == "frappe_du_renard" and not combo:
        return "only_against_combo"  # « qu'en réponse à un Combo »
    return None


@dataclass
class Damage:
    roll: RollRecord | None
    endurance: int
    armour: int
    loss: int
    location: str | None
    grave: bool = False
    ko: bool = False
    dead: bool = False
    furie_gained: int = 0
    notes: list[str] = field(default_factory=list)


def damage_pool(attacker: Mapping[str, Any], technique: Technique, *, extra_d6: int = 0,
                purpose: str = Purpose("power"), dice: Dice) -> RollRecord | None:
    """The puissance roll: the technique's formula, the weapon's dice for « Puissance de
    l'arme ». A firearm rolls its d6 only, without critical (« Dommage des armes »)."""
    formula = technique.puissance
    if formula.none:
        return None
    weapon = held_weapon(attacker)
    spec = (weapon["d10"], weapon["d6"], weapon["flat"], weapon["uses_force"]) if weapon else None
    d10, d6, flat = formula_pool(formula, attacker.get("characteristics") or {},
                                 extra_d6=extra_d6, weapon=spec)
    if formula.weapon and weapon is not None and not weapon["uses_force"] and d10 <= 0:
        record = notation.roll(f"{max(1, d6)}d6" + (f"{flat:+d}" if flat else ""), dice,
                               purpose=purpose)
        return record
    return pool(dice, d10, d6=d6, flat=flat, purpose=purpose)


def apply_damage(target: Mapping[str, Any], record: RollRecord | None, location: str | None,
                 attributes: tuple[str, ...]) -> Damage:
    """« Points de santé perdus = Jet de Puissance – (Valeur d'Endurance + Armure) », a furie
    point for any loss, a grave wound from 10 (or from 1 with « Blessure »), KO at 0 santé,
    death when the blow is lethal (« KO », « Dommages létaux »)."""
    endurance = int((target.get("characteristics") or {}).get("endurance", 1))
    endurance += has(target, "resistance_de_l_ours")  # house talent: +1 against damage
    armour = 0 if "fracassante" in attributes else int(target.get("armour", 0))
    rolled = record.total if record else 0
    loss = max(0, rolled - endurance - armour)
    damage = Damage(record, endurance, armour, loss, location)
    lethal = "letale" in attributes
    if target.get("ko"):
        if lethal:
            damage.dead = True
            damage.notes.append("lethal_on_ko")
        damage.loss = 0
        return damage
    if loss <= 0:
        return damage
    damage.loss = min(loss, int(target.get("sante", 0)))
    if not target.get("states", {}).get("terrorise"):
        damage.furie_gained = 2 if has(target, "frenesie") else 1  # Frénésie: house
    if loss >= GRAVE or "blessure" in attributes:
        damage.grave = True
    if int(target.get("sante", 0)) - damage.loss <= 0:
        damage.ko = True
        damage.dead = lethal
    return damage


def precision_roll(dice: Dice, fighter: Mapping[str, Any], technique: Technique, *,
                   extra_d10: int = 0, extra_d6: int = 0, modifiers: tuple[Modifier, ...] = (),
                   single_die: bool = False, purpose: str = Purpose("accuracy")) -> RollRecord:
    """A technique's précision for this fighter, with « Se préparer » (+1D10), a head wound
    or aveuglé (−1D10), a surprise's single die, and named modifiers (range, situation)."""
    d10, d6, flat = formula_pool(technique.precision, fighter.get("characteristics") or {},
                                 skills=fighter.get("skills") or {}, extra_d10=extra_d10,
                                 extra_d6=extra_d6)
    if single_die:
        d10 = 1
    if "ivre" in (fighter.get("states") or {}):
        modifiers = (*modifiers, Modifier(-1, "ivre"))  # « un malus d'un point »
    return pool(dice, d10, d6=d6, flat=flat, purpose=purpose, labels=modifiers)


def technique(key: str) -> Technique:
    return techniques()[key]
