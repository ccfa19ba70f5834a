"""What the Academy gives the season (`Game.result`), worked from the endgame's doctest
(`festival/endgame.py`): Ann 1st and 1st wins alone, Cy 2nd and 2nd is the candidate, Bo's 2 gold
earns a garnet. The three events are hosted by hand, their rankings typed as the doctest's."""

from __future__ import annotations

from dataclasses import replace

from sheets_host.engine.play import default_settings
from sheets_host.festival.event import Placement
from sheets_host.festival.pregame import Preference
from sheets_host.games import get_game
from sheets_host.kit.result import GARNET, TOKEN, Change, Owed

GAME = get_game("academy-of-witchcraft-arts")
BY_HAND = "Alchemy, Elemental Continuum, Summoner's Dream"


def festival(rankings, choice=None):
    """A festival of Cy, Bo and Ann (the Gamewide Tiebreak in that order; then Di if placed) at its
    end, the events' rankings typed by the host; Ann spent 2 garnets on her list."""
    defaults = default_settings(GAME)
    config = {**defaults["config"], "hosted by hand": BY_HAND, "candidate choice": choice}
    players = [p for p in ("Cy", "Bo", "Ann", "Di") if any(x.player == p for r in rankings.values() for x in r)]
    state = GAME.setup(players, 1, config, defaults["data"])
    lists = {p: Preference(*(e for e, r in rankings.items() if any(x.player == p for x in r)), 2 * (p == "Ann"))
             for p in players}
    assignment = {e: tuple(p.player for p in ranking) for e, ranking in rankings.items()}
    return replace(state, round=state.round + 1 + state.plan.rounds, preferences=lists, assignment=assignment,
                   rankings=rankings)


def test_the_sole_winner_gets_two_tokens_and_a_garnet_and_every_garnet_says_why():
    result = GAME.result(festival({
        "alchemy": (Placement("Ann", 1, 9, {"gold held": 0}), Placement("Bo", 2, 5, {"gold held": 2})),
        "summoning": (Placement("Bo", 1, 3), Placement("Cy", 2, 0)),
        "continuum": (Placement("Ann", 1, 8), Placement("Cy", 2, 1))}))
    assert result.winners == ("Ann",) and result.candidates == ("Cy",) and result.owed == ()
    assert [c for c in result.changes if c.what == TOKEN] == [
        Change("Ann", TOKEN, 2, "the sole winner earns two Tokens of Life")]
    earned = {p: sum(c.amount for c in result.changes if c.player == p and c.what == GARNET and c.amount > 0)
              for p in ("Ann", "Bo", "Cy")}
    assert earned == {"Ann": 5, "Bo": 4, "Cy": 2}  # the doctest's garnets
    assert Change("Bo", GARNET, 1, "the most gold left in Alchemy (2 gold)") in result.changes
    assert Change("Ann", GARNET, 1, "the sole winner") in result.changes
    assert Change("Ann", GARNET, -2, "spent on the preference list") in result.changes


def test_a_tie_for_the_worst_is_owed_to_the_sole_winner_until_the_host_types_the_choice():
    # Ann 1st and 1st wins alone; Bo (2nd, 3rd) and Cy (3rd, 2nd) tie on the worst average and the
    # worst single placement: Ann chooses.
    tied = {"alchemy": (Placement("Ann", 1, 9), Placement("Bo", 2, 5), Placement("Cy", 3, 4)),
            "continuum": (Placement("Ann", 1, 8), Placement("Di", 2, 6), Placement("Bo", 3, 1)),
            "summoning": (Placement("Di", 1, 3), Placement("Cy", 2, 0))}
    awaited = GAME.result(festival(tied))
    assert awaited.candidates == () and awaited.owed == (
        Owed(("Ann",), "the Elimination Candidate", ("Bo", "Cy"), "candidate choice"),)
    chosen = GAME.result(festival(tied, choice="Bo"))
    assert chosen.candidates == ("Bo",) and chosen.owed == ()
