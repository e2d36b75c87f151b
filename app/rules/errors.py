"""One error tree for the rules package.

Every error carries a stable ``code`` and the structured fields its message is built from
(``position``, ``expected``, ``limit`` …), so the web layer can show it in either language:
``str(error)`` / ``error.message`` is English, ``error.message_fr()`` is French, and
``error.to_dict()`` is the JSON-safe form. A count in a message is written
``{n:unité|unités}`` and French elides « de {name} » as the name wants (``app.rules.wording``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from app.rules import wording


class RulesError(Exception):
    """Base of every error the rules raise: a code, fields, and a message in two languages."""

    code: str = "rules_error"
    templates_en: ClassVar[dict[str, str]] = {"rules_error": "the rules refused this"}
    templates_fr: ClassVar[dict[str, str]] = {"rules_error": "les règles refusent ceci"}

    def __init__(self, code: str | None = None, **fields: Any) -> None:
        if code is not None:
            self.code = code
        self.fields: dict[str, Any] = fields
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return self._render(self.templates_en, "en")

    def message_fr(self) -> str:
        return self._render(self.templates_fr, "fr")

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.fields}

    def _render(self, templates: dict[str, str], lang: str) -> str:
        template = templates.get(self.code) or templates[type(self).code]
        return wording.render(template, self._format_fields(lang), lang)

    def _format_fields(self, lang: str) -> dict[str, Any]:
        """Fields as the templates want them; subclasses translate their own vocabulary."""
        return dict(self.fields)


class DiceError(RulesError):
    """A dice source was asked for something it cannot give."""

    code = "dice_error"
    templates_en: ClassVar[dict[str, str]] = {
        "dice_error": "cannot roll {count} d{sides}",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "dice_error": "impossible de lancer {count} d{sides}",
    }


class ScriptedDiceError(DiceError, AssertionError):
    """A test's script and the rules disagree.

    Also an ``AssertionError``: a wrong script is a failing test, and must not be mistaken
    for a game refusal by code that catches ``RulesError``.
    """

    code = "script_mismatch"
    templates_en: ClassVar[dict[str, str]] = {
        "script_mismatch": "scripted face #{index} is {face}, which a d{sides} cannot show",
        "script_wrong_die": "scripted face #{index} was meant for a d{scripted_sides}, "
        "but the rules rolled a d{sides}",
        "script_exhausted": "the rules asked for a d{sides} but the script's {size} faces "
        "are all used",
        "script_not_exhausted": "scripted faces never rolled ({remaining}): {faces}",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "script_mismatch": "la face scriptée n°{index} vaut {face}, impossible sur un d{sides}",
        "script_wrong_die": "la face scriptée n°{index} était prévue pour un d{scripted_sides}, "
        "mais les règles ont lancé un d{sides}",
        "script_exhausted": "les règles demandent un d{sides} mais les {size} faces du script "
        "sont épuisées",
        "script_not_exhausted": "faces scriptées jamais lancées ({remaining}) : {faces}",
    }


# What a parser can expect next, in both languages. NotationError.expected holds these keys.
EXPECTED_EN: dict[str, str] = {
    "number": "a number",
    "term": "a number, 'd' or '('",
    "d": "'d'",
    "sides": "a number of sides or '%'",
    "h_or_l": "'h' or 'l'",
    "operator": "an operator ('+', '-', '*', '/', '%', a comparison), '#' or the end",
    "modifier": "a modifier ('kh', 'kl', 'dh', 'dl', 'k', 'p', 'rr', 'ro', 'ra', 'e', '!', "
    "'mi', 'ma', 't', '>=' …)",
    "selector": "'h', 'l', '>', '<', '>=', '<=', '=' or a number",
    "comma": "','",
    "closing": "')'",
    "annotation_end": "']'",
    "end": "the end of the expression",
}
EXPECTED_FR: dict[str, str] = {
    "number": "un nombre",
    "term": "un nombre, « d » ou « ( »",
    "d": "« d »",
    "sides": "un nombre de faces ou « % »",
    "h_or_l": "« h » ou « l »",
    "operator": "un opérateur (« + », « - », « * », « / », « % », une comparaison), « # » "
    "ou la fin",
    "modifier": "un modificateur (« kh », « kl », « dh », « dl », « k », « p », « rr », "
    "« ro », « ra », « e », « ! », « mi », « ma », « t », « >= »…)",
    "selector": "« h », « l », « > », « < », « >= », « <= », « = » ou un nombre",
    "comma": "« , »",
    "closing": "« ) »",
    "annotation_end": "« ] »",
    "end": "la fin de l'expression",
}


class NotationError(RulesError):
    """A dice expression that cannot be rolled: where (0-based ``position``) and what would do.

    ``expected`` is a tuple of keys of ``EXPECTED_EN`` for syntax errors; range and limit
    errors carry ``low``/``high``/``limit``/``value`` instead.
    """

    code = "notation_syntax"
    templates_en: ClassVar[dict[str, str]] = {
        "notation_syntax": "expected {expected} at position {position}, found {found}",
        "notation_range": "expected {what} from {low} to {high} at position {position}, "
        "found {value}",
        "too_many_dice": "an expression may roll at most {limit:die|dice}, this one asks for "
        "{value} (at position {position})",
        "too_long": "an expression may be at most {limit} characters long, this one has {value}",
        "modifier_conflict": "{found} cannot be combined with '{other}' (at position {position})",
        "modifier_repeated": "a dice group takes one {found} at most (at position {position})",
        "tiamat_needs_d10": "the Tiamat critical 't' applies to d10 pools only, not d{sides} "
        "(at position {position})",
        "whole_numbers": "dice expressions take whole numbers, not {found} (at position "
        "{position})",
        "division_by_zero": "the number after {found} can be 0, and nothing divides by 0 "
        "(at position {position})",
        "rerolls_forever": "{found} would reroll every face of a d{sides} for ever (at position "
        "{position})",
        "explodes_forever": "{found} would explode every face of a d{sides} for ever (at "
        "position {position})",
        "selector_by_value": "{found} takes a face or a comparison (such as 1 or <3), not 'h' or "
        "'l' (at position {position})",
        "dice_only": "{found} applies to dice, not to a set in parentheses (at position "
        "{position})",
        "too_deep": "an expression may nest at most {limit} parentheses and signs (at position "
        "{position})",
        "too_large": "a value in an expression may reach at most {limit}, this one could go "
        "beyond (at position {position})",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "notation_syntax": "attendu {expected} à la position {position}, trouvé {found}",
        "notation_range": "attendu {what} de {low} à {high} à la position {position}, "
        "trouvé {value}",
        "too_many_dice": "une expression peut lancer au plus {limit:dé|dés}, celle-ci en demande "
        "{value} (à la position {position})",
        "too_long": "une expression fait au plus {limit} caractères, celle-ci en a {value}",
        "modifier_conflict": "{found} ne se combine pas avec « {other} » (à la position "
        "{position})",
        "modifier_repeated": "un groupe de dés prend au plus un {found} (à la position {position})",
        "tiamat_needs_d10": "le critique Tiamat « t » ne s'applique qu'aux réserves de d10, "
        "pas aux d{sides} (à la position {position})",
        "whole_numbers": "une expression de dés prend des nombres entiers, pas {found} (à la "
        "position {position})",
        "division_by_zero": "le nombre après {found} peut valoir 0, et rien ne se divise par 0 "
        "(à la position {position})",
        "rerolls_forever": "{found} relancerait sans fin toutes les faces d'un d{sides} (à la "
        "position {position})",
        "explodes_forever": "{found} ferait exploser sans fin toutes les faces d'un d{sides} (à "
        "la position {position})",
        "selector_by_value": "{found} prend une face ou une comparaison (comme 1 ou <3), pas "
        "« h » ni « l » (à la position {position})",
        "dice_only": "{found} s'applique aux dés, pas à un ensemble entre parenthèses (à la "
        "position {position})",
        "too_deep": "une expression imbrique au plus {limit} parenthèses et signes (à la "
        "position {position})",
        "too_large": "une valeur d'expression atteint au plus {limit}, celle-ci pourrait "
        "dépasser (à la position {position})",
    }
    _what: ClassVar[dict[str, tuple[str, str]]] = {
        "count": ("a number of dice", "un nombre de dés"),
        "sides": ("a number of sides", "un nombre de faces"),
        "keep": ("a number of dice to keep", "un nombre de dés à garder"),
        "drop": ("a number of dice to drop", "un nombre de dés à écarter"),
        "number": ("a number", "un nombre"),
    }

    def __init__(
        self,
        position: int,
        expected: tuple[str, ...] = (),
        found: str | None = None,
        *,
        code: str | None = None,
        **fields: Any,
    ) -> None:
        self.position = position
        self.expected = expected
        self.found = found
        super().__init__(code, position=position, expected=list(expected), found=found, **fields)

    def _format_fields(self, lang: str) -> dict[str, Any]:
        fr = lang == "fr"
        names = EXPECTED_FR if fr else EXPECTED_EN
        words = [names.get(key, key) for key in self.expected]
        joiner = " ou " if fr else " or "
        fields = dict(self.fields)
        fields["expected"] = joiner.join(words)
        if self.found is None:
            fields["found"] = "la fin" if fr else "the end"
        else:
            fields["found"] = f"« {self.found} »" if fr else repr(self.found)
        if "what" in fields:
            fields["what"] = self._what[fields["what"]][1 if fr else 0]
        return fields
