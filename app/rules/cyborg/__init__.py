"""``cyborg``: Cyborg Anti-Alien (``shared/seeds/001_616c5a18be6336a5.txt``).

The pure rules core — the sheet (``sheet``), the tests (``tests``), damage and wounds
(``damage``) and the content in ``data/*.toml`` (``content``). Not registered as a game yet:
the match methods, sheet form and pages come in a later session (docs/games/cyborg.md).
"""

SEED_FILE = "001_616c5a18be6336a5.txt"
