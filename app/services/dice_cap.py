"""A campaign's cap on the dice of one roll (issue 10: "1000d6" flooded the journal).

The GM sets it on the campaign's edit page (``Campaign.dice_cap``; ``None`` means
``DEFAULT_DICE_CAP``), between 1 and the dice notation's own limit. It is applied wherever
the server rolls for a member — an action at a table (``tables.apply_action``), and an
expression typed in the free roller or after ``/r`` in the chat (``rolls.roll_typed``) — by
wrapping the injected dice: the rules stay pure and unaware of it.
An action counts all the dice it throws; going over refuses it with a message in the user's
language, and nothing is stored. A dice expression counts the dice it asks for, before any
is thrown (``reserve``, called by ``app.rules.notation.roll``); the dice its rerolls and
explosions add are bounded by the notation itself (docs/dice.md § Limits and errors).
"""

from __future__ import annotations

from app.errors import ValidationFailed
from app.i18n import lazy_gettext as _l
from app.rules.dice import Dice
from app.rules.notation import MAX_DICE

DEFAULT_DICE_CAP = 100
MAX_DICE_CAP = MAX_DICE


def cap_of(campaign: object) -> int:
    value = getattr(campaign, "dice_cap", None)
    return value if isinstance(value, int) and 1 <= value <= MAX_DICE_CAP else DEFAULT_DICE_CAP


class CappedDice:
    """``dice`` that refuses to throw more than ``cap`` dice in all (one action, one roll)."""

    def __init__(self, dice: Dice, cap: int) -> None:
        self.dice, self.cap, self.thrown = dice, cap, 0

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        self._count(count)
        return self.dice.roll(sides, count=count)

    def reserve(self, count: int) -> Dice:
        """The ``count`` dice of an expression, counted before any is thrown; the dice it
        then throws (rerolls and explosions too) are not counted again."""
        self._count(count)
        return self.dice

    def _count(self, count: int) -> None:
        if self.thrown + count > self.cap:
            raise ValidationFailed(
                _l("This roll asks for %(n)s dice; this campaign allows at most %(cap)s dice "
                   "per roll (the GM can change it in the campaign's settings).",
                   n=self.thrown + count, cap=self.cap),
                field="expression", code="too_many_dice")
        self.thrown += count


def capped(dice: Dice, campaign: object) -> Dice:
    return CappedDice(dice, cap_of(campaign))


def check_cap(value: object) -> int | None:
    """A cap typed on the edit page: blank is the default; else a whole number in range."""
    text = str(value or "").strip()
    if not text:
        return None
    if not text.isdigit() or not 1 <= int(text) <= MAX_DICE_CAP:
        raise ValidationFailed(_l("The dice per roll is a whole number from 1 to %(max)s.",
                                  max=MAX_DICE_CAP), field="dice_cap")
    return int(text)
