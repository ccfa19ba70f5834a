"""`extend`: the open round's deadline moved by the host, recorded, said in every status tab;
refused for a locked round or a deadline not in the future; later deadlines move only with --all."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from sheets_host.engine import commands as engine
from sheets_host.engine.deadlines import extend, moved_at
from sheets_host.engine.play import bot_names
from sheets_host.kit.errors import BookError, RoundError

START = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
PLAYERS = bot_names(4)


def _new(backend, **settings):
    engine.new_game(backend, "magicians-market", PLAYERS, 7, clock=lambda: START,
                    settings={"first deadline": "2026-11-22 18:00", "round hours": 24, **settings})


def _row(backend, role: str, what: str) -> str:
    status = backend.book(role).read(["status"])["status"]
    return str(dict(zip(status["what"], status["value"]))[what])


def test_an_extension_moves_the_deadline_says_it_everywhere_and_is_logged(folder_backend):
    _new(folder_backend)
    done = extend(folder_backend, lambda: START, hours=3, every_later=True)
    assert (done.before, done.after) == (START.replace(hour=18), START.replace(hour=21))
    assert done.said(START) == ("\u23f0 **Day 1**: the deadline is moved to 2026-11-22 21:00:00 UTC (in 9 hours), "
                                "3 hours later.")
    session = engine.open_session(folder_backend)
    assert session.open_round["deadline"] == "2026-11-22 21:00:00 UTC"
    assert moved_at(session, 1) == START
    log = session.tabs["log"]
    assert log["message"].iloc[-1] == ("deadline moved from 2026-11-22 18:00:00 UTC to 2026-11-22 21:00:00 UTC by the "
                                       "host, and every later one with it")
    for role in ["public", *(f"player:{p}" for p in PLAYERS)]:
        assert _row(folder_backend, role, "deadline").startswith("2026-11-22 21:00:00 UTC")
    assert _row(folder_backend, f"player:{PLAYERS[0]}", "your submission").startswith("nothing typed yet")
    # Later rounds follow: the next is round hours after the deadline moved.
    engine.resolve(folder_backend, early=True, allow_empty=True, clock=lambda: START)
    assert engine.open_session(folder_backend).open_round["deadline"] == "2026-11-23 21:00:00 UTC"


def test_without_all_the_later_deadlines_keep_their_schedule(folder_backend):
    _new(folder_backend)
    extend(folder_backend, lambda: START, hours=3)
    extend(folder_backend, lambda: START, hours=1)  # moved again: the schedule is still the first one
    session = engine.open_session(folder_backend)
    assert (session.open_round["deadline"], session.open_round["scheduled"]) == ("2026-11-22 22:00:00 UTC",
                                                                                 "2026-11-22 18:00:00 UTC")
    assert session.tabs["log"]["message"].iloc[-1].endswith("by the host, the later ones kept")
    engine.resolve(folder_backend, early=True, allow_empty=True, clock=lambda: START)
    # Day 2 is round hours after day 1's scheduled deadline, not after the one moved: a shorter day.
    assert engine.open_session(folder_backend).open_round["deadline"] == "2026-11-23 18:00:00 UTC"
    extend(folder_backend, lambda: START, hours=2, every_later=True)
    engine.resolve(folder_backend, early=True, allow_empty=True, clock=lambda: START)
    assert engine.open_session(folder_backend).open_round["deadline"] == "2026-11-24 20:00:00 UTC"


def test_an_extension_is_refused_for_a_locked_round_the_past_and_a_time_not_read(folder_backend):
    _new(folder_backend, **{"round hours": ""})
    with pytest.raises(RoundError, match=r"the new deadline, 2026-11-22 11:00:00 UTC, is not after now"):
        extend(folder_backend, lambda: START, to="2026-11-22 11:00")
    with pytest.raises(RoundError, match=r"--to '05/11/2026 18:00' is not .*\(5 November or 11 May\?\)"):
        extend(folder_backend, lambda: START, to="05/11/2026 18:00")
    with pytest.raises(RoundError, match="--hours N .* or --to"):
        extend(folder_backend, lambda: START)
    moved = extend(folder_backend, lambda: START, to="2026-11-23 9:30")
    assert moved.after == datetime(2026, 11, 23, 9, 30, tzinfo=timezone.utc)
    engine.lock(folder_backend, clock=lambda: START)
    with pytest.raises(RoundError, match=r"day 1 is locked since 2026-11-22 12:00:00 UTC"):
        extend(folder_backend, lambda: START, hours=1)


def test_an_extension_whose_status_tabs_cannot_be_written_says_the_deadline_moved(folder_backend):
    _new(folder_backend, **{"round hours": ""})
    stray = folder_backend.folder / "players" / f"{PLAYERS[1]} (1).xlsx"
    stray.write_bytes(b"")  # a download beside the book: every command reading it stops
    with pytest.raises(BookError, match=r"day 1's deadline is moved to 2026-11-22 20:00:00 UTC and saved in the host "
                                        r"book, but the players' status tabs were not all written: .*Run `sheets-host "
                                        r"check` to write them"):
        extend(folder_backend, lambda: START, hours=2)
    assert engine.open_session(folder_backend).open_round["deadline"] == "2026-11-22 20:00:00 UTC"
