"""A note in a match's log, the same in every game: its text, and who reads it.

The GM may keep a note for the GM alone (``gm_only``: the event's visibility is ``gm``). A
player may not — a player's note is read by the whole table — so a player asking for it is
refused, with the reason, rather than published to everyone without a word (issue 22); to
tell the GM alone, a player whispers in the chat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app.rules.action_fields import flag, text_field
from app.rules.match import Actor, Event, IllegalAction


class NoteRefused(IllegalAction):
    templates_en: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_en,
        "gm_only_note": "only the GM may keep a note for the GM alone: a player's note is "
                        "read by everyone (to tell the GM alone, whisper to them in the chat)",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_fr,
        "gm_only_note": "seul le MJ peut garder une note pour le MJ seul : la note d'un "
                        "joueur est lue par tous (pour ne le dire qu'au MJ, chuchotez-le-lui "
                        "dans la discussion)",
    }


def note_event(action: Mapping[str, Any], actor: Actor, *, max_length: int) -> Event:
    """The ``note_added`` event of a ``note`` action (``text``, and ``gm_only`` for the GM)."""
    gm_only = flag(action, "gm_only")
    if gm_only and not actor.is_gm:
        raise NoteRefused("gm_only_note")
    text = text_field(action, "text", max_length, multiline=True)
    return Event("note_added", {"text": text, "by": actor.user_id},
                 visibility="gm" if gm_only else "public")
