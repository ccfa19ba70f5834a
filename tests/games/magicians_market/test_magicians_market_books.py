"""Magician's Market through real books: new, check, resolve, demo, and simulate's statistics."""

import pandas as pd
import pytest

from sheets_host.backends import ENGINE_TAB
from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.announcements_tab import announced
from sheets_host.engine.commands import HISTORY
from sheets_host.engine.play import bot_names, bots_submit, demo, simulate
from sheets_host.games import get_game
from sheets_host.kit.errors import SheetsHostError

from tests.conftest import fixed_clock

FIFTEEN = bot_names(15)


def test_the_demo_plays_7_days_with_15_bots_on_xlsx(folder_backend):
    report = demo("magicians-market", folder_backend, 2, players=15, say=lambda _: None, clock=fixed_clock)
    assert report.over and report.round == 7
    assert list(report.standings.columns) == ["rank", "player", "coins", "Tokens of Life", "Elimination Candidate",
                                              "garnets", "result"]
    public = folder_backend.book("public").read()
    assert {"goods now", "prices", "inventories", "sales", "shows", "magicians", "tastes", "results",
            "announcements", "status", "commitments", ENGINE_TAB} == set(public)
    assert list(announced(get_game("magicians-market"), public["announcements"])) == list(range(1, 8)) and len(public["sales"]) > 0
    assert "coins" not in public["results"].columns
    ada = folder_backend.book("player:Ada").read()
    assert set(ada) == {"private", "my days", "submit", "status", HISTORY, "my commitments", ENGINE_TAB} and len(ada["my days"]) == 7
    files = sorted(p.name for p in folder_backend.output_dir().iterdir())
    assert files == [f"round-{n:02d}.md" for n in range(1, 8)]


def test_new_refuses_3_or_21_players(folder_backend):
    for players in (bot_names(3), bot_names(20) + ["Zed"]):
        with pytest.raises(SheetsHostError, match=f"takes 4 to 20 players; got {len(players)}"):
            engine.new_game(folder_backend, "magicians-market", players, 1)


def test_check_tells_a_player_what_counts_and_what_was_dropped_then_resolve_applies_it(folder_backend):
    engine.new_game(folder_backend, "magicians-market", bot_names(5), 1, clock=fixed_clock)
    folder_backend.book("player:Ada").write({"submit": pd.DataFrame(
        [["generate", "cape, wand, rabbit", None, None], ["gift", "deck", "Blaise", "2"],
         ["bid", None, "Jackie", "3"]], columns=["action", "good", "to", "amount"])})
    report = engine.check(folder_backend, fixed_clock)
    reading = report.readings["Ada"]
    assert reading.state == "problems" and reading.parsed.kept == "generate cape, wand, rabbit; bid 3 on Jackie"
    status = folder_backend.book("player:Ada").read(["status"])["status"].set_index("what")["value"]
    assert status["what counts"] == "generate cape, wand, rabbit; bid 3 on Jackie"
    assert "row 3, column 'amount' (D): you will hold 1 deck after generating" in status["problem"]
    result = engine.resolve(folder_backend, early=True, clock=fixed_clock)
    assert result.round == 1 and "| Ada | cape, wand, rabbit |" in result.announcement
    mine = folder_backend.book("player:Ada").read(["my days"])["my days"].iloc[0]
    assert mine["bid"] == "3 on Jackie" and mine["bid result"] == "counted: the show is yours"


def test_simulate_shows_magicians_buying_and_shows_happening_with_15_players():
    report = simulate("magicians-market", 20, seed=5, players=15)
    averages = report.averages
    assert averages["magicians buying a day"] >= 4 and averages["goods sold a day"] >= 10
    assert averages["shows a day"] >= 4 and averages["show earnings"] > 0
    assert sum(report.wins.values()) >= 20


def all_books(backend, players):
    return {role: backend.book(role).read() for role in ["host", "public"] + [f"player:{p}" for p in players]}


def test_undo_and_redo_restore_the_day_from_its_snapshot(folder_backend):
    players = bot_names(5)
    engine.new_game(folder_backend, "magicians-market", players, 3, clock=fixed_clock)
    for _ in range(2):
        bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 3)
        engine.resolve(folder_backend, early=True, clock=fixed_clock)
    before = engine.open_session(folder_backend, fixed_clock).state
    assert engine.undo(folder_backend, fixed_clock).round == 2
    assert engine.open_session(folder_backend, fixed_clock).state.round == 2
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    engine.resolve(folder_backend, redo=True, clock=fixed_clock)
    assert engine.open_session(folder_backend, fixed_clock).state == before


def test_replay_from_the_host_book_gives_identical_books(tmp_path):
    original, copy = XlsxBackend(tmp_path / "a"), XlsxBackend(tmp_path / "b")
    demo("magicians-market", original, 5, players=6, say=lambda s: None, clock=fixed_clock)
    assert engine.replay(original, copy, fixed_clock) == 7
    a, b = all_books(original, bot_names(6)), all_books(copy, bot_names(6))
    for role in a:
        assert a[role].keys() == b[role].keys()
        for tab in a[role]:
            assert a[role][tab].astype(str).equals(b[role][tab].astype(str)), (role, tab)
