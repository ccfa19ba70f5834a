"""Every game played by bots to its end through its books, judged as its readers meet it.

Issue 26: every player's book and the public book, mid-game (problems shown on the status tab)
and at the end, read at a glance as LibreOffice or Excel shows them:

- every wrapped cell is whole (neither program resizes rows when opening a file): each row holding
  a wrapped cell is tall enough for the cell's lines (or as tall as Excel allows), each line of its text taking
  ceil(length / (column width - 1)) lines of about 12.75 pt (the width from the sheet's <col>,
  8.43 by default);
- no cell holds Markdown syntax (a backtick, a `| ... |` row, a `#` heading, `**`);
- the status tab is the first tab, and a player's to-do is in its first rows.

Issue 28: an honest game verifies: its record (`record`) passes every check of `verify` against
its public book and its announcement files, in every game, the Academy with an event hosted by
hand included.

Issue 34: every colour in every book (the host's too) sits beside its own name or is in its tab's
key, and a game's colour rule fires only in the columns it is meant for; a player's tabs to fill
this round come right after `status`, and a locked submit tab looks locked (no yellow "type here").
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend, XlsxBook
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import due_tabs
from sheets_host.engine.play import bot_names, bots_submit, host_types
from sheets_host.engine.record import write_record
from sheets_host.engine.verify import Published, announcement_files, load_record, verify
from sheets_host.games import get_game
from sheets_host.kit.game import Game
from sheets_host.kit.layout import MAX_ROW_HEIGHT

from tests.conftest import fixed_clock

GAMES = ["wind-guide-me", "magicians-market", "pyramid-superiority", "spirit-chain", "academy-of-witchcraft-arts"]
M = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
LINE_POINTS, DEFAULT_WIDTH, DEFAULT_HEIGHT = 12.75, 8.43, 15.0


def _column(ref: str) -> int:
    letters = re.match(r"[A-Z]+", ref)[0]
    return sum((ord(ch) - 64) * 26 ** i for i, ch in enumerate(reversed(letters)))


MARKDOWN = re.compile(r"`|\*\*|^\s*\|.*\|\s*$|^\s*#{1,6}\s", re.MULTILINE)


@dataclass
class Book:
    """What a reader of one book sees that these tests judge."""

    short: list[str] = field(default_factory=list)  # wrapped cells cut off, as 'tab!cell: ...'
    markdown: list[str] = field(default_factory=list)  # cells holding Markdown, as 'tab!cell: text'
    tabs: list[str] = field(default_factory=list)  # the tabs in order
    status: list[list[str]] = field(default_factory=list)  # the status tab's rows, as text
    fills: list[Fill] = field(default_factory=list)  # every filled cell
    locked: set[str] = field(default_factory=set)  # the tabs protected
    due: list[str] = field(default_factory=list)  # a player's submit tabs to fill in the round open


@dataclass(frozen=True)
class Fill:
    """A filled cell: its tab, its column's header, its row (1 the header), its text and its fill."""

    tab: str
    column: str
    row: int
    text: str
    colour: str  # RRGGBB


