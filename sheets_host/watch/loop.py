"""`watch`: what the host does by hand, done on the game's deadlines.

One pass reads the host book and does what is due, in this order:

1. **post** the last resolved round to Discord, if this resolution of it is not posted yet (a
   redo or an undo and resolve makes a new one, and `post` edits the results in place and posts
   its new root in a new message), with each player's private pictures and receipt when a players'
   webhooks file is given;
2. **stop** when the game is over;
3. **close** the open round when it is due: `lock`, then `resolve`. It is due at its deadline (the
   `rounds` tab), or, in a game with time controls, once no player can still change what counts
   (`Game.settled`: Spirit Chain's windows and reserve time; such a part is resolved without a
   lock, since nothing typed from then on can count);
4. **remind** the players before the deadline (`reminder hours` in the config, 24 and 1 by
   default), once each: a reminder whose moment came before the round opened is not sent;
5. **check** every `check minutes`, so players see their status in their own book: only the
   books that changed (`watch.changes`), and with `early close` a round every player marked final
   is closed then (`engine.deadlines`); with the players' webhooks, each player whose submission
   changed gets a private receipt, and at each reminder each one whose submission is missing or
   does not count a private nudge (`discord.private`; a check comes as soon as a receipt held back
   by `receipt minutes` may go, and a check with nudges or a held receipt reads every book);
6. in a game with time controls, **stamp** each row typed without a time with the moment of the
   poll that first saw it (`Game.stamped_column`), reading the players' submit tabs every few
   seconds and at each moment that decides what counts (`Game.boundaries`: a window's end, a
   reserve period's), so that a row typed before one is stamped no later than it.

It then sleeps until the next thing is due. Everything a restart needs is in the host book: the
rounds tab says what is locked and resolved, and the `watch` tab what was posted, reminded and
stamped, so a killed watch started again (on any machine) does every step once. The engine's
commands hold the game (`Backend.hold`) and are told which round they were meant for (`expect`),
so two watches, or a watch and the host, never resolve a round twice.

Discord's webhooks cannot say whether a message was posted: a watch killed in the instant between
Discord accepting a message and the host book recording it posts that message again.

On Google Sheets watch sends at most `READS` read requests in any 60 s (`watch_quota`: the quota
is 60 reads a minute per user, two games watched from one account fit), waiting for room before
each pass and each command, and leaving room for the polls at the moments that decide what counts
(`Game.boundaries`); a poll between commits reads the players' submit tabs and only the host book's
small tabs (`SMALL`), and the whole host book only once they changed. A request Google refuses
for quota is retried by the client, and a command that still fails is retried later, waiting
longer each time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd

from sheets_host.backends import ENGINE_TAB, Backend
from sheets_host.discord.announce import Message
from sheets_host.discord.post import Send, send_to_discord, post, shown
from sheets_host.discord.private import Private
from sheets_host.engine import commands as engine
from sheets_host.engine.deadlines import closes_early, moved_at
from sheets_host.engine.delivery import delivered, submit_tab
from sheets_host.engine.host import Clock, Session, now_utc, open_session, parse_time, stamp
from sheets_host.engine.reading import submit_rows
from sheets_host.engine.status_tab import from_now
from sheets_host.kit import cells
from sheets_host.kit.console import echo
from sheets_host.kit.errors import BookError, BusyError, SheetsHostError
from sheets_host.kit.game import Window
from sheets_host.kit.table import Column, TabSchema
from .changes import Changes, submit_tabs
from .quota import READS, Plan, Reads, plan

WATCH = TabSchema("watch", (Column("round", "int", lo=1), Column("step"), Column("at"), Column("detail", optional=True)),
                  "What `watch` did (posted, reminded, stamped), so that a restart does nothing twice.")
# What a poll reads of the host book: what another command's commit or the host's edits change.
SMALL = (ENGINE_TAB, "rounds", "config")
BUSY_WAIT = timedelta(seconds=30)
LONGEST_WAIT = timedelta(minutes=10)


class _Wait(Exception):
    """Not enough of the minute's reads left: the pass ends, and watch comes back `until`."""

    def __init__(self, until: datetime):
        self.until = until


