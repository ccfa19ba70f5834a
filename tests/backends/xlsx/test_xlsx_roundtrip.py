"""A value the offline backend writes is the value read back (issue 24): no written cell takes a
format the tool did not choose (a date typed by a player above an appended row, a row or column
style, a book's own default style), and no reader failure, a panic of calamine's Rust code
included, kills a command.

The property test runs 150 examples (a few seconds); `SHEETS_HOST_DEEP=1` runs 1,000.

The contract, per value the tool stores (`rows_from_frame` has already made whole floats ints and
ints of 16 digits or more their digits as text):
- text comes back as the same text, without the characters no .xlsx cell holds (control
  characters but tab, line feed and carriage return; lone surrogates; U+FFFE, U+FFFF), and text
  left empty comes back blank (None); text that looks like a number, a date, a formula or an
  `_xHHHH_` escape stays that text;
- an int comes back an int, a float the same float, a bool a bool, None None;
- a datetime comes back the same datetime to the millisecond (a time zone's is made UTC and
  dropped), a date as a datetime at midnight, a time of day as that time, a duration as that
  timedelta, all to the millisecond; a moment before 1900 in UTC, which a spreadsheet holds no
  date for, comes back as its text as given (`str`, its time zone included).
"""

from __future__ import annotations

import datetime as dt
import io
import os
import re
import warnings
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from sheets_host.backends import frame_from_rows
from sheets_host.backends.xlsx.backend import XlsxBackend, XlsxBook
from sheets_host.backends.xlsx.ooxml import ILLEGAL_CHARACTERS_RE, _Package, _set_attr, _Workbook
from sheets_host.backends.xlsx.ooxml_tabs import _cells, _openpyxl_rows, _Values
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bots_submit
from sheets_host.kit.cells import is_blank
from sheets_host.kit.errors import BookError
from sheets_host.kit.layout import TabLayout

from tests.conftest import PLAYERS, fixed_clock

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


def test_a_book_whose_default_format_is_a_date_still_reads_back_numbers(tmp_path):
    """A book another program saved with a date as its default cell format (cell format 0), which
    the tool's cells with nothing to show (no layout, a row under a header) must not take."""
    book = XlsxBook(tmp_path / "host.xlsx", "host.xlsx")
    book.write({"t": frame()})
    with zipfile.ZipFile(book.path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    styles = parts["xl/styles.xml"].decode()
    first = re.search(r"<cellXfs\b[^>]*>\s*(<xf\b[^>]*?(?=/?>))", styles)
    parts["xl/styles.xml"] = (styles[:first.start(1)] + _set_attr(first[1] + ">", "numFmtId", "14")[:-1]
                              + styles[first.end(1):]).encode()
    with zipfile.ZipFile(book.path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    book.write({"u": frame([12, "y"])}, append={"t": frame([12, "z"])}, layouts={"u": TabLayout(())})
    for reader in read_both(book.path):
        assert reader["u"][1] == [(int, 2), (int, 12), (str, "y")]
        assert reader["t"][1] == [(int, 2), (int, 12), (str, "z")]


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
    from sheets_host.backends.xlsx import ooxml_tabs

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


# ---- every value type, through writes, appends, rewrites and another program's saves -------------

EXAMPLES = 1000 if DEEP else 150


def _ms(value):
    """A moment, time or duration to the millisecond: what a cell's serial number holds."""
    if isinstance(value, dt.timedelta):
        return dt.timedelta(milliseconds=round(value / dt.timedelta(milliseconds=1)))
    if isinstance(value, dt.time):
        return _ms(dt.datetime.combine(dt.date(2000, 1, 1), value)).time()
    return value.replace(microsecond=0) + dt.timedelta(milliseconds=round(value.microsecond / 1000))


TABS = ("t", "u")
ODD = ["\x00", "\x07", "\x1b", "\x7f", "\t", "\n", "\r", "\ud800", "\ufffe", "\uffff", "\U0001F600", "e\u0301", "\u202e",
       "\u05e9\u05dc\u05d5\u05dd", "\u200b", "\xa0", " ", "_x000D_", "_x0041_", "_x005F_x0041_", "_X00e9_", "&<>\"'"]
LOOKS = ["007", "1e5", "12", "-1", "+1", "1,5", "3/4", "1-3", "2026-11-24", "12:30", "=1+1", "=A1", "'quoted", "TRUE",
         "#VALUE!", "", "  ", "NaN", "inf", "0x1F", "1 234"]
text = st.one_of(st.sampled_from(LOOKS), st.lists(st.one_of(st.characters(), st.sampled_from(ODD)), max_size=6).map("".join))
typed = st.datetimes(dt.datetime(1900, 3, 1), dt.datetime(9999, 12, 31, 23, 59, 59)).map(_ms)  # by a person
moments = st.one_of(typed, st.datetimes(dt.datetime(1, 1, 1), dt.datetime(1900, 3, 1)).map(_ms))
values = st.one_of(
    text, st.none(), st.booleans(),
    st.integers(-(10**15) + 1, 10**15 - 1), st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    moments, moments.map(lambda m: m.replace(tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30)))),
    moments.map(lambda m: m.date()), st.times(max_value=dt.time(23, 59, 59, 999_000)).map(_ms),
    st.timedeltas(dt.timedelta(0), dt.timedelta(days=10_000)).map(_ms),
    st.sampled_from([pd.Timestamp("2026-11-24 18:00:05"), 2**53, float(2**53), 1e15, 1e15 + 0.5, -0.0, 1e-300, 5e-324]))