def read_book(path: Path) -> Book:
    """The book's tabs, its status tab's text and the cells these tests refuse."""
    out = Book()
    with zipfile.ZipFile(path) as z:
        styles = ElementTree.fromstring(z.read("xl/styles.xml"))
        wraps = [xf.find(f"{M}alignment") is not None and xf.find(f"{M}alignment").get("wrapText") in ("1", "true")
                 for xf in styles.find(f"{M}cellXfs")]
        solid = [(f.find(f"{M}patternFill/{M}fgColor") if f.find(f"{M}patternFill[@patternType='solid']") is not None
                  else None) for f in styles.find(f"{M}fills")]
        fills = [(solid[int(xf.get("fillId", "0"))].get("rgb", "")[-6:] if solid[int(xf.get("fillId", "0"))] is not None
                  else None) for xf in styles.find(f"{M}cellXfs")]
        book = ElementTree.fromstring(z.read("xl/workbook.xml"))
        rels = ElementTree.fromstring(z.read("xl/_rels/workbook.xml.rels"))
        targets = {r.get("Id"): r.get("Target") for r in rels}
        shared = ["".join(t.text or "" for t in si.iter(f"{M}t"))
                  for si in ElementTree.fromstring(z.read("xl/sharedStrings.xml"))] \
            if "xl/sharedStrings.xml" in z.namelist() else []
        for sheet in book.find(f"{M}sheets"):
            out.tabs.append(sheet.get("name"))
            target = targets[sheet.get(f"{R}id")].lstrip("/")
            xml = ElementTree.fromstring(z.read(target if target.startswith("xl/") else f"xl/{target}"))
            if xml.find(f"{M}sheetProtection") is not None:
                out.locked.add(sheet.get("name"))
            header: dict[int, str] = {}
            widths = {}
            for col in xml.iter(f"{M}col"):
                for c in range(int(col.get("min")), int(col.get("max")) + 1):
                    widths[c] = float(col.get("width"))
            for row in xml.iter(f"{M}row"):
                height = float(row.get("ht", DEFAULT_HEIGHT))
                texts = []
                for cell in row.iter(f"{M}c"):
                    text = "".join(t.text or "" for t in cell.iter(f"{M}t")) or (cell.findtext(f"{M}v") or "")
                    if cell.get("t") == "s":
                        text = shared[int(text)]
                    texts.append(text)
                    if row.get("r") == "1":
                        header[_column(cell.get("r"))] = text
                    if fill := fills[int(cell.get("s", "0"))]:
                        out.fills.append(Fill(sheet.get("name"), header.get(_column(cell.get("r")), ""), int(row.get("r")),
                                              text, fill))
                    if sheet.get("name") != "sheets-host" and MARKDOWN.search(text):
                        out.markdown.append(f"{sheet.get('name')}!{cell.get('r')}: {text[:80]!r}")
                    if not text or not wraps[int(cell.get("s", "0"))]:
                        continue
                    width = widths.get(_column(cell.get("r")), DEFAULT_WIDTH)
                    lines = sum(max(1, math.ceil(len(line) / (width - 1))) for line in text.split("\n"))
                    if height < min(lines * LINE_POINTS, MAX_ROW_HEIGHT):  # as tall as Excel allows
                        out.short.append(f"{sheet.get('name')}!{cell.get('r')}: {lines} lines in {height} pt")
                if sheet.get("name") == "status":
                    out.status.append(texts)
    return out


def books(folder: Path) -> list[Path]:
    return [folder / "public.xlsx", *sorted((folder / "players").glob("*.xlsx"))]


# The Academy once more with an event hosted by hand: its ranking is the host's input.
BY_HAND = {"hosted by hand": "Summoner's Dream"}
PLAYED = [(name, {}) for name in GAMES] + [("academy-of-witchcraft-arts", BY_HAND)]


@pytest.fixture(scope="module", params=PLAYED, ids=[name + (" by hand" if by_hand else "") for name, by_hand in PLAYED])
def played(request, tmp_path_factory):
    """The books of a game mid-game (the second round's messy submissions checked) and at its end,
    and its folder: played once a worker whatever order its tests run in (pytest sets a module
    fixture up again when another parameter's tests came between)."""
    key = repr(request.param)
    if key not in PLAYED_ONCE:
        PLAYED_ONCE[key] = play(*request.param, tmp_path_factory)
    return PLAYED_ONCE[key]


PLAYED_ONCE: dict[str, tuple] = {}


def play(name: str, settings: dict, tmp_path_factory) -> tuple:
    game = get_game(name)
    folder = tmp_path_factory.mktemp(name)
    backend = XlsxBackend(folder)
    engine.new_game(backend, game.name, bot_names(game.min_players), 3, clock=fixed_clock, settings=settings)
    mid: dict[str, Book] = {}
    for round_ in range(100):
        session = engine.open_session(backend, fixed_clock)
        if host_types(backend, session, 3):
            session = engine.open_session(backend, fixed_clock)
        bots_submit(backend, session, 3)
        if round_ == 1:  # checked once (problems shown), as a check costs a round's reading
            engine.check(backend, fixed_clock)
            mid = read_books(folder, session)
        if engine.resolve(backend, early=True, clock=fixed_clock).over:
            break
    return mid, read_books(folder, engine.open_session(backend, fixed_clock)), folder, settings