def backoff(failures: int) -> timedelta:
    """How long to wait after the `failures`th failure in a row: twice as long each time, from a
    minute, up to `LONGEST_WAIT` (however many: the 42nd's 2 ** 41 minutes overflowed).

    >>> [backoff(n).seconds // 60 for n in (1, 2, 3, 4, 5, 1000)]
    [1, 2, 4, 8, 10, 10]
    """
    return min(LONGEST_WAIT, timedelta(minutes=2 ** min(failures - 1, 10)))


def reminder(name: str, deadline: datetime, now: datetime) -> Message:
    """A reminder before the deadline: no player's name or progress, so nothing private."""
    return Message(f"\u23f0 **{name[:1].upper()}{name[1:]}** closes {from_now(deadline, now)}, at "
                   f"{stamp(deadline)}. Type your submission into your own book: its status tab "
                   "shows what counts.")


class Passes:
    """A host loop: `step` does one pass and says when the next is due (None: all is done)."""

    clock: Clock

    def step(self) -> datetime | None:
        raise NotImplementedError

    def run(self, once: bool = False, sleep: Callable[[float], object] = time.sleep) -> bool:
        """Pass after pass until all is done; with `once`, only until nothing more is due now (for
        cron). Whether all is done."""
        while True:
            wake = self.step()
            if wake is None or (once and wake > self.clock()):
                return wake is None
            sleep(max(0.0, (wake - self.clock()).total_seconds()))


