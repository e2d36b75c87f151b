"""Mutatior's arena: weather, movement, the crowd's events, the sponge, stopping, re-rolls."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.rules.dice import Modifier, ScriptedDice
from app.rules.mutatior.arena import (
    EVENTS,
    SPOTLIGHT,
    WEATHERS,
    Chicken,
    IllegalArena,
    Rerolls,
    boo,
    boo_tick,
    both_stop,
    buy_rerolls,
    can_hit,
    cheerleader_body,
    cheerleader_climbs,
    cheerleader_killed,
    chicken_prize,
    chicken_walk,
    initiative_modifiers,
    move,
    movement_factor,
    natural_seven,
    police_check,
    pump_modifiers,
    roll_weather,
    saturday_crowd,
    shot_modifiers,
    slow_motion_xp,
    throw_sponge,
    try_event,
)
from app.rules.mutatior.body import Limb, Mutant
from app.rules.mutatior.combat import clash, initiative, pump_roll, shoot
from app.rules.mutatior.samples import nurglie, scarabator


def runner(*skills: str, pump: int = 6) -> Mutant:
    return Mutant("Filou", (
        Limb("tronc", muscles=4, biomoteurs=pump, trunk=True),
        Limb("tête", muscles=2, lobes=2),
        Limb("jambe", muscles=3),
    ), skills=skills or ("voleur",))


def test_weather_is_one_d6_with_six_faces() -> None:
    assert [WEATHERS[face].key for face in range(1, 7)] == [
        "gel", "neige", "pluie", "brume", "beau_temps", "canicule"]
    rolled = roll_weather(ScriptedDice([3]))
    assert rolled.weather.key == "pluie" and rolled.record.outcome == "Pluie"


def test_canicule_and_an_angry_coquet_read_plus_on_a_pump_roll_the_same_way() -> None:
    """"+1 à leurs jets de pompe" (canicule) and "+2 à tous ses jets de pompe" (Coquet) are
    both added to the dice, like § 1-6's "+1 au dé par membre mort": harder."""
    from app.rules.mutatior.skills import ANGRY

    hot = pump_modifiers(WEATHERS[6], runner())
    assert (hot[0].value, ANGRY.value) == (1, 2)
    # Pump 6: 2 + 3 = 5 succeeds; + 1 (heat) = 6 still does; + 2 (angry) = 7 does not.
    assert pump_roll(runner(), ScriptedDice([2, 3])).success
    assert pump_roll(runner(), ScriptedDice([2, 3]), modifiers=hot).success
    angry = pump_roll(runner(), ScriptedDice([2, 3]), modifiers=[ANGRY])
    assert not angry.success and angry.record.total == 7
    both = pump_roll(runner(), ScriptedDice([1, 2]), modifiers=[*hot, ANGRY])
    assert both.record.total == 6 and both.success


def test_canicule_makes_pump_rolls_harder_for_everyone() -> None:
    hot = WEATHERS[6]
    mods = pump_modifiers(hot, runner())
    assert mods == (Modifier(1, "canicule"),)
    # 3 + 3 = 6 is a success on a pump of 6, but not with the heat.
    assert not pump_roll(runner(), ScriptedDice([3, 3]), modifiers=mods).success
    assert pump_modifiers(WEATHERS[5], runner()) == ()


def test_rain_bogs_down_heavy_creatures_unless_used_to_wet_places() -> None:
    rain = WEATHERS[3]
    heavy = scarabator()  # 565 kg
    assert initiative_modifiers(rain, heavy) == (Modifier(-1, "pluie"),)
    assert initiative_modifiers(rain, nurglie()) == ()  # 355 kg
    wet = replace(heavy, skills=("milieux_humides",))
    assert initiative_modifiers(rain, wet) == ()
    order = initiative([heavy], ScriptedDice([4]),
                       modifiers={heavy.name: initiative_modifiers(rain, heavy)})
    assert order.rolls[0].total == 4 + 5 - 1


def test_rain_weighs_what_the_creature_weighs_now() -> None:
    """"Plus de 400 kg": the living mass. Scarabator was built at 565 kg; with 17 muscles lost
    (170 kg) it weighs 395 kg and no longer sinks, though its sheet still says 565."""
    rain = WEATHERS[3]
    beetle = scarabator()
    for name, lost in (("tronc", 9), ("patte avant droite", 4), ("patte milieu gauche", 4)):
        beetle = beetle.with_limb(replace(beetle.limb(name), lost_muscles=lost))
    assert (beetle.biomass, beetle.live_biomass) == (565, 395)
    assert initiative_modifiers(rain, beetle) == ()
    heavier = beetle.with_limb(replace(beetle.limb("tronc"), lost_muscles=8))
    assert heavier.live_biomass == 405
    assert initiative_modifiers(rain, heavier) == (Modifier(-1, "pluie"),)


