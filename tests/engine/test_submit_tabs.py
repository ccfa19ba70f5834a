"""A submission spread over several submit tabs, one of them a grid (issue 10's platform part):
check, lock, resolve, redo, undo, the archive, replay and the Google budget handle every tab.
The game is `tests/engine/tally.py`: an `orders` tab of rows and a 2x2 `board` grid."""

from __future__ import annotations

import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bots_submit
from sheets_host.fakes.google import fake_backend
from sheets_host.kit.layout import unkeyed

from tests.conftest import fixed_clock
from . import tally

PLAYERS = ["Ada", "Blaise", "Cora"]


@pytest.fixture
def game(monkeypatch, tmp_path):
    tally.install(monkeypatch, tmp_path)
    backend = XlsxBackend(tmp_path / "game")
    engine.new_game(backend, "tally", PLAYERS, 5, clock=fixed_clock)
    return backend


def book(backend, player: str) -> dict[str, pd.DataFrame]:
    """The player's tabs as read, each tab's key left out (`layout.keyed`)."""
    return {name: unkeyed(tab) for name, tab in backend.book(f"player:{player}").read().items()}


def type_in(backend, player: str, orders: list[list], board: list[list]) -> None:
    backend.book(f"player:{player}").write({
        "orders": pd.DataFrame(orders, columns=["item", "count"], dtype=object),
        "board": pd.DataFrame(board, columns=["rank", "A", "B"], dtype=object)})


def state(backend):
    return engine.open_session(backend, fixed_clock).state


def test_every_submit_tab_is_delivered_and_a_grid_keeps_its_labels(game):
    tabs = book(game, "Ada")
    assert {"orders", "board"} <= set(tabs)
    assert tabs["board"]["rank"].astype(str).tolist() == ["2", "1"]
    assert tabs["orders"].empty and list(tabs["orders"].columns) == ["item", "count"]


def test_check_names_the_tab_row_and_column_of_each_problem(game):
    type_in(game, "Ada", [["apple", 2], ["plum", 1]], [["2", "x", "y"], ["1", None, None]])
    report = engine.check(game, fixed_clock)
    messages = [str(p) for p in report.readings["Ada"].parsed.problems]
    assert any("tab 'orders', row 3, column 'item' (A)" in m and "'plum'" in m for m in messages), messages
    assert any("tab 'board', row 2, column 'B' (C)" in m and "'y' is not x" in m for m in messages), messages
    assert report.readings["Ada"].parsed.kept == "2 apple; marks A2"
    status = book(game, "Ada")["status"]
    assert any("tab 'board', row 2" in str(v) for v in status["value"])
    assert report.readings["Blaise"].state == "empty"  # the board's labels alone are not a submission


def test_resolve_archives_rows_of_both_tabs_and_delivers_fresh_tabs(game):
    type_in(game, "Ada", [["apple", 2]], [["2", "x", None], ["1", None, "x"]])
    engine.resolve(game, early=True, allow_empty=True, clock=fixed_clock)
    assert state(game).counts == (("Ada", "apple", 2),) and state(game).marks == (("Ada", "A2"), ("Ada", "B1"))
    archive = game.book("host").read(["archive"])["archive"]
    assert list(archive.columns[:6]) == ["round", "attempt", "use", "player", "row", "tab"]
    assert sorted(zip(archive["tab"], archive["row"])) == [("board", 2), ("board", 3), ("orders", 2)]
    tabs = book(game, "Ada")
    assert tabs["orders"].empty and tabs["board"][["A", "B"]].isna().all().all()
    history = tabs["my submissions"]
    assert list(history.columns[:3]) == ["round", "tab", "row"] and set(history["tab"].dropna()) == {"orders", "board"}


def test_undo_puts_each_row_back_in_its_tab_and_redo_and_resolve_agree(game):
    type_in(game, "Ada", [["pear", 3]], [["2", None, None], ["1", "x", None]])
    engine.resolve(game, early=True, allow_empty=True, clock=fixed_clock)
    after = state(game)
    engine.resolve(game, redo=True, clock=fixed_clock)
    assert state(game) == after
    assert engine.undo(game, fixed_clock).round == 1
    tabs = book(game, "Ada")
    assert tabs["orders"].values.tolist() == [["pear", 3]]
    assert [[str(v) if v is not None else None for v in row] for row in tabs["board"].values.tolist()] == [
        ["2", None, None], ["1", "x", None]]
    engine.resolve(game, early=True, allow_empty=True, clock=fixed_clock)
    assert state(game) == after


def test_lock_freezes_every_tab_and_later_edits_are_set_aside(game):
    type_in(game, "Ada", [["apple", 1]], [["2", None, None], ["1", None, None]])
    engine.lock(game, fixed_clock)
    type_in(game, "Ada", [["apple", 9]], [["2", "x", "x"], ["1", "x", "x"]])
    report = engine.resolve(game, early=True, allow_empty=True, clock=fixed_clock)
    assert state(game).counts == (("Ada", "apple", 1),) and state(game).marks == ()
    assert "edits made after the lock" in str(report.readings["Ada"].parsed.problems[0])
    archive = game.book("host").read(["archive"])["archive"]
    aside = archive[archive["use"] == "set aside"]
    assert sorted(aside["tab"]) == ["board", "board", "orders"]


def test_replay_plays_the_same_game_from_the_host_book(game, tmp_path):
    for _ in range(3):
        bots_submit(game, engine.open_session(game, fixed_clock), 3)
        engine.resolve(game, early=True, allow_empty=True, clock=fixed_clock)
    copy = XlsxBackend(tmp_path / "copy")
    assert engine.replay(game, copy, fixed_clock) == 3
    assert state(copy) == state(game) and state(game).round == 4


def test_several_submit_tabs_cost_google_one_read_and_one_write_per_book(monkeypatch, tmp_path):
    tally.install(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    backend, fake = fake_backend()
    session = engine.new_game(backend, "tally", PLAYERS, 5, {p: f"{p.lower()}@example.org" for p in PLAYERS},
                              clock=fixed_clock)
    host = session.host.ref
    typist = fake_backend(host, fake=fake)[0]
    bots_submit(typist, engine.open_session(typist, fixed_clock), 2)
    for command in (lambda b: engine.check(b, fixed_clock),
                    lambda b: engine.resolve(b, early=True, allow_empty=True, clock=fixed_clock)):
        start = len(fake.requests)
        command(fake_backend(host, fake=fake)[0])
        per_book: dict[str, int] = {}
        for call in fake.requests[start:]:
            per_book[call.sid] = per_book.get(call.sid, 0) + 1
        assert max(per_book.values()) == 2, per_book
    assert state(fake_backend(host, fake=fake)[0]).round == 2


def test_a_tab_the_player_no_longer_has_is_locked_and_not_read(game, tmp_path):
    import openpyxl

    for _ in range(2):
        bots_submit(game, engine.open_session(game, fixed_clock), 4)
        engine.resolve(game, early=True, allow_empty=True, clock=fixed_clock)
    path = game.book("player:Ada").path
    books = openpyxl.load_workbook(path)
    assert books["board"].protection.sheet is True and books["orders"].protection.sheet is False
    marks = state(game).marks
    type_in(game, "Ada", [["pear", 1]], [["2", "x", "x"], ["1", "x", "x"]])
    report = engine.check(game, fixed_clock)
    assert report.readings["Ada"].parsed.kept == "1 pear" and not report.readings["Ada"].parsed.problems
    engine.resolve(game, early=True, allow_empty=True, clock=fixed_clock)
    assert state(game).marks == marks
