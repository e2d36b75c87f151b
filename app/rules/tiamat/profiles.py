"""Ready fighters for the demo campaign: Jack (the text's creation example), his friend
Ryu, the triad's Jin Chun-Fung and a group of voyous (« Exemple de combat »)."""

from __future__ import annotations

from app.rules.system import DemoCharacter, Sheet
from app.rules.tiamat.sheet import jack


def ryu() -> Sheet:
    """House: the text names Ryu (Japanese, Perception 3, Investigation +1) but prints no
    sheet; a ju-jitsuka built by the creation rules."""
    return {"kind": "pj",
            "characteristics": {"force": 2, "endurance": 2, "habilete": 3, "rapidite": 3,
                                "perception": 3, "intelligence": 1, "temperament": 2,
                                "volonte": 2},
            "skills": {"investigation": 1, "acrobatie": 3, "meditation": 3, "vigilance": 4,
                       "langue": 2, "survie": 2},
            "talents": ["zen", "oeil_d_aigle"], "talent_mode": "random",
            "arts": ["ju_jitsu"], "art_talents": {"ju_jitsu": "sixieme_sens"},
            "techniques": ["oi_zuki", "mae_geri", "projection", "immobilisation"],
            "sante": None, "energie": None, "furie": 0, "armour": "aucune", "weapons": [],
            "equipment": "Kimono, sac de voyage.", "wounds": []}


def jin() -> Sheet:
    """House: « un redoutable combattant pratiquant le Kung-fu »; a GM profile."""
    return {"kind": "pnj",
            "characteristics": {"force": 3, "endurance": 3, "habilete": 4, "rapidite": 4,
                                "perception": 3, "intelligence": 2, "temperament": 3,
                                "volonte": 3},
            "skills": {"intimidation": 4, "vigilance": 3},
            "talents": ["aura"], "talent_mode": "chosen", "arts": ["kung_fu"],
            "art_talents": {"kung_fu": "reflexes_du_guepard"},
            "techniques": ["serres_du_faucon", "frappe_de_l_ours", "piqure_du_scorpion",
                           "ruade_du_cheval", "salto", "morsure_du_cobra", "frappe_du_jaguar"],
            "sante": None, "energie": None, "furie": 0, "armour": "aucune", "weapons": [],
            "equipment": "", "wounds": []}


def voyous() -> Sheet:
    """« Exemple de combat »: a voyou has Habileté 2, Force 2 and Endurance 2, one action;
    the rest is house (a group of four)."""
    return {"kind": "hommes_de_main", "members": 4, "actions_override": 1,
            "characteristics": {"force": 2, "endurance": 2, "habilete": 2, "rapidite": 1,
                                "perception": 1, "intelligence": 1, "temperament": 1,
                                "volonte": 1},
            "skills": {}, "talents": [], "talent_mode": "chosen", "arts": [], "art_talents": {},
            "techniques": [], "sante": None, "energie": None, "furie": 0, "armour": "aucune",
            "weapons": [], "equipment": "", "wounds": []}


def loup() -> Sheet:
    """House (« Combat contre un animal »; the bestiary is the GM's part): a wolf."""
    return {"kind": "pnj", "quadruped": True,
            "characteristics": {"force": 2, "endurance": 2, "habilete": 3, "rapidite": 4,
                                "perception": 4, "intelligence": 1, "temperament": 2,
                                "volonte": 2},
            "skills": {"vigilance": 4, "survie": 5, "infiltration": 3}, "talents": [],
            "talent_mode": "chosen", "arts": [], "art_talents": {},
            "techniques": ["morsure", "charge_animale", "esquive_animale"], "sante": None,
            "energie": None, "furie": 0, "armour": "aucune", "weapons": [], "equipment": "",
            "wounds": []}


def demo_characters() -> list[DemoCharacter]:
    return [DemoCharacter("Jack", jack(), "Aventurier américain, karatéka.", player=0),
            DemoCharacter("Ryu", ryu(), "Ami japonais de Jack, ju-jitsuka.", player=1),
            DemoCharacter("Jin Chun-Fung", jin(), "« Sentinelle de la lumière », triade de Sîn."),
            DemoCharacter("Voyous de l'entrepôt n°8", voyous(), "Quatre hommes de main."),
            DemoCharacter("Loup", loup(), "Profil d'animal (maison) : à quatre pattes.")]
