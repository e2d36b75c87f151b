"""The text's mutants, built limb by limb: the two sample sheets (§ Feuilles de mutants) and
the two fighters of its example fight (§ Exemple de combat).

The text prints the sample sheets' totals only (biomass, brain, pump, muscle mass, skill); the
limbs below are house layouts that reach exactly those totals with the house organ and
implant weights. The fighters are as the example describes them.
"""

from __future__ import annotations

from app.rules.mutatior.body import Limb, Mutant


def scarabator() -> Mutant:
    """565 kg, brain 5, pump 12, 310 kg of muscle, Gros tas: a beetle on six legs."""
    legs = [Limb("patte avant gauche", muscles=2, biomoteurs=6)]
    legs += [Limb(name, muscles=count) for name, count in (
        ("patte avant droite", 4), ("patte milieu gauche", 4), ("patte milieu droite", 3),
        ("patte arrière gauche", 3), ("patte arrière droite", 3))]
    return Mutant("Scarabator", (
        Limb("tronc", muscles=9, biomoteurs=6, trunk=True, defensive=("carapace",)),
        Limb("tête", muscles=3, lobes=5, offensive="mandibules"),
        *legs,
    ), skills=("gros_tas",))


def nurglie() -> Mutant:
    """355 kg, brain 1, pump 5, 260 kg of muscle, Obsédé: a blob with two tentacles."""
    return Mutant("Nurglie", (
        Limb("tronc", muscles=7, biomoteurs=5, trunk=True),
        Limb("tête", muscles=5, lobes=1),
        Limb("tentacule gauche", muscles=5, tentacle=True, special="ventouses"),
        Limb("tentacule droit", muscles=5, tentacle=True, special="ventouses"),
        Limb("queue", muscles=4),
    ), skills=("obsede",))


def grosbaf(skills: tuple[str, ...] = ("chouchou_du_public",)) -> Mutant:
    """§ Exemple de combat: Patom's horned yeti — 7 muscles and a horn in the head, claws in
    the left arm, pump 6. The text gives him no skill: house, Chouchou du public (one that
    changes nothing in the example's exchange)."""
    return Mutant("Grosbaf", (
        Limb("tronc", muscles=7, biomoteurs=6, trunk=True),
        Limb("tête", muscles=7, lobes=1, offensive="corne"),
        Limb("bras gauche", muscles=6, offensive="griffes"),
        Limb("bras droit", muscles=6),
        Limb("jambe gauche", muscles=6),
        Limb("jambe droite", muscles=6),
    ), skills=skills)


def zetzet() -> Mutant:
    """§ Exemple de combat: Yetzar's blue cobra — 6 muscles in the torso (its trunk), 5 in the
    head, pump 8."""
    return Mutant("Zetzet", (
        Limb("torse", muscles=6, biomoteurs=4, trunk=True),
        Limb("tête", muscles=5, lobes=3),
        Limb("queue", muscles=4, biomoteurs=4),
    ), skills=("mimetisme",))
