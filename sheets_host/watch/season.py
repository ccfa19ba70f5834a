"""`watch SEASON`: the season run on its own, game after game, and the week between them.

While a game of the season is open it is watched as `watch GAME` watches it (`loop.Watch`:
rounds, reminders, lock, resolve, post). Between games (and right after a game ends) it runs the
season's step (`season.steps.step`: settle, ask, read the answers, the defaults at the deadlines,
give decisions to games, make the next Death Match or Main Match), then tells what the season
did (`news`: in public each game made, each ask, each outcome; in private each player asked a
nudge), posts the rounds a decision given to a game resolved again, and watches the next game
it made. It ends when the plan is done and nothing is owed.

**Quota.** Between games a step reads the season's host book, each game's host book and each
asked player's book, so it runs only when something may have changed: a pass asks the backends
which of the books the season waits on changed (`Backend.changed`: the season's host book, and
the last Main Match's host book and its asked players' books; one Drive request a backend on
Google, every `CHECK`), and steps when one did, at each ask's deadline and reminder, after a game
ends, and after a problem (waiting longer each time). While nobody types that is two Drive
requests every `CHECK` and no Sheets read.

**Restart-proof.** Every decision is the season host book's (`steps`), and what was told is its
`watch` tab (`news`): a watch killed at any moment and started again steps first, which finishes
what the killed one began, then tells what is owed, once. Discord's one gap stays: a kill between
Discord accepting a message and its row being written sends that message again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from sheets_host.backends import Backend
from sheets_host.discord.post import Send, private_webhooks, send_to_discord, shown
from sheets_host.engine.host import Clock, now_utc, open_session, stamp
from sheets_host.kit.console import echo
from sheets_host.kit.errors import BookError, BusyError, SchemaErrors, SheetsHostError
from sheets_host.kit.result import MAIN_MATCH
from sheets_host.season import steps
from sheets_host.season.commands import OpenGame, read
from sheets_host.season.state import Season, SeasonGame
from sheets_host.season.asking import read_answer, stands, tab_of
from sheets_host.season.week import ANSWERED, NOT_COUNTED, week
from . import news
from .loop import BUSY_WAIT, Passes, Watch, backoff, steps_done

CHECK = timedelta(minutes=1)  # how often, between games, watch asks which books changed


def is_season(backend: Backend) -> bool:
    """Whether the host book there is a season's (its `season`, `cast` and `ledger` tabs) rather
    than a game's."""
    tabs = backend.book("host").read(["season", "cast", "ledger"])
    return len(tabs) == 3


