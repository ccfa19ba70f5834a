"""What each game takes from the season (`season/takes.py`), from Season values: the rulings of
docs/season.md, each a test."""

from __future__ import annotations

import pytest

from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.result import ELIMINATION, GARNET, MAIN_MATCH, POWER_OF_DARK, POWER_OF_LIGHT, TOKEN
from sheets_host.season.ledger import BY_HOST, BY_RESULT, Entry
from sheets_host.season.state import TOKEN_SEASON, Season, SeasonGame, SeasonSettings, Settlement
from sheets_host.season.takes import expiring, making

CAST = ("Ann", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal", "Ivy")
TIEBREAK = ("Hal", "Bo", "Ann", "Cy", "Di", "Ed", "Fay", "Gus", "Ivy")


def entry(n: int, player: str, what: str, amount: int, game: str = "1", by: str = BY_RESULT) -> Entry:
    return Entry(n, "2026-11-22 12:00:00 UTC", game, "endgame", player, what, amount, "why", by)


def main_match(number: str, winners=("Ann",), candidates=("Di", "Ed")) -> SeasonGame:
    return SeasonGame(number, "magicians-market", MAIN_MATCH, f"games/{number}", "xlsx", CAST, 1, "made", {},
                      Settlement("at", True, winners, candidates))


def a_season(entries=(), games=(), **settings) -> Season:
    return Season("Larks", 1, CAST, SeasonSettings(tiebreak=TIEBREAK, **settings), tuple(games), tuple(entries))


def test_wind_guide_me_takes_the_power_holders_among_its_players_from_the_ledger():
    held = a_season([entry(1, "Bo", POWER_OF_LIGHT, 1, "", BY_HOST), entry(2, "Cy", POWER_OF_DARK, 1, "", BY_HOST),
                     entry(3, "Ed", POWER_OF_LIGHT, 1, "", BY_HOST), entry(4, "Ed", POWER_OF_LIGHT, -1, "2")])
    made = making(held, "wind-guide-me", ["Ann", "Bo", "Cy", "Di", "Fay", "Gus", "Hal"])
    assert made.settings == {"light holders": "Bo", "dark holders": "Cy"}  # Ed used theirs
    assert set(made.given) == {"light holders", "dark holders"}


def test_the_academy_takes_each_players_garnets_and_the_gamewide_tiebreak_among_its_players():
    held = a_season([entry(1, "Ann", GARNET, 3), entry(2, "Bo", GARNET, 1), entry(3, "Ann", GARNET, -1, "2")])
    made = making(held, "academy-of-witchcraft-arts", ["Ann", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal", "Ivy"])
    assert made.settings["garnets"] == "Ann: 2, Bo: 1, " + ", ".join(f"{p}: 0" for p in CAST[2:])
    assert made.settings["gamewide tiebreak"] == ", ".join(TIEBREAK)


def test_pyramid_takes_its_red_meadow_from_the_eliminated_last_and_the_previous_winner_for_a_three_way_tie():
    out = [entry(i, p, ELIMINATION, 1, str(i + 1)) for i, p in enumerate(("Fay", "Gus", "Hal", "Ivy"), 1)]
    games = [main_match("1", winners=("Bo",))]
    held = a_season(out + [entry(5, "Bo", GARNET, 4)], games)
    made = making(held, "pyramid-superiority", ["Ann", "Bo", "Cy"], green=["Xan", "Yu", "Zoe"])
    assert made.players == ("Ann", "Bo", "Cy", "Gus", "Hal", "Ivy", "Xan", "Yu", "Zoe")
    assert made.season_players == ("Ann", "Bo", "Cy")
    assert made.settings["red meadow"] == "Gus, Hal, Ivy" and made.settings["garnets"] == "Ann: 0, Bo: 4, Cy: 0"
    assert made.settings["tie winner"] == "Bo"  # "pseud wins as the winner of the previous Main Match"
    chosen = making(held, "pyramid-superiority", ["Ann", "Di", "Cy"], red=["fay", "Gus", "Ivy"], green=["X", "Y", "Z"])
    assert chosen.settings["red meadow"] == "Fay, Gus, Ivy"
    assert "tie winner" not in chosen.settings  # the previous winner is not of this game: the host's decision
    with pytest.raises(SheetsHostError, match="--red: .*an eliminated player"):
        making(held, "pyramid-superiority", ["Ann", "Bo", "Cy"], red=["Di", "Gus", "Ivy"], green=["X", "Y", "Z"])
    with pytest.raises(SheetsHostError, match="--green: Gus already in another meadow"):
        making(held, "pyramid-superiority", ["Ann", "Bo", "Cy"], green=["X", "Y", "Gus"])


def test_several_winners_of_the_previous_main_match_give_the_first_of_them_in_the_gamewide_tiebreak():
    assert a_season(games=[main_match("1", winners=("Ann", "Bo"))]).previous_winner() == "Bo"


def test_a_death_match_pairs_a_candidate_owed_with_an_opponent_who_holds_no_token_of_life():
    held = a_season([entry(1, "Ann", TOKEN, 1)], [main_match("1")])
    made = making(held, "spirit-chain", ["Bo", "Ed"])
    assert made.players == ("Ed", "Bo") and made.settings == {"death match opponent": "Bo"}
    both = making(held, "spirit-chain", ["Di", "Ed"])
    assert both.players == ("Di", "Ed") and both.settings == {"death match opponent": "Ed"}
    with pytest.raises(SheetsHostError, match="Ann holds a Token of Life"):
        making(held, "spirit-chain", ["Di", "Ann"])
    with pytest.raises(SheetsHostError, match="owed now: Di, Ed"):
        making(held, "spirit-chain", ["Bo", "Cy"])


def test_tokens_of_life_stop_protecting_when_a_main_match_is_made_unless_the_season_keeps_them():
    held = a_season([entry(1, "Ann", TOKEN, 2), entry(2, "Bo", TOKEN, 1), entry(3, "Bo", TOKEN, -1, "", BY_HOST)])
    assert expiring(held, "magicians-market") == {"Ann": 2}
    assert expiring(held, "spirit-chain") == {}  # the picks go on
    assert expiring(a_season(held.entries, token_lasts=TOKEN_SEASON), "magicians-market") == {}


def test_an_eliminated_player_is_never_made_to_play():
    held = a_season([entry(1, "Ivy", ELIMINATION, 1, "2")])
    assert "Ivy" not in making(held, "magicians-market").players
    with pytest.raises(SheetsHostError, match="Ivy was eliminated in game 2"):
        making(held, "wind-guide-me", ["Ivy", "Ann", "Bo", "Cy", "Di", "Ed", "Fay"])
