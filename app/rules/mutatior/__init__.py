"""Mutatior — le choc des titans (seed ``000_e34df4ff7a8d792c.txt``).

The pure rules core: ``body`` builds and checks a mutant (limbs full of organs, derived
values); ``combat`` plays the text's dice (pump roll, initiative, melee, shooting, damage,
death); ``arena`` the weather, movement, crowd events, the sponge and re-rolls; ``skills`` the
skills' fight effects and the tentacle's grip; ``campaign`` what happens between fights (XP,
biomass, care, bets), ``changes`` how a player may change a saved mutant between fights
(``validate_change``). The Tablée system: ``system`` (registered as ``mutatior``) with its
sheet (``sheet``) and the arena fight at the table (``match``, ``match_state``, ``match_fight``,
``match_arena``). How it plays: docs/games/mutatior.md.
"""
