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
from app.rules.tiamat.content import DEVICES, Hold, Technique, techniques
from app.rules.tiamat.pools import Pool, formula_pool, pool_expression
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


# « Posture »: debout, à terre, and « assis ou à genoux », which « est considéré comme
# « A terre » mais peut cependant exécuter des actions de parade ».
POSTURES = ("debout", "a_terre", "a_genoux")
# « Localisation … Spéciale : Sauf indication contraire, une telle attaque ne peut être
# portée que sur un personnage debout »; « Haut … uniquement contre un adversaire … debout ».
STANDING_ONLY = ("haut", "tete", "torse", "bras", "jambes", "choix")


def is_down(fighter: Mapping[str, Any]) -> bool:
    return fighter.get("posture") in ("a_terre", "a_genoux")


# « Le personnage peut dégainer son arme et tirer en même temps » (Tir rapide, Shuriken),
# « dégaine son sabre et frappe dans le même mouvement » (Nukitsuke, attack or defence).
DRAWN_WITH = ("tir_rapide", "shuriken", "nukitsuke")


def drawn_weapon(fighter: Mapping[str, Any], technique: Technique) -> str | None:
    """The weapon carried that comes to hand with this technique (the first suitable one),
    or None when it is already in hand or the technique draws nothing."""
    if technique.key not in DRAWN_WITH or weapon_ok(technique, held_weapon(fighter)):
        return None
    return next((key for key, spec in (fighter.get("arsenal") or {}).items()
                 if weapon_ok(technique, spec)), None)


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


def hold_of(fighter: Mapping[str, Any]) -> Hold:
    """How the hold on this fighter is escaped (the holding technique's ``hold``; Force /
    Force, one try a turn, for a hold from before holds were data)."""
    technique = techniques().get(fighter.get("hold") or "")
    return (technique.hold if technique else None) or Hold()


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
    """« Blessures graves »: an arm stops every « Poings », « Arme de contact » and « Prise »;
    a leg every « Pieds » and « Prise » — by the technique's type; only a technique that
    says it works despite that wound escapes (Coup de tête, Frappe du héron)."""
    arms = any(w.startswith("bras") for w in wounds) and "bras" not in technique.works_wounded
    legs = any(w.startswith("jambe") for w in wounds) and (
        "jambes" not in technique.works_wounded)
    return (arms and technique.type in ("poings", "arme_contact", "prise")) or (
        legs and technique.type in ("pieds", "prise"))


def two_handed(fighter: Mapping[str, Any]) -> bool:
    """An arme de Kendo is held in both hands (« Il doit tenir son arme à deux mains »)."""
    weapon = held_weapon(fighter)
    return bool(weapon and weapon.get("kendo"))


def lethal_attack(attacker: Mapping[str, Any], technique: Technique,
                  chain: str | None = None) -> bool:
    """« Létale » by the technique, its chain, or a lethal weapon for « Puissance de
    l'arme » (« un pistolet ajoute l'attribut Létale »)."""
    weapon = held_weapon(attacker)
    chain_info = techniques()[chain].chain if chain else None
    return "letale" in technique.attributes or bool(
        chain_info and "letale" in chain_info.attributes) or bool(
        technique.puissance.weapon and weapon is not None and weapon["letale"])


def attack_problem(attacker: Mapping[str, Any], target: Mapping[str, Any] | None,
                   technique: Technique, *, free: bool = False,
                   chain: str | None = None) -> str | None:
    """Why this attack may not be made now (a code), or None. « S'il ne remplit pas certaines
    conditions, l'attaque est un échec et l'action est perdue »: Tablée refuses it instead,
    so a click never wastes an action (docs/rules-notes.md § Tiamat). The conditions a
    technique states are data (``Technique.user``, ``target``, ``works_wounded``)."""
    if not technique.is_attack:
        return "not_an_attack"
    if technique.counter_only:
        return "defence_only"
    if attacker.get("held_by"):
        return "held"  # « Soumission »: only trying to break free
    if not free and attacker.get("actions_left", 0) < 1:
        return "no_action_left"
    down = is_down(attacker)
    if down and technique.user == "standing":
        return "attacker_down"  # « Il ne peut exécuter d'attaque (sauf technique …) »
    if not down and technique.user == "down":
        return "attacker_must_be_down"
    problem = _gear_problem(attacker, technique, chain)
    if problem:
        return problem
    if wound_blocks(technique, attacker.get("wounds") or []):
        return "wounded"
    if not free:
        problem = _cost_problem(attacker, technique)
        if problem:
            return problem
    if technique.no_furie and attacker.get("furie"):
        return "no_furie_allowed"
    return None if target is None else target_problem(attacker, target, technique, chain)


