"""The season's commands on offline books, with Contest and Duel (`contest.py`): a season made, its
games made from the ledger, settled exactly once whatever the host does to a game's last round,
and the host's own rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sheets_host.backends.kinds import open_backend
from sheets_host.engine import commands as engine
from sheets_host.kit.errors import SchemaErrors, SheetsHostError
from sheets_host.kit.result import COSMOS, ELIMINATION, GARNET, TOKEN
from sheets_host.season import commands as season
from sheets_host.season.books import SEASON_TAB
from sheets_host.season.ledger import balance

from tests.conftest import fixed_clock
from . import contest

CAST = ["Ann", "Bo", "Cy", "Di", "Ed"]


@pytest.fixture
def where(monkeypatch, tmp_path) -> Path:
    contest.install(monkeypatch, tmp_path)
    return tmp_path / "season"


def backend(where: Path):
    return open_backend("xlsx", str(where))


def opener(where: Path):
    return lambda g: open_backend("xlsx", str(where / g.where))


def play(where: Path, number: str, scores: dict[str, int]) -> None:
    """The players type their scores and the host resolves the game's one round."""
    game = backend(where / f"games/{number}")
    for player, score in scores.items():
        game.book(f"player:{player}").write({"submit": pd.DataFrame([{"score": score}])})
    engine.resolve(game, early=True, clock=fixed_clock)


def make(where: Path, name: str, players=(), **options):
    return season.next_game(backend(where), name, f"games/{len(season.read(backend(where)).games) + 1}", "xlsx",
                            opener(where), players, clock=fixed_clock, **options)


def settle(where: Path):
    return season.settle(backend(where), opener(where), clock=fixed_clock)


def new(where: Path, **settings):
    return season.new_season(backend(where), "Larks", CAST, 7, settings=settings, clock=fixed_clock)


def test_a_new_season_draws_its_gamewide_tiebreak_from_its_seed_and_gives_the_starting_garnets(where):
    made = new(where, **{"starting garnets": 2})
    assert sorted(made.settings.tiebreak) == sorted(CAST)
    assert made.settings.tiebreak == season.read(backend(where)).settings.tiebreak
    assert [balance(made.entries, p, GARNET) for p in CAST] == [2] * 5
    again = new(where, **{"starting garnets": 2})  # the same command again: nothing new
    assert again.entries == made.entries
    with pytest.raises(SheetsHostError, match="already here"):
        season.new_season(backend(where), "Other", CAST, 8, clock=fixed_clock)


@pytest.mark.parametrize("settings, words", [
    ({"garnets public": "maybe"}, "garnets public"),
    ({"gamewide tiebreak": "Ann, Bo"}, "every player of the cast once"),
    ({"colour": "red"}, "unknown season setting 'colour'"),
])
def test_a_bad_setting_is_refused_naming_it_and_what_is_allowed(where, settings, words):
    with pytest.raises(SheetsHostError, match=words):
        new(where, **settings)
    assert not (where / "host.xlsx").exists()


def test_a_main_match_is_settled_exactly_once_and_its_redone_result_corrects_the_ledger(where):
    new(where)
    make(where, "contest")
    play(where, "1", {"Ann": 9, "Bo": 7, "Cy": 4, "Di": 2, "Ed": 3})
    first = settle(where)
    held = season.read(backend(where))
    assert first.written == len(held.entries) > 0
    assert (held.held("Ann", TOKEN), held.held("Ann", GARNET), held.held("Ann", COSMOS)) == (1, 3, 1)
    assert held.games[0].settlement.candidates == ("Ed", "Di")
    assert settle(where).written == 0  # run twice: each change once
    # The host corrects Bo's archived score and redoes the round: only what changed is corrected.
    game = backend(where / "games/1")
    archive = game.book("host").read(["archive"])["archive"]
    archive.loc[archive["player"] == "Bo", "score"] = 9
    game.book("host").write({"archive": archive})
    engine.resolve(game, redo=True, clock=fixed_clock, reason="Bo's score was misread")
    redone = settle(where)
    after = season.read(backend(where))
    assert after.held("Bo", TOKEN) == 1 and after.held("Bo", GARNET) == 3 and after.held("Bo", COSMOS) == 1
    withdrawn = [e for e in after.entries if e.corrects]
    assert [(e.player, e.what, e.amount) for e in withdrawn] == [("Bo", GARNET, -2)]
    assert redone.written == 4  # Bo's 2 garnets withdrawn; a Token, 3 garnets and a cosmos given
    assert [e.number for e in after.entries] == list(range(1, len(after.entries) + 1))


