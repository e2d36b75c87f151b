"""Tiamat (``shared/seeds/004_027408667edfd8d5.txt``): fighters, d10 pools keeping the best
with criticals, nine martial arts and their techniques, versus duels and beat-them-all brawls."""
