"""Issue 26: a book opened in LibreOffice or Excel (neither resizes rows when opening a file) shows
every wrapped cell whole. Each row holding a wrapped cell is tall enough for the cell's lines:
each line of its text takes ceil(length / (column width - 1)) lines of about 12.75 pt (the width
from the sheet's <col>, 8.43 by default), in every player's book and the public book of every
game, mid-game (problems shown on the status tab) and at the end."""

from __future__ import annotations

import math
import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from sheets_host import engine
from sheets_host.backends.xlsx import XlsxBackend
from sheets_host.games import get_game
from sheets_host.play import bot_names, bots_submit, host_types

from .conftest import fixed_clock

GAMES = ["wind-guide-me", "magicians-market", "pyramid-superiority", "spirit-chain", "academy-of-witchcraft-arts"]
M = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
LINE_POINTS, DEFAULT_WIDTH, DEFAULT_HEIGHT = 12.75, 8.43, 15.0


def _column(ref: str) -> int:
    letters = re.match(r"[A-Z]+", ref)[0]
    return sum((ord(ch) - 64) * 26 ** i for i, ch in enumerate(reversed(letters)))


def short_rows(path: Path) -> list[str]:
    """Each wrapped cell of the book whose row is too short for its lines, as 'tab!cell'."""
    out = []
    with zipfile.ZipFile(path) as z:
        styles = ElementTree.fromstring(z.read("xl/styles.xml"))
        wraps = [xf.find(f"{M}alignment") is not None and xf.find(f"{M}alignment").get("wrapText") in ("1", "true")
                 for xf in styles.find(f"{M}cellXfs")]
        book = ElementTree.fromstring(z.read("xl/workbook.xml"))
        rels = ElementTree.fromstring(z.read("xl/_rels/workbook.xml.rels"))
        targets = {r.get("Id"): r.get("Target") for r in rels}
        for sheet in book.find(f"{M}sheets"):
            target = targets[sheet.get(f"{R}id")].lstrip("/")
            xml = ElementTree.fromstring(z.read(target if target.startswith("xl/") else f"xl/{target}"))
            widths = {}
            for col in xml.iter(f"{M}col"):
                for c in range(int(col.get("min")), int(col.get("max")) + 1):
                    widths[c] = float(col.get("width"))
            for row in xml.iter(f"{M}row"):
                height = float(row.get("ht", DEFAULT_HEIGHT))
                for cell in row.iter(f"{M}c"):
                    text = "".join(t.text or "" for t in cell.iter(f"{M}t")) or (cell.findtext(f"{M}v") or "")
                    if not text or not wraps[int(cell.get("s", "0"))]:
                        continue
                    width = widths.get(_column(cell.get("r")), DEFAULT_WIDTH)
                    lines = sum(max(1, math.ceil(len(line) / (width - 1))) for line in text.split("\n"))
                    if height < lines * LINE_POINTS:
                        out.append(f"{sheet.get('name')}!{cell.get('r')}: {lines} lines in {height} pt")
    return out


def books(folder: Path) -> list[Path]:
    return [folder / "public.xlsx", *sorted((folder / "players").glob("*.xlsx"))]


@pytest.fixture(scope="module", params=GAMES)
def played(request, tmp_path_factory):
    """The books of a game mid-game (the second round's messy submissions checked) and at its end."""
    game = get_game(request.param)
    folder = tmp_path_factory.mktemp(request.param)
    backend = XlsxBackend(folder)
    engine.new_game(backend, game.name, bot_names(game.min_players), 3, clock=fixed_clock)
    mid: dict[str, list[str]] = {}
    for round_ in range(100):
        session = engine.open_session(backend, fixed_clock)
        if host_types(backend, session, 3):
            session = engine.open_session(backend, fixed_clock)
        bots_submit(backend, session, 3)
        if round_ == 1:  # checked once (problems shown), as a check costs a round's reading
            engine.check(backend, fixed_clock)
            mid = {p.name: short_rows(p) for p in books(folder)}
        if engine.resolve(backend, early=True, clock=fixed_clock).over:
            break
    return mid, {p.name: short_rows(p) for p in books(folder)}


def test_mid_game_wrapped_cells_fit_their_rows(played):
    mid, _ = played
    assert mid, "the game ended before its second round"
    assert {book: short for book, short in mid.items() if short} == {}


def test_end_of_game_wrapped_cells_fit_their_rows(played):
    _, end = played
    assert {book: short for book, short in end.items() if short} == {}