class SeasonWatch(Passes):
    """The host loop over a season (see the module): all is done once its plan is done and
    nothing is owed. `say` gets one line per action."""

    def __init__(self, backend: Backend, open_game: OpenGame, url: str | None = None, clock: Clock = now_utc,
                 say: Callable[[str], None] = echo, send: Send | None = None, webhooks: Path | None = None,
                 place: steps.Place = steps.folder_place, death_match: str = steps.DEATH_MATCH_GAME,
                 check: timedelta = CHECK):
        self.backend, self.url, self.clock, self.webhooks, self.check = backend, url, clock, webhooks, check
        self.send, self.place, self.death_match, self._say = send or send_to_discord, place, death_match, say
        self._open, self.opened = open_game, {}
        self.game: Watch | None = None  # the open game's watch
        self.due: datetime | None = None  # the next step owed whatever changed (None: none)
        self.watched: list[tuple[Backend, set[str]]] = []  # the books the season waits on, by backend
        self.marks: dict[int, object] = {}  # each watched backend's last `changed` mark
        self.hours: dict[str, Sequence[float]] = {}  # each asking game's reminder hours
        self.versions: dict[str, int] = {}  # the commit of the games just over, as the last step left them
        self.failures = 0
        self.said: dict[str, str] = {}  # what waits, as last said (said again when it changes)
        self.season: Season | None = None  # as the last step left it
        self.done: news.Done | None = None  # what the `watch` tab records as told (None: not read yet)
        self.began: tuple[int, int] = (0, 0)

    def say(self, line: str) -> None:
        self._say(f"{stamp(self.clock())} {line}")

    def open_game(self, g: SeasonGame) -> Backend:
        """A game's backend, one a game for this watch's life: it knows the game's books once read."""
        if (g.number, g.where) not in self.opened:
            self.opened[g.number, g.where] = self._open(g)
        return self.opened[g.number, g.where]

    def step(self) -> datetime | None:
        """One pass; when the next is due, or None once the plan is done and nothing is owed."""
        if self.game is not None:
            wake = self.game.step()
            if wake is not None:
                return wake
            self.game, self.due = None, self.clock()  # the game is over: the season moves on now
        try:
            return self._between()
        except BusyError as e:
            self.say(f"{e}; trying again in {BUSY_WAIT.seconds} s")
            return self.clock() + BUSY_WAIT
        except BookError as e:  # Google gave up after its retries, Discord unreachable, ...
            return self._later(str(e))
        except SchemaErrors as e:  # the host's typing in the season book: named, and read again until put right
            return self._later(f"{e} (the season waits until it is put right)")

    def _later(self, why: str) -> datetime:
        """A step owed again after a failure, later each time."""
        self.failures += 1
        wait = backoff(self.failures)
        self.say(f"{why}; trying again in {wait.seconds // 60} min")
        self.due = self.clock() + wait
        return self.due

    # ---- between games ------------------------------------------------------------------------

    def _between(self) -> datetime | None:
        now = self.clock()
        changed = self._changed()
        if self.done is not None and not changed and (self.due is None or now < self.due):
            return min(filter(None, (self.due, now + self.check)))
        if self.done is None:
            self._begin()
        # Posts in the order of what happened, however often the watch was killed: a game's round
        # resolved before the step, the step's news, then the rounds its decisions resolved again.
        wake = self._post_owed(self.season or read(self.backend), redone=False)
        if wake is not None:
            return wake
        report = steps.step(self.backend, self.open_game, self.clock, self.place, death_match=self.death_match)
        for line in report.lines:
            self.say(line)
        self.season = season = read(self.backend)
        self._tell(season)
        wake = self._post_owed(season, redone=True)
        if wake is not None:
            return wake
        self._waits(report)
        open_ = [g for g in season.games if not (g.settlement and g.settlement.over)]
        if open_:
            g = open_[-1]
            self.say(f"game {g.number} ({g.game}) is open: watching it")
            self.game = self._watch(g, season)
            return self.clock()
        if report.problems:  # a book not read, a decision not given, an answer not counted: look again
            return self._later(f"{len(report.problems)} problem(s)")
        self.failures = 0
        if self._over(season, report):
            self.say("the season's plan is done and nothing is owed: it waits for its next Main Match (sheets-host "
                     "season plan SEASON --add GAME); then watch it again")
            return None
        self._watch_books(season)
        self.due = min((m for m in news.moments(season, self._hours) if m > self.clock()), default=None)
        return min(filter(None, (self.due, self.clock() + self.check)))

    def _changed(self) -> bool:
        """Whether something the season waits on may have moved since the last step: a book it
        waits on changed since this was last asked (the first answer for a backend: all did), and
        holds something else than the step left. The step's own writes (the season's write, its
        leases, the ask and season tabs) change the books and nothing it reads, and are found so."""
        moved = False
        for backend, roles in self.watched:
            found, self.marks[id(backend)] = backend.changed(roles, self.marks.get(id(backend)))
            moved = moved or (bool(found) and self._moved(backend, found))
        return moved

    def _moved(self, backend: Backend, found: set[str]) -> bool:
        """Whether the books `found` changed hold something new: the season, the last Main Match's
        commit, an answer typed that the decisions log does not hold as typed."""
        if backend is self.backend:
            return read(self.backend) != self.season
        main = self.season.last(MAIN_MATCH)
        if "host" in found and open_session(backend).commit.version != self.versions.get(main.number):
            return True
        for ask in week(self.season).asks:
            for player in ask.players:
                if f"player:{player}" not in found:
                    continue
                frame = backend.book(f"player:{player}").read([tab_of(ask)]).get(tab_of(ask))
                logged = [d.typed for d in self.season.decisions if (d.game, d.key, d.basis, d.player) ==
                          (ask.game, ask.key, ask.basis, player) and d.how in (ANSWERED, NOT_COUNTED)]
                if not stands(frame, ask) or read_answer(frame, ask)[1] not in ("", *logged[-1:]):
                    return True
        return False

    def _watch_books(self, season: Season) -> None:
        """The books whose change may move the season: its host book (the host's `season decide`,
        `plan`, `next`), the last Main Match's host book (a redo) and the books of its players
        asked."""
        self.watched = [(self.backend, {"host"})]
        main = season.last(MAIN_MATCH)
        if main is not None:
            asked = {f"player:{p}" for a in week(season).asks for p in a.players}
            self.watched.append((self.open_game(main), {"host", *asked}))

    def _hours(self, number: str) -> Sequence[float]:
        """The asking game's `reminder hours`: its decisions are reminded as its rounds were."""
        if number not in self.hours:
            try:
                session = open_session(self.open_game(self.season.game(number)))
            except (SheetsHostError, SchemaErrors):
                return ()
            self.hours[number] = session.config.get("reminder hours") or ()
        return self.hours[number]

    def _waits(self, report: steps.StepReport) -> None:
        """What waits for players and for the host, said when it changes; problems each time."""
        for kind, lines in (("waiting", report.waiting), ("for you", report.host)):
            text = "; ".join(lines)
            if text and self.said.get(kind) != text:
                for line in lines:
                    self.say(f"{kind}: {line}")
            self.said[kind] = text
        for problem in report.problems:
            self.say(f"problem: {problem}")

    @staticmethod
    def _over(season: Season, report: steps.StepReport) -> bool:
        """The plan done and nothing owed: no ask, no decision to give, no Death Match owed."""
        wk = week(season)
        return not (wk.asks or wk.to_apply or wk.host or wk.picking or report.host or season.candidates_owed()
                    or steps.next_planned(season))

    # ---- telling ------------------------------------------------------------------------------

    def _begin(self) -> None:
        """What was told, from the `watch` tab; where watching began recorded once, before the
        first step: what the season held then is not posted again."""
        self.done, self.began = news.told(self.backend.book("host").read([news.TOLD.name]).get(news.TOLD.name))
        if self.began is None:
            with self.backend.hold("watch"):
                season = read(self.backend)
                self.began = len(season.decisions), len(season.games)
                self._record([(news.BEGAN, self.began[0], str(self.began[1]), "")])

    def _owed(self, season: Season, addresses: dict[str, str] | None) -> list[news.Tell]:
        tells = news.public(season, self.done, self.began) if self.url else []
        return tells + (news.nudges(season, self.done, self.clock(), self._hours) if addresses is not None else [])

    def _tell(self, season: Season) -> None:
        """Post in public and nudge in private what is owed, each once: with the season held and
        the `watch` tab read again, so that what another watch told is not told again."""
        addresses = self._addresses(season)
        if not self._owed(season, addresses):
            return
        with self.backend.hold("watch"):
            self.done, _ = news.told(self.backend.book("host").read([news.TOLD.name]).get(news.TOLD.name))
            tells = self._owed(season, addresses)
            unsent = sorted({t.player for t in tells if t.player is not None and t.player not in addresses})
            for tell in tells:
                if tell.player in unsent:
                    continue
                try:
                    self.send(addresses[tell.player] if tell.player else self.url, tell.message, None)
                except SheetsHostError as e:
                    raise BookError(f"not posted: {e}") from None
                where = f"{tell.player}'s channel" if tell.player else shown(self.url)
                self._record([(tell.what, tell.row, key, where) for key in [tell.key, *tell.also]])
                self.say(f"{tell.what}{' ' + tell.key if tell.key else ''} told to {where}")
        if unsent and self.said.get("unsent") != ", ".join(unsent):
            self.say(f"no private webhook for {', '.join(unsent)}: not nudged")
        self.said["unsent"] = ", ".join(unsent)

    def _addresses(self, season: Season) -> dict[str, str] | None:
        if not self.webhooks:
            return None
        try:
            return private_webhooks(self.webhooks, season.cast, self.url)
        except SheetsHostError as e:
            raise BookError(f"the players' webhooks file: {e}") from None

    def _record(self, rows: Sequence[tuple[str, int, str, str]]) -> None:
        """Rows of the `watch` tab, appended (the caller holds the season)."""
        when = stamp(self.clock())
        self.backend.book("host").write({}, append={news.TOLD.name: news.told_frame(
            (what, row, key, when, detail) for what, row, key, detail in rows)})
        self.done |= {(what, row, key) for what, row, key, _ in rows}

    def _watch(self, g: SeasonGame, season: Season) -> Watch:
        """Game `g` watched as `watch GAME` does, its players' webhooks from the season's file (which
        names the whole cast)."""
        return Watch(self.open_game(g), self.url, self.clock, self._say, self.send, self.webhooks, season.cast)

    def _post_owed(self, season: Season, redone: bool) -> datetime | None:
        """The last round of the games just over posted as `watch GAME` posts it, once: a game
        whose watch was killed before its post, and the last Main Match, whose last round a
        decision given to it resolved again (its results edited, its new root in a new message);
        `redone`: only rounds resolved again, else only the others. Their commits noted: a change
        of one is a redo or an undo. A game not posted in one pass is watched on (`self.game`):
        when it is due again."""
        over = [g for g in season.games if g.settlement and g.settlement.over]
        main = season.last(MAIN_MATCH)
        # The latest game too: over, and not yet settled when its watch was killed before its post.
        for number in dict.fromkeys(g.number for g in [*over[-1:], *season.games[-1:], *([main] if main else [])]):
            g = season.game(number)
            try:
                session = open_session(self.open_game(g), self.clock)
            except BookError:  # recorded by the season, not made yet: the step makes it
                continue
            self.versions[number] = session.commit.version
            last = session.last_resolved
            if not session.game.is_over(session.state) or (session.commit.operation == "redo") != redone:
                continue
            if self.url and last is not None and ("post", last["round"], last["resolved at"]) not in steps_done(session):
                watch = self._watch(g, season)
                wake = watch.step()
                if wake is not None:  # its books behind, or Discord down: watched on until it is posted
                    self.game = watch
                    return wake
        return None
