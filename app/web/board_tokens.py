"""What a token on the board says at a glance, game by game (issue 23): its health, whether
it is dead or out of the fight and its other states (``Vitals``); how far it may still move
(``reach``); why one's own token cannot move now (``why_still``); the figure drawn on it
when its character has no portrait (``figure``).

Each game keeps these in its own state (Mutatior: organs limb by limb; Cyborg: santé and
states; Chasse: wounds against mass; free play: hit points and the GM's words), so each has
its reader here; a game without one gets the free-play reading (hit points, if any).
Everything is in the reader's language: these run inside the request's (or the live
stream's) locale.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.i18n import gettext as _
from app.i18n import ngettext
from app.rules.cyborg.match import active_group, is_down
from app.rules.libre import match as libre
from app.rules.match import State
from app.rules.mutatior.match_state import mutant

Token = Mapping[str, Any]

# — health and states ————————————————————————————————————————————————————————————


@dataclass(frozen=True)
class Vitals:
    """``health``: the share left, 0–1 (None: the game keeps no such figure for it);
    ``condition``: ``ok``, ``out`` (out of the fight, not dead) or ``dead``."""

    health: float | None = None
    health_text: str = ""
    condition: str = "ok"
    condition_text: str = ""
    statuses: tuple[str, ...] = field(default_factory=tuple)

    @property
    def summary(self) -> str:
        """Everything in one line, for the tooltip and the accessible name."""
        return ", ".join(part for part in (self.health_text, self.condition_text,
                                           *self.statuses) if part)

    @property
    def band(self) -> str:
        """The health ring's colour band (its length says the share itself)."""
        if self.health is None:
            return "none"
        return "high" if self.health > 2 / 3 else "mid" if self.health > 1 / 3 else "low"


def _share(left: float, whole: float) -> float | None:
    return None if not whole or whole <= 0 else max(0.0, min(1.0, left / whole))


def libre_vitals(state: State, token: Token) -> Vitals:
    """Free play: the GM's own words for a figure's state (the rules read them the same way
    to tell who is left in the fight, ``app.rules.libre.match.condition``)."""
    hp, hp_max = int(token.get("hp") or 0), int(token.get("hp_max") or 0)
    words = libre.status_words(token)
    condition = libre.condition(token)
    said = libre.DEAD_WORDS | libre.OUT_WORDS
    return Vitals(_share(hp, hp_max), _("hit points %(hp)s / %(max)s", hp=hp, max=hp_max)
                  if hp_max else "", condition, _condition_words(condition),
                  tuple(word for word in words if word.lower() not in said))


def _condition_words(condition: str) -> str:
    return {"dead": _("dead"), "out": _("out of the fight")}.get(condition, "")


def mutatior_vitals(state: State, token: Token) -> Vitals:
    """Mutatior § 1-5 Dégâts: dead without muscle, biomoteur or lobe (or with an empty
    trunk); the ring shows the organ kind nearest to running out."""
    tid = token["id"]
    if tid not in (state.get("bodies") or {}):
        return Vitals()
    body = mutant(state, tid)
    shares = [_share(live, whole) for live, whole in (
        (body.live_muscles, body.muscle_count), (body.live_pump, body.pump),
        (body.live_brain, body.brain)) if whole]
    health = min((share for share in shares if share is not None), default=None)
    text = _("brain %(l)s · pump %(b)s · muscles %(m)s", l=body.live_brain,
             b=body.live_pump, m=body.live_muscles)
    statuses = []
    if tid in (state.get("booed") or {}):
        statuses.append(_("booed"))
    if tid in (state.get("angry") or ()):
        statuses.append(_("angry"))
    if any(grip.get("victim") == tid for grip in state.get("grips") or ()):
        statuses.append(_("held by a tentacle"))
    if body.dead:
        return Vitals(0.0, text, "dead", _("dead"), tuple(statuses))
    status = token.get("status")
    if status == "out":
        return Vitals(health, text, "out", _("out (sponge)"), tuple(statuses))
    if status == "gone":
        return Vitals(health, text, "out", _("gone"), tuple(statuses))
    return Vitals(health, text, statuses=tuple(statuses))


CYBORG_STATES = {"unconscious": "unconscious", "coma": "coma", "paralysed": "paralysed",
                 "fled": "fled",
                 "out_of_action": "out of action", "strangled": "strangled",
                 "immobilised": "immobilised", "hidden": "hidden"}
CYBORG_LIMBS = {"right_arm": "right arm", "left_arm": "left arm", "right_leg": "right leg",
                "left_leg": "left leg"}


