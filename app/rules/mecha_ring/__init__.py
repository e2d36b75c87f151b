"""Mecha-Ring (seed ``002_4824fb48e45db48f.txt``): a card and dice tournament of Combatanks.

``content`` loads the house card set (the text prints none); ``robot`` the pure rules of a
Combatank and its dice; ``sheet`` a team's sheet; ``setup`` the tournament's set-up; ``match``
the state, the fold and the view; ``actions`` ``decide``; ``forms`` ``legal_actions``;
``system`` the Tablée system (registered as ``mecha_ring``). How it plays:
docs/games/mecha_ring.md.
"""
