"""Issue 34, the largest rows (`tests/engine/largest.py`) in the Academy's every submit tab: the
pregame's `preferences`, then each event's tabs as its event starts (a grid's labels kept); and in
a game on Google Sheets, whose cell holds 50,000 characters. Both failed before the fix."""

from __future__ import annotations

import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bot_names
from sheets_host.fakes.google import fake_backend
from sheets_host.games import get_game
from sheets_host.kit import cells

from tests.conftest import fixed_clock
from tests.engine.largest import EVERY, PLAYERS, a_round, verifies

ACADEMY = "academy-of-witchcraft-arts"


@pytest.mark.slow(22)
def test_the_largest_rows_in_every_submit_tab_of_the_academy_stop_no_command(tmp_path):
    game = get_game(ACADEMY)
    backend = XlsxBackend(tmp_path / "game")
    engine.new_game(backend, ACADEMY, bot_names(PLAYERS[ACADEMY]), 7, clock=fixed_clock)
    typed: set[str] = set()
    # The pregame, then the rounds each event starts in: Alchemy, Elemental Continuum's grids and
    # Summoner's Dream's, then Elemental Continuum's row tab.
    for _ in range(3):
        a_round(backend, game, typed, 1, EVERY)
    assert typed == {t.name for t in game.every_submit_tab()}
    verifies(backend, tmp_path)


@pytest.mark.slow(4)
def test_a_cell_google_holds_is_read_as_far_as_every_book_holds_and_nothing_stops(monkeypatch, tmp_path):
    """A Google cell holds 50,000 characters: what is read of it (30,000) is archived, and every
    cell written fits xlsx too, so the game still replays offline."""
    monkeypatch.chdir(tmp_path)
    backend, fake = fake_backend()
    players = bot_names(7)
    session = engine.new_game(backend, "wind-guide-me", players, 7, {p: f"{p.lower()}@example.org" for p in players},
                              clock=fixed_clock)

    def typing(player, frames):  # as a person types into their spreadsheet, under the header
        for name, frame in frames.items():
            fake.put_values(backend.book(f"player:{player}").id, name, frame.values.tolist(), start="A2")
    a_round(backend, get_game("wind-guide-me"), set(), 1, ("check", "resolve", "undo", "resolve"), typing, 50_000)
    written = [v for file in fake.files.values() for sheet in file.sheets for cell in sheet.cells.values()
               if isinstance(v := cell.get("userEnteredValue", {}).get("stringValue"), str)]
    assert max(map(cells.units, written)) <= cells.CELL_LIMIT
    assert engine.replay(fake_backend(session.host.ref, fake=fake)[0], XlsxBackend(tmp_path / "offline"), fixed_clock) == 1