def cyborg_vitals(state: State, token: Token) -> Vitals:
    sante, sante_max = int(token.get("sante") or 0), int(token.get("sante_max") or 0)
    states = list(token.get("states") or ())
    text = _("santé %(n)s / %(max)s", n=sante, max=sante_max) if sante_max else ""
    words = [_(CYBORG_STATES[name]) for name in states if name in CYBORG_STATES]
    words += [_("lost: %(limb)s", limb=_(CYBORG_LIMBS.get(limb, limb)))
              for limb in token.get("lost_limbs") or ()]
    words += [_("broken: %(limb)s", limb=_(CYBORG_LIMBS.get(limb, limb)))
              for limb in token.get("broken_limbs") or ()]
    poisoning = token.get("poisoning")
    if poisoning and not poisoning.get("cured"):
        words.append(_("poisoned (−%(n)s an hour)", n=poisoning.get("per_hour", 0)))
    health = _share(max(sante, 0), sante_max)
    if "dead" in states:
        return Vitals(health, text, "dead", _("dead"), tuple(words))
    if is_down(token):  # unconscious, coma, paralysed, out of action: named among the states
        return Vitals(health, text, "out", "", tuple(words))
    return Vitals(health, text, statuses=tuple(words))


def chasse_vitals(state: State, token: Token) -> Vitals:
    """Chasse § Les blessures: a figure takes as many wounds as its mass."""
    masse, wounds = int(token.get("masse") or 0), int(token.get("wounds") or 0)
    text = _("M%(m)s, wounds %(w)s", m=masse, w=wounds)
    health = _share(masse - wounds, masse)
    words = []
    if token.get("state") == "dead" and token.get("food"):
        words.append(_("%(n)s food to butcher", n=token["food"]))
    if token.get("carried"):
        words.append(_("carries %(n)s food", n=token["carried"]))
    stuck = len(token.get("stuck") or ())
    if stuck:
        words.append(_("%(n)s thrown weapons in it", n=stuck))
    condition = token.get("state", "ok")
    if condition in ("dead", "burnt"):
        return Vitals(0.0, text, "dead", _("dead") if condition == "dead" else _("burnt"),
                      tuple(words))
    if condition == "gone":
        return Vitals(health, text, "out", _("gone"), tuple(words))
    if condition == "burning":
        words.insert(0, _("on fire"))
    return Vitals(health, text, statuses=tuple(words))


VITALS: dict[str, Callable[[State, Token], Vitals]] = {
    "libre": libre_vitals, "mutatior": mutatior_vitals, "cyborg": cyborg_vitals,
    "chasse": chasse_vitals}


def vitals(system_key: str, state: State, token: Token) -> Vitals:
    return VITALS.get(system_key, libre_vitals)(state, token)


# — how far a token may still move ————————————————————————————————————————————————

def reach(system_key: str, state: State, token: Token) -> float | None:
    """The distance ``token`` may still cover this turn, in the board's unit; None when the
    game sets no limit (free play, Cyborg) or the token is not the one moving."""
    if system_key == "mutatior":
        # § 1-2 Mouvement: the active mutant's pump × 2 cm, less what it moved already.
        activation = state.get("activation") or {}
        if state.get("phase") != "fight" or activation.get("token") != token.get("id"):
            return None
        return round(max(0.0, float(activation["allowance"]) - float(activation["moved"])), 2)
    if system_key == "chasse":
        # § Déplacements des Chasseurs: Dmax a turn (the ground may make a path dearer).
        if token.get("kind") != "hunter" or token.get("charged"):
            return None
        return round(max(0.0, float(token.get("dmax") or 0) - float(token.get("spent") or 0)), 2)
    return None


# — why one's own token cannot move now ———————————————————————————————————————————————

def why_still(system_key: str, state: State, token: Token, condition: str) -> str:
    """Why a token its viewer controls is not theirs to move now, in one sentence."""
    name = str(token.get("name") or token.get("id"))
    if condition == "dead":
        return _("%(name)s is dead.", name=name)
    if condition == "out":
        return _("%(name)s is out of the fight.", name=name)
    if state.get("status") == "finished":
        return _("The match is over.")
    reason = {"mutatior": _mutatior_still, "cyborg": _cyborg_still,
              "chasse": _chasse_still}.get(system_key)
    said = reason(state, token, name) if reason else None
    return said or _("%(name)s cannot move now.", name=name)