def test_an_undone_end_withdraws_the_games_rows_and_the_game_must_end_again_before_the_next(where):
    new(where)
    make(where, "contest")
    play(where, "1", {"Ann": 9, "Bo": 7, "Cy": 4, "Di": 2, "Ed": 3})
    settle(where)
    engine.undo(backend(where / "games/1"), clock=fixed_clock, reason="a late submission")
    settle(where)
    held = season.read(backend(where))
    assert all(held.held(p, t) == 0 for p in CAST for t in (TOKEN, GARNET, COSMOS))
    assert held.games[0].settlement.over is False
    with pytest.raises(SheetsHostError, match="is not over: play it to its end first"):
        make(where, "duel", ["Ed", "Ann"])
    engine.resolve(backend(where / "games/1"), early=True, clock=fixed_clock)
    settle(where)
    assert season.read(backend(where)).held("Ann", TOKEN) == 1


def test_a_death_match_is_made_from_the_candidates_and_its_loser_leaves_with_their_garnets_removed(where):
    new(where, **{"starting garnets": 1})
    make(where, "contest")
    play(where, "1", {"Ann": 9, "Bo": 7, "Cy": 4, "Di": 2, "Ed": 3})
    settle(where)
    with pytest.raises(SheetsHostError, match="Elimination Candidate owed"):
        make(where, "duel", ["Bo", "Cy"])
    with pytest.raises(SheetsHostError, match="Ann holds a Token of Life"):
        make(where, "duel", ["Di", "Ann"])
    made = make(where, "duel", ["Di", "Bo"])
    assert made.game.given == {"death match opponent": "Bo"}
    config = backend(where / "games/2").book("host").read(["config"])["config"]
    row = config[config["key"] == "death match opponent"].iloc[0]
    assert (row["value"], row["given by"]) == ("Bo", "season 'Larks' (its ledger before game 2)")
    play(where, "2", {"Di": 5, "Bo": 5})  # a tie: the Death Match Opponent wins
    settle(where)
    held = season.read(backend(where))
    assert held.eliminated == {"Di": "2"} and held.held("Di", GARNET) == 0
    assert held.held("Di", ELIMINATION) == 1
    with pytest.raises(SheetsHostError, match="Di was eliminated in game 2"):
        make(where, "contest", ["Di", "Ann", "Bo"])
    third = make(where, "contest")
    assert "Di" not in third.game.players
    # A new Main Match: the Tokens of the last one protected in its Death Match picks only.
    assert season.read(backend(where)).held("Ann", TOKEN) == 0


def test_a_value_the_season_gave_typed_over_in_the_games_config_is_refused_naming_both(where):
    new(where)
    make(where, "contest")
    play(where, "1", {"Ann": 9, "Bo": 7, "Cy": 4, "Di": 2, "Ed": 3})
    settle(where)
    make(where, "duel", ["Di", "Bo"])
    game = backend(where / "games/2")
    config = game.book("host").read(["config"])["config"]
    config.loc[config["key"] == "death match opponent", "value"] = "Di"
    game.book("host").write({"config": config})
    with pytest.raises(SchemaErrors) as refused:
        engine.resolve(game, early=True, clock=fixed_clock)
    message = " ".join(str(refused.value).split())
    assert "'Di'" in message and "'Bo', as season 'Larks' (its ledger before game 2) gave it" in message


def test_every_player_sees_only_their_own_season_in_their_books(where):
    new(where)
    make(where, "contest")
    play(where, "1", {"Ann": 9, "Bo": 7, "Cy": 4, "Di": 2, "Ed": 3})
    settle(where)
    book = backend(where / "games/1").book("player:Bo").read([SEASON_TAB])[SEASON_TAB]
    text = book.to_string()
    assert "7 points: a garnet per 3" in text and all(name not in text for name in ("Ann", "Cy", "Di", "Ed"))


