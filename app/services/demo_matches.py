"""Demo matches for the games whose rules package has no ``demo_match`` (yet): Mutatior and
Cyborg, so every demo campaign opens on a match in progress (issue 10, "a newcomer's first
click lands on a living table"). ``app/services/demo.py`` asks the system first, then here.

They are plain ``DemoMatch`` plans, played through the table engine like anyone's actions
with ``SeededDice(seed)``; a step the rules refuse stops the script there (logged). They could
move into ``app/rules/mutatior`` / ``app/rules/cyborg`` as ``demo_match`` methods as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from app.rules.system import DemoMatch, DemoStep


def _move(token: str, x: int, y: int) -> DemoStep:
    return DemoStep({"kind": "move", "token": token, "x": x, "y": y})


def mutatior_demo(character_ids: Mapping[str, int]) -> DemoMatch:
    """The two demo teams (2 t category) on a 60 × 60 cm arena: placed 40 cm apart
    (« Mutatior § 1-3 Terrain et placement »: at least 30 cm from the enemy), the fight
    started (weather, initiative), and the first mutant on the move."""
    return DemoMatch(
        "Le choc des titans", ("Scarabator", "Nurglie", "Grosbaf", "Zetzet", "Cafardor",
                               "Gélatron"),
        steps=(_move("m1", 15, 10), _move("m4", 15, 50), _move("m2", 30, 10),
               _move("m5", 30, 50), _move("m3", 45, 10), _move("m6", 45, 50),
               DemoStep({"kind": "start_fight"}),
               _move("m4", 20, 40)))


def cyborg_demo(character_ids: Mapping[str, int]) -> DemoMatch:
    """A mission under way in a 40 × 30 squares lab: the two cyborgs at the door, the aliens
    at the far end, the guard between them, initiative rolled."""
    return DemoMatch(
        "Le laboratoire", ("KCA-7 Kenji", "KCA-12 Sora", "Pieuvre purulente (alien)",
                           "Alien à visage humain", "Vigile (humain)"),
        steps=(_move("t1", 6, 22), _move("t2", 10, 24), _move("t3", 31, 7),
               _move("t4", 26, 5), _move("t5", 21, 14), DemoStep({"kind": "roll_initiative"})))


DEMO_MATCHES: dict[str, Callable[[Mapping[str, int]], DemoMatch]] = {
    "mutatior": mutatior_demo, "cyborg": cyborg_demo}
