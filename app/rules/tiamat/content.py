"""Tiamat's content: characteristics, skills, talents, martial arts and the 120 techniques.

The techniques are data (``data/techniques.json``), transcribed from the seed's « LISTE DES
TECHNIQUES »; each entry says where it comes from (``source = "seed"`` with its section, or
``"house"`` with a reason where the text has no stat block). Gear the text leaves out is
house content here, marked as such (docs/rules-notes.md § Tiamat).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from app.rules.provenance import check_provenance

RULE_CHARS = "Tiamat § Conception du personnage / Caractéristiques"
RULE_DERIVED = ("Tiamat § Conception du personnage / Points de santé / d'énergie / de furie, "
                "Initiative, Action")
RULE_SKILLS = "Tiamat § Conception du personnage / Compétences"
RULE_TALENTS = "Tiamat § Conception du personnage / Talents"
RULE_ARTS = "Tiamat § Conception du personnage / Art martial"
RULE_TECHNIQUES = "Tiamat § Techniques / Prérequis / Ordre d'apprentissage"

CHARACTERISTICS = ("force", "endurance", "habilete", "rapidite", "perception",
                   "intelligence", "temperament", "volonte")
CHAR_NAMES = {"force": "Force", "endurance": "Endurance", "habilete": "Habileté",
              "rapidite": "Rapidité", "perception": "Perception",
              "intelligence": "Intelligence", "temperament": "Tempérament",
              "volonte": "Volonté"}
CHAR_BUDGET = 18
CHAR_MIN, CHAR_MAX = 1, 4

SKILL_NAMES = {
    "acrobatie": "Acrobatie", "art": "Art", "conduite": "Conduite", "course": "Course",
    "culture_generale": "Culture générale", "explosif": "Explosif",
    "infiltration": "Infiltration", "informatique": "Informatique",
    "investigation": "Investigation", "intimidation": "Intimidation", "langue": "Langue",
    "larcin": "Larcin", "legende": "Légende", "medecine": "Médecine",
    "meditation": "Méditation", "natation": "Natation", "navigation": "Navigation",
    "persuasion": "Persuasion", "pilotage": "Pilotage", "seduction": "Séduction",
    "survie": "Survie", "vigilance": "Vigilance",
}
SKILL_CAP = 6

TALENT_NAMES = {
    "agilite_du_singe": "Agilité du singe", "aura": "Aura", "boost_d_energie": "Boost d'énergie",
    "combat_aveugle": "Combat aveugle", "concentration": "Concentration",
    "course_du_jaguar": "Course du jaguar", "frenesie": "Frénésie",
    "immunite_biologique": "Immunité biologique", "instinct_de_survie": "Instinct de survie",
    "oeil_d_aigle": "Œil d'aigle", "rage_du_taureau": "Rage du taureau",
    "reflexes_du_guepard": "Réflexes du guépard", "resistance_de_l_ours": "Résistance de l'ours",
    "sixieme_sens": "Sixième sens", "sursaut_d_energie": "Sursaut d'énergie",
    "tenacite": "Ténacité", "transfert_d_energie": "Transfert d'énergie",
    "vision_du_ki": "Vision du ki", "vivacite_du_chat": "Vivacité du chat", "zen": "Zen",
}
# « Déterminer ses talents au hasard »: rows by the D10 (1-3, 4-6, 7-9, 0), columns by the D6.
TALENT_TABLE = {
    "1-3": ("agilite_du_singe", "combat_aveugle", "immunite_biologique", "rage_du_taureau",
            "sixieme_sens", "vision_du_ki"),
    "4-6": ("aura", "concentration", "instinct_de_survie", "reflexes_du_guepard",
            "sursaut_d_energie", "vivacite_du_chat"),
    "7-9": ("boost_d_energie", "course_du_jaguar", "oeil_d_aigle", "resistance_de_l_ours",
            "transfert_d_energie", "tenacite"),
    "0": ("frenesie", "frenesie", "frenesie", "zen", "zen", "zen"),
}


def talent_from_dice(d10: int, d6: int) -> str:
    """The talent table's cell (a 10 on the D10 reads as the row « 0 »)."""
    row = "0" if d10 == 10 else "1-3" if d10 <= 3 else "4-6" if d10 <= 6 else "7-9"
    return TALENT_TABLE[row][d6 - 1]


@dataclass(frozen=True)
class Art:
    key: str
    name: str
    talent: str


