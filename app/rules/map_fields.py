"""Reading the platform's map actions: numbers, points on the board, and the refusals they
share (``app.rules.map_actions``, ``app.rules.map_drawings``), in both languages."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

from app.rules.match import FIELD_LABELS, IllegalAction, State

FIELD_LABELS.update({
    "base": ("Fog", "Brouillard"), "op": ("Reveal or hide", "Dévoiler ou cacher"),
    "shape": ("Shape", "Forme"), "points": ("Points", "Points"), "r": ("Radius", "Rayon"),
    "hidden": ("Hidden", "Caché"), "colour": ("Colour", "Couleur"),
    "gm_only": ("For the GM only", "Pour le MJ seul"), "size": ("Size", "Taille"),
    "angle": ("Direction", "Direction"), "drawing": ("Drawing", "Dessin"),
    "outline": ("Outline", "Contour"), "scene": ("Scene", "Scène"),
    "title": ("Title", "Titre"), "to": ("For whom", "Pour qui"),
})


class MapRefused(IllegalAction):
    """What the platform's map refuses, in both languages."""

    templates_en: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_en,
        "no_board": "this match has no board",
        "no_secrets": "this game hides nothing on its board: no fog of war, no hidden figures",
        "too_many_shapes": "the fog already has {n} shapes: cover or reveal the whole map "
                           "to start again",
        "already_veiled": "“{name}” is already hidden from the players",
        "not_veiled": "“{name}” is not hidden from the players",
        "too_many_drawings": "the map already has {n} drawings: erase some first",
        "not_yours": "only the GM or its author may erase this drawing",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_fr,
        "no_board": "ce match n'a pas de plateau",
        "no_secrets": "ce jeu ne cache rien sur son plateau : ni brouillard de guerre, ni "
                      "figures cachées",
        "too_many_shapes": "le brouillard a déjà {n} formes : couvrez ou dévoilez toute la "
                           "carte pour recommencer",
        "already_veiled": "« {name} » est déjà caché aux joueurs",
        "not_veiled": "« {name} » n'est pas caché aux joueurs",
        "too_many_drawings": "la carte a déjà {n} dessins : effacez-en d'abord",
        "not_yours": "seuls le MJ ou son auteur peuvent effacer ce dessin",
    }


# — reading numbers and points ———————————————————————————————————————————————————————————

def number_field(action: Mapping[str, Any], field: str, low: float, high: float) -> float:
    """A number within ``low``..``high`` (a form's « 12,5 » too), to a hundredth."""
    value = action.get(field)
    if isinstance(value, str):
        try:
            value = float(value.strip().replace(",", "."))
        except ValueError:
            value = None
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not math.isfinite(value) or not low <= value <= high:
        low_text, high_text = f"{low:g}", f"{high:g}"
        raise MapRefused("bad_field", field=field, reason=f"{low_text}…{high_text}",
                         reason_fr=f"un nombre de {low_text} à {high_text} est attendu")
    return round(float(value), 2)


def points_field(action: Mapping[str, Any], board: Mapping[str, Any], *, least: int,
                 most: int, field: str = "points", margin: float = 0) -> list[list[float]]:
    """Points on the board (``margin`` past its edges too): a JSON list of ``[x, y]``, or a
    form's « x,y x,y … »."""
    raw = action.get(field)
    if isinstance(raw, str):
        try:
            raw = [[float(part) for part in pair.split(",")] for pair in raw.split()]
        except ValueError:
            raw = None
    width, height = board["width"], board["height"]
    if not isinstance(raw, list) or not least <= len(raw) <= most or not all(
            isinstance(pair, list | tuple) and len(pair) == 2
            and all(isinstance(n, int | float) and not isinstance(n, bool) and math.isfinite(n)
                    for n in pair)
            and -margin <= pair[0] <= width + margin and -margin <= pair[1] <= height + margin
            for pair in raw):
        raise MapRefused(
            "bad_field", field=field,
            reason=f"{least} to {most} points « x,y » on the board (0…{width}, 0…{height})",
            reason_fr=f"de {least} à {most} points « x,y » sur le plateau "
                      f"(0…{width}, 0…{height})")
    return [[round(float(x), 2), round(float(y), 2)] for x, y in raw]


def board_of(state: State) -> dict[str, Any]:
    """The match's board, or the refusal that it has none."""
    board = state.get("board")
    if not isinstance(board, dict):
        raise MapRefused("no_board")
    return board