def expected(value: object) -> object:
    """What a value written reads back as (the module's contract)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        return str(value)
    if isinstance(value, str):
        value = ILLEGAL_CHARACTERS_RE.sub("", value)
        return None if is_blank(value) else value
    if isinstance(value, dt.datetime):
        if isinstance(value, pd.Timestamp):
            value = value.to_pydatetime()
        given = value
        if value.tzinfo is not None:
            try:
                value = value.astimezone(dt.UTC).replace(tzinfo=None)
            except OverflowError:  # before year 1 in UTC
                return str(given)
        return _ms(value) if value.year >= 1900 else str(given)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day) if value.year >= 1900 else str(value)
    if isinstance(value, (dt.time, dt.timedelta)):
        return _ms(value)
    return value


def frames(width: int):
    return st.lists(st.lists(values, min_size=width, max_size=width), max_size=4)


steps = st.one_of(
    st.tuples(st.sampled_from(["write", "append", "both"]), st.sampled_from(TABS), st.integers(1, 3).flatmap(frames)),
    st.tuples(st.just("program"), st.sampled_from(TABS), st.tuples(st.integers(0, 3), typed)))


def as_read(rows: list[list[object]]) -> list[list[tuple[type, object]]]:
    """A tab as `frame_from_rows` makes it (blank rows dropped), each cell with its type, moments
    to the millisecond."""
    data = frame_from_rows(rows)
    return [list(data.columns)] + [[(type(v), _ms(v) if isinstance(v, (dt.datetime, dt.time, dt.timedelta)) else v)
                                    for v in row] for row in data.itertuples(index=True, name=None)]


def read_both(path: Path) -> list[dict[str, list]]:
    data = path.read_bytes()
    pkg = _Package(data)
    sheets = [s for s in _Workbook(pkg).sheets if s.kind == "worksheet"]
    values = _Values(data, pkg, path)
    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
    try:
        return [{s.name: as_read(values._calamine_rows(s)) for s in sheets},
                {s.name: as_read(_openpyxl_rows(wb[s.name])) for s in sheets}]
    finally:
        values.close()
        wb.close()


def a_program_types_a_date(path: Path, tab: str, row: int, column: int, moment: dt.datetime) -> None:
    """As Excel or LibreOffice save a date a person typed in `row` (1-based), `column` (0-based):
    the day's number under a date format, which the program also gives the column and the row
    below as their default. (Made in the XML rather than by openpyxl, whose save would round
    every other float in the book to 16 digits.)"""
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n).decode() for n in z.namelist()}
    styles = parts["xl/styles.xml"]
    xfs = re.search(r"(<cellXfs\b[^>]*>)(.*?)</cellXfs>", styles, re.DOTALL)
    date = len(re.findall(r"<xf\b", xfs[2]))
    styles = (styles[:xfs.start()] + _set_attr(xfs[1], "count", str(date + 1)) + xfs[2]
              + '<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>'
              + styles[xfs.end():])
    part = _Workbook(_Package(path.read_bytes())).find(tab).part
    sheet = parts[part]
    ref = f"{'ABCD'[column]}{row}"
    serial = (moment - dt.datetime(1899, 12, 30)) / dt.timedelta(days=1)
    typed = re.search(rf'<row r="{row}"[^>]*?(?:/>|>.*?</row>)', sheet, re.DOTALL)
    cells = {c: xml for c, (xml, _) in _cells(typed[0]).items()} | {column: f'<c r="{ref}" s="{date}"><v>{serial!r}</v></c>'}
    start = re.match(r"<row\b[^>]*?(?=/?>)", typed[0])[0]
    rest = sheet[typed.end():]
    below = re.match(rf'<row r="{row + 1}"[^>]*?(?=/?>)', rest)
    rest = (_set_attr(_set_attr(below[0] + ">", "s", str(date)), "customFormat", "1")[:-1] + rest[below.end():] if below
            else f'<row r="{row + 1}" s="{date}" customFormat="1"/>' + rest)
    sheet = sheet[:typed.start()] + start + ">" + "".join(cells[c] for c in sorted(cells)) + "</row>" + rest
    sheet = re.sub(rf'<col min="{column + 1}" max="{column + 1}"[^>]*?(?=/>)',
                   lambda m: _set_attr(m[0] + "/>", "style", str(date))[:-2], sheet)
    parts["xl/styles.xml"], parts[part] = styles, sheet
    with zipfile.ZipFile(path, "w") as z:
        for name, text in parts.items():
            z.writestr(name, text)


@settings(max_examples=EXAMPLES, deadline=None, print_blob=True, phases=tuple(Phase)[:-1],  # no slow "explain"
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(steps, min_size=1, max_size=5))
@example([("write", "t", [[dt.datetime(2000, 1, 1), "007"]]), ("append", "t", [[0, "007"]])])  # found by it
@example([("write", "t", [[dt.datetime(1900, 1, 1, 6), dt.date(1900, 2, 28)], [dt.datetime(1899, 12, 31), dt.date(1, 1, 1)]])])
@example([("write", "t", [[1, "x"]]), ("program", "t", (0, dt.datetime(2026, 3, 4))),
          ("append", "t", [[12, 12], [3.5, None]]), ("append", "t", [[4, dt.time(12, 30)]])])
def test_every_value_written_reads_back_as_written_through_both_readers(tmp_path_factory, plan):
    book = XlsxBook(tmp_path_factory.mktemp("book") / "host.xlsx", "host.xlsx")
    tabs: dict[str, list[list[object]]] = {}
    for kind, tab, what in plan:
        if kind == "program":
            column, moment = what
            if tab not in tabs or len(tabs[tab]) < 2:
                continue
            rows = tabs[tab]
            column %= len(rows[0])
            last = max(r for r, row in enumerate(rows) if r == 0 or any(v is not None for v in row))
            a_program_types_a_date(book.path, tab, last + 1, column, moment)
            rows[last][column] = _ms(moment)
            continue
        columns = [f"c{i}" for i in range(len(what[0]) if what else len(tabs.get(tab, [[None]])[0]))]
        if kind == "append" and tab in tabs and tabs[tab][0] != columns:
            continue  # appended rows are as wide as the tab they go under
        data = pd.DataFrame(what, columns=columns, dtype=object)
        if kind == "write":
            book.write({tab: data})
            tabs[tab] = [columns] + [[expected(v) for v in row] for row in data.values.tolist()]
        elif kind == "append":
            book.write({}, append={tab: data})
            rows = tabs.get(tab) or [columns]
            while len(rows) > 1 and all(v is None for v in rows[-1]):
                rows.pop()  # an append goes under the last row holding something
            tabs[tab] = rows + [[expected(v) for v in row] for row in data.values.tolist()]
        else:
            book.write({tab: data}, append={tab: data})
            body = [[expected(v) for v in row] for row in data.values.tolist()]
            tabs[tab] = [columns] + body + [list(row) for row in body]
        want = {name: as_read(rows) for name, rows in tabs.items()}
        for reader, got in zip(("calamine", "openpyxl"), read_both(book.path)):
            assert got == want, reader


def test_a_moment_before_year_one_in_utc_is_kept_as_its_text(tmp_path):
    """Found by the property test: 0001-01-01 00:00 at +05:30 is before year 1 in UTC, which no
    datetime holds; the writer stopped with an OverflowError."""
    early = dt.datetime(1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30)))
    late = dt.datetime(1899, 12, 31, 23, 0, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30)))
    book = XlsxBackend(tmp_path / "game").create("host", "host")
    book.write({"t": pd.DataFrame([[early, late]], columns=["early", "late"], dtype=object)})
    assert book.read(["t"])["t"].iloc[0].tolist() == [str(early), str(late)]