def test_the_hosts_rows_and_corrections_are_rows_of_their_own(where):
    new(where)
    given = season.give(backend(where), "ann", "power of light", 1, "won it in the Academy's side quest",
                        clock=fixed_clock)
    assert (given.player, given.what, given.by) == ("Ann", "Power of Light", "host")
    fixed = season.correct(backend(where), given.number, -1, "it was Bo's", clock=fixed_clock)
    assert fixed.corrects == given.number
    held = season.read(backend(where))
    assert held.held("Ann", "Power of Light") == 0 and len(held.entries) == 2
    with pytest.raises(SheetsHostError, match="say why"):
        season.give(backend(where), "Ann", "garnet", 1, " ")
    with pytest.raises(SheetsHostError, match="a player of the cast"):
        season.give(backend(where), "Zed", "garnet", 1, "why not")
    with pytest.raises(SheetsHostError, match="rows 1 to 2"):
        season.correct(backend(where), 9, 1, "no such row")


class Killed(BaseException):
    """The process dying: nothing after it runs."""


@pytest.mark.parametrize("dies", ["before the game is made", "after the game's commit"])
def test_season_next_killed_and_run_again_makes_the_game_once(where, monkeypatch, dies):
    new(where)
    real = season.new_game

    def dying(backend, *args, **kwargs):
        if dies == "after the game's commit":
            real(backend, *args, **kwargs)
        raise Killed()

    monkeypatch.setattr(season, "new_game", dying)
    with pytest.raises(Killed):
        make(where, "contest")
    monkeypatch.setattr(season, "new_game", real)
    held = season.read(backend(where))
    assert len(held.games) == 1  # recorded before the game is made
    again = season.next_game(backend(where), "contest", "games/1", "xlsx", opener(where), clock=fixed_clock)
    assert again.game == held.games[0] and len(season.read(backend(where)).games) == 1
    play(where, "1", {"Ann": 9, "Bo": 7, "Cy": 4, "Di": 2, "Ed": 3})
    assert settle(where).written


def test_garnets_of_the_eliminated_go_to_the_death_matchs_winner_when_the_season_says_so(where):
    new(where, **{"starting garnets": 2, "garnets of the eliminated": "to the winner"})
    make(where, "contest")
    play(where, "1", {"Ann": 9, "Bo": 7, "Cy": 4, "Di": 2, "Ed": 3})  # Di: 2 garnets held, none earned
    settle(where)
    make(where, "duel", ["Di", "Bo"])
    play(where, "2", {"Di": 1, "Bo": 5})
    settle(where)
    held = season.read(backend(where))
    assert (held.held("Di", GARNET), held.held("Bo", GARNET)) == (0, 2 + 2 + 2)  # start, 7 points, Di's
    moved = [e for e in held.entries if e.why.startswith("eliminated:")]
    assert [(e.player, e.amount) for e in moved] == [("Di", -2), ("Bo", 2)]


def test_a_ledger_row_edited_in_place_is_found_and_named_and_stops_every_season_command(where):
    new(where, **{"starting garnets": 1})
    season.give(backend(where), "Bo", "cosmos", 1, "a prize", clock=fixed_clock)
    host = backend(where).book("host")
    ledger = host.read(["ledger"])["ledger"]
    ledger.loc[ledger["row"] == 2, "amount"] = 5  # Bo's starting garnet made five
    host.write({"ledger": ledger})
    for command in (lambda: season.read(backend(where)), lambda: settle(where),
                    lambda: season.give(backend(where), "Ann", "garnet", 1, "why", clock=fixed_clock)):
        with pytest.raises(SchemaErrors) as refused:
            command()
        message = " ".join(str(refused.value).split())
        assert "tab 'ledger', row 3, column 'seal'" in message and "row 2 as it was written" in message
    ledger.loc[ledger["row"] == 2, "amount"] = 1  # put back: every command goes on
    host.write({"ledger": ledger})
    assert season.read(backend(where)).held("Bo", "cosmos") == 1


def test_a_player_typed_twice_into_the_cast_is_refused_naming_both_rows(where):
    new(where)
    host = backend(where).book("host")
    cast = host.read(["cast"])["cast"]
    cast.loc[cast.index[-1], "player"] = " ann"
    host.write({"cast": cast})
    with pytest.raises(SchemaErrors, match=r"tab 'cast', row 6, column 'player': 'ann' is not a player named once "
                                           r"\(also in row 2\)"):
        season.read(backend(where))
