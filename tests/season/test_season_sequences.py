"""Random seasons played by the commands alone (hypothesis, stateful): games made from the ledger,
played, redone and undone before and after `settle`, and `settle` killed before or after its one
write. After every step each game's standing rows in the ledger are what its result gives now
(when settled since), nothing counted twice or lost, balances are sums, and every player's
`season` tab holds only their own values."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from sheets_host.backends.kinds import open_backend
from sheets_host.backends.xlsx.backend import XlsxBook
from sheets_host.engine import commands as engine
from sheets_host.kit.result import THINGS, TOKEN
from sheets_host.season import commands as season
from sheets_host.season.books import SEASON_TAB, season_tab
from sheets_host.season.ledger import standing
from sheets_host.season.state import GARNETS_REMOVED, GARNETS_TO_WINNER, TOKEN_NEXT_PICKS, TOKEN_SEASON

from tests.conftest import fixed_clock
from . import contest

CAST = ("Ann", "Bo", "Cy", "Di", "Ed", "Fay")


def shown(frame) -> list[list[str]]:
    """A tab's rows as text, blank rows left out (a book reads them back as nothing)."""
    rows = frame.fillna("").astype(str).values.tolist()
    return [row for row in rows if any(row)]


class Killed(BaseException):
    """The process dying: nothing after it runs."""


