"""The text's two sample mutants (§ Feuilles de mutants), built limb by limb.

The text prints their totals only (biomass, brain, pump, muscle mass, skill); the limbs below
are house layouts that reach exactly those totals with the house organ and implant weights.
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