# « Art martial »: each art grants a talent (another one, chosen, if already held).
ARTS = {art.key: art for art in (
    Art("boxe", "Boxe", "resistance_de_l_ours"),
    Art("ju_jitsu", "Ju-jitsu", "sixieme_sens"),
    Art("karate", "Karaté", "vivacite_du_chat"),
    Art("kick_boxing", "Kick-boxing", "rage_du_taureau"),
    Art("kendo", "Kendo", "concentration"),
    Art("krav_maga", "Krav-maga", "instinct_de_survie"),
    Art("kung_fu", "Kung-fu", "reflexes_du_guepard"),
    Art("lutte", "Lutte", "course_du_jaguar"),
    Art("ninjutsu", "Ninjutsu", "agilite_du_singe"),
)}
STARTING_TECHNIQUES = 4

TYPE_NAMES = {"poings": "Poings", "pieds": "Pieds", "prise": "Prise", "parade": "Parade",
              "esquive": "Esquive", "arme_contact": "Arme de contact",
              "distance": "Attaque à distance", "enchainement": "Enchaînement"}
ATTACK_TYPES = ("poings", "pieds", "prise", "arme_contact", "distance")
DEFENCE_TYPES = ("parade", "esquive")
ATTRIBUTE_NAMES = {
    "imparable": "Imparable", "inevitable": "Inévitable", "mouvement": "Mouvement",
    "attaque_surprise": "Attaque surprise", "contre_attaque": "Contre-attaque",
    "fracassante": "Fracassante", "letale": "Létale", "assommante": "Assommante",
    "a_terre": "A terre", "terrorisante": "Terrorisante", "epuisante": "Épuisante",
    "aveuglante": "Aveuglante", "desarmante": "Désarmante", "blessure": "Blessure",
    "choc": "Choc", "soumission": "Soumission", "impulsion": "Impulsion",
}
LOCATION_NAMES = {"haut": "Haut", "bas": "Bas", "aleatoire": "Aléatoire", "tete": "Tête",
                  "torse": "Tronc", "bras": "Bras", "jambes": "Jambes", "choix": "Au choix"}

_CHAR_WORDS = {"force": "force", "endurance": "endurance", "habileté": "habilete",
               "rapidité": "rapidite", "perception": "perception",
               "intelligence": "intelligence", "tempérament": "temperament",
               "volonté": "volonte"}


@dataclass(frozen=True)
class Formula:
    """A précision or puissance: « Caractéristique + XD10 / + X / + XD6 », or the weapon's
    puissance, or skills added (Gotonpo), or nothing (« Aucun dommage », « - »)."""

    char: str | None = None
    d10: int = 0
    d6: int = 0
    flat: int = 0
    skills: tuple[str, ...] = ()
    weapon: bool = False
    none: bool = False
    text: str = ""

    @property
    def bonus_only(self) -> bool:
        """A chain's « +2D10 » on its finisher: no characteristic of its own."""
        return self.char is None and not self.weapon and not self.none


def parse_formula(text: str) -> Formula:
    raw = (text or "").strip()
    low = raw.lower()
    if low in ("", "-") or low.startswith("aucun"):
        return Formula(none=True, text=raw)
    char = None
    weapon = low.startswith("puissance de l'arme")
    rest = low[len("puissance de l'arme"):] if weapon else low
    skills: list[str] = []
    d10 = d6 = flat = 0
    for sign, term in re.findall(r"([+-]?)\s*([^+-]+)", rest):
        term = term.strip()
        value = -1 if sign == "-" else 1
        if not term:
            continue
        if m := re.fullmatch(r"(\d+)d10", term):
            d10 += value * int(m.group(1))
        elif m := re.fullmatch(r"(\d+)d6", term):
            d6 += value * int(m.group(1))
        elif term.isdigit():
            flat += value * int(term)
        elif term in _CHAR_WORDS and char is None:
            char = _CHAR_WORDS[term]
        elif term in {name.lower() for name in SKILL_NAMES.values()}:
            skills.append(next(k for k, n in SKILL_NAMES.items() if n.lower() == term))
        else:
            raise ValueError(f"unreadable formula {raw!r}")
    return Formula(char, d10, d6, flat, tuple(skills), weapon, False, raw)


@dataclass(frozen=True)
class Chain:
    steps: tuple[str, ...]
    finisher: tuple[str, ...]
    precision_d10: int = 0
    precision_d6: int = 0
    puissance_d6: int = 0
    attributes: tuple[str, ...] = ()
    stun_d6: bool = False
    stun_fight: bool = False
    furie_d6: int = 0
    stand_up: bool = False
    location: str | None = None


