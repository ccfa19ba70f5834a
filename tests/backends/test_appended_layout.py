"""Issue 26: rows appended to a tab that only grows (`my submissions`, the announcements, the host's
archive and log) look as the rows above them: given the layout of the whole tab, as it would be
written whole, they take its fills, heights, wrapping and number formats, and a column they need
wider is widened, never narrowed; offline, and on Google in the write's one batchUpdate."""

from __future__ import annotations

import openpyxl
import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend, XlsxBook
from sheets_host.backends.xlsx.ooxml import _excel_width
from sheets_host.engine import commands as engine
from sheets_host.engine.announcements_tab import HEADING_FILL, TITLE_FILL, round_names
from sheets_host.engine.play import bot_names, bots_submit, host_types
from sheets_host.fakes.google import fake_backend
from sheets_host.games import get_game
from sheets_host.kit.cells import fold
from sheets_host.kit.layout import PROBLEM_FILL, lay_out

from tests.conftest import fixed_clock

COLUMNS = ("tab", "what you typed", "score")
OLD = pd.DataFrame([["duel", "stone", 1.5]], columns=COLUMNS, dtype=object)
NEW = pd.DataFrame([["summoning attack", "fire " * 30, 2.25], ["duel", "ward", 3]], columns=COLUMNS, dtype=object)
# The whole tab's layout, its first appended row (row 2, the header being row 0) red: it did not count.
WHOLE = lay_out(pd.concat([OLD, NEW], ignore_index=True), highlight={1: PROBLEM_FILL})


def fill(cell) -> str:
    return (cell.fill.fgColor.rgb or "")[-6:] if cell.fill and cell.fill.fill_type == "solid" else ""


def test_rows_appended_offline_look_as_the_whole_tab_written_whole(tmp_path):
    book = XlsxBook(tmp_path / "p.xlsx", "p.xlsx")
    book.write({"history": OLD})
    narrow = openpyxl.load_workbook(book.path)["history"].column_dimensions["A"].width
    book.write({}, append={"history": NEW}, layouts={"history": WHOLE}, shown=book.read(["history"]))

    ws = openpyxl.load_workbook(book.path)["history"]
    assert [[c.value for c in r] for r in ws.iter_rows()] == [list(COLUMNS), ["duel", "stone", 1.5],
                                                             ["summoning attack", "fire " * 30, 2.25], ["duel", "ward", 3]]
    assert [fill(ws[f"{c}3"]) for c in "ABC"] == [PROBLEM_FILL] * 3 and fill(ws["A4"]) == ""
    assert ws["B3"].alignment.wrap_text and ws.row_dimensions[3].height == WHOLE.heights[2] > 15
    assert ws["C3"].number_format == ws["C4"].number_format == "#,##0.00" and ws["C4"].alignment.horizontal == "right"
    assert ws.column_dimensions["A"].width == _excel_width(WHOLE.columns[0].width) > narrow  # "summoning attack" fits
    # A later append whose layout is narrower (the host's own hints) never narrows a column.
    book.write({}, append={"history": OLD}, layouts={"history": lay_out(OLD)}, shown=book.read(["history"]))
    assert openpyxl.load_workbook(book.path)["history"].column_dimensions["A"].width == _excel_width(WHOLE.columns[0].width)


def test_rows_appended_on_google_look_as_the_whole_tab_written_whole_in_one_request():
    backend, fake = fake_backend()
    book = backend.create("player:Ada", "Ada")
    book.write({"history": OLD})
    before = len(fake.requests)
    book.write({}, append={"history": NEW}, layouts={"history": WHOLE}, shown={"history": OLD})

    assert len(fake.requests) == before + 1  # the formats are more of the one batchUpdate
    assert fake.values(book.id, "history")[2:] == [["summoning attack", "fire " * 30, 2.25], ["duel", "ward", 3]]
    red = {"red": 0.9725, "green": 0.8431, "blue": 0.8549}  # PROBLEM_FILL
    assert [fake.cell_data(book.id, "history", f"{c}3")["userEnteredFormat"]["backgroundColorStyle"] for c in "ABC"] == [{"rgbColor": red}] * 3
    assert "backgroundColorStyle" not in fake.cell_data(book.id, "history", "A4")["userEnteredFormat"]
    assert fake.cell_data(book.id, "history", "B3")["userEnteredFormat"]["wrapStrategy"] == "WRAP"
    score = fake.cell_data(book.id, "history", "C4")["userEnteredFormat"]
    assert score["numberFormat"] == {"type": "NUMBER", "pattern": "#,##0.00"} and score["horizontalAlignment"] == "RIGHT"
    assert fake.heights(book.id, "history")[2] == round(WHOLE.heights[2] * 4 / 3)
    assert fake.widths(book.id, "history")[0] == WHOLE.columns[0].width * 7 + 10
    assert WHOLE.columns[0].width > lay_out(OLD).columns[0].width


@pytest.fixture(scope="module")
def academy(tmp_path_factory):
    """The Academy's books at the end of a demo game."""
    game = get_game("academy-of-witchcraft-arts")
    folder = tmp_path_factory.mktemp("academy")
    backend = XlsxBackend(folder)
    engine.new_game(backend, game.name, bot_names(game.min_players), 3, clock=fixed_clock)
    while True:
        session = engine.open_session(backend, fixed_clock)
        if host_types(backend, session, 3):
            session = engine.open_session(backend, fixed_clock)
        bots_submit(backend, session, 3)
        if engine.resolve(backend, early=True, clock=fixed_clock).over:
            return folder


def test_the_academys_my_submissions_tab_column_fits_its_longest_tab_after_many_rounds(academy):
    """Was cut ("summoning attac"): the column kept the width of the first rounds' rows."""
    player = sorted((academy / "players").glob("*.xlsx"))[0]
    ws = openpyxl.load_workbook(player)["my submissions"]
    header = [c.value for c in ws[1]]
    column = ws.cell(1, header.index("tab") + 1).column_letter
    tabs = [ws[f"{column}{r}"].value for r in range(2, ws.max_row + 1) if ws[f"{column}{r}"].value]
    assert ws.column_dimensions[column].width >= _excel_width(max(map(len, tabs)) + 2)
    assert max(map(len, tabs)) > len("preferences")  # a later round's tab, wider than the first's


def test_every_later_announcements_title_and_heading_is_shaded(academy):
    """Were unshaded after round 1: the rows appended had no fills."""
    ws = openpyxl.load_workbook(academy / "public.xlsx")["announcements"]
    names = round_names(get_game("academy-of-witchcraft-arts"))
    first = [ws[f"A{r}"].value for r in range(2, ws.max_row + 1)]
    titles = [r for r, v in enumerate(first, start=2) if isinstance(v, str) and fold(v) in names]
    headings = [r for r, v in enumerate(first, start=2) if isinstance(v, str) and fold(v) not in names]
    assert len(titles) > 2
    assert {r: fill(ws[f"A{r}"]) for r in titles if fill(ws[f"A{r}"]) != TITLE_FILL} == {}
    assert {r: fill(ws[f"A{r}"]) for r in headings if fill(ws[f"A{r}"]) != HEADING_FILL} == {}
