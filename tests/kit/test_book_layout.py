"""What players and the host see when they open their books: every game's demo books, opened with
openpyxl as a spreadsheet program would, have bold frozen headers, fitting widths, and on the
submit tab shaded input rows with a dropdown of the player's own options and a note per column."""

from __future__ import annotations

import re

import openpyxl
import pandas as pd
import pytest
from openpyxl.utils import get_column_letter, range_boundaries

from sheets_host.backends import ENGINE_TAB
from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import submit_tab
from sheets_host.engine.play import bot_names, bots_submit
from sheets_host.games import get_game
from sheets_host.kit.layout import HEADER_FILL, INPUT_FILL, NEXT_FILL, PROBLEM_FILL, says

from tests.conftest import fixed_clock

GAMES = ["wind-guide-me", "magicians-market", "pyramid-superiority", "spirit-chain", "academy-of-witchcraft-arts"]
SIZES = {"wind-guide-me": 7, "magicians-market": 5, "pyramid-superiority": 9, "spirit-chain": 2,
         "academy-of-witchcraft-arts": 10}


@pytest.fixture(scope="module", params=GAMES)
def played(request, tmp_path_factory):
    """A game one round in, the next round's submissions typed (one with a bad row) and checked.
    The bad row goes into the player's first submit tab this round (`submit`; a festival's event
    tab, e.g. `alchemy`, after its pregame)."""
    game = get_game(request.param)
    folder = tmp_path_factory.mktemp(request.param)
    backend = XlsxBackend(folder)
    names = bot_names(SIZES[game.name])
    engine.new_game(backend, game.name, names, 3, settings={"first deadline": "2026-11-23 18:00", "round hours": 24},
                    clock=fixed_clock)
    session = engine.open_session(backend, fixed_clock)
    while session.game.round(session.state) == 1 or not any(game.submits(session.state, p) for p in names):
        bots_submit(backend, session, 3, messy=False)
        engine.resolve(backend, early=True, clock=fixed_clock)
        session = engine.open_session(backend, fixed_clock)
    bots_submit(backend, session, 4, messy=False)
    player = next(p for p in names if game.submits(session.state, p))
    tab = game.submit_tabs(session.state, player)[0]
    book = backend.book(f"player:{player}")
    submit = book.read([tab.name])[tab.name]
    bad = pd.concat([submit, pd.DataFrame([["no such thing", *[None] * (len(submit.columns) - 1)]],
                                          columns=submit.columns)], ignore_index=True)
    bad, layout = submit_tab(game, session.state, player, tab, bad)
    book.write({tab.name: bad}, layouts={tab.name: layout})
    engine.check(backend, fixed_clock)
    return game, folder, [player, *(p for p in names if p != player)], engine.open_session(backend, fixed_clock)


def fill(cell) -> str:
    return (cell.fill.fgColor.rgb or "")[-6:] if cell.fill and cell.fill.fill_type == "solid" else ""


def options(wb, validation) -> list[str]:
    """The values a list validation offers, inline ("a,b") or from a range of another tab."""
    formula = validation.formula1
    if formula.startswith('"'):
        return formula.strip('"').split(",")
    sheet, _, cells = formula.rpartition("!")
    ws = wb[sheet.strip("'").replace("''", "'")]
    lo_col, lo_row, hi_col, hi_row = range_boundaries(cells.replace("$", ""))
    return [str(c.value) for row in ws.iter_rows(min_row=lo_row, max_row=hi_row, min_col=lo_col, max_col=hi_col)
            for c in row if c.value is not None]


def test_every_visible_tab_has_a_bold_frozen_shaded_header_and_fitting_widths(played):
    game, folder, names, _ = played
    for path in [folder / "host.xlsx", folder / "public.xlsx", *sorted((folder / "players").glob("*.xlsx"))]:
        wb = openpyxl.load_workbook(path)
        for ws in wb.worksheets:
            if ws.sheet_state != "visible" or ws.max_column < 1 or ws.max_row < 1:
                continue
            where = f"{path.name}:{ws.title}"
            assert ws.freeze_panes == "A2", where
            keys = {e for p in game.palettes() for entries in p.key_entries().values() for e in entries}
            for c in range(1, ws.max_column + 1):
                header = ws.cell(1, c)
                key = says(header.value, fill(header)) or header.value in keys  # the tab's key (`keyed`)
                assert header.font.b and (fill(header) == HEADER_FILL or key), f"{where} {header.coordinate}"
                width = ws.column_dimensions[get_column_letter(c)].width
                shown = len(str(header.value or ""))
                # A header fits its column, or the column is at its cap and wraps.
                assert width and (width >= min(shown, 58)), f"{where} column {header.value!r}: width {width}"


