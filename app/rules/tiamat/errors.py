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
        "device_needed": "{technique} needs {weapon} in the fighter's gear",
        "target_not_male": "{technique}: the target must be male (its sheet says féminin)",
        "wounded": "a grave wound forbids {technique}",
        "no_energie": "not enough énergie for {technique}",
        "no_furie": "not enough furie for {technique}",
        "no_furie_allowed": "{technique} needs a fighter with no furie point",
        "target_must_be_down": "{technique} needs a target on the ground",
        "target_must_be_up": "{technique} needs a standing target",
        "target_down": "{technique} cannot reach a target on the ground",
        "not_a_defence": "{technique} is not a defence",
        "defender_down": "on the ground: no parry, dodge or counter-attack (sitting or "
                         "kneeling: parries only)",
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
        "not_simultaneous": "{name} is not tied at initiative this round",
        "no_orders": "no written orders to reveal",
        "blinded": "blinded: only techniques with a random location, no ranged attack",
        "no_ammo": "{name} has no ammunition left: reload first (one action)",
        "cannot_reload": "{name} holds no weapon that can be reloaded during a fight",
        "already_loaded": "{weapon} is already fully loaded",
        "no_talent": "{name} does not have the talent {talent}",
        "hang_gotonpo": "only a Gotonpo leaves the fighter hanging from the scenery",
        "not_chained": "{name} is not caught in this fighter's kusarigama",
        "immune": "{name} has Immunité biologique: neither poisoned nor ill",
        "fight_decided": "the fight is decided: the GM ends the match, or corrects a value "
                         "to let it go on",
        "held": "{name} is held: it can only try to break free",
        "two_handed": "{technique}: the arme de Kendo is held in both hands (no punch, no "
                      "bare-hand parry)",
        "terrorised": "terrorisé: {name} cannot spend énergie ({technique})",
        "ko_needs_lethal": "{target} is KO: only a lethal attack still does anything "
                           "({technique} is not lethal)",
        "must_be_sheathed": "Héritage d'Hanzô Hattori: {name}'s sabre must be in its sheath",
        "cannot_run": "{name} has a grave leg wound: no running",
        "run_full_turn": "running takes the whole turn: no action spent yet",
        "not_later": "{name} may wait only for a fighter who has not played yet this round",
        "not_terrorised": "{name} is not terrorised by another fighter",
        "fear_once": "{name} has already fought its fear this round",
        "target_out": "{name} is out of the fight",
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
        "device_needed": "{technique} demande : {weapon} dans l'équipement du combattant",
        "target_not_male": "{technique} : la cible doit être de sexe masculin (sa fiche dit "
                           "féminin)",
        "wounded": "une blessure grave interdit {technique}",
        "no_energie": "pas assez d'énergie pour {technique}",
        "no_furie": "pas assez de furie pour {technique}",
        "no_furie_allowed": "{technique} demande de n'avoir aucun point de furie",
        "target_must_be_down": "{technique} demande un adversaire à terre",
        "target_must_be_up": "{technique} demande un adversaire debout",
        "target_down": "{technique} ne peut viser un adversaire à terre",
        "not_a_defence": "{technique} n'est pas une défense",
        "defender_down": "à terre : ni parade, ni esquive, ni contre-attaque (assis ou à "
                         "genoux : les parades seulement)",
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
        "not_simultaneous": "{name} n'est pas à égalité d'initiative ce tour",
        "no_orders": "aucun ordre écrit à révéler",
        "blinded": "aveuglé : seulement des techniques à localisation aléatoire, aucune "
                   "attaque à distance",
        "no_ammo": "{name} n'a plus de munitions : rechargez d'abord (une action)",
        "cannot_reload": "{name} ne tient aucune arme qui se recharge pendant un combat",
        "already_loaded": "{weapon} est déjà chargé",
        "no_talent": "{name} n'a pas le talent {talent}",
        "hang_gotonpo": "seul un Gotonpo laisse le personnage suspendu au décor",
        "not_chained": "{name} n'est pas pris dans la chaîne de ce kusarigama",
        "immune": "{name} a l'Immunité biologique : ni empoisonné ni malade",
        "fight_decided": "le combat est joué : le MJ termine le match, ou corrige une valeur "
                         "pour le poursuivre",
        "held": "{name} est immobilisé : il ne peut que tenter de se libérer",
        "two_handed": "{technique} : l'arme de Kendo se tient à deux mains (ni coup de poing, "
                      "ni parade à mains nues)",
        "terrorised": "terrorisé : {name} ne peut dépenser aucun point d'énergie "
                      "({technique})",
        "ko_needs_lethal": "{target} est KO : seule une attaque létale lui fait encore "
                           "quelque chose ({technique} ne l'est pas)",
        "must_be_sheathed": "Héritage d'Hanzô Hattori : le sabre de {name} doit être au "
                            "fourreau",
        "cannot_run": "{name} a une blessure grave à la jambe : plus de course possible",
        "run_full_turn": "courir prend le tour complet : aucune action ne doit être dépensée",
        "not_later": "{name} ne peut attendre qu'un combattant qui n'a pas encore joué ce "
                     "tour",
        "not_terrorised": "{name} n'est pas terrorisé par un autre combattant",
        "fear_once": "{name} a déjà tenté de vaincre sa peur ce tour",
        "target_out": "{name} est hors de combat",
    }