def read_books(folder: Path, session) -> dict[str, Book]:
    """The public book, each player's (with the tabs they have to fill) and the host's."""
    out = {p.name: read_book(p) for p in [*books(folder), folder / "host.xlsx"]}
    for player in session.players:
        out[f"{player}.xlsx"].due = [t.name for t in due_tabs(session.game, session.state, player)]
    return out


@pytest.fixture(params=["mid", "end"])
def seen(request, played) -> dict[str, Book]:
    """Each book, by file name, mid-game or at the end."""
    mid, end, _, _ = played
    assert mid, "the game ended before its second round"
    return {name: book for name, book in (mid if request.param == "mid" else end).items() if name != "host.xlsx"}


@pytest.fixture(params=["mid", "end"])
def every_book(request, played) -> dict[str, Book]:
    """Each book, by file name, the host's too, mid-game or at the end."""
    mid, end, _, _ = played
    return mid if request.param == "mid" else end


def test_wrapped_cells_fit_their_rows(seen):
    assert {name: book.short for name, book in seen.items() if book.short} == {}


def test_no_cell_holds_markdown(seen):
    assert {name: book.markdown for name, book in seen.items() if book.markdown} == {}


def test_status_is_the_first_tab(seen):
    assert {name: book.tabs[:1] for name, book in seen.items() if book.tabs[:1] != ["status"]} == {}


def test_a_players_to_do_is_in_the_status_tabs_first_rows(seen):
    """The first screen answers "what must I do": the to-do is in the first three rows."""
    players = {name: book for name, book in seen.items() if name != "public.xlsx"}
    assert {name: book.status[:3] for name, book in players.items()
            if not any(row and row[0].strip().lower() == "to do" for row in book.status[:3])} == {}


def test_at_the_end_every_player_is_told_that_nothing_typed_counts(played):
    """Issue 34: a submit tab is still there at the end; its status says nothing in it is read."""
    _, end, _, _ = played
    players = {name: book for name, book in end.items() if name not in ("public.xlsx", "host.xlsx")}
    assert {name: book.status[:4] for name, book in players.items()
            if ["your submission", "anything you type will not count: the game is over"] not in
            [row[:2] for row in book.status[:4]]} == {}


def test_an_honest_game_verifies_against_its_public_book_and_announcements(played, tmp_path):
    _, _, folder, settings = played
    written = write_record(XlsxBackend(folder), tmp_path / "record.json", clock=fixed_clock)
    record = load_record(tmp_path / "record.json")
    assert record == json.loads(json.dumps(written)) and record["complete"]
    public = XlsxBook(folder / "public.xlsx", "public.xlsx").read()
    checks = verify(record, Published(public, announcement_files(folder / "announcements"), "public.xlsx"))
    assert [line for c in checks for line in c.lines() if not c.ok] == []
    names = " ".join(c.what for c in checks)
    assert "seed" in names and "'announcements'" in names and "'commitments'" in names
    assert sum(".md" in c.what for c in checks) == len(record["rounds"])  # every round's announcement file
    # The host's inputs are the host's alone: the ranking of the event hosted by hand, nothing in the others.
    inputs = {tab for r in record["rounds"] for tab in r["host inputs"]}
    assert inputs == ({"summoning ranking"} if settings else set())


# ---- colours, tab order and the look of a locked tab (issue 34) ---------------------------------


def game_of(played) -> Game:
    """The game played, from its folder (named after it)."""
    return get_game(next(name for name in GAMES if played[2].name.startswith(name)))


