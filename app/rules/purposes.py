"""Why a roll was made, in the reader's language.

A rule names a roll's purpose with ``Purpose(message_id, **params)``: the message id is the
English wording (``"attack ({weapon})"``), ``PURPOSES`` gives its French one. A ``Purpose``
*is* its French text (a ``str``), so everything that stored, compared or signed a purpose
before still does the same; ``RollRecord.to_dict`` adds the id and parameters as
``purpose_message`` next to that text, and the pages render it with ``render`` in the
reader's language (``app.services.rolls.purpose_label``). A modifier's label the rules name
(``Modifier(-2, Purpose("GM"))``: « MJ », "GM") works the same way: ``Modifier.to_dict``
keeps ``label_message`` beside the stored label (``app.services.rolls.modifier_label``).

A purpose the rules never named (a player's ``/r 4d6kh3 # Perception``, a roll stored before
message ids, an id this version does not know) shows as typed. Parameters are names (a
character, a weapon, a skill: the table's words and the games' terms, never translated) or
another ``Purpose``, rendered in the same language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# English message id → French text. Game terms keep their French names in both languages.
PURPOSES: dict[str, str] = {
    # Cyborg (§ (I)–(IV))
    "attack ({weapon})": "attaque ({weapon})",
    "dodge/parry": "esquive/parade",
    "health restored": "santé rendue",
    "hardening": "aguerrissement",
    "operating theatre": "bloc opératoire",
    "following cyborgs": "cyborgs suivants",
    "rapidité (pursuer)": "rapidité (poursuivant)",
    "rapidité (quarry)": "rapidité (poursuivi)",
    "conduite (pursuer)": "conduite (poursuivant)",
    "conduite (quarry)": "conduite (poursuivi)",
    "botched manoeuvre (structure)": "fausse manœuvre (structure)",
    "tour de force": "tour de force",
    "manoeuvre": "manœuvre",
    "ramming the quarry": "heurter le poursuivi",
    "safety": "sécurité",
    "accident (1D100/4)": "accident (1D100/4)",
    "shot at {vehicle}": "tir sur {vehicle}",
    "skill drawn": "compétence tirée",
    "hit location": "localisation",
    "turns to live": "tours à vivre",
    "constitution (unconsciousness)": "constitution (inconscience)",
    "constitution (survival)": "constitution (survie)",
    "constitution (chest)": "constitution (thorax)",
    # Tiamat
    "stunned (turns)": "sonné (tours)",
    "extra fury": "furie supplémentaire",
    "accuracy": "précision",
    "accuracy — {technique}": "précision — {technique}",
    "instinctive defence": "défense instinctive",
    "defence — {technique}": "défense — {technique}",
    "power": "puissance",
    "power — {technique}": "puissance — {technique}",
    "energy lost (torso wound)": "énergie perdue (blessure au torse)",
    "breaking free (Force)": "se libérer (Force)",
    "breaking free ({char})": "se libérer ({char})",
    "holding on ({char})": "tenir ({char})",
    "overcoming fear — {name}": "vaincre sa peur — {name}",
    "frightening — {name}": "effrayer — {name}",
    "holding on (Force)": "tenir (Force)",
    "test — {name}": "test — {name}",
    "opposed test — {name}": "opposition — {name}",
    "jump — {name}": "saut — {name}",
    "health regained (rest)": "santé regagnée (repos)",
    "ammunition (burst)": "munitions (tir en rafale)",
    "grave wound (turns)": "blessure grave (tours)",
    "running — {name}": "course — {name}",
    "throwing (Force) — {name}": "projeter (Force) — {name}",
    "resisting (Force) — {name}": "résister (Force) — {name}",
    "{state} (turns)": "{state} (tours)",
    # Chasse
    "lighting a fire — {name}": "allumer un feu — {name}",
    "charge — {name}": "charge — {name}",
    "blue D6 — {name}": "D6 bleu — {name}",
    "red D6 — {name}": "D6 rouge — {name}",
    "spread — {name}": "propagation — {name}",
    "fire — {name}": "feu — {name}",
    "shot": "tir",
    "melee": "corps à corps",
    "riposte": "riposte",
    "{kind} — {attacker} → {defender}": "{kind} — {attacker} → {defender}",
    "save — {name}": "sauvegarde — {name}",
    # Mutatior
    "entrance prize": "prix de l'entrée",
    "weather": "météo",
    "frost": "gel",
    "limb hit {name}": "membre touché {name}",
    "fall damage": "dégâts de la chute",
    "event {event}": "événement {event}",
    "can": "canette",
    "can damage": "dégâts de la canette",
    "Saturday night out": "sortie du samedi",
    "chicken": "poulet",
    "chicken prize": "prix du poulet",
    "cheerleader climbs back": "pom-pom girl remonte",
    "police check": "contrôle de police",
    "sponge {name}": "éponge {name}",
    "biomass {name}": "biomasse {name}",
    "crowd favourite {name}": "chouchou du public {name}",
    "attack {name} ({limb})": "attaque {name} ({limb})",
    "defence {name} ({limb})": "défense {name} ({limb})",
    "initiative {name}": "initiative {name}",
    "initiative re-roll {name}": "initiative relance {name}",
    "pump": "pompe",
    "pump (tie)": "pompe (égalité)",
    "pump (second attack)": "pompe (deuxième attaque)",
    "pump (counter-attack)": "pompe (contre-attaque)",
    "pump — {name}": "pompe — {name}",  # a roll from the sheet (sheet_rolls.py)
    "shot {name} ({limb})": "tir {name} ({limb})",
    "shot damage": "dégâts du tir",
    # Mecha-Ring
    "Movement — {name}": "Mouvement — {name}",
    "Tie — {name}": "Égalité — {name}",
    "Attack — {name}": "Attaque — {name}",
    "Defence — {name}": "Défense — {name}",
    # Cyborg characteristics (§ (I)): the characteristic as the seed writes it (« dextérité »)
    "test — {characteristic}": "test — {characteristic}",
    "{characteristic} ({name})": "{characteristic} ({name})",
    # Modifier labels (``Modifier(value, Purpose(...))``, app.rules.dice): the same mechanism
    "GM": "MJ",
    "malus": "malus",  # the English pages' word too ("GM's malus")
    "bonus": "bonus",
    "helpers": "aides",
    "brain": "cerveau",
    "dead limbs": "membres morts",
    "dead organs": "organes morts",
    "another attempt": "nouvelle tentative",
    "the can's pump": "pompe de la canette",
    "{skill}, angry": "{skill} énervé",
}
LANGUAGES = ("fr", "en")


class Purpose(str):
    """A purpose the rules named: its French text, with ``key`` (the message id) and
    ``params`` to say it in another language."""

    key: str
    params: dict[str, Any]

    def __new__(cls, key: str, **params: str | Purpose) -> Purpose:
        if key not in PURPOSES:
            raise KeyError(f"unknown roll purpose {key!r}: add it to app.rules.purposes")
        return cls._made(_render(key, params, "fr"), key, params)

    @classmethod
    def _made(cls, text: str, key: str, params: Mapping[str, Any]) -> Purpose:
        purpose = str.__new__(cls, text)
        purpose.key = key
        purpose.params = dict(params)
        return purpose

    @classmethod
    def restored(cls, text: str, message: object) -> str:
        """The purpose a record stored: a ``Purpose`` again when ``message`` is a message
        this version knows, else the text as stored."""
        data = _checked(message)
        return text if data is None else cls._made(text, data["id"], data["params"])

    def message(self) -> dict[str, Any]:
        """What a record keeps beside the text: ``{"id": …, "params": {…}}``."""
        return {"id": self.key, "params": {
            name: value.message() if isinstance(value, Purpose) else str(value)
            for name, value in self.params.items()}}

    def text(self, language: str) -> str:
        return _render(self.key, self.params, language)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Purpose._made, (str(self), self.key, self.params))

    def __copy__(self) -> Purpose:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Purpose:
        return self


def _render(key: str, params: Mapping[str, Any], language: str) -> str:
    template = key if language == "en" else PURPOSES[key]
    return template.format_map({
        name: value.text(language) if isinstance(value, Purpose) else str(value)
        for name, value in params.items()})


def _checked(message: object, depth: int = 0) -> dict[str, Any] | None:
    """``message`` as ``{"id", "params"}`` with nested messages made ``Purpose`` again, or
    None when it is not one this version can say (a file from elsewhere, a newer id)."""
    if depth > 3 or not isinstance(message, Mapping):
        return None
    key, params = message.get("id"), message.get("params")
    if key not in PURPOSES or not isinstance(params, Mapping):
        return None
    values: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, Mapping):
            inner = _checked(value, depth + 1)
            if inner is None:
                return None
            values[str(name)] = Purpose._made(
                _render(inner["id"], inner["params"], "fr"), inner["id"], inner["params"])
        elif isinstance(value, str | int):
            values[str(name)] = str(value)
        else:
            return None
    try:
        for language in LANGUAGES:
            _render(str(key), values, language)
    except (KeyError, IndexError, ValueError, AttributeError):
        return None
    return {"id": str(key), "params": values}


def render(text: str | None, message: object, language: str) -> str | None:
    """A stored purpose in ``language``: from its message when the record kept a known one,
    else ``text`` as typed."""
    data = _checked(message)
    if data is None:
        return text
    return _render(data["id"], data["params"], language)