def _mutatior_still(state: State, token: Token, name: str) -> str | None:
    phase = state.get("phase")
    if phase == "over":
        return _("The fight is over.")
    if phase == "setup":
        if token["id"] in (state.get("placed") or ()):
            return _("%(name)s is already placed.", name=name)
        return _("Another team places a figure now.")
    pending = state.get("pending")
    tokens = state.get("tokens") or {}
    if pending:
        by = tokens.get(pending.get("by"), {}).get("name", "")
        return _("Finish the exchange first: %(name)s may still attack (see the actions).",
                 name=by)
    activation = state.get("activation") or {}
    if activation.get("token") != token["id"]:
        owed = [entry for entry in state.get("free_attacks") or ()
                if entry.get("by") == token["id"]]
        if owed:
            return ngettext("%(name)s moves only on its turn; it has %(num)s free attack on "
                            "%(target)s: see the actions.",
                            "%(name)s moves only on its turn; it has %(num)s free attacks "
                            "on %(target)s: see the actions.", owed[0].get("left", 1),
                            name=name,
                            target=tokens.get(owed[0].get("against"), {}).get("name", ""))
        current = tokens.get(state.get("turn") or "")
        if current:
            return _("It is %(current)s's turn: %(name)s moves on its own turn.",
                     current=current.get("name", ""), name=name)
        return _("The round is over: next round.")
    if activation.get("acted"):
        return _("%(name)s has already attacked or shot this turn.", name=name)
    return _("%(name)s has no movement left this turn.", name=name)


def _cyborg_still(state: State, token: Token, name: str) -> str | None:
    group = active_group(state)
    if group is None:
        return None
    if token.get("group") != group:
        return _("The %(group)s act now; %(name)s waits for its group's turn.",
                 group=group, name=name)
    if token.get("acted"):
        return _("%(name)s has already acted this round.", name=name)
    return None


def _chasse_still(state: State, token: Token, name: str) -> str | None:
    if state.get("status") == "setup":
        return _("The hunt has not begun.")
    if token.get("kind") != "hunter":
        return _("Prey move by themselves, at their steps of the turn.")
    sides = state.get("sides") or []
    active = sides[state.get("active", 0)] if sides else None
    if active and token.get("side") != active.get("id"):
        return _("Another tribe is playing; %(name)s moves on its own tribe's turn.",
                 name=name)
    if state.get("step") != 4:
        return _("Hunters move at step 4 of the turn; this is step %(n)s.",
                 n=state.get("step"))
    if token.get("moved") or token.get("charged"):
        return _("%(name)s has already moved this turn.", name=name)
    return None


# — figures: pictures drawn for the demo's characters and the games' creatures ————————————

# static/img/figures/README.md says where they come from. A roster character with a portrait
# of its own shows that one; these are for the demo's characters (by the name the demo gives
# them) and for kinds of creature (Chasse's prey species, Mutatior's crowd pieces).
DEMO_FIGURES = {
    "libre": {"Aldo le Rôdeur": "rodeur", "Brune la Forgeronne": "forgeronne",
              "Gobelin des cavernes": "gobelin"},
    "mutatior": {"Scarabator": "scarabator", "Nurglie": "nurglie", "Grosbaf": "grosbaf",
                 "Zetzet": "zetzet", "Cafardor": "cafardor", "Gélatron": "gelatron"},
    "cyborg": {"KCA-7 Kenji": "kenji", "KCA-12 Sora": "sora",
               "Pieuvre purulente (alien)": "pieuvre", "Alien à visage humain": "alien",
               "Vigile (humain)": "vigile"},
    "chasse": {"Ourk le Pisteur": "pisteur", "Ghâ la Chamane": "chamane", "Bronk": "pataud"},
}
KIND_FIGURES = {
    "mutatior": {"chicken": "poulet", "cheerleader": "pom-pom"},
}
CHASSE_SPECIES = frozenset(("sanglier", "lievre", "renne", "loup", "mammouth"))


def figure(system_key: str, token: Token) -> str | None:
    """The path under ``static/`` of the figure drawn for ``token``, if there is one."""
    name = DEMO_FIGURES.get(system_key, {}).get(str(token.get("name") or ""))
    if name is None:
        name = KIND_FIGURES.get(system_key, {}).get(str(token.get("kind") or ""))
    if name is None and system_key == "chasse" and token.get("species") in CHASSE_SPECIES:
        name = str(token["species"])
    return f"img/figures/{system_key}/{name}.svg" if name else None


# — the rulers on the board's edges ————————————————————————————————————————————————

RULER_MARKS = 12  # at most this many numbers along an edge: readable on a phone


def ruler(board: Mapping[str, Any], grid: float) -> dict[str, Any]:
    """The coordinates the rulers number along the top and left edges: every grid line,
    or every 2nd, 5th, 10th… so that an edge carries at most ``RULER_MARKS`` numbers."""
    width, height = float(board.get("width") or 0), float(board.get("height") or 0)
    step = float(grid or 1)
    for factor in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000):
        step = float(grid or 1) * factor
        if max(width, height) / step <= RULER_MARKS:
            break

    def marks(length: float) -> list[float]:
        return [round(index * step, 3) for index in range(int(length // step) + 1)]

    return {"step": step, "xs": marks(width), "ys": marks(height)}