@dataclass(frozen=True)
class Hold:
    """How a hold (« Soumission ») is escaped: an opposed test of ``test`` (Force / Force by
    default), ``per_turn`` tries a turn (1, or 0: each try is an action, as many as the
    actions left), what each try costs the victim (« energie », « sante »), and the state it
    leaves when released (« sonne », « epuise »)."""

    test: str = "force"
    per_turn: int = 1
    try_cost: str | None = None
    released: str | None = None


@dataclass(frozen=True)
class Technique:
    key: str
    name: str
    type: str
    arts: tuple[str, ...]
    prerequisites: tuple[tuple[str, ...], ...]  # any of these sets, each wholly known
    weapon: str
    cost: dict[str, int]
    precision: Formula
    puissance: Formula
    location: str | None
    combo: tuple[str, ...]
    attributes: tuple[str, ...]
    special: str
    description: str
    source: str
    section: str = ""
    reason: str = ""
    chain: Chain | None = None
    also_ranged: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    # The conditions a technique states, as data (« conditions » in the JSON), never read
    # from its text: who may use it from the ground (« standing », the default; « ground »:
    # standing or on the ground; « down »: only from the ground), what its target must be
    # (« down », « standing », or « any »: on the ground whatever the location), the
    # posture it ends in, whether a counter-attack is also an attack (Nukitsuke), the grave
    # wounds it works despite, and how its hold is escaped.
    user: str = "standing"
    target: str | None = None
    ends: str | None = None
    also_attack: bool = False
    works_wounded: tuple[str, ...] = ()
    hold: Hold | None = None
    no_furie: bool = False  # « Le personnage ne doit pas avoir de point de furie »
    # For English readers (``data/techniques_en.json``): the special rules and the weapon
    # needed in English; the names stay French (game terms). Empty: show the French.
    special_en: str = ""
    weapon_en: str = ""

    def special_for(self, locale: str) -> str:
        return self.special_en if locale == "en" and self.special_en else self.special

    def weapon_for(self, locale: str) -> str:
        return self.weapon_en if locale == "en" and self.weapon_en else self.weapon

    @property
    def animal(self) -> bool:
        return "animal" in self.arts

    @property
    def standard(self) -> bool:
        return "standard" in self.arts

    @property
    def is_attack(self) -> bool:
        return self.type in ATTACK_TYPES

    @property
    def is_defence(self) -> bool:
        return self.type in DEFENCE_TYPES or "contre_attaque" in self.attributes

    @property
    def counter_only(self) -> bool:
        """« Contre-attaque : Cette technique doit être utilisée uniquement comme action de
        défense » (Nukitsuke: « en attaque comme en défense »)."""
        return "contre_attaque" in self.attributes and not self.also_attack

    @property
    def energie(self) -> int:
        return self.cost.get("energie", 0)

    @property
    def furie(self) -> int:
        return self.cost.get("furie", 0)


def _check(entry: dict[str, Any]) -> None:
    check_provenance(str(entry["key"]), entry)


@cache
def techniques() -> dict[str, Technique]:
    data = resources.files(__package__).joinpath("data")
    entries = json.loads(data.joinpath("techniques.json").read_text("utf-8"))
    # House: the animals' own techniques (« Les animaux utilisent leurs propres techniques
    # de combat (voir bestiaire) »: the bestiary is in the GM's part, not in this text).
    entries += json.loads(data.joinpath("animal_techniques.json").read_text("utf-8"))
    english = json.loads(data.joinpath("techniques_en.json").read_text("utf-8"))
    found: dict[str, Technique] = {}
    for entry in entries:
        _check(entry)
        weapon = "" if entry["weapon"] in ("-", "aucune", "Aucune") else entry["weapon"]
        chain = entry.get("chain")
        found[entry["key"]] = Technique(
            key=entry["key"], name=entry["name"], type=entry["type"],
            arts=tuple(entry["arts"]),
            prerequisites=tuple(tuple(group) for group in entry["prerequisites"]),
            weapon=weapon, weapon_en=english["weapon"].get(weapon, "") if weapon else "",
            special_en=english["special"].get(entry["key"], ""),
            cost=dict(entry["cost"]), precision=parse_formula(entry["precision"]),
            puissance=parse_formula(entry["puissance"]), location=entry["location"],
            combo=tuple(entry["combo"]), attributes=tuple(entry["attributes"]),
            special="" if entry["special"] == "-" else entry["special"],
            description=entry["description"], source=entry["source"],
            section=entry.get("section", ""), reason=entry.get("reason", ""),
            chain=Chain(tuple(chain["steps"]), tuple(chain["finisher"]),
                        chain.get("precision_d10", 0), chain.get("precision_d6", 0),
                        chain.get("puissance_d6", 0), tuple(chain.get("attributes", ())),
                        chain.get("stun_d6", False), chain.get("stun_fight", False),
                        chain.get("furie_d6", 0), chain.get("stand_up", False),
                        chain.get("location")) if chain else None,
            also_ranged=bool(entry.get("also_ranged")), **_conditions(entry))
    for technique in found.values():
        for key in [k for group in technique.prerequisites for k in group] + list(
                technique.combo):
            if key not in found:
                raise ValueError(f"{technique.key}: unknown technique {key!r}")
    return found


