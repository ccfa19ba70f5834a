"""A resolve (and an undo, a redo) killed before any one of its writes is finished exactly once by
the next command: the folder then holds what a run never killed holds.

For each game, bots play to a mid-game round and type that round; the round is then resolved once
without a kill (the expected folder), and again on a copy of the folder for each kill point k: the
process dies (`Killed`, which no code may catch) before its k-th write of a book or of a file, then
the host runs `resolve` again, which finishes what the commit owes and stops. The two folders must
hold the same books (every tab's values; the host's log may have, only in the killed run, the
`delivery` lines recovery writes), the same archive (as a multiset of rows: nothing lost or doubled)
and the same announcement files and private pictures, byte for byte; a further command owes nothing.

In CI (about 35 s on one core) every kill point of the Academy's resolve (a round with the `board`
and `wards` tabs and private pictures) and of Magician's Market's runs, with a seeded sample of the
other games' and of the Academy's `undo` and `resolve --redo` (the next round typed, which the undo
sets aside); `SHEETS_HOST_DEEP=1` runs every kill point of every one (the benchmark machine's run,
about 70 s).
"""

from __future__ import annotations

import os
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest

from sheets_host.backends.xlsx import backend as xlsx
from sheets_host.backends.xlsx.backend import XlsxBackend, XlsxBook
from sheets_host.engine import delivery, commands as engine
from sheets_host.engine.play import bots, bots_submit, host_types
from sheets_host.games import get_game
from sheets_host.kit.cells import text

from tests.conftest import fixed_clock

DEEP = os.environ.get("SHEETS_HOST_DEEP") == "1"
SEED = 3
# game -> (players, the round killed, kill points sampled in CI: None for all)
GAMES = {
    "academy-of-witchcraft-arts": (5, 2, None),
    "magicians-market": (4, 2, None),
    "wind-guide-me": (None, 2, 3),
    "pyramid-superiority": (None, 2, 3),
    "spirit-chain": (None, 3, 3),
}


class Killed(BaseException):
    """The process dies here (not an error any code may catch)."""


class Kill:
    """Counts the writes of books and files (and removals of files) a command makes, and kills it
    before the `at`-th (never when None)."""

    def __init__(self, monkeypatch, at: int | None = None):
        self.at, self.count = at, 0
        for owner, name in ((xlsx.XlsxBook, "write"), (delivery, "_replace"), (delivery, "_remove")):
            monkeypatch.setattr(owner, name, self._wrap(getattr(owner, name)))

    def _wrap(self, original):
        def counted(*args, **kw):
            self.count += 1
            if self.count == self.at:
                raise Killed
            return original(*args, **kw)
        return counted


def play_to(folder: Path, name: str, players: int | None, round_number: int) -> XlsxBackend:
    """Bots play `name` up to `round_number` and type it (nothing of it resolved)."""
    backend = XlsxBackend(folder)
    engine.new_game(backend, name, bots(get_game(name), players), SEED, clock=fixed_clock)
    while True:
        host_types(backend, engine.open_session(backend, fixed_clock), SEED)
        session = engine.open_session(backend, fixed_clock)
        bots_submit(backend, session, SEED)
        if session.open_round["round"] == round_number:
            return backend
        engine.resolve(backend, early=True, clock=fixed_clock)


def contents(folder: Path) -> dict:
    """Every book's tabs as text (the archive as a multiset of rows, the host's log without the
    lines recovery adds) and every announcement file's bytes."""
    out: dict = {}
    for path in sorted(folder.rglob("*.xlsx")):
        for tab, data in XlsxBook(path, path.name).read().items():
            rows = [tuple(text(v) for v in row) for row in data.astype(object).itertuples(index=False, name=None)]
            columns = tuple(text(c) for c in data.columns)
            if tab == "log" and path.name == "host.xlsx":
                kind = columns.index("kind")
                rows = [r for r in rows if r[kind] != "delivery"]
            out[path.relative_to(folder).as_posix(), tab] = (columns, Counter(rows) if tab == "archive" else rows)
    for path in sorted((folder / "announcements").rglob("*")):
        if path.is_file():
            out[path.relative_to(folder).as_posix()] = path.read_bytes()
    return out


def differences(got: dict, want: dict) -> list[str]:
    return [f"{key}: {'missing' if key not in got else 'extra' if key not in want else 'differs'}"
            for key in sorted(set(got) | set(want), key=str) if got.get(key) != want.get(key)]


def resolve(backend, redo=False):
    return engine.resolve(backend, redo=redo, early=True, allow_empty=True, clock=fixed_clock)


def undo(backend):
    return engine.undo(backend, fixed_clock)


def redo(backend):
    return resolve(backend, redo=True)


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    """game -> (the folder before the round's resolve, what a run never killed holds, its writes)."""
    cache: dict = {}

    def stage(name: str, command=resolve, prepare=None):
        key = (name, command.__name__ if prepare is None else f"{command.__name__} after {prepare.__name__}")
        if key not in cache:
            players, round_number, _ = GAMES[name]
            root = tmp_path_factory.mktemp(name)
            backend = play_to(root / "stage", name, players, round_number)
            if prepare is not None:
                prepare(backend)
            shutil.copytree(root / "stage", root / "expected")
            with pytest.MonkeyPatch.context() as mp:
                kill = Kill(mp)
                command(XlsxBackend(root / "expected"))
            cache[key] = (root / "stage", contents(root / "expected"), kill.count)
        return cache[key]
    return stage


def killed_then_resumed(tmp_path, stage: Path, command, at: int, resume=resolve) -> XlsxBackend:
    """A copy of `stage`, `command` killed before its `at`-th write, then the host's `resume`."""
    folder = tmp_path / f"killed-{at}"
    shutil.copytree(stage, folder)
    backend = XlsxBackend(folder)
    with pytest.MonkeyPatch.context() as mp:
        Kill(mp, at)
        with pytest.raises(Killed):
            command(backend)
    resume(backend)
    return backend


