"""Issue 34: no typed input can stop a game, on Google either. Google refuses a request over 10
MiB (the fake as Google does): six rows of five 30,000-character cells from one player, in a script
outside ASCII, made the host's resolve request pass it, refused at every attempt, naming no player.
A submission is now read up to `reading.SUBMISSION_LIMIT` a round, each cell up to
`reading.CELL_READ`, and its player is told what was not read, through a lock, a resolve and a
redo. Each test failed before the fix."""

from __future__ import annotations

import pytest

from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import HAPPENED, HISTORY, TYPED
from sheets_host.engine.play import bot_names, bot_states, bots, default_settings
from sheets_host.engine.reading import CELL_READ, SUBMISSION_LIMIT
from sheets_host.fakes.google import fake_backend
from sheets_host.games import get_game, names
from sheets_host.kit import cells
from sheets_host.kit.game import rng_for

from tests.conftest import fixed_clock

TOLD = f"a submission is read up to {SUBMISSION_LIMIT:,} characters a round, and yours holds 900,000"
CELL = f"a cell of a submission is read up to {CELL_READ:,} characters (it holds 30,000)"


def _pages_of_text(monkeypatch, tmp_path):
    """Wind Guide Me on Google; Ada types six rows of five 30,000-character cells (900,000), in
    Japanese: each character is six bytes of a request (as JSON escapes it), or seven in a commitment."""
    monkeypatch.chdir(tmp_path)
    backend, fake = fake_backend()
    players = bot_names(7)
    session = engine.new_game(backend, "wind-guide-me", players, 7, {p: f"{p.lower()}@example.org" for p in players},
                              clock=fixed_clock)
    ada = backend.book("player:Ada").id
    fake.put_values(ada, "submit", [[f"row {r} " + "語" * (30_000 - 6)] * 5 for r in range(2, 8)], start="A2")
    return backend, fake, session


def _told(backend, player: str = "Ada") -> list[str]:
    history = backend.book(f"player:{player}").read([HISTORY])[HISTORY]
    return [cells.text(v) for v in history[HAPPENED]], [cells.text(v) for v in history[TYPED]]


@pytest.mark.slow(3)
def test_pages_of_text_from_one_player_neither_stop_the_round_on_google_nor_reach_another(monkeypatch, tmp_path):
    backend, fake, _ = _pages_of_text(monkeypatch, tmp_path)
    start = len(fake.requests)
    assert engine.resolve(backend, early=True, allow_empty=True, clock=fixed_clock).round == 1
    assert max(c.size for c in fake.requests[start:]) < 2_000_000
    for redone in (False, True):
        if redone:
            engine.resolve(backend, redo=True, clock=fixed_clock)
        happened, typed = _told(backend)
        # Each cell read to its first 1,000 characters, so the first two rows fill the 10,000.
        assert all(any(f"its {c!r} cell ({letter}) were read: {CELL}" in h for h in happened[:2])
                   for c, letter in zip(("kind", "site", "position", "stone", "light"), "ABCDE")), (redone, happened)
        assert any("rows 4, 5, 6 and 7 were not read: " + TOLD in h for h in happened), (redone, happened)
        assert typed[0].startswith("kind: row 2 " + "語" * (CELL_READ - 6) + ", site: row 2 語"), typed[0][:40]
        assert not any(TOLD in h for h in _told(backend, "Blaise")[0])


@pytest.mark.slow(3)
def test_a_locked_round_still_tells_what_was_not_read(monkeypatch, tmp_path):
    """The lock keeps the rows read, cut already: the resolve that follows tells what the lock did not read."""
    backend, _, _ = _pages_of_text(monkeypatch, tmp_path)
    engine.lock(backend, fixed_clock)
    status = engine.check(backend, fixed_clock).readings["Ada"].parsed.problems
    assert any(TOLD in p.message for p in status)
    engine.resolve(backend, early=True, allow_empty=True, clock=fixed_clock)
    happened, _ = _told(backend)
    # each cut cell of the two rows read and the rows not read, once each
    assert sum(h.count(CELL) for h in happened) == 10 and sum(h.count(TOLD) for h in happened) == 1, happened


@pytest.mark.slow(4)
def test_the_limits_are_ten_times_the_longest_submission_and_cell_bots_type_in_every_game():
    """What a player may need: no bot's submission in a whole game passes a tenth of the limit, nor
    any cell of it a tenth of a cell's."""
    longest, widest = {}, {}
    for name in names():
        game, settings = get_game(name), default_settings(get_game(name))
        longest[name] = widest[name] = 0
        for state in bot_states(game, bots(game, None), 1, settings["config"], settings["data"]):
            if game.is_over(state):
                break
            number = game.round(state)
            for player in game.players(state):
                rows = game.submit_rows(game.bot(state, player, rng_for(1, number, f"bot/{player}")))
                typed = [cells.units(cells.text(v)) for row in rows for k, v in row.items() if k != "tab"]
                longest[name], widest[name] = max(longest[name], sum(typed)), max([widest[name], *typed])
    assert all(0 < n <= SUBMISSION_LIMIT / 10 for n in longest.values()), longest
    assert all(0 < n <= CELL_READ / 10 for n in widest.values()), widest