def test_mist_spoils_shots_unless_used_to_wet_places() -> None:
    mist = WEATHERS[4]
    assert shot_modifiers(mist, runner()) == (Modifier(-1, "brume"),)
    assert shot_modifiers(mist, runner("milieux_humides")) == ()
    # A natural 2 becomes 1 in the mist: a miss.
    shot = shoot(runner(), "tronc", nurglie(), ScriptedDice([2]), aimed_limb="tête",
                 modifiers=shot_modifiers(mist, runner()))
    assert shot.outcome == "miss"


def test_snow_slows_unless_resisting_the_cold() -> None:
    snow = WEATHERS[2]
    assert movement_factor(snow, runner()) == 1.5
    assert movement_factor(snow, runner("resistance_froid")) == 2
    assert move(runner(pump=5), snow, ScriptedDice([])).distance_cm == 7.5


def test_move_and_sprint() -> None:
    fine = WEATHERS[5]
    assert move(runner(), fine, ScriptedDice([])).distance_cm == 12
    sprint = move(runner(), fine, ScriptedDice([2, 3]), sprint=True)
    assert (sprint.moves, sprint.distance_cm) == (2, 24)
    failed = move(runner(), fine, ScriptedDice([4, 3]), sprint=True)
    assert (failed.moves, failed.distance_cm, failed.natural_sevens) == (1, 12, 1)


def test_sprint_infarctus_costs_a_biomoteur() -> None:
    result = move(runner(), WEATHERS[5], ScriptedDice([6, 6]), sprint=True)
    assert result.moves == 1 and result.mutant.live_pump == 5


def test_coureur_effrene_third_move_and_its_price() -> None:
    fine = WEATHERS[5]
    three = move(runner("coureur_effrene"), fine, ScriptedDice([1, 2, 2, 2]), sprint=True,
                 third=True)
    assert (three.moves, three.distance_cm) == (3, 36)
    missed = move(runner("coureur_effrene"), fine, ScriptedDice([1, 2, 5, 5]), sprint=True,
                  third=True)
    assert missed.moves == 2 and missed.mutant.live_pump == 5
    # Without the skill, no third move is even tried.
    plain = move(runner(), fine, ScriptedDice([1, 2]), sprint=True, third=True)
    assert plain.moves == 2


def test_frost_may_make_a_double_mover_fall() -> None:
    frost = WEATHERS[1]
    stands = move(runner(), frost, ScriptedDice([1, 2, 4]), sprint=True)
    assert stands.fall is not None and stands.fall_report is None
    # Falls (1), the random limb is the 3rd of 3 (the leg), 2 damage.
    falls = move(runner(), frost, ScriptedDice([1, 2, 1, (3, 3), 2]), sprint=True)
    assert falls.fall_report is not None and falls.fall_report.limb == "jambe"
    assert falls.mutant.limb("jambe").live_muscles == 1
    cold_proof = move(runner("resistance_froid"), frost, ScriptedDice([1, 2]), sprint=True)
    assert cold_proof.fall is None


def test_natural_seven_only_on_two_d6() -> None:
    assert natural_seven(pump_roll(runner(), ScriptedDice([3, 4])).record)
    assert not natural_seven(pump_roll(runner(), ScriptedDice([3, 3])).record)


def test_the_eight_events_and_their_difficulty() -> None:
    assert {key: e.difficulty for key, e in EVENTS.items()} == {
        "jet_de_canette": 9, "sortie_du_samedi": 8, "huee": 10, "lancer_de_poulet": 7,
        "chute_de_pom_pom_girl": 10, "controle_de_police": 9, "ralenti": 6, "projecteur": 6}


def test_each_failed_try_adds_one_to_the_dice_of_the_next_and_twelve_always_wins() -> None:
    """"Rajoutez +1 au dé à chaque fois que vous voulez retenter un événement": the dice, not
    the difficulty, which stays the event's."""
    first = try_event("ralenti", ScriptedDice([2, 3]))
    assert not first.success and first.record.target == 6
    retry = try_event("ralenti", ScriptedDice([2, 3]), earlier_failures=1)
    assert retry.success and (retry.record.total, retry.record.target) == (6, 6)
    assert retry.record.modifiers == (Modifier(1, "nouvelle tentative"),)
    third = try_event("huee", ScriptedDice([4, 3]), earlier_failures=2)
    assert not third.success and third.record.total == 9  # 7 + 2 against 10
    assert try_event("huee", ScriptedDice([6, 6])).success
    with pytest.raises(IllegalArena):
        try_event("pluie_de_grenouilles", ScriptedDice([]))


def test_can_hits_the_head() -> None:
    hit = can_hit(nurglie(), "tête", ScriptedDice([2, 4]))
    assert hit.hit and hit.report is not None and hit.report.limb == "tête"
    assert hit.mutant is not None and hit.mutant.limb("tête").live_muscles == 1
    assert not can_hit(nurglie(), "tête", ScriptedDice([1])).hit
    hidden = replace(nurglie(), skills=("mimetisme",))
    assert can_hit(hidden, "tête", ScriptedDice([2, 1])).hit  # 2 + 7 = 9: Mimétisme is hit


