"""Books saved by LibreOffice Calc (`tests/fixtures/libreoffice/`, made by `tests/backends/xlsx/saved_books.py`):
each game's folder in mid-game, every book opened and saved by Calc, reads as the tool wrote it and
plays its open round to the same announcement, files and books as the folder never re-saved; a
book of every kind of value the tool writes reads back the same and takes writes again; and the
reader's rule for formulas: one a program computed from a constant reads as its value, any other
as typed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend, XlsxBook
from sheets_host.backends.xlsx.ooxml import _Package, _Workbook
from sheets_host.backends.xlsx.ooxml_tabs import _protection
from sheets_host.engine import commands as engine

from tests.conftest import fixed_clock
from .saved_books import FIXTURES, GAMES, VALUES, books, play_to_mid_game, write_values

STALE = ("a book LibreOffice saved reads otherwise than the one the tool wrote; if the game or the writer changed on "
         "purpose, regenerate the fixtures: `python -m tests.backends.xlsx.saved_books` (tests/fixtures/README.md)")


def typed(path: Path) -> dict[str, list]:
    """Every tab of a book as the tool reads it, each cell with its type (True is not 1)."""
    tabs = XlsxBook(path, path.name).read()
    return {name: [list(frame.columns)] + [[(type(v).__name__, v) for v in row] for row in
                                           frame.astype(object).where(frame.notna(), None).values.tolist()]
            for name, frame in tabs.items()}


def values(folder: Path) -> dict[str, dict[str, list]]:
    """Every tab of every book of a game's folder as the tool reads it."""
    return {str(book): typed(folder / book) for book in books(folder)}