USERS = ("standing", "ground", "down")
TARGETS = (None, "down", "standing", "any")
WOUNDABLE = ("bras", "jambes")


def _conditions(entry: dict[str, Any]) -> dict[str, Any]:
    """The technique's stated conditions (``Technique.user`` …), checked on loading."""
    found = dict(entry.get("conditions") or {})
    hold = found.pop("hold", None)
    if hold is not None:
        found["hold"] = Hold(**hold)
    found["works_wounded"] = tuple(found.get("works_wounded", ()))
    if found.get("user", "standing") not in USERS or found.get("target") not in TARGETS or (
            not set(found["works_wounded"]) <= set(WOUNDABLE)) or found.get("ends") not in (
            None, "standing", "down"):
        raise ValueError(f"{entry['key']}: unreadable conditions {entry['conditions']!r}")
    return found


def standard_techniques() -> list[str]:
    return [key for key, technique in techniques().items() if technique.standard]


def art_techniques(art: str) -> list[str]:
    return [key for key, technique in techniques().items() if art in technique.arts]


def prerequisites_met(technique: Technique, known: set[str]) -> bool:
    return not technique.prerequisites or any(set(group) <= known
                                              for group in technique.prerequisites)


def learnable(known: set[str], arts: list[str]) -> list[str]:
    """The techniques a fighter may learn next: in one of their arts, not known yet, with
    their prerequisites known (« Prérequis »: « dans un premier temps, les personnages peuvent
    apprendre uniquement les techniques faisant partie de la liste de leur art martial »)."""
    return [key for key, technique in techniques().items()
            if key not in known and not technique.standard and not technique.animal
            and set(technique.arts) & set(arts) and prerequisites_met(technique, known)]


def actions_for(count: int) -> int:
    """« Action »: 0 technique: 1; 1-6: 2; 7-12: 3; 13-19: 4; 20-29: 5; 30+: 6."""
    for low, actions in ((30, 6), (20, 5), (13, 4), (7, 3), (1, 2)):
        if count >= low:
            return actions
    return 1


# — gear: the text has no weapon table (« Armes ») beyond its examples ——————————————

@dataclass(frozen=True)
class Weapon:
    key: str
    name: str
    kind: str  # "contact", "distance" or "artifice" (a ninja's device: carried, not wielded)
    d10: int = 0  # puissance « Force + … » for contact weapons
    d6: int = 0
    flat: int = 0
    uses_force: bool = True
    letale: bool = True
    ranges: tuple[int, ...] = ()
    ammo: int = 0  # « Munitions »: shots before reloading (0: no ammunition to count)
    reload: bool = False  # may be reloaded during a fight (one action, house)
    rafale: bool = False  # « Tir en rafale » attribute
    kendo: bool = False
    source: str = "house"
    reason: str = ""