def test_saturday_crowd_best_roll_to_the_trigger() -> None:
    crowd = saturday_crowd(ScriptedDice([1, 2, 5, 6]))
    assert (crowd.trigger_kg, crowd.other_kg) == (11, 3)


def test_boos_send_back_for_two_turns_without_the_sponge() -> None:
    with pytest.raises(IllegalArena):
        boo(runner(), withdrawn=False)
    booed = boo(runner(), withdrawn=True)
    with pytest.raises(IllegalArena):
        throw_sponge(runner(), nurglie(), ScriptedDice([]), in_contact=True, booed=booed)
    after_one = boo_tick(booed)
    assert after_one is not None and after_one.turns_left == 1
    assert boo_tick(after_one) is None


def test_the_chicken_walks_to_the_centre_and_back() -> None:
    chicken = Chicken()
    assert chicken.position_cm == -30
    chicken, record = chicken_walk(chicken, ScriptedDice([6, 6]))
    assert chicken.position_cm == -18 and record.total == 12
    chicken, _ = chicken_walk(chicken, ScriptedDice([6, 6]))
    assert chicken.position_cm == -6
    chicken, _ = chicken_walk(chicken, ScriptedDice([5, 5]))
    assert chicken.position_cm == 4  # it overshot the centre
    chicken, _ = chicken_walk(chicken, ScriptedDice([1, 2]))
    assert chicken.position_cm == 1  # and walks back towards it


def test_the_chicken_defends_with_one_muscle_and_pays_3d6() -> None:
    fight = clash(runner(), "jambe", Chicken().body, "poulet", ScriptedDice([1, 4]))
    assert fight.defence.total == 5 and fight.winner == "defender"
    assert chicken_prize(ScriptedDice([1, 2, 3])).total == 6


def test_the_cheerleader_three_muscles_climbs_on_six_and_gives_fame() -> None:
    fight = clash(runner(), "jambe", cheerleader_body(), "pom-pom girl", ScriptedDice([6, 1]))
    assert fight.defence.total == 4
    assert cheerleader_climbs(ScriptedDice([6])).outcome == "sortie"
    assert cheerleader_climbs(ScriptedDice([5])).outcome == "reste"
    assert cheerleader_killed(runner()).popularity == 2


def test_police_slow_motion_spotlight() -> None:
    assert police_check(ScriptedDice([2, 3])).total == 5
    assert slow_motion_xp(True, False) == 1 and slow_motion_xp(False, False) == 0
    assert SPOTLIGHT.value == -4


def test_throwing_in_the_sponge() -> None:
    victim, enemy = runner(), nurglie()  # brains 2 and 1
    free = throw_sponge(victim, enemy, ScriptedDice([]), in_contact=False)
    assert free.unharmed and free.rolls == ()
    # Enemy 3 + 1 = 4, victim 2 + 2 = 4: ≥, it leaves unharmed.
    assert throw_sponge(victim, enemy, ScriptedDice([3, 2]), in_contact=True).unharmed
    lost = throw_sponge(victim, enemy, ScriptedDice([6, 1]), in_contact=True, give="jambe")
    assert not lost.unharmed and lost.given is not None and lost.given.name == "jambe"
    with pytest.raises(IllegalArena):
        throw_sponge(victim, enemy, ScriptedDice([]), in_contact=True, give="aile")


def test_faire_pitie_helps_only_the_lighter() -> None:
    light = runner("faire_pitie")
    pity = throw_sponge(light, scarabator(), ScriptedDice([2, 2]), in_contact=True)
    # Scarabator 2 + 5 = 7; the runner 2 + 2 + 2 = 6: still short.
    assert pity.rolls[1].total == 6 and not pity.unharmed
    heavy = replace(scarabator(), skills=("faire_pitie",))
    assert throw_sponge(heavy, light, ScriptedDice([2, 2]), in_contact=True).rolls[1].total == 7


def test_both_trainers_stop() -> None:
    dead = replace(runner(), name="Mort", limbs=(replace(runner().limbs[0], lost_biomoteurs=6),
                                                 *runner().limbs[1:]))
    left = both_stop([replace(runner(), xp=3), replace(nurglie(), xp=0), dead])
    assert [(m.name, m.xp) for m in left] == [("Filou", 2), ("Nurglie", 0)]


def test_free_and_bought_rerolls() -> None:
    pool = Rerolls(free=1, bought=frozenset({"Filou"}))
    pool = pool.spend("Filou")
    assert pool == Rerolls(free=1)
    pool = pool.spend("Nurglie")
    with pytest.raises(IllegalArena):
        pool.spend("Nurglie")
    team = [scarabator(), nurglie()]
    assert buy_rerolls(team, ["Nurglie"])[1] == 36  # 10 % of 355, rounded up
    assert buy_rerolls(team, ["Nurglie", "Scarabator"])[1] == 50  # 36 + 57 > 50
    with pytest.raises(IllegalArena):
        buy_rerolls(team, ["Zorglub"])
