"""The Google backend's hold on a game: a lease tab in the host book, against the fake Google
(sheets_host/fakes/google.py), with two gspread clients standing for two commands on two machines."""

from __future__ import annotations

import os
import re
import socket
from datetime import timedelta

import pandas as pd
import pytest

from sheets_host.backends.gsheets.backend import LEASE, GoogleBackend
from sheets_host.kit.errors import BookError, BusyError

from sheets_host.fakes.google import FakeGoogle, fake_backend
from tests.conftest import FIXED

HOLDER = re.escape(f"'resolve' (process {os.getpid()} on {socket.gethostname()})")


def frame(rows: list[list[object]], columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=columns, index=range(2, 2 + len(rows)), dtype=object)


def game(fake: FakeGoogle) -> str:
    sid = fake.add_spreadsheet("Host", tabs=("config", "state"))
    fake.put_values(sid, "state", [["round"], [1]])
    return sid


def command(fake: FakeGoogle, sid: str, minutes_ago: float = 0) -> GoogleBackend:
    """A command in a process of its own, started `minutes_ago` before FIXED.

    A hold entered by hand must be kept referenced: collecting it ends its block, which releases.
    """
    backend, _ = fake_backend(sid, fake=fake)
    backend.clock = lambda: FIXED - timedelta(minutes=minutes_ago)
    return backend


def lease(fake: FakeGoogle, sid: str) -> dict[str, object]:
    return dict(fake.values(sid, LEASE))


def test_a_second_command_is_refused_until_the_first_commits():
    fake = FakeGoogle()
    sid = game(fake)
    first, second = command(fake, sid), command(fake, sid)

    with first.hold("resolve"):
        assert fake.hidden(sid, LEASE) and lease(fake, sid)["command"] == "resolve"
        with pytest.raises(BusyError, match=rf"^another command holds the game: {HOLDER}, running since 2026-11-22 "
                                            r"12:00:00 UTC; wait for it to finish; if that command died, its lease "
                                            r"expires at 2026-11-22 12:10:00 UTC$"):
            with second.hold("check"):
                pass
        first.book("host").write({"state": frame([[2]], ["round"])})  # the commit releases the lease
        assert LEASE not in fake.tabs(sid)
        with second.hold("check"):
            assert lease(fake, sid)["command"] == "check"
    assert fake.tabs(sid) == ["config", "state"]


def test_the_lease_costs_no_request_of_its_own_in_a_resolve():
    fake = FakeGoogle()
    sid = game(fake)
    backend = command(fake, sid)

    with backend.hold("resolve"):
        host = backend.book("host")
        state = host.read(["config", "state"])["state"]
        host.write({"state": state, "log": frame([["resolved"]], ["what"])})
    # Taking the lease answers with the whole book, so reading it costs nothing; the commit releases it.
    assert [(c.method, c.path.rsplit("/", 1)[-1]) for c in fake.requests] == [
        ("POST", f"{sid}:batchUpdate"), ("POST", f"{sid}:batchUpdate")]
    assert state.loc[2, "round"] == 1
    assert fake.tabs(sid) == ["config", "state", "log"]

    checker = command(fake, sid)
    start = len(fake.requests)
    with checker.hold("check"):
        host = checker.book("host")
        assert host.read()["log"].loc[2, "what"] == "resolved" and list(host.read()) == ["config", "state", "log"]
    assert [c.method for c in fake.requests[start:]] == ["POST", "POST"]  # released when the block ends
    assert LEASE not in fake.tabs(sid)
    # Once released, a read asks Google again: the book may have changed since.
    host.read(["state"])
    assert [c.method for c in fake.requests[start:]] == ["POST", "POST", "GET"]


def test_a_new_game_has_nothing_to_hold():
    backend, fake = fake_backend("")
    with backend.hold("new"):
        assert fake.requests == []
        backend.create("host", "Game").write({"config": frame([["seed", 1]], ["key", "value"])})
    assert fake.tabs(backend.book("host").id) == ["config"]