def test_submit_tab_offers_the_players_own_options_in_dropdowns_with_notes(played):
    game, folder, names, session = played
    checked = 0
    for player in names:
        wb = openpyxl.load_workbook(folder / "players" / f"{player}.xlsx")
        for tab in game.submit_tabs(session.state, player):  # a festival's player may have none this round
            ws = wb[tab.name]
            header = [c.value for c in ws[1]]
            assert header == [*tab.header, "", "type here"]  # its columns, then its key
            wanted = game.submit_choices(session.state, player, tab.name)
            found = {}
            for validation in ws.data_validations.dataValidation:
                assert validation.type == "list" and validation.errorStyle in ("warning", "information", None)
                assert not validation.showErrorMessage or validation.errorStyle != "stop"
                for cell_range in validation.sqref.ranges:
                    col = header[cell_range.min_col - 1]
                    assert cell_range.min_row == 2 and cell_range.max_row >= 2 + 20, (player, col, cell_range)
                    found[col] = options(wb, validation)
            for column, values in wanted.items():
                if values:
                    assert found.get(column) == [str(v) for v in dict.fromkeys(values)], (player, column)
            for c, column in enumerate(tab.schema.columns, start=1):
                assert ws.cell(1, c).comment is not None and column.doc in ws.cell(1, c).comment.text, column.name
                if tab.labels:  # a grid: its rows are its labels, every cell beside them an input
                    assert c == 1 or all(fill(ws.cell(r, c)) == INPUT_FILL for r in range(2, 2 + len(tab.labels)))
                    continue
                typed = sum(1 for row in ws.iter_rows(min_row=2) if any(cell.value is not None for cell in row))
                assert fill(ws.cell(typed + 3, c)) == INPUT_FILL  # an empty input row below what was typed
            checked += 1
    assert checked and game.submit_tabs(session.state, names[0])  # the player with the bad row has a tab


def test_status_says_what_to_do_first_with_the_deadline_and_highlights_problems(played):
    game, folder, names, session = played
    ws = openpyxl.load_workbook(folder / "players" / f"{names[0]}.xlsx")["status"]
    rows = [(ws.cell(r, 1).value, ws.cell(r, 2).value) for r in range(2, ws.max_row + 1)]
    assert rows[0][0] == "to do" and fill(ws.cell(2, 1)) == NEXT_FILL
    number = game.round(session.state)
    assert game.round_name(number) in rows[0][1]  # "round 3", "day 3"; a festival's engine round 2 is "round 1"
    assert rows[1][0] == "deadline" and f"UTC (in {number} days 6 hours)" in rows[1][1]
    problems = [r for r, (what, _) in enumerate(rows, start=2) if what == "problem"]
    assert problems and all(fill(ws.cell(r, 2)) == PROBLEM_FILL for r in problems)
    how = [value for what, value in rows[rows.index(next(r for r in rows if r[0] == "how to submit")):]]
    assert len(how) >= 3  # each line's length: test_each_how_to_submit_line_fits_200_characters
    assert max(len(str(v or "")) for _, v in rows) <= 600


def status_rows(folder, player) -> list[tuple]:
    ws = openpyxl.load_workbook(folder / "players" / f"{player}.xlsx")["status"]
    return [(ws.cell(r, 1).value, ws.cell(r, 2).value) for r in range(2, ws.max_row + 1)]


def test_each_how_to_submit_line_fits_200_characters(played):
    game, folder, names, session = played
    long = {}
    for player in names:
        rows = status_rows(folder, player)
        if not any(what == "how to submit" for what, _ in rows):
            continue
        start = next(i for i, (what, _) in enumerate(rows) if what == "how to submit")
        long.update({(player, i): len(line) for i, (_, line) in enumerate(rows[start:]) if len(line or "") > 200})
    assert not long, long


