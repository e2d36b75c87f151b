"""Why the Tiamat table refuses an action, in French and English."""

from __future__ import annotations

from typing import ClassVar

from app.rules.match import IllegalAction


class TiamatRefusal(IllegalAction):
    templates_en: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_en,
        "no_round": "roll initiative first",
        "attack_pending": "an attack waits for its defence",
        "nothing_to_defend": "no attack to defend against",
        "not_an_attack": "{technique} is not an attack",
        "defence_only": "{technique} is used only in defence",
        "no_action_left": "{name} has no action left this turn",
        "attacker_down": "{name} is on the ground: stand up first",
        "attacker_must_be_down": "{technique} is made from the ground",
        "weapon_needed": "{technique} needs a weapon in hand: {weapon}",
        "wounded": "a grave wound forbids {technique}",
        "no_energie": "not enough énergie for {technique}",
        "no_furie": "not enough furie for {technique}",
        "no_furie_allowed": "{technique} needs a fighter with no furie point",
        "target_must_be_down": "{technique} needs a target on the ground",
        "target_must_be_up": "{technique} needs a standing target",
        "target_down": "{technique} cannot reach a target on the ground",
        "not_a_defence": "{technique} is not a defence",
        "defender_down": "on the ground, no dodge",
        "not_against_ranged": "{technique} does not work against ranged attacks",
        "only_against_ranged": "{technique} works only against ranged attacks",
        "not_against_holds": "{technique} does not work against holds",
        "not_against_lethal": "{technique} does not work against lethal attacks",
        "only_high": "{technique} parries only blows to the upper body",
        "only_legs": "{technique} parries only blows to the legs",
        "only_against_movement": "{technique} works only against an attack with Mouvement",
        "only_against_combo": "{technique} answers only a combo",
        "unknown_technique": "unknown technique",
        "not_known": "{name} does not know {technique}",
        "no_combo": "no combo to play now",
        "not_held": "{name} is not held",
        "full_turn": "finishing off takes the whole turn: no action spent yet",
        "not_ko": "{name} is not KO",
        "henchmen_no_points": "henchmen use no technique that costs énergie or furie",
        "target_self": "choose another target",
        "quadruped": "{technique} does not work against an animal on four legs",
        "animal_only": "{name} is an animal's technique",
        "cobra_initiative": "{technique} needs a higher initiative than the target's",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_fr,
        "no_round": "lancez d'abord l'initiative",
        "attack_pending": "une attaque attend sa défense",
        "nothing_to_defend": "aucune attaque à parer",
        "not_an_attack": "{technique} n'est pas une attaque",
        "defence_only": "{technique} ne s'utilise qu'en défense",
        "no_action_left": "{name} n'a plus d'action ce tour",
        "attacker_down": "{name} est à terre : relevez-vous d'abord",
        "attacker_must_be_down": "{technique} s'exécute à terre",
        "weapon_needed": "{technique} demande une arme en main : {weapon}",
        "wounded": "une blessure grave interdit {technique}",
        "no_energie": "pas assez d'énergie pour {technique}",
        "no_furie": "pas assez de furie pour {technique}",
        "no_furie_allowed": "{technique} demande de n'avoir aucun point de furie",
        "target_must_be_down": "{technique} demande un adversaire à terre",
        "target_must_be_up": "{technique} demande un adversaire debout",
        "target_down": "{technique} ne peut viser un adversaire à terre",
        "not_a_defence": "{technique} n'est pas une défense",
        "defender_down": "à terre, pas d'esquive",
        "not_against_ranged": "{technique} ne fonctionne pas contre les attaques à distance",
        "only_against_ranged": "{technique} ne fonctionne que contre les attaques à distance",
        "not_against_holds": "{technique} ne fonctionne pas contre les prises",
        "not_against_lethal": "{technique} ne fonctionne pas contre les attaques létales",
        "only_high": "{technique} ne pare que les coups visant le haut du corps",
        "only_legs": "{technique} ne pare que les coups visant les jambes",
        "only_against_movement": "{technique} ne fonctionne que contre une attaque avec "
                                 "Mouvement",
        "only_against_combo": "{technique} ne répond qu'à un combo",
        "unknown_technique": "technique inconnue",
        "not_known": "{name} ne connaît pas {technique}",
        "no_combo": "aucun combo à jouer maintenant",
        "not_held": "{name} n'est pas immobilisé",
        "full_turn": "la mise à mort prend le tour complet : aucune action ne doit être "
                     "dépensée",
        "not_ko": "{name} n'est pas KO",
        "henchmen_no_points": "les hommes de main n'utilisent aucune technique coûtant "
                              "énergie ou furie",
        "target_self": "choisissez une autre cible",
        "quadruped": "{technique} ne fonctionne pas contre un animal à quatre pattes",
        "animal_only": "{name} est une technique d'animal",
        "cobra_initiative": "{technique} demande une initiative supérieure à celle de "
                            "l'adversaire",
    }