def _gear_problem(attacker: Mapping[str, Any], technique: Technique,
                  chain: str | None) -> str | None:
    """The weapon it needs, its ammunition, the two hands a sword takes, the eyes."""
    if not weapon_ok(technique, held_weapon(attacker), attacker.get("arsenal")):
        return "device_needed" if technique.weapon.lower() in DEVICES else "weapon_needed"
    if technique.type == "distance" and rounds_left(attacker, attacker.get("weapon")) == 0:
        return "no_ammo"  # « Munitions »: an empty weapon fires nothing until reloaded
    if technique.type == "poings" and two_handed(attacker) and chain != "baffe_de_haohmaru":
        # « l'utilisation de coups de poing … lui est donc impossible. La seule exception est
        # la technique « La baffe d'Haohmaru » » (Techniques de Kendo).
        return "two_handed"
    if "aveugle" in (attacker.get("states") or {}) and (technique.type == "distance" or (
            technique.location not in ("aleatoire", None) and not blind_fighter(attacker))):
        return "blinded"  # « États § Aveuglé »: Aléatoire only (Combat aveugle: any), no ranged
    return None


def _cost_problem(fighter: Mapping[str, Any], technique: Technique) -> str | None:
    """Énergie (doubled by a torso wound; none to spend while terrorisé) and furie."""
    energie = technique.energie * (2 if "torse" in (fighter.get("wounds") or []) else 1)
    if energie and "terrorise" in (fighter.get("states") or {}):
        return "terrorised"  # « Terrorisé : ne peut plus dépenser de point d'énergie »
    if energie and fighter.get("energie", 0) < energie:
        return "no_energie"
    if technique.furie and fighter.get("furie", 0) < technique.furie:
        return "no_furie"
    return None


def target_problem(attacker: Mapping[str, Any], target: Mapping[str, Any],
                   technique: Technique, chain: str | None = None) -> str | None:
    """Why this technique cannot reach this target (a code), or None."""
    if target.get("ko") and not target.get("dead") and not lethal_attack(
            attacker, technique, chain):
        return "ko_needs_lethal"  # « Les attaques non létales ne lui infligent plus … »
    target_down = is_down(target)
    if technique.target == "down" and not target_down:
        return "target_must_be_down"
    if technique.target == "standing" and target_down:
        return "target_must_be_up"
    if target_down and technique.target is None and technique.location in STANDING_ONLY:
        return "target_down"
    if target.get("quadruped") and (technique.location == "haut" or technique.type == "prise"):
        return "quadruped"  # « Combat contre un animal »
    if technique.key == "coup_dans_l_entrejambe" and target.get("sexe") == "feminin":
        return "target_not_male"  # « La cible doit être de sexe masculin » (sheet's sexe)
    if technique.key == "morsure_du_cobra" and (attacker.get("initiative") or 0) <= (
            target.get("initiative") or 0):
        return "cobra_initiative"  # « un score d'initiative supérieur à celui de son
        # adversaire pour pouvoir exécuter cette technique pendant ce tour »
    return None