class Watch(Passes):
    """The host loop over one game (see the module): all is done once the game is over and
    posted. `say` gets one line per action."""

    def __init__(self, backend: Backend, url: str | None = None, clock: Clock = now_utc,
                 say: Callable[[str], None] = echo, send: Send | None = None, webhooks: Path | None = None,
                 others: Sequence[str] = ()):
        self.backend, self.url, self.clock, self.send = backend, url, clock, send or send_to_discord
        self.webhooks = webhooks  # the players' webhooks file, read at each post (a fix needs no restart)
        self.others = others  # names it may hold besides the players' (a season's cast: `post.private_webhooks`)
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
        # The moments at which the open part's submit tabs must be read (`Game.boundaries`), as the
        # last poll or close placed them: every other read leaves room for those polls.
        self.boundaries: list[datetime] = []
        # The host book as last read whole, kept while passes only poll a timed round and it stays
        # as it was (`_session`); any other action of this watch (but a close, which reads it after
        # the resolve), or a failure, drops it.
        self.known: Session | None = None
        self.recorded: set[tuple[str, int, str]] = set()  # steps this watch recorded, as `steps_done` gives them
        self.receipts_due: datetime | None = None  # when a receipt the rate limit held back may go
        self.changes = Changes(backend, self.say)  # which books changed: a check reads only those (`watch.changes`)

    def say(self, line: str) -> None:
        self._say(f"{stamp(self.clock())} {line}")

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
        at = self.budget.room(reads, self.clock(), self.boundaries, self.need)
        if at > self.clock():
            self.owed = reads if owed is None else owed
            raise _Wait(at)

    def _step(self) -> datetime | None:
        try:
            owed, self.owed = self.owed, 0
            self._afford(self.need + owed, owed)
            wake = self._pass()
        except _Wait as e:  # nothing was done: the host book as last read stays right
            return min([e.until, *(b for b in self.boundaries if b > self.clock())])
        except BusyError as e:
            self.known = None
            self.say(f"{e}; trying again in {BUSY_WAIT.seconds} s")
            return self.clock() + BUSY_WAIT
        except BookError as e:  # Google gave up after its own retries, a file is held open, ...
            self.known = None
            self.failures += 1
            wait = backoff(self.failures)
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
        return self.changes.session(lambda: open_session(self.backend, self.clock))

    def _pass(self) -> datetime | None:
        session = self._session()
        game = session.game
        timed = game.stamped_column(session.state) is not None
        self.known = session if timed else None
        if not timed:
            self.boundaries = []
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
        wake = [self.clock() + plan_.poll_every, *([settled] if settled else []), *self.boundaries[:1]] if timed else []
        if deadline is not None:
            wake += [deadline, *self._remind(session, record, deadline, done)]
        elif self.last_check is None:
            self.say(f"{name} has no deadline: watch checks submissions and waits (set one in the rounds tab, "
                     "or first deadline and round hours in the config)")
        if record["status"] == "open":
            nudges = self._nudges_owed(number, done | self.recorded)
            held = self.receipts_due is not None and now >= self.receipts_due
            if nudges or held or self.last_check is None or now >= self.last_check + plan_.check_every:
                # A nudge or a receipt held back may be owed to a player whose book did not change.
                self._check(name, None if timed or nudges or held else session, nudges)
            if not timed and closes_early(session, self.changes.states, self.changes.final):
                self.say(f"{name}: every submission due counts and is marked final: closing early")
                return self._close(session, number, name, False)
            wake += [self.last_check + plan_.check_every, *([self.receipts_due] if self.receipts_due else [])]
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
            report = post(self.backend, self.url, clock=self.clock, send=self.send, webhooks=self.webhooks,
                          others=self.others)
        except SheetsHostError as e:
            raise BookError(f"{name} not posted: {e}") from None  # waited out like any unreachable book
        done = report.said()
        with self.backend.hold("watch"):
            self._record(last["round"], "post", f"{last['resolved at']}", f"{done} to {shown(self.url)}")
        self.say(f"{name}: posted ({done})")

    def _close(self, session: Session, number: int, name: str, locked: bool, lock: bool = True) -> datetime:
        # The next part's boundaries are known once it opens: until then room is kept for a poll at
        # the soonest its first may come, and the host book read after the resolve places them.
        soonest = session.game.soonest_boundary(session.state)
        self.boundaries = [self.clock() + soonest] if soonest is not None else []
        self._afford((self.books - 1) * (2 if lock and not locked else 1) + 1)
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
        self.known = open_session(self.backend, self.clock)
        self.changes.opened(self.known)
        self.boundaries = _opening_boundaries(self.known)
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
        # A deadline the host moved (`extend`) is reminded of afresh, from the moment it was moved.
        moved = moved_at(session, number)
        since = max((t for t in (opened, moved) if t is not None), default=None)
        key = {h: f"{h:g} h" if moved is None else f"{h:g} h before {stamp(deadline)}" for h in hours}

        def due(done: set[tuple[str, int, str]]) -> list[float]:
            # One whose moment was not after the opening would repeat the announcement.
            return [h for h, at in moments.items() if at <= now < deadline and (since is None or since < at)
                    and ("reminder", number, key[h]) not in done]

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
                        self._record(number, "reminder", key[h], f"{from_now(deadline, now)} to {shown(self.url)}")
                    self.say(f"{name}: reminder posted (closes {from_now(deadline, now)})")
        return [at for at in moments.values() if at > now]

    def _nudges_owed(self, number: int, done: set[tuple[str, int, str]]) -> list[str]:
        """The round's reminders posted whose private nudges are not all sent, the nearest last."""
        if not self.webhooks:
            return []
        owed = {at for step, n, at in done if (step, n) == ("reminder", number) and ("nudge", n, at) not in done}
        return sorted(owed, key=lambda at: -float(at.split()[0]))

    def _private(self, nudges: list[str]) -> Private | None:
        """A check's receipts, and the nudges of the reminders `nudges`, recorded once all are sent."""
        if not self.webhooks:
            return None

        def told(private: Private, session: Session) -> None:
            for at in nudges:
                self._record(session.open_round["round"], "nudge", at, ", ".join(private.sent["nudge"]) or "none")

        return Private(self.webhooks, self.url, self.send, self.clock, nudge=nudges[-1] if nudges else None,
                       finished=told, others=self.others)

    def _check(self, name: str, session: Session | None = None, nudges: Sequence[str] = ()) -> None:
        """Check every player, or with the `session` of a round without time controls only those
        whose submit tabs changed (`watch.changes`); with the players' webhooks, their receipts and
        the nudges of the reminders `nudges`."""
        self._afford(self.books - 1)
        players = None if session is None else self.changes.due(session)
        todo = session.game.host_todo(session.state) if session is not None else []
        if players != []:
            self.known = None
            private = self._private(list(nudges))
            report = engine.check(self.backend, self.clock, players, then=private)
            self.changes.checked(report)
            todo = report.host_todo
            if private is not None:
                self.receipts_due = private.due
                if any(private.sent.values()):
                    self.say(f"{name}: {private.said()}")
        self.last_check = self.clock()
        found = (", ".join(f"{n} {state}" for state, n in sorted(self.changes.counts().items()))
                 + "".join(f"; the host must {t}" for t in todo))
        if found != self.last_counts:
            self.say(f"{name}: checked: {found}")
            self.last_counts = found

    def _poll(self, session: Session, record: Mapping[str, Any]) -> datetime | None:
        """Stamp the rows typed without a time with this poll's moment; when every player's
        submission is settled. Notes the moments at which the submit tabs must be read again."""
        game, state = session.game, session.state
        at = self.clock()  # taken before the read: a row it sees was typed by then
        read = submit_tabs(session)
        if any(delivered(tabs.get(ENGINE_TAB)) < session.commit.version for tabs in read.values()):
            # A delivery a crash interrupted: the tabs may still hold the last round. Check finishes it.
            self._check(game.round_name(record["round"]))
            return None
        seen = {p: marks for p, tabs in read.items() if (marks := _unstamped(session, p, tabs))}
        if seen:
            # The host book as the poll knew it stays right: a stamp changes no state.
            self._afford(len(seen))
            with self.backend.hold("watch"):
                session = open_session(self.backend, self.clock)
                again = session.open_round
                if again is None or again["round"] != record["round"] or again["status"] != "open":
                    return None  # resolved meanwhile: the next pass sees it
                fresh = submit_tabs(session, list(seen))
                self._stamp(session, fresh, seen, at)
                read.update(fresh)
        opened = parse_time(record.get("opened at"), "rounds:opened at")
        window = Window(opened, self.clock())
        settled, boundaries = [], set()
        for player, tabs in read.items():
            rows = [r for tab in game.submit_tabs(state, player) for r in submit_rows(game, player, tab, tabs.get(tab.name))[0]]
            mine = game.settled(state, player, rows, window)
            settled.append(mine)
            if mine is not None and opened is not None:  # those after it change nothing for this player
                boundaries |= {b for b in game.boundaries(state, player, opened) if window.frozen < b <= mine}
        self.boundaries = sorted(boundaries)
        return None if not settled or None in settled else max(settled)

    def _stamp(self, session: Session, read: Mapping[str, Mapping[str, pd.DataFrame]],
               seen: Mapping[str, Mapping[str, list[tuple[int, int]]]], moment: datetime) -> None:
        """Stamp with the poll's `moment` the rows it `seen` that `read` (again, the game held)
        still shows without a time; one typed since waits for the next poll and its moment."""
        game, state = session.game, session.state
        at, details = stamp(moment), []
        for player, tabs in read.items():
            marks = {name: kept for name, rows in _unstamped(session, player, tabs).items()
                     if (kept := [m for m in rows if m in seen.get(player, {}).get(name, ())])}
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
            written = {n: submit_tab(game, state, player, tab_of[n], d) for n, d in stamped.items()}
            session.backend.book(f"player:{player}").write(
                {n: f for n, (f, _) in written.items()}, shown={n: tabs[n] for n in stamped},
                layouts={n: layout for n, (_, layout) in written.items()})
        if not details:
            return
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


def _opening_boundaries(session: Session) -> list[datetime]:
    """The open round's boundaries for every player, as it opens."""
    record = session.open_round
    opened = parse_time(record.get("opened at"), "rounds:opened at") if record else None
    if opened is None:
        return []
    return sorted({b for p in session.players for b in session.game.boundaries(session.state, p, opened)})


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


__all__ = ["READS", "WATCH", "Passes", "Plan", "Reads", "Watch", "backoff", "plan", "reminder", "steps_done"]
