"""`watch`: what the host does by hand, done on the game's deadlines.

One pass reads the host book and does what is due, in this order:

1. **post** the last resolved round to Discord, if this resolution of it is not posted yet (a
   redo or an undo and resolve makes a new one, and `post` edits the messages in place), with
   each player's private pictures when a players' webhooks file is given;
2. **stop** when the game is over;
3. **close** the open round when it is due: `lock`, then `resolve`. It is due at its deadline (the
   `rounds` tab), or, in a game with time controls, once no player can still change what counts
   (`Game.settled`: Spirit Chain's windows and reserve time);
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

On Google Sheets watch plans its polling to stay within about `BUDGET` requests a minute (the
quota is 60 reads and 60 writes a minute per user), leaving the rest to the host; a request Google
refuses for quota is retried by the client, and a command that still fails is retried later,
waiting longer each time.
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
BUDGET = 40  # Google requests a minute watch plans for, out of the quota's 60 reads and 60 writes
CHECK_MINUTES = 5.0
FASTEST_POLL = timedelta(seconds=3)
BUSY_WAIT = timedelta(seconds=30)
LONGEST_WAIT = timedelta(minutes=10)


@dataclass(frozen=True)
class Plan:
    """How often watch checks and, in a timed round, reads the submit tabs; its requests a minute."""

    check_every: timedelta
    poll_every: timedelta
    requests: float


def plan(books: int, polled: int, check_minutes: float | None) -> Plan:
    """A plan within `BUDGET` requests a minute: a check reads every book and writes each player's
    status (about two requests a book), and takes at most half the budget; a poll reads the host
    book and the `polled` players' books.

    >>> plan(17, 0, None)  # 15 players
    Plan(check_every=datetime.timedelta(seconds=300), poll_every=datetime.timedelta(seconds=3), requests=7.0)
    >>> plan(17, 0, 0.5).check_every  # checking every 30 s would take 70 requests a minute
    datetime.timedelta(seconds=105)
    >>> round(plan(4, 2, None).poll_every.total_seconds(), 1)  # Spirit Chain's two duellists
    4.7
    """
    check_cost = 2 * books + 1
    minutes = max(check_minutes or CHECK_MINUTES, check_cost / (BUDGET / 2))
    check_rate = check_cost / minutes
    poll = FASTEST_POLL
    if polled:
        poll = max(poll, timedelta(minutes=(polled + 1) / (BUDGET - check_rate)))
    rate = check_rate + (polled + 1) / (poll / timedelta(minutes=1)) if polled else check_rate
    return Plan(timedelta(minutes=minutes), poll, round(rate, 1))


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
            wake = self._pass()
        except BusyError as e:
            self.say(f"{e}; trying again in {BUSY_WAIT.seconds} s")
            return self.clock() + BUSY_WAIT
        except BookError as e:  # Google gave up after its own retries, a file is held open, ...
            self.failures += 1
            wait = min(LONGEST_WAIT, timedelta(minutes=2 ** (self.failures - 1)))
            self.say(f"{e}; trying again in {wait.seconds // 60} min")
            return self.clock() + wait
        self.failures = 0
        return wake

    # ---- one pass ---------------------------------------------------------------------------

    def _pass(self) -> datetime | None:
        session = open_session(self.backend, self.clock)
        game = session.game
        done = steps_done(session)
        last = session.last_resolved
        if last is not None and self.url and ("post", last["round"], last["resolved at"]) not in done:
            self._post(session, last)
            return self.clock()
        record = session.open_round
        if record is None:
            if engine.catch_up(self.backend, self.clock):  # the last delivery, if a kill cut it short
                self.say(f"{game.round_name(last['round'])}: delivered")
            self.say(f"{game.title}: the game is over")
            return None
        number, name = record["round"], game.round_name(record["round"])
        plan_ = self._plan(session)
        now = self.clock()
        deadline = parse_time(record.get("deadline"), "rounds:deadline")
        due = deadline
        timed = game.stamped_column(session.state) is not None
        if timed:
            if record["status"] == "locked":  # the host locked it: nothing more can come
                due = now
            else:
                settled = self._poll(session, record)
                if settled is not None:
                    due = min(deadline, settled) if deadline else settled
        if due is not None and now >= due:
            return self._close(session, number, name, record["status"] == "locked")
        wake = [self.clock() + plan_.poll_every] if timed else []
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
        new = plan(books, len(session.players) if timed else 0, session.config.get("check minutes"))
        if new != self.planned:
            self.planned = new
            self.say(f"{game.title}: {books} books; checks every {_minutes(new.check_every)}"
                     + (f", submit tabs read every {new.poll_every.total_seconds():.1f} s" if timed else "")
                     + f": about {new.requests:.2g} requests a minute at most")
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

    def _close(self, session: Session, number: int, name: str, locked: bool) -> datetime:
        try:
            if not locked:
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
        if any(_unstamped(session, p, tabs) for p, tabs in read.items()):
            with self.backend.hold("watch"):
                session = open_session(self.backend, self.clock)
                again = session.open_round
                if again is None or again["round"] != record["round"] or again["status"] != "open":
                    return None  # resolved meanwhile: the next pass sees it
                read = _submit_tabs(session)
                self._stamp(session, read)
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


def _submit_tabs(session: Session) -> dict[str, dict[str, pd.DataFrame]]:
    game, state = session.game, session.state
    out = {}
    for p in session.players:
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


__all__ = ["BUDGET", "WATCH", "Plan", "Watch", "plan", "reminder", "steps_done"]