def kill_points(name: str, writes: int, sample: int | None) -> list[int]:
    """Every kill point, or in CI a seeded sample of `sample` of them."""
    points = list(range(1, writes + 1))
    if DEEP or sample is None:
        return points
    return sorted(random.Random(f"{name}/{writes}").sample(points, min(sample, writes)))


@pytest.mark.slow(12)
@pytest.mark.parametrize("name", list(GAMES))
def test_a_resolve_killed_before_any_write_is_finished_by_the_next_resolve(name, staged, tmp_path):
    stage, want, writes = staged(name)
    assert writes > 3  # the host book, the public book, a player's book, a file at least
    for at in kill_points(name, writes, GAMES[name][2]):
        backend = killed_then_resumed(tmp_path, stage, resolve, at)
        assert differences(contents(backend.folder), want) == [], f"killed before write {at} of {writes}"
        assert engine.catch_up(backend, fixed_clock) is None, f"killed before write {at}: still owed after recovery"
        shutil.rmtree(backend.folder)


def resolved_and_typed(backend):
    """The round resolved and the next one typed, which an undo sets aside and a redo keeps."""
    resolve(backend)
    bots_submit(backend, engine.open_session(backend, fixed_clock), SEED + 1)


@pytest.mark.slow(5)
@pytest.mark.parametrize("command", [undo, redo])
def test_an_undo_or_redo_killed_before_any_write_is_finished_by_the_next_command(command, staged, tmp_path):
    name = "academy-of-witchcraft-arts"
    stage, want, writes = staged(name, command, prepare=resolved_and_typed)
    for at in kill_points(f"{name} {command.__name__}", writes, 4):
        backend = killed_then_resumed(tmp_path, stage, command, at, resume=command)  # as the message says
        assert differences(contents(backend.folder), want) == [], f"killed before write {at} of {writes}"
        shutil.rmtree(backend.folder)


# ---- the two defects, each on its own --------------------------------------------------


def test_files_owed_when_the_books_were_all_written_are_written_by_the_next_check(staged, tmp_path):
    stage, want, writes = staged("wind-guide-me")
    first_file = writes - 1  # the round's announcement, then its picture
    backend = killed_then_resumed(tmp_path, stage, resolve, first_file, resume=lambda b: engine.check(b, fixed_clock))
    files = {key: value for key, value in want.items() if isinstance(key, str)}
    assert {"announcements/round-02.md", "announcements/round-02.png"} <= set(files)
    assert {key: value for key, value in contents(backend.folder).items() if isinstance(key, str)} == files


def test_the_academy_recovery_sets_aside_no_row_the_resolve_archived(staged, tmp_path):
    """Killed after the commit in the round of the `board` and `wards` tabs: the next round has
    none, and what the stale books hold there was archived once already."""
    stage, want, _ = staged("academy-of-witchcraft-arts")
    backend = killed_then_resumed(tmp_path, stage, resolve, 2)
    archive = backend.book("host").read(["archive"])["archive"]
    assert "set aside" not in set(archive["use"].map(text)), "recovery set aside rows the resolve archived"
    assert differences(contents(backend.folder), want) == []


def test_rows_typed_after_the_read_into_a_stale_book_are_set_aside_once(staged, tmp_path, monkeypatch):
    """A player types into the Continuum `wards` tab after the resolve read it (the kill came
    before their book was written): recovery keeps those rows, once, however often it is cut short."""
    stage, _, _ = staged("academy-of-witchcraft-arts")
    folder = tmp_path / "late"
    shutil.copytree(stage, folder)
    backend = XlsxBackend(folder)
    session = engine.open_session(backend, fixed_clock)
    late = next(p for p in session.players if [t.name for t in session.game.submit_tabs(session.state, p)] == ["board", "wards"])
    with pytest.MonkeyPatch.context() as mp:
        Kill(mp, 2)  # the commit is made, no other book written
        with pytest.raises(Killed):
            resolve(backend)
    book = backend.book(f"player:{late}")
    wards = book.read(["wards"])["wards"]
    wards.iloc[0, 0] = "A1"  # typed after the read
    book.write({"wards": wards})
    with pytest.MonkeyPatch.context() as mp:
        Kill(mp, 3)  # recovery commits the set-aside, then dies
        with pytest.raises(Killed):
            resolve(backend)
    resolve(backend)
    archive = backend.book("host").read(["archive"])["archive"]
    aside = archive[(archive["use"] == "set aside") & (archive["player"] == late)]
    assert set(aside["tab"]) == {"board", "wards"} and len(set(aside["attempt"])) == 1, aside
    assert ((aside["tab"] == "wards") & (aside["row"].astype(str) == "2") & (aside["ward"] == "A1")).sum() == 1, aside


def test_an_undo_of_a_round_whose_next_is_locked_is_recovered_without_archiving_the_lock_again(tmp_path):
    backend = play_to(tmp_path / "game", "magicians-market", 4, 2)
    resolve(backend)
    bots_submit(backend, engine.open_session(backend, fixed_clock), SEED + 1)
    engine.lock(backend, fixed_clock)
    before = Counter(map(tuple, backend.book("host").read(["archive"])["archive"].astype(str).values.tolist()))
    with pytest.MonkeyPatch.context() as mp:
        Kill(mp, 2)
        with pytest.raises(Killed):
            undo(backend)
    engine.check(backend, fixed_clock)
    after = Counter(map(tuple, backend.book("host").read(["archive"])["archive"].astype(str).values.tolist()))
    assert after == before, "the locked rows were archived a second time"
