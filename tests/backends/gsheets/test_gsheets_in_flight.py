"""The other books' requests in flight together (issue 27): once the lease is taken and the host
book read, the other books are read, and after the commit written, `in_flight` at once, through
one gspread client and a fake that answers each thread's request under its lock.

Nothing here is timed: requests are held until enough are in flight (`Gate`), so overlap is
certain, and the books, the requests and the errors are compared with one-at-a-time runs.
"""

from __future__ import annotations

import copy
import shutil
import threading
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from google.auth.credentials import Credentials

from sheets_host.backends.gsheets.backend import spreadsheet_id
from sheets_host.backends.gsheets.client import RetryingHTTPClient
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bots_submit
from sheets_host.fakes.google import FakeGoogle, fake_backend
from sheets_host.kit.errors import BookError

from tests.conftest import PLAYERS, fixed_clock

GAME, SEED = "magicians-market", 4
EMAILS = {p: f"{p.lower()}@example.org" for p in PLAYERS}  # 7 players: 8 books besides the host's


@pytest.fixture(scope="module")
def typed(tmp_path_factory):
    """A game on day 2, typed: its spreadsheets, its host's id, every book's (by role) and the
    folder of its files (a command finishes the files a commit owes before anything else)."""
    folder = tmp_path_factory.mktemp("typed")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        backend, fake = fake_backend()
        host = engine.new_game(backend, GAME, list(EMAILS), SEED, EMAILS, clock=fixed_clock).host.ref
        ids = {role: spreadsheet_id(ref) for role, ref in backend.refs().items()}
        for day in (1, 2):
            typist, _ = fake_backend(host, fake=fake)
            bots_submit(typist, engine.open_session(typist, fixed_clock), SEED)
            if day == 1:
                engine.resolve(fake_backend(host, fake=fake)[0], early=True, clock=fixed_clock)
    return fake.files, spreadsheet_id(host), ids, folder


def on_copy(typed, in_flight: int, where: Path, monkeypatch):
    """A fake holding a copy of the typed game's spreadsheets, and of its files in `where` (the
    folder now), and a backend sending `in_flight` at once."""
    files, host, _, folder = typed
    shutil.copytree(folder, where)
    monkeypatch.chdir(where)
    fake = FakeGoogle()
    fake.files = copy.deepcopy(files)
    backend, _ = fake_backend(host, fake=fake)
    backend.in_flight = in_flight
    return fake, backend


class Gate:
    """Holds the first `count` requests to the players' books until `count` are waiting together
    (or a few seconds have passed: then `met` stays False), so a test knows that many were in
    flight at once without timing anything; later requests pass. `most`: the most requests in
    flight together, as the client sent them."""

    def __init__(self, fake: FakeGoogle, players: set[str], count: int):
        self.arrived, self.count, self.met = 0, count, False
        self.in_flight = self.most = 0
        self._lock, self._open = threading.Lock(), threading.Event()
        send = fake.send

        def held(request, *args, **kw):
            with self._lock:
                self.in_flight += 1
                self.most = max(self.most, self.in_flight)
                first = any(sid in (request.url or "") for sid in players) and self.arrived < self.count
                self.arrived += first
                if first and self.arrived == self.count:
                    self.met = True
                    self._open.set()
            try:
                if first:
                    self._open.wait(timeout=10)
                return send(request, *args, **kw)
            finally:
                with self._lock:
                    self.in_flight -= 1

        fake.send = held  # the instance's: what the session's adapter calls


def books(fake: FakeGoogle) -> dict:
    """What every spreadsheet holds: each tab's values, order, hiddenness and protections."""
    return {sid: [(s.title, s.hidden, fake.values(sid, s.title), s.protected) for s in file.sheets]
            for sid, file in fake.files.items()}


def player_sids(typed) -> set[str]:
    return {sid for role, sid in typed[2].items() if role.startswith("player:")}


@pytest.mark.parametrize("command", ["check", "lock", "resolve"])
def test_books_go_in_flight_together_within_the_bound_with_the_same_requests_and_the_same_books(
        typed, command, tmp_path, monkeypatch):
    act = {"check": lambda b: engine.check(b, fixed_clock), "lock": lambda b: engine.lock(b, fixed_clock),
           "resolve": lambda b: engine.resolve(b, early=True, clock=fixed_clock)}[command]
    alone, backend = on_copy(typed, 1, tmp_path / "alone", monkeypatch)
    assert act(backend).round == 2
    together, backend = on_copy(typed, 3, tmp_path / "together", monkeypatch)
    gate = Gate(together, player_sids(typed), 3)
    assert act(backend).round == 2
    assert gate.met and gate.most == 3 and together.most_in_flight <= 3  # reached, and bounded
    assert alone.most_in_flight == 1
    # The same requests to each spreadsheet (the floor: lease and commit, a read and a write a book)...
    assert Counter((c.method, c.sid) for c in together.requests) == Counter((c.method, c.sid) for c in alone.requests)
    # check: the lease and its release, every book read, each player's status written; lock and
    # resolve: the lease and the commit, every book read and written (lock: the players', and the
    # public book's commitments)
    players = len(EMAILS)
    assert len(together.requests) == {"check": 3 + 2 * players, "lock": 4 + 2 * players, "resolve": 4 + 2 * players}[command]
    # ...and the same books, ids made up by the fake included (a lock's protected ranges): nothing
    # depends on which came first.
    assert books(together) == books(alone)


