"""The rules: pure Python over plain data, no web, no database, no I/O.

Every rule that rolls takes a ``dice`` argument (see ``app.rules.dice``); nothing here imports
``random`` except ``dice.py``.
"""
