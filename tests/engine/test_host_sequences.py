"""Host operations judged as sequences: random players' edits, check, lock, resolve, redo, undo, a
crash at any write and a re-run, against what a host expects, for two games.

After every step: no submission a player typed is lost (it is still in their submit tab or in the
archive), the archive holds each attempt once, a commit happens at most once per command, and
every book shows the host's commit unless a crash is still to be finished. When a run ends, the
state equals a replay of the host book.
"""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from sheets_host.backends import ENGINE_TAB
from sheets_host.backends.xlsx import backend as xlsx
from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import delivered
from sheets_host.engine.host import ARCHIVE_KEYS, read_commit
from sheets_host.kit.cells import text
from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.game import rng_for

from tests.conftest import fixed_clock

JUNK = ["=A1+1", "9" * 60, "stone", "  ", "Zoë\u200b", "-1", "yes", "2026-11-23 18:00"]


class Killed(BaseException):
    """The process dies at a write (not an error any code may catch)."""


def content(frame: pd.DataFrame | None) -> tuple:
    """A submit tab's non-blank cells by row and column, as text."""
    if frame is None or frame.empty:
        return ()
    cells = []
    for number, row in zip(frame.index, frame.itertuples(index=False, name=None)):
        values = tuple(text(v) for v in row)
        if any(values):
            cells.append((int(number), values))
    return tuple(cells)


class HostSequences(RuleBasedStateMachine):
    game_name = "wind-guide-me"
    players = ("Ada", "Blaise", "Cora", "Dmitri", "Emmy", "Felix", "Grace")

    @initialize()
    def new_game(self):
        self.folder = Path(tempfile.mkdtemp(prefix="sequences-"))
        self.backend = XlsxBackend(self.folder / "game")
        engine.new_game(self.backend, self.game_name, list(self.players), 3, clock=fixed_clock)
        self.pending = False  # a crash left books behind the host
        self.typed: dict[str, tuple] = {}  # what each player typed, to be found again after every command
        self.minutes = 0

    def teardown(self):
        try:
            self.state_equals_a_replay()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def clock(self):
        self.minutes += 1
        return fixed_clock() + pd.Timedelta(minutes=self.minutes)

    # ---- players ----------------------------------------------------------------------------

    @rule(player=st.integers(0, 20), seed=st.integers(0, 10**6), junk=st.booleans())
    def a_player_types(self, player, seed, junk):
        session = engine.open_session(self.backend, fixed_clock)
        game, state = session.game, session.state
        name = self.players[player % len(self.players)]
        if game.is_over(state):
            return
        rng = random.Random(seed)
        rows = game.submit_rows(game.bot(state, name, rng_for(seed, game.round(state), name)))
        if junk:
            rows.append({h: rng.choice(JUNK) for h in game.submit_tab.header})
        frame = pd.DataFrame(rows, columns=game.submit_tab.header, dtype=object)
        self.backend.book(f"player:{name}").write({"submit": frame})
        self.typed[name] = content(self.backend.book(f"player:{name}").read(["submit"])["submit"])

    # ---- the host ---------------------------------------------------------------------------

    def run(self, command, crash_at: int | None = None):
        """Run a command (maybe killed at its `crash_at`-th write); returns whether it committed."""
        before = self.version()
        original = xlsx.XlsxBook.write
        writes = 0

        def write(book, tabs, **kw):
            nonlocal writes
            writes += 1
            if crash_at is not None and writes == crash_at:
                raise Killed
            return original(book, tabs, **kw)

        xlsx.XlsxBook.write = write
        try:
            command()
        except SheetsHostError:
            pass  # refused (nothing to undo, nobody submitted, an interrupted delivery...): a message
        except Killed:
            pass
        finally:
            xlsx.XlsxBook.write = original
        after = self.version()
        self.pending = any(v < after for v in self.shown().values())
        assert after - before in (0, 1), "one command committed twice"
        return after > before

    @rule()
    def check(self):
        self.run(lambda: engine.check(self.backend, self.clock))

    @rule()
    def lock(self):
        self.run(lambda: engine.lock(self.backend, self.clock))

    @rule(crash=st.none() | st.integers(1, 12), allow_empty=st.booleans())
    def resolve(self, crash, allow_empty):
        self.run(lambda: self._resolve(allow_empty=allow_empty), crash)

    @rule(crash=st.none() | st.integers(1, 12))
    def redo(self, crash):
        self.run(lambda: self._resolve(redo=True), crash)

    @rule(crash=st.none() | st.integers(1, 12))
    def undo(self, crash):
        self.run(lambda: engine.undo(self.backend, self.clock), crash)

    def _resolve(self, **kw):
        engine.resolve(self.backend, early=True, clock=self.clock, **kw)

    # ---- what the host expects ----------------------------------------------------------------

    def version(self) -> int:
        return read_commit(self.backend.book("host").read([ENGINE_TAB]).get(ENGINE_TAB)).version

    def shown(self) -> dict[str, int]:
        """The host commit each other book shows."""
        return {role: delivered(self.backend.book(role).read([ENGINE_TAB]).get(ENGINE_TAB))
                for role in ["public", *(f"player:{p}" for p in self.players)]}

    def archive(self) -> pd.DataFrame:
        return self.backend.book("host").read(["archive"])["archive"]

    @invariant()
    def nothing_typed_is_lost(self):
        archive = self.archive()
        header = [c for c in archive.columns if c not in ARCHIVE_KEYS]
        for name, typed in self.typed.items():
            if not typed:
                continue
            now = content(self.backend.book(f"player:{name}").read(["submit"]).get("submit"))
            if now == typed:
                continue
            mine = archive[archive["player"] == name]
            kept = {
                tuple(sorted((int(float(r["row"])), tuple(text(r[h]) for h in header)) for _, r in rows.iterrows()))
                for _, rows in mine.groupby(["round", "attempt"])
            }
            assert tuple(sorted(typed)) in kept, f"{name}'s submission {typed} is in no book"

    @invariant()
    def each_attempt_is_archived_once(self):
        archive = self.archive()
        keys = list(zip(archive["round"], archive["attempt"], archive["player"], archive["row"]))
        assert len(keys) == len(set(keys))

    @invariant()
    def every_book_shows_the_host_commit(self):
        if self.pending:
            return
        version = self.version()
        for role, shown in self.shown().items():
            assert shown == version, f"{role} shows commit {shown}, the host {version}"

    def state_equals_a_replay(self):
        copy = XlsxBackend(self.folder / "replay")
        engine.replay(self.backend, copy, fixed_clock)
        mine, theirs = engine.open_session(self.backend, fixed_clock), engine.open_session(copy, fixed_clock)
        assert mine.game.dump(mine.state) == theirs.game.dump(theirs.state)


class MarketSequences(HostSequences):
    game_name = "magicians-market"
    players = ("Ada", "Blaise", "Cora", "Dmitri")


SETTINGS = settings(max_examples=8, stateful_step_count=12, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestWindGuideMeSequences = HostSequences.TestCase
TestWindGuideMeSequences.settings = SETTINGS
TestMagiciansMarketSequences = MarketSequences.TestCase
TestMagiciansMarketSequences.settings = SETTINGS
TestWindGuideMeSequences.pytestmark = [pytest.mark.slow(14)]
TestMagiciansMarketSequences.pytestmark = [pytest.mark.slow(11)]