WEAPONS = {weapon.key: weapon for weapon in (
    Weapon("couteau", "Couteau", "contact", d6=1, source="seed",
           reason="Tiamat § Tests et Actions / Dans le texte : « Le couteau apporte un "
                  "bonus d'un dé à six faces aux dégâts » (Force + 1D6)"),
    Weapon("pistolet_9mm", "Pistolet 9 mm", "distance", d6=2, uses_force=False,
           ranges=(6, 20, 50), ammo=15, reload=True, source="seed",
           reason="Armes § Dommage des armes / Portée : 2D6, 6/20/50 mètres, Létale ; "
                  "munitions : chargeur de 15, recharger = une action (maison)"),
    Weapon("pistolet_mitrailleur", "Pistolet-mitrailleur", "distance", d6=2,
           uses_force=False, ranges=(6, 20, 40), ammo=30, reload=True, rafale=True,
           reason="Pas de table d'armes : l'attribut « Tir en rafale » (Armes § Règles "
                  "spéciales) demande une arme qui le porte ; 2D6 comme le 9 mm, chargeur "
                  "de 30, 6/20/40 mètres"),
    Weapon("kusarigama", "Kusarigama", "contact", d6=1,
           reason="Pas de table d'armes : Capture du Kusarigama demande l'arme ; faucille "
                  "et chaîne, Force + 1D6, létale (la technique porte à 4 mètres)"),
    Weapon("baton", "Bâton", "contact", d10=1, letale=False,
           reason="Pas de table d'armes dans le texte : un bâton frappe en Force + 1D10, non "
                  "létal (l'Arnis Matador le rend létal)"),
    Weapon("bokken", "Bokken", "contact", d10=1, letale=False, kendo=True,
           reason="Pas de table d'armes : sabre de bois, Force + 1D10, non létal"),
    Weapon("katana", "Katana", "contact", d10=1, d6=1, kendo=True,
           reason="Pas de table d'armes : sabre, Force + 1D10 + 1D6, létal"),
    Weapon("senban", "Shurikens (senban)", "distance", d6=1, ranges=(10,), ammo=6,
           reason="Pas de table d'armes : une seule portée (courte), Force + 1D6, létal ; "
                  "six senban portés, ramassés après le combat (pas de rechargement)"),
    # « Arme nécessaire : Sac de Makibishi / Artifice de ninja »: devices a ninja carries
    # and throws from a pouch; they are never wielded (no puissance) and are not used up.
    Weapon("sac_de_makibishi", "Sac de Makibishi", "artifice", uses_force=False, letale=False,
           reason="Pas de table d'armes : Makibishi demande le sac ; porté (coché dans "
                  "l'équipement), il n'a pas à être en main et ne s'épuise pas"),
    Weapon("artifice_de_ninja", "Artifice de ninja (fumigène)", "artifice", uses_force=False,
           letale=False,
           reason="Pas de table d'armes : Metsubushi demande l'artifice ; porté, il n'a pas "
                  "à être en main et ne s'épuise pas"),
)}
# The device each technique needs (« Arme nécessaire »), checked among what is carried.
DEVICES = {"sac de makibishi": "sac_de_makibishi", "artifice de ninja": "artifice_de_ninja"}


@dataclass(frozen=True)
class Armour:
    key: str
    name: str
    protection: int
    source: str = "house"
    reason: str = ""


ARMOURS = {armour.key: armour for armour in (
    Armour("aucune", "Aucune", 0, "seed", "—"),
    Armour("blouson_cuir", "Blouson en cuir", 2, "seed",
           "Tiamat § Combat « versus » / Dommages : « un blouson en cuir lui donnant une "
           "protection de +2 »"),
    Armour("gilet_pare_balles", "Gilet pare-balles", 4,
           reason="Pas de table d'armures dans le texte : le double du blouson en cuir"),
)}


def custom_weapons(content: Any) -> dict[str, Weapon]:
    """The campaign's own weapons (content kind ``weapon``), read tolerantly: the platform
    validated them against ``content_kinds`` already; their keys start with ``gm-``."""
    found: dict[str, Weapon] = {}
    for item in (content or {}).get("weapon", []) or []:
        if not isinstance(item, dict) or not item.get("key"):
            continue
        kind = "distance" if item.get("kind") == "distance" else "contact"

        def number(name: str, item: dict = item) -> int:
            value = item.get(name)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        ranges = tuple(r for r in (number("point_blank"), number("short_range"),
                                   number("long_range")) if r) if kind == "distance" else ()
        ammo = number("ammo") if kind == "distance" else 0
        found[str(item["key"])] = Weapon(
            str(item["key"]), str(item.get("name") or item["key"]), kind, d10=number("d10"),
            d6=number("d6"), uses_force=kind == "contact", letale=bool(item.get("letale")),
            ranges=ranges, ammo=ammo, reload=ammo > 0,
            rafale=kind == "distance" and bool(item.get("rafale")),
            kendo=bool(item.get("kendo")), source="gm",
            reason="arme du MJ (contenu de la campagne)")
    return found


def all_weapons(content: Any = None) -> dict[str, Weapon]:
    return {**WEAPONS, **custom_weapons(content)}


def weapon_spec(weapon: Weapon) -> dict[str, Any]:
    """A weapon as a match keeps it (copied at the start: later edits do not change it)."""
    return {"key": weapon.key, "name": weapon.name, "kind": weapon.kind, "d10": weapon.d10,
            "d6": weapon.d6, "flat": weapon.flat, "uses_force": weapon.uses_force,
            "letale": weapon.letale, "ranges": list(weapon.ranges), "kendo": weapon.kendo,
            "ammo": weapon.ammo, "reload": weapon.reload, "rafale": weapon.rafale}