class SeasonSequences(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="season-"))
        self.patch = pytest.MonkeyPatch()
        contest.install(self.patch, self.folder)
        self.where = self.folder / "season"
        self.settled_since = True  # nothing changed in a game since the last settle
        self.delivered = False  # the last step was a whole settle: every season tab written
        self.read_now: dict = {}
        self.ruled = True

    def teardown(self):
        self.patch.undo()

    def backend(self, where: Path | None = None):
        return open_backend("xlsx", str(where or self.where))

    def open_game(self, g):
        return self.backend(self.where / g.where)

    # The books are read once between two rules: the preconditions, the rule's own reads before it
    # writes and the invariants after it share them (a rule that writes marks them `stale`).
    def stale(self) -> None:
        self.read_now, self.ruled = {}, True

    def fresh(self) -> None:
        """The invariants' first read after a rule: what the rule wrote."""
        if self.ruled:
            self.read_now, self.ruled = {}, False

    def season(self):
        if "season" not in self.read_now:
            self.read_now["season"] = season.read(self.backend())
        return self.read_now["season"]

    def latest(self):
        games = self.season().games
        return games[-1] if games else None

    def session(self, g):
        if g.number not in self.read_now:
            self.read_now[g.number] = engine.open_session(self.open_game(g), fixed_clock)
        return self.read_now[g.number]

    def latest_over(self) -> bool | None:
        """Whether the latest game is over (None: no game yet)."""
        g = self.latest()
        return None if g is None else self.session(g).game.is_over(self.session(g).state)

    @initialize(garnets=st.integers(0, 2), public=st.booleans(), eliminated=st.sampled_from([GARNETS_REMOVED, GARNETS_TO_WINNER]),
                token=st.sampled_from([TOKEN_NEXT_PICKS, TOKEN_SEASON]))
    def new(self, garnets, public, eliminated, token):
        self.stale()
        season.new_season(self.backend(), "Sequences", CAST, 3, clock=fixed_clock,
                          settings={"starting garnets": garnets, "garnets public": "yes" if public else "no",
                                    "garnets of the eliminated": eliminated, "token of life lasts": token})

    def _ready(self) -> bool:
        return self.latest_over() in (None, True)

    @precondition(lambda self: self._ready())
    @rule(death=st.booleans(), data=st.data())
    def make(self, death, data):
        self.stale()  # what this rule writes changes what the next reads
        self.delivered = False
        # `season next` settles every game first: the pairing is drawn from the ledger as it will be.
        season.settle(self.backend(), self.open_game, clock=fixed_clock)
        self.settled_since = True
        held = self.season()
        owed = held.candidates_owed()
        opponents = [p for p in held.still_in if p not in owed[:1] and held.held(p, TOKEN) <= 0]
        number = held.next_number()
        if death and owed and opponents:
            pair = [owed[0], data.draw(st.sampled_from(opponents))]
            season.next_game(self.backend(), "duel", f"games/{number}", "xlsx", self.open_game, pair, clock=fixed_clock)
        elif len(held.still_in) >= 3:
            season.next_game(self.backend(), "contest", f"games/{number}", "xlsx", self.open_game, clock=fixed_clock)

    def _open(self) -> bool:
        return self.latest_over() is False

    @precondition(lambda self: self._open())
    @rule(data=st.data())
    def play(self, data):
        self.stale()  # what this rule writes changes what the next reads
        self.delivered = False
        g = self.latest()
        game = self.open_game(g)
        for player in g.players:
            game.book(f"player:{player}").write({"submit": pd.DataFrame([{"score": data.draw(st.integers(1, 9))}])})
        engine.resolve(game, early=True, clock=fixed_clock)
        self.settled_since = False

    def _over(self) -> bool:
        return self.latest_over() is True

    @precondition(lambda self: self._over())
    @rule()
    def undo(self):
        self.stale()  # what this rule writes changes what the next reads
        self.delivered = False
        engine.undo(self.open_game(self.latest()), clock=fixed_clock, reason="sequences")
        self.settled_since = False

    @precondition(lambda self: self._over())
    @rule(data=st.data())
    def redo(self, data):
        self.stale()  # what this rule writes changes what the next reads
        self.delivered = False
        game = self.open_game(self.latest())
        archive = game.book("host").read(["archive"])["archive"]
        archive.loc[archive.index[data.draw(st.integers(0, len(archive) - 1))], "score"] = data.draw(st.integers(1, 9))
        game.book("host").write({"archive": archive})
        engine.resolve(game, redo=True, clock=fixed_clock, reason="sequences")
        self.settled_since = False

    @rule()
    def settle(self):
        self.stale()  # what this rule writes changes what the next reads
        season.settle(self.backend(), self.open_game, clock=fixed_clock)
        self.settled_since = self.delivered = True

    @rule(after=st.booleans())
    def settle_killed(self, after):
        """The process dies at the season host book's write: before it, or just after it."""
        self.stale()  # what this rule writes changes what the next reads
        real = XlsxBook.write
        host = (self.where / "host.xlsx").resolve()

        def dying(book, tabs, **options):
            if book.path.resolve() != host:
                return real(book, tabs, **options)
            if after:
                real(book, tabs, **options)
            raise Killed()

        self.delivered = False
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(XlsxBook, "write", dying)
            try:
                season.settle(self.backend(), self.open_game, clock=fixed_clock)
            except Killed:
                pass
        if after:
            self.settled_since = True  # the ledger was written; the rest is derived and finished later

    @invariant()
    def each_game_is_in_the_ledger_once_as_its_result_gives_it(self):
        self.fresh()
        if not self.where.exists() or not self.settled_since:
            return
        held = self.season()
        for g in held.games:
            session = self.session(g)
            result = session.game.result(session.state) if session.game.is_over(session.state) else None
            wanted = Counter((c.player, c.what, c.amount, c.why) for c in (result.changes if result else ()))
            rows = Counter(e.change for e in standing(held.entries, g.number) if not e.why.startswith("eliminated:"))
            assert rows == wanted, (g.number, rows, wanted)

    @invariant()
    def balances_are_sums_and_every_season_tab_holds_only_its_players_values(self):
        self.fresh()
        if not self.where.exists():
            return
        held = self.season()
        assert [e.number for e in held.entries] == list(range(1, len(held.entries) + 1))
        for p in held.cast:
            assert all(held.held(p, t) == sum(e.amount for e in held.entries if e.player == p and e.what == t)
                       for t in THINGS)
            for row in season_tab(held, p).to_numpy(dtype=object).tolist():
                said = " ".join("" if v is None else str(v) for v in row)
                named = [o for o in held.cast if o != p and o in said]
                assert not named or (row[0] == "everyone's garnets" and held.settings.garnets_public), (p, said)
        latest = held.games[-1] if held.games else None
        if latest and self.delivered:
            for p in latest.players:
                written = self.open_game(latest).book(f"player:{p}").read([SEASON_TAB])[SEASON_TAB]
                assert shown(written) == shown(season_tab(held, p))

TestSeasonSequences = SeasonSequences.TestCase
TestSeasonSequences.settings = settings(max_examples=15, stateful_step_count=16, deadline=None,
                                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestSeasonSequences.pytestmark = [pytest.mark.slow(20)]
