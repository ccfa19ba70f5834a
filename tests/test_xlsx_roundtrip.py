"""A value the offline backend writes is the value read back (issue 24): no written cell takes a
format the tool did not choose (a date typed by a player above an appended row, a row or column
style, a book's own default style), and no reader failure, a panic of calamine's Rust code
included, kills a command.

The property test runs 40 examples; `SHEETS_HOST_DEEP=1` runs 1,000.

The contract, per value the tool stores (`rows_from_frame` has already made whole floats ints and
ints of 16 digits or more their digits as text):
- text comes back as the same text, without the characters no .xlsx cell holds (control
  characters but tab, line feed and carriage return; lone surrogates; U+FFFE, U+FFFF), and text
  left empty comes back blank (None); text that looks like a number, a date, a formula or an
  `_xHHHH_` escape stays that text;
- an int comes back an int, a float the same float, a bool a bool, None None;
- a datetime comes back the same datetime to the millisecond (a time zone's is made UTC and
  dropped), a date as a datetime at midnight, a time of day as that time, a duration as that
  timedelta, all to the millisecond.
"""

from __future__ import annotations

import datetime as dt
import os
import warnings
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from sheets_host import engine
from sheets_host.backends.xlsx import XlsxBackend, XlsxBook
from sheets_host.errors import BookError
from sheets_host.play import bots_submit

from .conftest import PLAYERS, fixed_clock

DEEP = bool(os.environ.get("SHEETS_HOST_DEEP"))


def frame(*rows, columns=("a", "b")) -> pd.DataFrame:
    return pd.DataFrame([list(r) for r in rows], columns=list(columns), dtype=object)


def as_a_program_saves(path: Path, tab: str, cell: str, value: object, number_format: str) -> None:
    """`cell` of `tab` set as a spreadsheet program stores what a person typed: LibreOffice and
    Excel store `3/4` as the number of that day under a date format."""
    wb = openpyxl.load_workbook(path)
    wb[tab][cell].value = value
    wb[tab][cell].number_format = number_format
    wb.save(path)


# ---- the defect through the engine ---------------------------------------------------------------


def test_a_date_a_player_typed_never_turns_the_archive_below_it_into_dates(tmp_path):
    backend = XlsxBackend(tmp_path / "game")
    engine.new_game(backend, "wind-guide-me", PLAYERS, 7, clock=fixed_clock)
    bots_submit(backend, engine.open_session(backend, fixed_clock), 7, messy=False)
    last = PLAYERS[-1]  # the archive's last row is theirs
    as_a_program_saves(backend.book(f"player:{last}").path, "submit", "C3", dt.datetime(2026, 3, 4), "m/d/yyyy")
    typed = backend.book(f"player:{PLAYERS[0]}").read(["submit"])["submit"].to_dict("records")
    first = engine.resolve(backend, early=True, clock=fixed_clock)
    placed = engine.open_session(backend, fixed_clock).state.placed
    for _ in range(2):
        again = engine.resolve(backend, early=True, clock=fixed_clock, redo=True)
        assert {p: r.state for p, r in again.readings.items()} == {p: r.state for p, r in first.readings.items()}
        assert engine.open_session(backend, fixed_clock).state.placed == placed
    archive = backend.book("host").read(["archive"])["archive"]
    for attempt in (1, 2, 3):
        rows = archive[archive["attempt"] == attempt]
        assert [type(v) for v in rows["position"]] == [int] * (len(rows) - 1) + [dt.datetime]
    engine.undo(backend, fixed_clock)
    assert backend.book(f"player:{PLAYERS[0]}").read(["submit"])["submit"].to_dict("records") == typed


# ---- reader failures -----------------------------------------------------------------------------


def _calamine_breaks(path: Path, value: float, number_format: str) -> None:
    """A book whose tab `t` holds, in B2, a number calamine cannot turn into the date or duration
    its format asks for: a dead panic (not an Exception) or an OverflowError before issue 24."""
    wb = openpyxl.Workbook()
    wb.active.title = "t"
    wb.active.append(["a", "b"])
    wb.active.append([1, value])
    wb.active["B2"].number_format = number_format
    wb.save(path)


@pytest.mark.parametrize(("value", "number_format"), [(-1e20, "yyyy-mm-dd"), (1e20, "[h]:mm:ss")])
def test_a_number_calamine_cannot_read_as_a_date_is_read_by_openpyxl(tmp_path, value, number_format):
    book = XlsxBook(tmp_path / "host.xlsx", "host.xlsx")
    _calamine_breaks(book.path, value, number_format)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nor a warning the host would see
        assert book.read(["t"])["t"].to_dict("records") == [{"a": 1, "b": "#VALUE!"}]  # as openpyxl shows it
        book.write({}, append={"t": frame([2, "x"])})  # the write reads the tab to find its end
        assert book.read(["t"])["t"].to_dict("records") == [{"a": 1, "b": "#VALUE!"}, {"a": 2, "b": "x"}]


def test_a_tab_no_reader_can_read_is_a_book_error_naming_book_and_tab(tmp_path, monkeypatch):
    from sheets_host.backends import ooxml_tabs

    book = XlsxBook(tmp_path / "host.xlsx", "host.xlsx")
    book.write({"config": frame([1, "x"])})

    class Panic(BaseException):  # as pyo3_runtime.PanicException
        pass

    def panics(*args, **kwargs):
        raise Panic("TimeDelta::milliseconds out of bounds")

    monkeypatch.setattr(ooxml_tabs._Values, "_calamine_rows", panics)
    monkeypatch.setattr(ooxml_tabs, "_openpyxl_rows", panics)
    with pytest.raises(BookError) as e:
        book.read(["config"])
    assert str(e.value).startswith(f"cannot read {book.path}, tab 'config': ")
    assert "TimeDelta::milliseconds out of bounds" in str(e.value) and "\n" not in str(e.value)