def test_every_colour_sits_beside_its_own_name_or_in_its_tabs_key(played, every_book):
    """A filled cell is a header or heading; a fill of one meaning in every book (the yellow "type
    here", a problem, the to-do, a lock) with a cell of its tab saying that meaning (its key, or the
    label of the row it fills); or the colour a game's palette gives its own text, in a column that
    palette is meant for, with the tab's key naming it when the text is a symbol (a map's `E`)."""
    from sheets_host.kit.layout import HEADINGS, MEANINGS

    palettes = game_of(played).palettes()
    wrong = []
    for name, book in every_book.items():
        said = {(f.tab, f.colour, f.text) for f in book.fills}
        for f in book.fills:
            if f.colour in HEADINGS:
                continue
            if f.colour in MEANINGS:
                meaning = MEANINGS[f.colour]
                if not any(t == f.tab and c == f.colour and (x == meaning or x.startswith(meaning + ":"))
                           for t, c, x in said):
                    wrong.append(f"{name} {f.tab}!{f.column} row {f.row} {f.text!r}: {f.colour} with no {meaning!r} on the tab")
                continue
            if f.row == 1:  # a key's entry: a palette's name for its colour
                if not any(p.fires(f.tab) and f.text in p.key_entries().get(f.colour, ()) for p in palettes):
                    wrong.append(f"{name} {f.tab} key {f.text!r}: {f.colour} is not what it names")
                continue
            rules = [p for p in palettes if p.fires(f.tab, f.column) and p.colour(f.text) == f.colour]
            if not rules:
                wrong.append(f"{name} {f.tab}!{f.column} row {f.row} {f.text!r}: {f.colour} by no palette meant for it")
            elif any(p.names for p in rules) and not any((f.tab, f.colour, x) in said for p in rules
                                                          for x in p.key_entries().get(f.colour, ())):
                wrong.append(f"{name} {f.tab}!{f.column} row {f.row} {f.text!r}: {f.colour} not in the tab's key")
    assert wrong == []


def test_a_wind_guide_me_stone_is_never_greyed(played, every_book):
    """Its `kind` column was filled dark grey for every "stone", as if disabled: nothing but the
    yellow of a cell to type in, or the pale grey of a tab locked (its key says so), may fill it."""
    from sheets_host.kit.layout import INPUT_FILL, LOCKED_FILL

    if game_of(played).name != "wind-guide-me":
        pytest.skip("Wind Guide Me's books")
    assert [(name, f) for name, book in every_book.items() for f in book.fills
            if f.column == "kind" and f.row > 1 and f.colour not in (INPUT_FILL, LOCKED_FILL)] == []


def test_the_academy_colours_tiles_on_its_maps_alone(played, every_book):
    """A facing of E (East) in `summoning defence` and a track named A in `summoning tracks` wore
    the Treasure tile's and the road's colours: a tile's colour fills only the maps' cells."""
    from sheets_host.events.summoning.views import PALETTE

    if game_of(played).name != "academy-of-witchcraft-arts":
        pytest.skip("the Academy's books")
    tiles = set(PALETTE.values())
    assert [(name, f) for name, book in every_book.items() for f in book.fills
            if f.colour in tiles and f.tab != "summoning maps"] == []


def test_this_rounds_tabs_come_right_after_status(every_book):
    """An Academy player's five tabs to fill were tabs 15 to 19 of 19."""
    players = {name: book for name, book in every_book.items() if name not in ("host.xlsx", "public.xlsx")}
    assert {name: book.tabs[:1 + len(book.due)] for name, book in players.items()
            if book.tabs[:1 + len(book.due)] != ["status", *book.due]} == {}


def test_a_locked_submit_tab_looks_locked(played, every_book):
    """A tab a player can no longer type in (a past round's, or every one once the game is over)
    wore the yellow "type here": it has none, and its key says it is locked. Once the game is over,
    every submit tab is locked (Wind Guide Me's stayed open and yellow)."""
    from sheets_host.kit.layout import INPUT_FILL, LOCKED_FILL

    submit = {t.name for t in game_of(played).every_submit_tab()}
    for name, book in every_book.items():
        if name not in ("host.xlsx", "public.xlsx") and not book.due:  # the game is over
            assert submit & set(book.tabs) <= book.locked, name
        for tab in (book.locked & submit) - set(book.due):
            fills = {(f.colour, f.text) for f in book.fills if f.tab == tab}
            assert not any(c == INPUT_FILL for c, _ in fills), (name, tab)
            assert any(c == LOCKED_FILL and x.startswith("locked") for c, x in fills), (name, tab, fills)