def files(folder: Path) -> dict[str, bytes]:
    """The announcements and pictures a game's folder holds, by path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.suffix != ".xlsx" and not p.name.startswith(".sheets-host")}


def play_round(folder: Path) -> engine.ResolveReport:
    backend = XlsxBackend(folder)
    engine.check(backend, fixed_clock)
    return engine.resolve(backend, early=True, clock=fixed_clock)


@pytest.fixture(params=list(GAMES))
def folders(request, tmp_path) -> tuple[Path, Path]:
    """(the game in mid-game as the tool left it, the same with every book saved by LibreOffice),
    in tmp. The announcement files are the tool's, which no spreadsheet program opens."""
    original, saved = tmp_path / "original", tmp_path / "saved"
    play_to_mid_game(request.param, original)
    shutil.copytree(FIXTURES / request.param, saved)
    for path in files(original):
        (saved / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(original / path, saved / path)
    assert books(saved) == books(original), STALE
    return original, saved


@pytest.mark.slow(2)
def test_a_round_on_books_libreoffice_saved_plays_as_on_the_originals(folders):
    original, saved = folders
    assert values(saved) == values(original), STALE
    report, again = play_round(original), play_round(saved)
    assert again.announcement == report.announcement != ""
    assert [r.parsed.problems for r in again.readings.values()] == [r.parsed.problems for r in report.readings.values()]
    assert files(saved) == files(original)
    assert values(saved) == values(original)


def test_undo_after_the_academys_pregame_on_a_host_book_libreoffice_saved(tmp_path):
    """The issue's report: LibreOffice's yes/no cells (`<f>FALSE()</f>`) in the host's
    `preferences` tab stopped every command, `undo` included."""
    saved = tmp_path / "saved"
    shutil.copytree(FIXTURES / "academy-of-witchcraft-arts", saved)
    host = _Package((saved / "host.xlsx").read_bytes())
    assert any(b"<f aca=\"false\">FALSE()</f>" in host.get(f"xl/worksheets/sheet{n}.xml") for n in range(1, 8))
    done = engine.undo(XlsxBackend(saved), fixed_clock)
    assert done.round == 1
    assert engine.open_session(XlsxBackend(saved), fixed_clock).open_round["round"] == 1


def _states(path: Path) -> dict[str, tuple[str, bool]]:
    """Each tab's (visibility, protected) as the file says."""
    pkg = _Package(path.read_bytes())
    return {s.name: (s.state, bool(re.search(r'\ssheet="(1|true)"', _protection(pkg.text(s.part)) or "")))
            for s in _Workbook(pkg).sheets}


def test_a_book_libreoffice_saved_reads_every_kind_of_value_as_written_and_takes_writes(tmp_path):
    original, saved = tmp_path / "original.xlsx", tmp_path / "saved.xlsx"
    write_values(original)
    shutil.copy(FIXTURES / "values.xlsx", saved)
    assert "<si>" in _Package(saved.read_bytes()).text("xl/sharedStrings.xml")  # Calc's own way of storing text
    written, read = typed(original), typed(saved)
    # Calc saves 15 significant digits: the one value it changes (docs/architecture.md).
    assert VALUES[-1] == 0.30000000000000004 and read["values"][1][-1] == ("float", 0.3)
    assert read["values"][2][0] == ("float", 0.3)
    for rows in (written, read):
        rows["values"][1][-1] = rows["values"][2][0] = None
    assert read == written, STALE
    states = {"values": ("visible", False), "hidden": ("hidden", False), "locked": ("visible", True),
              "sheets-host lists": ("hidden", False)}
    assert _states(saved) == states
    # Written into again: a hidden tab whole, rows appended under Calc's, a tab unprotected.
    before, book = typed(saved), XlsxBook(saved, saved.name)
    frame = book.read(["values"])["values"]
    book.write({"hidden": pd.DataFrame([["no", False]], columns=["key", "value"])}, append={"values": frame.iloc[:1]},
               protect={"locked": False})
    again = typed(saved)
    assert again["hidden"] == [["key", "value"], [("str", "no"), ("bool", False)]]
    assert again["values"] == before["values"] + before["values"][1:2]
    assert _states(saved) == states | {"locked": ("visible", False)}


def _with_cells(path: Path, cells: dict[str, str]) -> None:
    """The book at `path` with cells of the first row after its header in tab `notes` replaced by
    raw cell XML (a column letter -> the cell's content and type)."""
    pkg = _Package(path.read_bytes())
    part = "xl/worksheets/sheet1.xml"
    xml = pkg.text(part)
    row = "".join(f'<c r="{c}2"{t}>{inner}</c>' for c, (t, inner) in cells.items())
    xml = re.sub(r'<row r="2"[^>]*>.*?</row>', f'<row r="2">{row}</row>', xml, flags=re.DOTALL)
    pkg.put(part, xml)
    path.write_bytes(pkg.zipped())


CONSTANTS = {  # read by calamine when a tab holds no other formula
    "A": (' t="b"', '<f aca="false">TRUE()</f><v>1</v>'),  # LibreOffice's yes
    "B": (' t="b"', "<f>FALSE</f><v>0</v>"),
    "C": ("", "<f>-2.5E1</f><v>-25</v>"),
    "D": (' t="str"', '<f>"a ""b"""</f><v>a "b"</v>'),
}
OTHERS = {  # read by openpyxl, with the constants above
    "E": ("", "<f>A1+1</f><v>2</v>"),  # a person's formula: as typed
    "F": (' t="b"', "<f>NOT(FALSE())</f><v>1</v>"),  # a function of constants is still a formula
    "G": (' t="b"', "<f>TRUE()</f>"),  # no value held: nothing computed
    "H": (' t="e"', "<f>1</f><v>#N/A</v>"),
    "I": ("", "<v>7</v>"),
}


@pytest.mark.parametrize("cells", [CONSTANTS, CONSTANTS | OTHERS], ids=["constants only", "with other formulas"])
def test_a_formula_computed_from_a_constant_reads_as_its_value_any_other_as_typed(tmp_path, cells):
    path = tmp_path / "book.xlsx"
    book = XlsxBook(path, "book.xlsx")
    book.write({"notes": pd.DataFrame([[None] * len(cells)], columns=[c.lower() for c in cells])})
    _with_cells(path, cells)
    row = book.read(["notes"])["notes"].astype(object).iloc[0].tolist()
    expected = [True, False, -25, 'a "b"', "=A1+1", "=NOT(FALSE())", "=TRUE()", "=1", 7]
    assert row == expected[:len(cells)]
    assert [type(v) for v in row[:3]] == [bool, bool, int]