def test_engine_bookkeeping_stays_hidden_from_players(played):
    game, folder, names, _ = played
    wb = openpyxl.load_workbook(folder / "players" / f"{names[0]}.xlsx")
    visible = [ws.title for ws in wb.worksheets if ws.sheet_state == "visible"]
    assert ENGINE_TAB not in visible and visible[0] == "status"
    text = " ".join(str(c.value) for ws in wb.worksheets if ws.sheet_state == "visible"
                    for row in ws.iter_rows() for c in row if c.value is not None)
    # The engine's commit (its number, what it delivered) is its own; a commitment is the player's.
    assert "delivered" not in text and not re.search(r"\bcommit\b", text.casefold())


def test_dropdowns_in_a_players_book_name_only_players_in_the_game(played):
    game, folder, names, session = played
    for player in names:
        for tab in game.submit_tabs(session.state, player):
            for column, values in game.submit_choices(session.state, player, tab.name).items():
                if any(c.name == column and c.kind == "player" for c in tab.schema.columns):
                    assert set(values) <= set(names), (player, column)


# Words of the tool and the host's config that a player's or the public book must not show (issue 26):
# a host instruction belongs in the host book.
TOOL_WORDS = ("config '", "(host:", "host's tool", "host's program", "the tool ")
DECIMAL_TEXT = re.compile(r"-?\d[\d,]*\.\d+")


def _visible(path):
    wb = openpyxl.load_workbook(path)
    return wb, [ws for ws in wb.worksheets if ws.sheet_state == "visible"]


def test_players_and_public_books_speak_the_games_words_only(played):
    """Cells, header notes and the dropdowns' warning: no config key, no tool, no host instruction."""
    game, folder, names, _ = played
    for path in [folder / "public.xlsx", *sorted((folder / "players").glob("*.xlsx"))]:
        _, sheets = _visible(path)
        for ws in sheets:
            texts = [str(c.value) for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
            texts += [c.comment.text for row in ws.iter_rows() for c in row if c.comment]
            texts += [v.error or "" for v in ws.data_validations.dataValidation]
            found = [t for t in texts if any(w in t for w in TOOL_WORDS)]
            assert not found, f"{path.name}:{ws.title}: {found[:3]}"


def test_numbers_are_numbers_with_one_format_a_column(played):
    """A number written as text (Wind Guide Me's score '16.10' beside 16.1) or a column of numbers in
    two formats; what players typed (submit tabs, `my submissions`, the archive) is theirs."""
    game, folder, names, session = played
    typed = {t.name for t in game.every_submit_tab()} | {"my submissions", "archive"}
    for path in [folder / "host.xlsx", folder / "public.xlsx", *sorted((folder / "players").glob("*.xlsx"))]:
        _, sheets = _visible(path)
        for ws in [ws for ws in sheets if ws.title not in typed]:
            for c, column in enumerate(ws.iter_cols(min_row=2, max_col=ws.max_column), start=1):
                where = f"{path.name}:{ws.title}!{get_column_letter(c)}"
                numbers = [c for c in column if isinstance(c.value, (int, float)) and not isinstance(c.value, bool)]
                assert len({c.number_format for c in numbers}) <= 1, where
                assert not [c.value for c in column if isinstance(c.value, str) and DECIMAL_TEXT.fullmatch(c.value)], where


def test_the_host_s_growing_tabs_are_as_wide_as_their_values_and_the_rounds_one_line_a_row(played):
    """The archive's `use` and the log's `kind` were cut by the next column: those tabs are laid out
    when made (nearly empty) and grow by appended rows. The rounds' fingerprint wrapped into tall rows."""
    game, folder, names, _ = played
    wb = openpyxl.load_workbook(folder / "host.xlsx")
    for tab, columns in {"archive": ("use", "player"), "log": ("kind", "player")}.items():
        ws = wb[tab]
        header = [c.value for c in ws[1]]
        for name in columns:
            letter = get_column_letter(header.index(name) + 1)
            longest = max(len(str(c.value)) for c in ws[letter][1:] if c.value is not None)
            assert ws.column_dimensions[letter].width >= longest + 1, (tab, name)
    ws = wb["rounds"]
    letter = get_column_letter([c.value for c in ws[1]].index("rows read") + 1)
    done = [c for c in ws[letter][1:] if c.value]
    assert done and not any(c.alignment.wrap_text for c in done)
    assert not any(ws.row_dimensions[c.row].height for c in done)