def defence_problem(defender: Mapping[str, Any], technique: Technique,
                    attack: Technique, attack_attributes: tuple[str, ...],
                    combo: bool = False, ranged: bool | None = None) -> str | None:
    """Why this defence may not answer this attack (a code), or None."""
    if not technique.is_defence:
        return "not_a_defence"
    if defender.get("held_by"):
        return "held"
    if defender.get("actions_left", 0) < 1:
        return "no_action_left"
    problem = _posture_defence_problem(defender, technique)
    if problem:
        return problem
    if not weapon_ok(technique, held_weapon(defender), defender.get("arsenal")) and not (
            drawn_weapon(defender, technique)):
        return "device_needed" if technique.weapon.lower() in DEVICES else "weapon_needed"
    if technique.type == "parade" and not technique.weapon and two_handed(defender):
        return "two_handed"  # « parades à mains nues … impossible » with a sword in hand
    problem = _cost_problem(defender, technique)
    if problem:
        return problem
    if technique.no_furie and defender.get("furie"):
        return "no_furie_allowed"  # « Le personnage ne doit pas avoir de point de furie »
    return _against_problem(technique, attack, attack_attributes, combo, ranged)


def _posture_defence_problem(defender: Mapping[str, Any], technique: Technique
                             ) -> str | None:
    """« Lorsqu'il se trouve à terre, le personnage ne peut exécuter de parade ou
    d'esquive … Un personnage assis ou à genoux … peut cependant exécuter des actions de
    parade »; a counter-attack is an attack made in defence: not from the ground either."""
    if not is_down(defender) or technique.user != "standing":
        return None
    kneeling = defender.get("posture") == "a_genoux"
    if technique.type == "parade" and kneeling:
        return None
    return "defender_down"


def _against_problem(technique: Technique, attack: Technique,
                     attack_attributes: tuple[str, ...], combo: bool,
                     ranged: bool | None) -> str | None:
    """What the defence's own rule says it may answer."""
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


def damage_expression(attacker: Mapping[str, Any], technique: Technique, *,
                      extra_d6: int = 0) -> str | None:
    """What the puissance roll throws: the technique's formula, the weapon's dice for
    « Puissance de l'arme ». A firearm rolls its d6 only, without critical (« Dommage des
    armes »). None: the technique has no puissance."""
    formula = technique.puissance
    if formula.none:
        return None
    weapon = held_weapon(attacker)
    spec = (weapon["d10"], weapon["d6"], weapon["flat"], weapon["uses_force"]) if weapon else None
    d10, d6, flat = formula_pool(formula, attacker.get("characteristics") or {},
                                 extra_d6=extra_d6, weapon=spec)
    if formula.weapon and weapon is not None and not weapon["uses_force"] and d10 <= 0:
        return f"{max(1, d6)}d6" + (f"{flat:+d}" if flat else "")
    return pool_expression(d10, d6, flat)


def damage_pool(attacker: Mapping[str, Any], technique: Technique, *, extra_d6: int = 0,
                purpose: str = Purpose("power"), dice: Dice) -> RollRecord | None:
    """The puissance roll (``damage_expression``)."""
    expression = damage_expression(attacker, technique, extra_d6=extra_d6)
    return None if expression is None else notation.roll(expression, dice, purpose=purpose)


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


def precision_pool(fighter: Mapping[str, Any], technique: Technique, *, extra_d10: int = 0,
                   extra_d6: int = 0, modifiers: tuple[Modifier, ...] = (),
                   single_die: bool = False) -> Pool:
    """A technique's précision for this fighter, with « Se préparer » (+1D10), a head wound
    or aveuglé (−1D10), a surprise's single die, and named modifiers (range, situation)."""
    d10, d6, flat = formula_pool(technique.precision, fighter.get("characteristics") or {},
                                 skills=fighter.get("skills") or {}, extra_d10=extra_d10,
                                 extra_d6=extra_d6)
    if single_die:
        d10 = 1
    if "ivre" in (fighter.get("states") or {}):
        modifiers = (*modifiers, Modifier(-1, "ivre"))  # « un malus d'un point »
    return Pool(d10, d6, flat, tuple(modifiers))


def precision_roll(dice: Dice, fighter: Mapping[str, Any], technique: Technique, *,
                   extra_d10: int = 0, extra_d6: int = 0, modifiers: tuple[Modifier, ...] = (),
                   single_die: bool = False, purpose: str = Purpose("accuracy")) -> RollRecord:
    """The précision roll of ``precision_pool``."""
    return precision_pool(fighter, technique, extra_d10=extra_d10, extra_d6=extra_d6,
                          modifiers=modifiers, single_die=single_die).roll(dice, purpose)


def technique(key: str) -> Technique:
    return techniques()[key]