def test_the_lease_is_released_when_the_command_fails_or_is_already_gone():
    fake = FakeGoogle()
    sid = game(fake)
    backend = command(fake, sid)

    with pytest.raises(RuntimeError, match="the command's own error"):
        with backend.hold("resolve"):
            raise RuntimeError("the command's own error")
    assert LEASE not in fake.tabs(sid)

    with backend.hold("check"):
        fake.files[sid].sheets = [s for s in fake.files[sid].sheets if s.title != LEASE]  # deleted by hand
    assert fake.tabs(sid) == ["config", "state"]


def test_an_expired_lease_is_taken_over_and_its_late_commit_refused():
    fake = FakeGoogle()
    sid = game(fake)
    stuck = command(fake, sid, minutes_ago=11)
    stuck_hold = stuck.hold("resolve")
    stuck_hold.__enter__()  # and then its machine sleeps for 11 minutes
    old_id = fake.files[sid].sheet(LEASE).sheet_id

    with pytest.raises(BusyError, match="if that command died, its lease expires at 2026-11-22 11:59:00 UTC"):
        with command(fake, sid, minutes_ago=1.5).hold("check"):  # not expired yet then
            pass
    taker = command(fake, sid)
    with taker.hold("check"):
        assert lease(fake, sid)["command"] == "check" and fake.files[sid].sheet(LEASE).sheet_id != old_id
        with pytest.raises(BusyError, match="no longer held the game .* Google refused the write: its lease expired after "
                                            "10 minutes and another command took it over"):
            stuck.book("host").write({"state": frame([[2]], ["round"])})
        assert fake.values(sid, "state") == [["round"], [1]]
        assert lease(fake, sid)["command"] == "check"


def test_of_two_commands_taking_over_one_expired_lease_exactly_one_wins():
    fake = FakeGoogle()
    sid = game(fake)
    dead = command(fake, sid, minutes_ago=20).hold("resolve")
    dead.__enter__()  # and never came back
    winner, loser = command(fake, sid), command(fake, sid)
    winning = winner.hold("resolve")
    posts = 0

    def meanwhile(method: str, path: str) -> None:
        # The loser has read the expired lease; before its takeover arrives, the winner does it all.
        nonlocal posts
        posts += method == "POST"
        if posts == 2:
            fake.before_request = None
            winning.__enter__()

    fake.before_request = meanwhile
    with pytest.raises(BusyError, match=r"another command took over the expired lease of 'resolve' .* just before this one"):
        with loser.hold("check"):
            pass
    assert [s.title for s in fake.files[sid].sheets].count(LEASE) == 1
    assert lease(fake, sid)["command"] == "resolve"
    winning.__exit__(None, None, None)
    assert LEASE not in fake.tabs(sid)


def test_an_unreadable_lease_says_which_tab_to_delete():
    fake = FakeGoogle()
    sid = game(fake)
    held = command(fake, sid).hold("resolve")
    held.__enter__()
    fake.files[sid].sheet(LEASE).cells = {k: v for k, v in fake.files[sid].sheet(LEASE).cells.items() if k[0] < 2}

    with pytest.raises(BookError, match=f"hidden tab '{LEASE}' of the host book .* if no command is running, delete that tab"):
        with command(fake, sid).hold("check"):
            pass


def test_a_lease_taken_by_a_try_whose_answer_was_lost_is_ours():
    fake = FakeGoogle()
    sid = game(fake)
    backend = command(fake, sid)
    fake.lose_next_answer()  # Google adds the lease; the retry is then told the tab exists

    with backend.hold("resolve"):
        assert [c.status for c in fake.requests] == [None, 400, 200]
        backend.book("host").write({"state": frame([[2]], ["round"])})
    assert fake.tabs(sid) == ["config", "state"] and fake.values(sid, "state") == [["round"], [2]]
