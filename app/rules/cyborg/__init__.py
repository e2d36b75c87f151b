"""``cyborg``: Cyborg Anti-Alien, registered as a game in ``system.py``.

The pure rules — the sheet (``sheet``), skill and characteristic checks (``checks``), combat
and damage (``combat``, ``damage``), chases, poisons, progression, the match (``match*``) —
and the content in ``data/*.toml`` (``content``); docs/games/cyborg.md says how it plays.
"""
