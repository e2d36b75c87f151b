"""What a token says on the board (issue 23), game by game: its health and states, dead or out
of the fight, how far it may still move, why one's own cannot move now, the figure drawn on
it; and the board's drawing of them (ring, badges, words for a screen reader, rulers). The
browser side (names apart, the reach while dragging, a tap's answer) is in
tests/e2e/test_board_tokens.py."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from app.i18n import set_locale
from app.rules.match import Actor
from app.web import board_tokens
from app.web.table_view import fragment, state_context

GM = Actor(user_id=1, is_gm=True)


@pytest.fixture(autouse=True)
def french():
    set_locale("fr")
    yield
    set_locale("en")


def limb(name: str, *, m: int = 0, b: int = 0, l: int = 0, lost_l: int = 0,  # noqa: E741
         trunk: bool = False) -> dict:
    return {"name": name, "trunk": trunk, "muscles": m, "biomoteurs": b, "lobes": l,
            "lost_muscles": 0, "lost_biomoteurs": 0, "lost_lobes": lost_l}


def mutatior_state(lost_lobes: int = 0, status: str = "in") -> dict:
    body = {"limbs": [limb("tronc", m=4, b=2, trunk=True), limb("tête", l=2, lost_l=lost_lobes)],
            "skills": [], "xp": 0, "fame": 0, "frenzy": None}
    return {"tokens": {"m1": {"id": "m1", "name": "Grosbaf", "kind": "mutant", "status": status,
                              "x": 10, "y": 10}},
            "bodies": {"m1": body}, "booed": {}, "angry": [], "grips": [], "order": ["m1"],
            "board": {"unit": "cm", "width": 60, "height": 60, "terrain": []}}


def test_free_play_reads_hit_points_and_the_gm_s_words():
    token = {"id": "t1", "hp": 4, "hp_max": 12, "statuses": "empoisonné, à terre"}
    vitals = board_tokens.vitals("libre", {}, token)
    assert (vitals.health, vitals.band, vitals.condition) == (4 / 12, "low", "out")
    assert vitals.summary == "points de vie 4 / 12, hors de combat, empoisonné"
    dead = board_tokens.vitals("libre", {}, {**token, "statuses": "Mort"})
    assert (dead.condition, dead.condition_text) == ("dead", "mort")
    assert board_tokens.vitals("libre", {}, {**token, "hp": 0, "statuses": ""}).condition == "out"
    assert board_tokens.vitals("libre", {}, {**token, "hp": 12, "statuses": ""}).band == "high"


def test_mutatior_reads_the_organs_and_dies_without_a_lobe():
    """§ 1-5 Dégâts: the ring shows the organ kind nearest to running out (1 lobe of 2)."""
    hurt = board_tokens.vitals("mutatior", mutatior_state(1), {"id": "m1", "status": "in"})
    assert (hurt.health, hurt.condition) == (0.5, "ok")
    assert hurt.health_text == "cerveau 1 · pompe 2 · muscles 4"
    dead = board_tokens.vitals("mutatior", mutatior_state(2), {"id": "m1", "status": "in"})
    assert (dead.health, dead.condition, dead.condition_text) == (0.0, "dead", "mort")
    out = board_tokens.vitals("mutatior", mutatior_state(0, "out"), {"id": "m1", "status": "out"})
    assert (out.condition, out.condition_text) == ("out", "sorti (éponge)")


def test_cyborg_reads_sante_and_its_states():
    token = {"id": "t1", "sante": -3, "sante_max": 30, "states": ["unconscious"],
             "lost_limbs": ["left_arm"], "broken_limbs": [], "poisoning": None}
    down = board_tokens.vitals("cyborg", {}, token)
    assert (down.health, down.condition) == (0.0, "out")
    assert down.summary == "santé -3 / 30, inconscient, perdu : bras gauche"
    dead = board_tokens.vitals("cyborg", {}, {**token, "states": ["dead"]})
    assert (dead.condition, dead.condition_text) == ("dead", "mort")


def test_chasse_reads_wounds_against_mass():
    """§ Les blessures: a figure takes as many wounds as its mass."""
    boar = {"id": "t4", "kind": "prey", "masse": 3, "wounds": 1, "state": "ok"}
    assert board_tokens.vitals("chasse", {}, boar).health == pytest.approx(2 / 3)
    carcass = board_tokens.vitals("chasse", {}, {**boar, "wounds": 3, "state": "dead",
                                                 "food": 3})
    assert carcass.condition == "dead" and carcass.statuses == ("3 unités à dépecer",)
    assert board_tokens.vitals("chasse", {}, {**boar, "state": "gone"}).condition == "out"
    assert board_tokens.vitals("chasse", {}, {**boar, "state": "burning"}).statuses[0] \
        == "en feu"


def test_reach_is_what_the_turn_leaves():
    mutatior = {"phase": "fight", "activation": {"token": "m1", "allowance": 16, "moved": 11.2}}
    assert board_tokens.reach("mutatior", mutatior, {"id": "m1"}) == 4.8
    assert board_tokens.reach("mutatior", mutatior, {"id": "m2"}) is None
    hunter = {"id": "t1", "kind": "hunter", "dmax": 6, "spent": 4.47, "charged": False}
    assert board_tokens.reach("chasse", {}, hunter) == 1.53
    assert board_tokens.reach("chasse", {}, {**hunter, "charged": True}) is None
    assert board_tokens.reach("cyborg", {}, {"id": "t1"}) is None  # no limit in the rules


def test_why_one_s_own_token_cannot_move_now():
    state = {"phase": "fight", "turn": "m4", "activation": {"token": "m4"},
             "tokens": {"m1": {"name": "Scarabator"}, "m4": {"name": "Zetzet"}},
             "free_attacks": [{"by": "m1", "against": "m4", "left": 2}]}
    assert board_tokens.why_still("mutatior", state, {"id": "m1", "name": "Scarabator"}, "ok") \
        == ("Scarabator ne se déplace qu'à son tour ; 2 attaques gratuites sur Zetzet "
            "l'attendent : voir les actions.")
    calm = {**state, "free_attacks": []}
    assert board_tokens.why_still("mutatior", calm, {"id": "m1", "name": "Scarabator"}, "ok") \
        == "C'est au tour de Zetzet : Scarabator se déplace à son propre tour."
    assert board_tokens.why_still("chasse", {"status": "running", "step": 2, "active": 0,
                                             "sides": [{"id": "s1"}]},
                                  {"id": "t1", "name": "Ourk", "kind": "hunter", "side": "s1"},
                                  "ok") \
        == "Les chasseurs se déplacent à l'étape 4 du tour ; nous sommes à l'étape 2."
    assert board_tokens.why_still("cyborg", {}, {"id": "t1", "name": "Kenji"}, "dead") \
        == "Kenji n'est plus en vie."


def test_figures_for_the_demo_s_characters_and_the_creatures():
    assert board_tokens.figure("chasse", {"kind": "prey", "species": "sanglier",
                                          "name": "Sanglier"}) == "img/figures/chasse/sanglier.svg"
    assert board_tokens.figure("mutatior", {"kind": "chicken", "name": "poulet"}) \
        == "img/figures/mutatior/poulet.svg"
    assert board_tokens.figure("libre", {"name": "Aldo le Rôdeur"}) \
        == "img/figures/libre/rodeur.svg"
    assert board_tokens.figure("libre", {"name": "Quelqu'un d'autre"}) is None


def test_every_figure_named_is_shipped():
    from app.web.templating import STATIC_DIR

    keys = {(system, name) for system, names in board_tokens.DEMO_FIGURES.items()
            for name in names.values()}
    keys |= {(system, name) for system, names in board_tokens.KIND_FIGURES.items()
             for name in names.values()}
    keys |= {("chasse", species) for species in board_tokens.CHASSE_SPECIES}
    for system, name in keys:
        assert (STATIC_DIR / f"img/figures/{system}/{name}.svg").is_file(), (system, name)


def test_rulers_number_an_edge_a_dozen_times_at_most():
    assert board_tokens.ruler({"width": 60, "height": 60}, 10)["xs"] == [0, 10, 20, 30, 40, 50,
                                                                        60]
    wide = board_tokens.ruler({"width": 48, "height": 36}, 1)
    assert wide["step"] == 5 and wide["ys"][-1] == 35


def test_the_board_draws_health_and_marks_the_dead_in_words_and_shapes():
    html = fragment("matches/_board_svg.html", state_context(
        mutatior_state(2), system_key="mutatior", seq=1, actor=GM))
    token = BeautifulSoup(html, "html.parser").select_one("#token-m1")
    assert "is-dead" in token["class"]
    assert token.select_one(".badge-dead") is not None
    assert token.select_one(".dead-cross") is not None
    assert token.select_one(".health")["stroke-dasharray"].startswith("0.000 ")
    assert token["aria-label"] == "Grosbaf en 10, 10 — cerveau 0 · pompe 2 · muscles 4, mort"
    assert token.select_one("title").get_text() == ("Grosbaf\n"
                                                    "cerveau 0 · pompe 2 · muscles 4, mort")
    assert token["data-still"] == "Grosbaf n'est plus en vie."
    alive = BeautifulSoup(fragment("matches/_board_svg.html", state_context(
        mutatior_state(1), system_key="mutatior", seq=1)), "html.parser").select_one("#token-m1")
    assert "is-dead" not in alive["class"] and alive.select_one(".token-badge") is None
