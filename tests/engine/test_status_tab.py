"""The status tab's first screen, for every game (issue 26): to do, the deadline, whether what the
player typed counts, what counts, each problem in red naming its tab, row and column, and when it was
checked; then how to submit, with each example as the cells to type under its tab's header, and
no Markdown anywhere."""

from __future__ import annotations

import re
from datetime import timedelta

import openpyxl
import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import submit_tab
from sheets_host.engine.play import bot_names, bots_submit, host_types
from sheets_host.games import get_game
from sheets_host.kit.layout import INPUT_FILL, NEXT_FILL, PROBLEM_FILL

from tests.conftest import fixed_clock
from .test_played_games import MARKDOWN

GAMES = ["wind-guide-me", "magicians-market", "pyramid-superiority", "spirit-chain", "academy-of-witchcraft-arts"]
FIRST_SCREEN = 10


def fill(cell) -> str | None:
    colour = cell.fill.fgColor.rgb if cell.fill and cell.fill.fill_type == "solid" else None
    return colour[-6:] if isinstance(colour, str) else None


def later():
    return fixed_clock() + timedelta(hours=5)


def type_badly(backend, game, session, player) -> str:
    """One row the parser refuses in the player's first submit tab; the tab's name."""
    tab = game.submit_tabs(session.state, player)[0]
    book = backend.book(f"player:{player}")
    submit = book.read([tab.name])[tab.name]
    extra = pd.DataFrame([["no such thing"] + [None] * (len(submit.columns) - 1)], columns=submit.columns)
    typed = pd.concat([submit, extra], ignore_index=True)
    typed, layout = submit_tab(game, session.state, player, tab, typed)
    book.write({tab.name: typed}, layouts={tab.name: layout})
    return tab.name


@pytest.fixture(scope="module", params=GAMES)
def checked(request, tmp_path_factory):
    """A game's first round in which the first player has something to submit, before and after a
    check of what the bots typed and one bad row."""
    game = get_game(request.param)
    folder = tmp_path_factory.mktemp(request.param)
    backend = XlsxBackend(folder)
    names = bot_names(game.min_players)
    engine.new_game(backend, game.name, names, 3, settings={"first deadline": "2026-11-23 18:00", "round hours": 24},
                    clock=fixed_clock)
    while True:
        session = engine.open_session(backend, fixed_clock)
        if host_types(backend, session, 3):
            session = engine.open_session(backend, fixed_clock)
        if game.submits(session.state, names[0]):
            break
        engine.resolve(backend, early=True, allow_empty=True, clock=fixed_clock)
    before = openpyxl.load_workbook(folder / "players" / f"{names[0]}.xlsx")["status"]
    bots_submit(backend, session, 3)
    tab = type_badly(backend, game, session, names[0])
    engine.check(backend, later)
    after = openpyxl.load_workbook(folder / "players" / f"{names[0]}.xlsx")["status"]
    return game, session, names[0], tab, before, after


def labels(ws) -> list[str]:
    return [ws.cell(r, 1).value or "" for r in range(2, ws.max_row + 1)]


def test_before_a_check_the_first_rows_say_what_to_do_by_when_and_that_nothing_is_checked(checked):
    game, session, player, tab, before, _ = checked
    assert labels(before)[:3] == ["to do", "deadline", "your submission"]
    assert fill(before.cell(2, 1)) == NEXT_FILL
    assert f"'{tab}'" in before.cell(2, 2).value and before.cell(2, 2).value.endswith("by the deadline")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in \d+ days? \d+ hours?\)", before.cell(3, 2).value)
    assert before.cell(4, 2).value == "not checked yet"


