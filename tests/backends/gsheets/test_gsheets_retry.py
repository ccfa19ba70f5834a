"""Writes Google applied but whose answer was lost (issue 25): the client retries them, and a retry
must change nothing more: no row appended twice to the archive, the log, the snapshots or a player's
`my submissions`, no rows inserted twice by a patch, no refusal of a commit as if the lease were lost.

A Magician's Market game (appends to the host's tabs, players' histories patched) is played on the
fake Google to day 2, typed, and resolved once untouched (the expected books). Then, from a copy of
the same spreadsheets, the resolve runs again once for each of its writes (the lease, the host's
commit, the public book and every player's), the fake applying that write and losing its answer
(connection dropped, timeout, 500 or 503): the command succeeds and every book holds what the
untouched run's holds. `check` (the lease taken and released without a commit) likewise.
"""

from __future__ import annotations

import copy
import shutil

import pytest

from sheets_host.backends.gsheets.backend import spreadsheet_id
from sheets_host.backends.gsheets.lease import LEASE
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bots_submit
from sheets_host.fakes.google import FakeGoogle, fake_backend

from tests.conftest import PLAYERS, fixed_clock

GAME, SEED = "magicians-market", 3
EMAILS = {p: f"{p.lower()}@example.org" for p in PLAYERS[:4]}
LOSSES = (None, "timeout", 500, 503)  # taken in turn, one a write


@pytest.fixture(scope="module")
def day_two(tmp_path_factory):
    """A game on day 2, typed: its spreadsheets, its host's id and the folder of its files."""
    folder = tmp_path_factory.mktemp("day-two")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        backend, fake = fake_backend()
        host = engine.new_game(backend, GAME, list(EMAILS), SEED, EMAILS, clock=fixed_clock).host.ref
        for day in (1, 2):
            typist, _ = fake_backend(host, fake=fake)
            bots_submit(typist, engine.open_session(typist, fixed_clock), SEED)
            if day == 1:
                engine.resolve(fake_backend(host, fake=fake)[0], early=True, clock=fixed_clock)
    return fake.files, spreadsheet_id(host), folder


def run(day_two, command, tmp_path, monkeypatch, lose_at: int | None = None, how=None):
    """`command` on a copy of the spreadsheets, the answer to its `lose_at`-th request lost; the fake
    and what the command returned."""
    files, host, folder = day_two
    fake = FakeGoogle()
    fake.files = copy.deepcopy(files)
    shutil.copytree(folder, tmp_path)
    monkeypatch.chdir(tmp_path)
    if lose_at is not None:
        fake.lose_next_answer(how, skip=lose_at)
    backend, _ = fake_backend(host, fake=fake)
    return fake, command(backend)


def books(fake: FakeGoogle) -> dict:
    return {(sid, tab): fake.values(sid, tab) for sid in fake.files for tab in fake.tabs(sid) if tab != LEASE}


def writes(fake: FakeGoogle) -> list[int]:
    return [i for i, c in enumerate(fake.requests) if c.method == "POST" and c.path.endswith(":batchUpdate")]


COMMANDS = {
    "resolve": lambda backend: engine.resolve(backend, early=True, clock=fixed_clock).name,
    "check": lambda backend: engine.check(backend, fixed_clock) is not None,
}


@pytest.mark.parametrize("name", COMMANDS)
def test_a_write_applied_whose_answer_was_lost_is_not_applied_again(day_two, name, tmp_path, monkeypatch):
    command = COMMANDS[name]
    clean, done = run(day_two, command, tmp_path / "clean", monkeypatch)
    expected, points = books(clean), writes(clean)
    assert len(points) >= (len(EMAILS) + 3 if name == "resolve" else 2)  # the lease, the host, the public book, players
    for k, at in enumerate(points):
        how = LOSSES[k % len(LOSSES)]
        fake, result = run(day_two, command, tmp_path / f"lost-{k}", monkeypatch, at, how)
        assert result == done, (at, how)
        assert fake.requests[at].status in (None, 500, 503)  # the write whose answer was lost
        assert books(fake) == expected, (at, how, fake.requests[at].sid)
        assert LEASE not in fake.tabs(day_two[1])
        assert all(len(file.developer_metadata) <= 1 for file in fake.files.values())  # each write's mark replaces the last
