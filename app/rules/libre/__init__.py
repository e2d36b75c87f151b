"""``libre``: free play for any game — a token with hit points, counters and free notes."""

from app.rules.libre.system import LIBRE

__all__ = ["LIBRE"]
