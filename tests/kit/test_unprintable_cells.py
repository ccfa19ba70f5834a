"""A cell no terminal or book can hold (half a character, as `_xD800_` reads) never becomes a
traceback: the reader keeps it as `_xD800_`, messages quote it escaped, every command prints."""

from __future__ import annotations

import openpyxl
import pandas as pd
import pytest
from typer.testing import CliRunner

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.cli.main import app
from sheets_host.engine import commands as engine

from tests.conftest import fixed_clock
from tests.events.continuum.test_continuum_books import BOOK_PLAYERS, BOOK_SEED, board_typed, dumped, typing
from tests.events.continuum.test_continuum_event import ACADEMY, WARD_ROWS, typed_grid

PROBLEM = "Ada: tab 'board': label '_xD800_' in D7 is not in the wards tab"


@pytest.fixture
def academy_with_a_surrogate(tmp_path):
    """Round 1 of the Academy's Continuum, Ada's board written by a program that stores the text
    `_xD800_` as is (openpyxl does), which a spreadsheet means as the lone surrogate U+D800."""
    backend = XlsxBackend(tmp_path / "game")
    engine.new_game(backend, ACADEMY, BOOK_PLAYERS, BOOK_SEED, clock=fixed_clock)
    for player in BOOK_PLAYERS:
        backend.book(f"player:{player}").write({"preferences": pd.DataFrame(
            [["Elemental Continuum", "Alchemy", None]], columns=["first", "second", "garnets"], dtype=object)})
    engine.resolve(backend, early=True, clock=fixed_clock)
    typing(backend, "Ada", board_typed(typed_grid(), WARD_ROWS))
    path = tmp_path / "game" / "players" / "Ada.xlsx"
    book = openpyxl.load_workbook(path)
    book["board"]["E3"] = "_xD800_"
    book["board"]["F3"] = "=A1"  # a formula: the tab is read by openpyxl, which gives the surrogate
    book.save(path)
    return tmp_path / "game"


@pytest.mark.parametrize("charset", ["utf-8", "ascii"])
def test_check_and_resolve_print_a_surrogate_cell_escaped(academy_with_a_surrogate, charset, tmp_path):
    runner, where = CliRunner(charset=charset), str(academy_with_a_surrogate)
    checked = runner.invoke(app, ["check", where])
    assert checked.exception is None and checked.exit_code == 0 and PROBLEM in checked.output
    resolved = runner.invoke(app, ["resolve", where, "--early"])
    assert resolved.exception is None and resolved.exit_code == 0
    assert PROBLEM in resolved.output and "round 1 resolved." in resolved.output
    # What was read is what the books keep, so a replay reads it the same.
    backend = XlsxBackend(academy_with_a_surrogate)
    archive = backend.book("host").read(["archive"])["archive"]
    assert (archive == "_xD800_").to_numpy().sum() == 1
    mine = backend.book("player:Ada").read(["my submissions"])["my submissions"]
    assert mine["what you typed"].str.contains("_xD800_").sum() == 1
    copy = XlsxBackend(tmp_path / "replayed")
    engine.replay(backend, copy, fixed_clock)
    assert dumped(copy) == dumped(backend)


def test_a_name_an_ascii_terminal_cannot_show_is_printed_escaped(tmp_path):
    result = CliRunner(charset="ascii").invoke(app, ["new", "wind-guide-me", str(tmp_path / "g"), "--players",
                                                     "Zoë,Bo,Cy,Di,Ed,Fay,Gus"])
    assert result.exception is None and result.exit_code == 0
    assert "new game for Zo\\xeb, Bo, Cy, Di, Ed, Fay, Gus" in result.output


@pytest.mark.parametrize("formula", [False, True])
def test_any_tab_keeps_half_a_character_as_written(tmp_path, formula):
    """Not only a player's cells: a host tab read by either reader (calamine, or openpyxl when the
    tab holds a formula) keeps `_xD800_` as the text written, and writing it again keeps it."""
    book = XlsxBackend(tmp_path / "game").create("host", "host")
    book.write({"notes": pd.DataFrame([["a _xD800_ b", "_xD83D__xDE00_"]], columns=["note", "pair"], dtype=object)})
    path = tmp_path / "game" / "host.xlsx"
    program = openpyxl.load_workbook(path)
    program["notes"]["C2"] = "=1+1" if formula else None
    program["notes"]["A3"] = "_xD800_"  # stored as is: a spreadsheet means the lone surrogate U+D800
    program.save(path)
    read = book.read(["notes"])["notes"]
    assert list(read.iloc[0, :2]) == ["a _xD800_ b", "_xD83D__xDE00_"]  # the tool's text, as written
    assert read.iloc[1, 0] == "_xD800_"
    book.write({"notes": read})
    again = book.read(["notes"])["notes"]
    assert again.iloc[1, 0] == "_xD800_" and again.iloc[0, 0] == "a _xD800_ b"
