"""bench/calibrate_ratings.py: every family has a preset to stand for it, played as two sides (the
trains games: one seat per level), and a double-nine side of two seats is rated as a team of two."""

from __future__ import annotations

from api.bots import LEVELS
from api.rules import resolve_rules
from api.rules.vocabulary import Family
from api.services.ratings import MODEL
from bench import calibrate_ratings as calibrate


def test_every_family_is_calibrated_on_a_preset_of_its_own_family_played_by_two_sides():
    assert set(calibrate.PRESET_OF) == set(Family)
    for family, (preset, players) in calibrate.PRESET_OF.items():
        rules = resolve_rules(preset, {}, players)
        assert rules.family is family
        assert rules.sides == (len(LEVELS) if rules.trains is not None else 2), family
    assert calibrate.PRESET_OF[Family.DOUBLE_NINE] == ("double-nine-partners", 4)


def test_a_double_nine_side_moves_as_a_team_of_two_of_one_level():
    won = [("double_nine", 0, ("expert", "greedy"), (0, 1))]  # (family, seed, levels by side, ranks)
    fitted = calibrate.filtered(won)["double_nine"]
    teams = [[MODEL.rating(), MODEL.rating()], [MODEL.rating(), MODEL.rating()]]
    (winner, _), (loser, _) = MODEL.rate(teams, ranks=[0, 1], tau=0)
    assert fitted["expert"] == (winner.mu, winner.sigma) and fitted["greedy"] == (loser.mu, loser.sigma)
    assert fitted["expert"][0] > MODEL.mu > fitted["greedy"][0]
    alone = calibrate.filtered([("block", 0, ("expert", "greedy"), (0, 1))])["block"]
    assert alone["expert"] != fitted["expert"]  # one seat a side moves otherwise
    assert set(fitted) == set(LEVELS)