def test_after_a_check_the_first_screen_says_whether_it_counts_what_counts_and_each_problem(checked):
    game, session, player, tab, _, after = checked
    first = labels(after)[:FIRST_SCREEN]
    assert first[:3] == ["to do", "deadline", "your submission"]
    assert "problem" in first and "checked" in first and first.index("problem") < first.index("checked")
    counts = after.cell(4, 2).value
    assert counts.startswith(("counts", "does not count")), counts
    if counts.startswith("counts"):
        assert first[3] == "what counts" and after.cell(5, 2).value
    where = f"tab '{tab}', row " if game.several_submit_tabs else "row "
    problems = [r for r in range(2, after.max_row + 1) if after.cell(r, 1).value == "problem"]
    assert any(after.cell(r, 2).value.startswith(where) for r in problems)  # the bad row, named
    assert all(fill(after.cell(r, c)) == PROBLEM_FILL for r in problems for c in (1, 2))
    checked_at = after.cell(2 + first.index("checked"), 2).value
    assert checked_at.endswith(" UTC (just now)")


def test_how_to_submit_shows_each_example_as_cells_under_its_tabs_header(checked):
    game, session, player, _, _, after = checked
    blocks = game.how_to_submit(session.state, player)
    examples = [e for b in blocks for e in b.examples]
    assert examples
    rows = [[after.cell(r, c).value for c in range(1, after.max_column + 1)] for r in range(2, after.max_row + 1)]
    for example in examples:
        start = next(i for i, row in enumerate(rows) if row[0] == "example" and tuple(row[1:1 + len(example.header)])
                     == example.header)
        for k, typed in enumerate(example.rows, start=1):
            assert [v or "" for v in rows[start + k][1:1 + len(typed)]] == list(typed)
            assert fill(after.cell(start + k + 2, 2)) == INPUT_FILL
    if len(blocks) > 1:  # the Academy: a heading row per event
        assert all(b.title in [row[0] for row in rows] for b in blocks)


def test_no_cell_of_the_status_holds_markdown(checked):
    _, _, _, _, before, after = checked
    for ws in (before, after):
        found = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str) and MARKDOWN.search(c.value)]
        assert not found


def test_a_player_with_nothing_to_do_is_told_so_in_the_to_do(tmp_path):
    """Regression: the to-do said "fill in the 'submit' tab" to a Spirit Chain duellist with no card
    to play (their tab is there, but nothing is due)."""
    game = get_game("spirit-chain")
    backend = XlsxBackend(tmp_path)
    names = bot_names(game.min_players)
    engine.new_game(backend, game.name, names, 3, clock=fixed_clock)
    seen = 0
    for _ in range(12):
        session = engine.open_session(backend, fixed_clock)
        if game.is_over(session.state):
            break
        for name in names:
            if not game.submits(session.state, name):
                todo = openpyxl.load_workbook(tmp_path / "players" / f"{name}.xlsx")["status"].cell(2, 2).value
                assert todo.startswith("nothing this round"), todo
                seen += 1
        bots_submit(backend, session, 3, messy=False)
        engine.resolve(backend, early=True, allow_empty=True, clock=fixed_clock)
    assert seen


def test_a_lock_tells_each_player_what_was_locked_for_them_and_so_does_its_rerun(tmp_path):
    """Regression: after `lock` every status said "not checked yet", though the lock had just read
    what counts. It says what counts at the lock, and a second `lock` (the round locked already,
    as after a kill) says the same from the copy taken then."""
    game = get_game("wind-guide-me")
    backend = XlsxBackend(tmp_path)
    names = bot_names(game.min_players)
    engine.new_game(backend, game.name, names, 3, clock=fixed_clock)
    bots_submit(backend, engine.open_session(backend, fixed_clock), 3, messy=False)
    shown = []
    for _ in range(2):
        engine.lock(backend, later)
        status = openpyxl.load_workbook(tmp_path / "players" / f"{names[0]}.xlsx")["status"]
        rows = {status.cell(r, 1).value: status.cell(r, 2).value for r in range(2, 12)}
        assert rows["your submission"] == "counts" and rows["what counts"], rows
        assert rows["to do"].startswith("nothing: submissions for round 1 were locked")
        shown.append(rows)
    assert shown[0] == shown[1]
