"""Chasse préhistorique (seed ``003_17f6fe9f5d5d7b1b.txt``): hunters against prey that move
by themselves. See ``system.py``."""