def test_the_books_that_fail_are_all_named_whatever_finished_first(typed, tmp_path, monkeypatch):
    """Two players' spreadsheets gone: one at a time the first stops the command, as before; in
    flight together both are named, in the books' order."""
    fake, backend = on_copy(typed, 1, tmp_path / "alone", monkeypatch)
    names = [f"player:{p}" for p in PLAYERS[2:4]]
    gone = [typed[2][role] for role in names]
    for sid in gone:
        del fake.files[sid]
    with pytest.raises(BookError) as alone:
        engine.check(backend, fixed_clock)
    assert names[0] in str(alone.value) and names[1] not in str(alone.value)
    fake, backend = on_copy(typed, 4, tmp_path / "together", monkeypatch)
    for sid in gone:
        del fake.files[sid]
    with pytest.raises(BookError) as together:
        engine.check(backend, fixed_clock)
    lines = str(together.value).splitlines()
    assert len(lines) == 2 and [names[0] in lines[0], names[1] in lines[1]] == [True, True], lines
    assert all("HTTP 404" in line for line in lines)


def test_a_rate_limit_met_by_books_in_flight_is_retried_by_each(typed, tmp_path, monkeypatch):
    """The first three reads of players' books answered 429: each is waited out and sent again
    (whichever thread meets which), and the command ends as an untouched one."""
    clean, backend = on_copy(typed, 1, tmp_path / "clean", monkeypatch)
    engine.resolve(backend, early=True, clock=fixed_clock)
    fake, backend = on_copy(typed, 4, tmp_path / "limited", monkeypatch)
    players = player_sids(typed)
    started = []

    def limited(method: str, path: str) -> None:
        if not started and method == "GET" and any(sid in path for sid in players):
            started.append(path)
            fake.fail_next(3, 429)

    fake.before_request = limited
    engine.resolve(backend, early=True, clock=fixed_clock)
    assert [c.status for c in fake.requests].count(429) == 3
    assert len(fake.sleeps) == 3 and len(fake.requests) == len(clean.requests) + 3
    assert books(fake) == books(clean)


def test_expired_credentials_are_refreshed_once_by_requests_sent_together():
    """google-auth refreshes in `before_request` without a lock: the client refreshes first, under
    its own, so threads finding the token expired together fetch one token, not one each."""

    class Expired(Credentials):
        refreshes = 0

        def refresh(self, request) -> None:
            threading.Event().wait(0.05)  # a token endpoint's round trip: the others arrive meanwhile
            type(self).refreshes += 1
            self.token = "fresh"

    client = RetryingHTTPClient(Expired())
    fake = FakeGoogle()
    fake.mount(client.session)
    sid = fake.add_spreadsheet("tokens")
    start = threading.Barrier(6)

    def get() -> None:
        start.wait()
        client.fetch_sheet_metadata(sid, params={"fields": "sheets.properties.title"})

    threads = [threading.Thread(target=get) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert Expired.refreshes == 1
    assert [c.status for c in fake.requests] == [200] * 6


def test_the_ids_the_fake_makes_up_for_a_spreadsheet_do_not_depend_on_the_others_changed_meanwhile():
    """Books written at once reach the fake in any order: a lock's protected range gets the same id
    whichever spreadsheet was written first."""

    def locked(first: str) -> dict[str, list]:
        backend, fake = fake_backend()
        books = {role: backend.create(role, role) for role in ("player:Ann", "player:Bo")}
        for book in books.values():
            book.write({"submit": pd.DataFrame({"site": [1]})})
        for role in sorted(books, key=lambda role: role != first):
            books[role].write({}, protect={"submit": True})
        return {role: fake.protected(book.id, "submit") for role, book in books.items()}

    assert locked("player:Ann") == locked("player:Bo")


class Killed(BaseException):
    """The process dies here (not an error any code may catch)."""


@pytest.mark.parametrize("at", [0, 3, 7])
def test_a_resolve_killed_while_its_books_are_in_flight_is_finished_by_the_next_command(typed, at, tmp_path, monkeypatch):
    """From the `at`-th write after the commit on, every request dies (the process is gone, some
    books written, others not, whichever threads got there first); the next `resolve` finishes the
    delivery, and the books hold what an untouched resolve leaves (the host's log says more)."""
    clean, backend = on_copy(typed, 1, tmp_path / "clean", monkeypatch)
    engine.resolve(backend, early=True, clock=fixed_clock)
    fake, backend = on_copy(typed, 4, tmp_path / "killed", monkeypatch)
    host, writes = typed[1], []

    def die(method: str, path: str) -> None:
        if method == "POST" and path.endswith(":batchUpdate"):
            writes.append(path)
        # The lease and the commit are the host's first two writes; the books' follow.
        if len(writes) > 2 + at:
            raise Killed

    fake.before_request = die
    with pytest.raises(Killed):
        engine.resolve(backend, early=True, clock=fixed_clock)
    fake.before_request = None
    again, _ = fake_backend(host, fake=fake)
    assert engine.resolve(again, early=True, clock=fixed_clock).action == "delivered"
    without_log = {sid: [t for t in tabs if not (sid == host and t[0] == "log")] for sid, tabs in books(fake).items()}
    assert without_log == {sid: [t for t in tabs if not (sid == host and t[0] == "log")]
                           for sid, tabs in books(clean).items()}
    assert engine.catch_up(fake_backend(host, fake=fake)[0], fixed_clock) is None  # nothing more owed
