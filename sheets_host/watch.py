"""`watch`: what the host does by hand, done on the game's deadlines.

One pass reads the host book and does what is due, in this order:

1. **post** the last resolved round to Discord, if this resolution of it is not posted yet (a
   redo or an undo and resolve makes a new one, and `post` edits the messages in place), with
   each player's private pictures when a players' webhooks file is given;
2. **stop** when the game is over;
3. **close** the open round when it is due: `lock`, then `resolve`. It is due at its deadline (the
   `rounds` tab), or, in a game with time controls, once no player can still change what counts
   (`Game.settled`: Spirit Chain's windows and reserve time; such a part is resolved without a
   lock, since nothing typed from then on can count);
4. **remind** the players before the deadline (`reminder hours` in the config, 24 and 1 by
   default), once each: a reminder whose moment came before the round opened is not sent;
5. **check** every `check minutes`, so players see their status in their own book;
6. in a game with time controls, **stamp** each row typed without a time with the moment this
   pass first saw it (`Game.stamped_column`), reading the players' submit tabs every few seconds.

It then sleeps until the next thing is due. Everything a restart needs is in the host book: the
rounds tab says what is locked and resolved, and the `watch` tab what was posted, reminded and
stamped, so a killed watch started again (on any machine) does every step once. The engine's
commands hold the game (`Backend.hold`) and are told which round they were meant for (`expect`),
so two watches, or a watch and the host, never resolve a round twice.

Discord's webhooks cannot say whether a message was posted: a watch killed in the instant between
Discord accepting a message and the host book recording it posts that message again.

On Google Sheets watch sends at most `READS` read requests in any 60 s (the quota is 60 reads a
minute per user: two games watched from one account fit), waiting for room before each pass and
each command; a poll between commits reads the players' submit tabs and only the host book's
small tabs (`SMALL`), and the whole host book only once they changed. A request Google refuses
for quota is retried by the client, and a command that still fails is retried later, waiting
longer each time.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd

from . import cells, engine
from .announce import Message
from .backends import ENGINE_TAB, Backend
from .console import echo
from .delivery import check_owner, delivered, from_now, submit_layout
from .errors import BookError, BusyError, SheetsHostError
from .game import Window
from .host import Clock, Session, now_utc, open_session, parse_time, stamp
from .post import Send, _discord, post, shown
from .reading import submit_rows
from .table import Column, TabSchema

WATCH = TabSchema("watch", (Column("round", "int", lo=1), Column("step"), Column("at"), Column("detail", optional=True)),
                  "What `watch` did (posted, reminded, stamped), so that a restart does nothing twice.")
# Read requests one watched game may send in any 60 s: a hard cap, so that two games watched from
# one account stay within Google's 60 reads a minute per user.
READS = 30
MINUTE = timedelta(minutes=1)
# What a poll reads of the host book: what another command's commit or the host's edits change.
SMALL = (ENGINE_TAB, "rounds", "config")
CHECK_MINUTES = 5.0
FASTEST_POLL = timedelta(seconds=3)
BUSY_WAIT = timedelta(seconds=30)
LONGEST_WAIT = timedelta(minutes=10)


@dataclass(frozen=True)
class Plan:
    """How often watch checks and, in a timed round, reads the submit tabs; its reads a minute."""

    check_every: timedelta
    poll_every: timedelta
    reads: float


def plan(books: int, polled: int, check_minutes: float | None, quota: bool = True) -> Plan:
    """A plan within `READS` reads a minute: a check reads every book (the host's, at most) and
    takes at most half of them; a poll reads the `polled` players' books and the host book's
    small tabs, leaving room for what a part adds: its close (a resolve reads every book but the
    host's), the host book read whole after it, a stamp per player. Without a `quota` (xlsx) a
    poll comes every `FASTEST_POLL`.

    >>> plan(17, 0, None)  # 15 players
    Plan(check_every=datetime.timedelta(seconds=300), poll_every=datetime.timedelta(seconds=3), reads=3.4)
    >>> plan(17, 0, 0.5).check_every  # checking every 30 s would take 34 reads a minute
    datetime.timedelta(seconds=68)
    >>> round(plan(4, 2, None).poll_every.total_seconds(), 1)  # Spirit Chain's two duellists
    7.8
    """
    minutes = max(check_minutes or CHECK_MINUTES, books / (READS / 2))
    check_rate = books / minutes
    poll = FASTEST_POLL
    if polled and quota:
        part = books + polled  # a part's close, the host book read whole after it, a stamp each
        poll = max(poll, MINUTE * (polled + 1) / (READS - check_rate - part))
    rate = check_rate + (polled + 1) / (poll / MINUTE) if polled else check_rate
    return Plan(timedelta(minutes=minutes), poll, round(rate, 1))


class Reads:
    """The read requests of the last minute, each at the moment the pass that sent it ended (no
    earlier than it was sent, so the cap holds). Counted by the backend; one that counts none
    (xlsx) has no quota."""

    def __init__(self, backend: Backend):
        self.backend = backend
        self.counted: int | None = getattr(backend, "reads", None)
        self.at: list[datetime] = []

    def note(self, now: datetime) -> None:
        if self.counted is None:
            return
        made, self.counted = self.backend.reads - self.counted, self.backend.reads  # type: ignore[attr-defined]
        self.at += [now] * made

    def room(self, reads: int, now: datetime) -> datetime:
        """The first moment from `now` when `reads` more keep every 60 s within `READS`.

        >>> class B: reads = 0
        >>> r, t = Reads(B()), datetime(2026, 1, 1)
        >>> B.reads = 28; r.note(t); B.reads = 29; r.note(t + timedelta(seconds=10))
        >>> r.room(1, t + timedelta(seconds=20)), r.room(2, t + timedelta(seconds=20))
        (datetime.datetime(2026, 1, 1, 0, 0, 20), datetime.datetime(2026, 1, 1, 0, 1))
        """
        if self.counted is None:
            return now
        self.at = [t for t in self.at if t > now - MINUTE]
        over = min(len(self.at) + reads - READS, len(self.at))
        return now if over <= 0 else max(now, self.at[over - 1] + MINUTE)


class _Wait(Exception):
    """Not enough of the minute's reads left: the pass ends, and watch comes back `until`."""

    def __init__(self, until: datetime):
        self.until = until


def reminder(name: str, deadline: datetime, now: datetime) -> Message:
    """A reminder before the deadline: no player's name or progress, so nothing private."""
    return Message(f"\u23f0 **{name[:1].upper()}{name[1:]}** closes {from_now(deadline, now)}, at "
                   f"{stamp(deadline)} UTC. Type your submission into your own book: its status tab "
                   "shows what counts.")


class Watch:
    """The host loop over one game (see the module). `say` gets one line per action."""

    def __init__(self, backend: Backend, url: str | None = None, clock: Clock = now_utc,
                 say: Callable[[str], None] = echo, send: Send | None = None, webhooks: Path | None = None):
        self.backend, self.url, self.clock, self.send = backend, url, clock, send or _discord
        self.webhooks = webhooks  # the players' webhooks file, read at each post (a fix needs no restart)
        self._say = say
        self.last_check: datetime | None = None
        self.last_counts: str = ""  # what the last check found, said again only when it changes
        self.failures = 0
        self.planned: Plan | None = None
        self.budget = Reads(backend)
        self.books = 1  # how many books the game has (a command reads all but the host's)
        # The reads a pass must have room for: the host book's, a poll's and a stamp's (a row seen
        # is stamped at once: the players are charged for the delay); and what a pass found no room
        # for (a part's close), so that polls cannot starve it.
        self.need = 1
        self.owed = 0
        # The host book as last read whole, kept while passes only poll a timed round and it stays
        # as it was (`_session`); any other action of this watch, or a failure, drops it.
        self.known: Session | None = None
        self.recorded: set[tuple[str, int, str]] = set()  # steps this watch recorded, as `steps_done` gives them

    def say(self, line: str) -> None:
        self._say(f"{stamp(self.clock())} {line}")

    def run(self, once: bool = False, sleep: Callable[[float], object] = time.sleep) -> None:
        """Pass after pass until the game is over; with `once`, only until nothing more is due now
        (for cron)."""
        while True:
            wake = self.step()
            if wake is None or (once and wake > self.clock()):
                return
            sleep(max(0.0, (wake - self.clock()).total_seconds()))

    def step(self) -> datetime | None:
        """One pass; when the next one is due, or None once the game is over and posted."""
        try:
            return self._step()
        finally:
            self.budget.note(self.clock())

    def _afford(self, reads: int, owed: int | None = None) -> None:
        """Go on only if `reads` more fit the minute's quota (`READS`); else come back when they do,
        then owing `owed` (by default `reads`)."""
        self.budget.note(self.clock())  # this pass's reads so far count
        at = self.budget.room(reads, self.clock())
        if at > self.clock():
            self.owed = reads if owed is None else owed
            raise _Wait(at)

    def _step(self) -> datetime | None:
        try:
            owed, self.owed = self.owed, 0
            self._afford(self.need + owed, owed)
            wake = self._pass()
        except _Wait as e:  # nothing was done: the host book as last read stays right
            return e.until
        except BusyError as e:
            self.known = None
            self.say(f"{e}; trying again in {BUSY_WAIT.seconds} s")
            return self.clock() + BUSY_WAIT
        except BookError as e:  # Google gave up after its own retries, a file is held open, ...
            self.known = None
            self.failures += 1
            wait = min(LONGEST_WAIT, timedelta(minutes=2 ** (self.failures - 1)))
            self.say(f"{e}; trying again in {wait.seconds // 60} min")
            return self.clock() + wait
        except BaseException:
            self.known = None
            raise
        self.failures = 0
        return wake

    # ---- one pass ---------------------------------------------------------------------------

    def _session(self) -> Session:
        """The host book as last read whole if its commit, rounds and config (`SMALL`) are as they
        were then: only another command's commit or the host's edits change them, so a poll
        between commits reads no log, archive or snapshots. Otherwise the host book, whole."""
        known = self.known
        if known is not None:
            small = known.host.read(SMALL)
            if all(t in small and t in known.tabs and small[t].equals(known.tabs[t]) for t in SMALL):
                return known
            self._afford(1)
        return open_session(self.backend, self.clock)

    def _pass(self) -> datetime | None:
        session = self._session()
        game = session.game
        timed = game.stamped_column(session.state) is not None
        self.known = session if timed else None
        done = steps_done(session) | self.recorded
        last = session.last_resolved
        if last is not None and self.url and ("post", last["round"], last["resolved at"]) not in done:
            self._post(session, last)
            if not timed:
                return self.clock()
            # A duel goes on polling in this pass: the host book is as read but for the new watch row.
            done = steps_done(session) | self.recorded
        record = session.open_round
        if record is None:
            self._afford(self.books - 1)
            if engine.catch_up(self.backend, self.clock):  # the last delivery, if a kill cut it short
                self.say(f"{game.round_name(last['round'])}: delivered")
            self.say(f"{game.title}: the game is over")
            return None
        number, name = record["round"], game.round_name(record["round"])
        plan_ = self._plan(session)
        now = self.clock()
        deadline = parse_time(record.get("deadline"), "rounds:deadline")
        due = deadline
        settled = None
        if timed:
            if record["status"] == "locked":  # the host locked it: nothing more can come
                due = now
            else:
                settled = self._poll(session, record)
                if settled is not None:
                    due = min(deadline, settled) if deadline else settled
        if due is not None and now >= due:
            # A settled part needs no lock: nothing typed from now on can count.
            return self._close(session, number, name, record["status"] == "locked",
                               lock=settled is None or settled > now)
        wake = [self.clock() + plan_.poll_every, *([settled] if settled else [])] if timed else []
        if deadline is not None:
            wake += [deadline, *self._remind(session, record, deadline, done)]
        elif self.last_check is None:
            self.say(f"{name} has no deadline: watch checks submissions and waits (set one in the rounds tab, "
                     "or first deadline and round hours in the config)")
        if record["status"] == "open":
            if self.last_check is None or now >= self.last_check + plan_.check_every:
                self._check(name)
            wake.append(self.last_check + plan_.check_every)
        return min(wake) if wake else self.clock() + plan_.check_every

    def _plan(self, session: Session) -> Plan:
        game = session.game
        timed = game.stamped_column(session.state) is not None
        books = 2 + len(session.players) + len(game.groups(session.state))
        polled = len(session.players) if timed else 0
        new = plan(books, polled, session.config.get("check minutes"), self.budget.counted is not None)
        self.books, self.need = books, 1 + 2 * polled
        if new != self.planned:
            self.planned = new
            self.say(f"{game.title}: {books} books; checks every {_minutes(new.check_every)}"
                     + (f", submit tabs read every {new.poll_every.total_seconds():.1f} s" if timed else "")
                     + f": about {new.reads:.2g} reads a minute planned"
                     + (f", {READS} at most" if self.budget.counted is not None else ""))
        return new

    def _post(self, session: Session, last: Mapping[str, Any]) -> None:
        name = session.game.round_name(last["round"])
        try:
            report = post(self.backend, self.url, clock=self.clock, send=self.send, webhooks=self.webhooks)
        except SheetsHostError as e:
            raise BookError(f"{name} not posted: {e}") from None  # waited out like any unreachable book
        done = report.said()
        with self.backend.hold("watch"):
            self._record(last["round"], "post", f"{last['resolved at']}", f"{done} to {shown(self.url)}")
        self.say(f"{name}: posted ({done})")

    def _close(self, session: Session, number: int, name: str, locked: bool, lock: bool = True) -> datetime:
        self._afford((self.books - 1) * (2 if lock and not locked else 1))
        self.known = None
        try:
            if lock and not locked:
                engine.lock(self.backend, self.clock, expect=number)
                self.say(f"{name}: locked")
            report = engine.resolve(self.backend, early=True, allow_empty=True, clock=self.clock, expect=number)
        except BookError:
            raise
        except SheetsHostError as e:  # another command acted first, or the host book needs the host
            self.say(f"{name}: not resolved: {e}")
            return self.clock() + self._plan(session).check_every
        self.say(f"{report.name}: {report.action}" + (": the game is over" if report.over else ""))
        self.last_check = self.clock()  # the delivery just wrote every status tab
        return self.clock()

    def _remind(self, session: Session, record: Mapping[str, Any], deadline: datetime,
                done: set[tuple[str, int, str]]) -> list[datetime]:
        """Post the reminder now due, if any; the moments of those still to come."""
        hours = session.config.get("reminder hours") or ()
        if not self.url or not hours:
            return []
        now, number = self.clock(), record["round"]
        opened = parse_time(record.get("opened at"), "rounds:opened at")
        moments = {h: deadline - timedelta(hours=h) for h in hours}

        def due(done: set[tuple[str, int, str]]) -> list[float]:
            # One whose moment was not after the opening would repeat the announcement.
            return [h for h, at in moments.items() if at <= now < deadline and (opened is None or opened < at)
                    and ("reminder", number, f"{h:g} h") not in done]

        if due(done):
            self.known = None
            with self.backend.hold("watch"):  # so that two watches remind once
                hours = due(steps_done(open_session(self.backend, self.clock)))
                if hours:
                    name = session.game.round_name(number)
                    try:
                        self.send(self.url, reminder(name, deadline, now), None)
                    except SheetsHostError as e:
                        raise BookError(f"{name}: reminder not posted: {e}") from None
                    # The nearest says it all: the ones a stopped watch missed are not sent late.
                    for h in hours:
                        self._record(number, "reminder", f"{h:g} h", f"{from_now(deadline, now)} to {shown(self.url)}")
                    self.say(f"{name}: reminder posted (closes {from_now(deadline, now)})")
        return [at for at in moments.values() if at > now]

    def _check(self, name: str) -> None:
        self._afford(self.books - 1)
        self.known = None
        report = engine.check(self.backend, self.clock)
        self.last_check = self.clock()
        counts = Counter(r.state for r in report.readings.values())
        found = (", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
                 + "".join(f"; the host must {todo}" for todo in report.host_todo))
        if found != self.last_counts:
            self.say(f"{name}: checked: {found}")
            self.last_counts = found

    def _poll(self, session: Session, record: Mapping[str, Any]) -> datetime | None:
        """Stamp the rows typed without a time; when every player's submission is settled."""
        game, state = session.game, session.state
        read = _submit_tabs(session)
        if any(delivered(tabs.get(ENGINE_TAB)) < session.commit.version for tabs in read.values()):
            # A delivery a crash interrupted: the tabs may still hold the last round. Check finishes it.
            self._check(game.round_name(record["round"]))
            return None
        typed = [p for p, tabs in read.items() if _unstamped(session, p, tabs)]
        if typed:
            # The host book as the poll knew it stays right: a stamp changes no state.
            self._afford(len(typed))
            with self.backend.hold("watch"):
                session = open_session(self.backend, self.clock)
                again = session.open_round
                if again is None or again["round"] != record["round"] or again["status"] != "open":
                    return None  # resolved meanwhile: the next pass sees it
                fresh = _submit_tabs(session, typed)
                self._stamp(session, fresh)
                read.update(fresh)
        window = Window(parse_time(record.get("opened at"), "rounds:opened at"), self.clock())
        settled = []
        for player, tabs in read.items():
            rows = [r for tab in game.submit_tabs(state, player) for r in submit_rows(game, player, tab, tabs.get(tab.name))[0]]
            settled.append(game.settled(state, player, rows, window))
        return None if not settled or None in settled else max(settled)

    def _stamp(self, session: Session, read: Mapping[str, Mapping[str, pd.DataFrame]]) -> None:
        game, state = session.game, session.state
        at, details = stamp(self.clock()), []
        for player, tabs in read.items():
            marks = _unstamped(session, player, tabs)
            if not marks:
                continue
            stamped = {}
            for name, rows in marks.items():
                data = tabs[name].copy()
                for row, position in rows:
                    data.iloc[data.index.get_loc(row), position] = at
                    details.append(f"{player}: {name} row {row}")
                stamped[name] = data
            tab_of = {t.name: t for t in game.submit_tabs(state, player)}
            session.backend.book(f"player:{player}").write(
                stamped, shown={n: tabs[n] for n in stamped},
                layouts={n: submit_layout(game, state, player, tab_of[n], d) for n, d in stamped.items()})
        self._record(session.open_round["round"], "stamp", at, "; ".join(details))
        self.say(f"{game.round_name(session.open_round['round'])}: stamped {at} on " + "; ".join(details))

    def _record(self, number: int, step: str, key: str, detail: str) -> None:
        """Append a step to the host book's watch tab (the caller holds the game)."""
        row = WATCH.frame([{"round": number, "step": step, "at": key, "detail": detail}])
        self.backend.book("host").write({}, append={"watch": row})
        self.recorded.add((step, number, key))


def steps_done(session: Session) -> set[tuple[str, int, str]]:
    """(step, round, key) of every step the watch tab records: a post is keyed by the time of the
    resolution it posted, a reminder by its hours, a stamp by its moment."""
    data = session.tabs.get("watch")
    if data is None or data.empty:
        return set()
    try:
        records = WATCH.records(data)
    except SheetsHostError:  # a damaged record is done again: post edits, a reminder is sent once more
        return set()
    return {(cells.text(r["step"]), r["round"], cells.text(r["at"])) for r in records}


def _submit_tabs(session: Session, players: list[str] | None = None) -> dict[str, dict[str, pd.DataFrame]]:
    game, state = session.game, session.state
    out = {}
    for p in session.players if players is None else players:
        book = session.backend.book(f"player:{p}")
        out[p] = book.read([*(t.name for t in game.submit_tabs(state, p)), ENGINE_TAB], formulas=True)
        check_owner(session, f"player:{p}", book, out[p])
    return out


def _unstamped(session: Session, player: str, tabs: Mapping[str, pd.DataFrame]) -> dict[str, list[tuple[int, int]]]:
    """Tab -> (sheet row, column position) of each typed row whose time is blank."""
    game, state = session.game, session.state
    column = game.stamped_column(state)
    out = {}
    for tab in game.submit_tabs(state, player):
        rows, _, _ = submit_rows(game, player, tab, tabs.get(tab.name))
        marks = [(r.row, list(r.header).index(column)) for r in rows
                 if column in r.header and cells.is_blank(r.get(column))]
        if marks:
            out[tab.name] = marks
    return out


def _minutes(delta: timedelta) -> str:
    minutes = delta / timedelta(minutes=1)
    return f"{minutes:g} min" if minutes == int(minutes) else f"{delta.total_seconds():.0f} s"


__all__ = ["READS", "WATCH", "Plan", "Reads", "Watch", "plan", "reminder", "steps_done"]
