"""The host's commands over books: new, check, lock, resolve (and redo), undo, status, replay.

The host book is the game's single source of truth and its commit point. Every command that
writes holds the game (`Backend.hold`), so two commands never interleave. A resolve reads
everything first, computes the round purely, checks that every book can be written, then commits
to the host book in one write (new state, the snapshot of the state before the round, the
archived submissions, the log, the round marked resolved, the commit number) and only then writes
the other books (`delivery`). A book behind the host's commit is finished by the next command,
from the host book alone; a book ahead of it means the host book is an old copy, and nothing runs.

Nothing a player typed is ever lost: every set of rows read or replaced is archived as an attempt
(`host`), and a submit tab is replaced only after what it held is in the archive.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from functools import partial
from typing import Any, NamedTuple

import pandas as pd

from sheets_host.backends import ENGINE_TAB, Backend
from sheets_host.backends.in_flight import each_book
from sheets_host.kit import cells
from sheets_host.kit.cells import Problem
from sheets_host.kit.errors import BookError, RoundError, SheetsHostError
from sheets_host.kit.game import Outcome, rng_for
from sheets_host.kit.layout import TabLayout, keyed
from . import commitments
from .announcements_tab import announcements
from .commit import (ResolveReport, after_commit, archived_submits, attempt_records, caught_up, check_writable, commit,
                     held, next_commit, set_aside_once, type_state)
from .creation import new_game, template
from .delivery import HISTORY, check_owner, deliver, fresh_submits, player_books, round_files, settle_files
from .history import attempt_digest
from .notes import note_fates, note_unread, unread_at
from .host import (Clock, Session, frame, now_utc, open_session, parse_time, read_config, reindex, row_ref, stamp,
                   window_of)
from .reading import Reading, parse, read_player, same_rows, typed_rows, unaccounted
from .snapshots import SNAPSHOTS, edited_tabs, snapshot_of, snapshot_rows, snapshot_tabs, state_given
from .status_tab import status_frame, status_layout


__all__ = ["HISTORY", "CheckReport", "Clock", "ResolveReport", "Session", "StatusReport", "check", "lock",
           "new_game", "now_utc", "open_session", "read_config", "reindex", "replay", "resolve", "status",
           "template", "undo"]




# ---- reading submissions --------------------------------------------------------------------------


def _read_submissions(session: Session, record: dict, tabs: Mapping[str, Mapping[str, pd.DataFrame]],
                      frozen) -> dict[str, Reading]:
    """Each player's reading for the open round (of the players whose books were read): from their
    submit tab, or, once the round is locked, from the copy taken at the lock (later edits reported
    as ignored, and set aside)."""
    game, state = session.game, session.state
    players = [p for p in session.players if f"player:{p}" in tabs]
    if record["status"] != "locked":
        window = window_of(record, frozen)
        return {p: read_player(game, state, p, tabs[f"player:{p}"], window) for p in players}
    locked = session.attempt_rows(record["round"], record["attempt"])
    unread = unread_at(session, record["round"], record["attempt"])
    out = {}
    for p in players:
        now = typed_rows(game, state, p, tabs[f"player:{p}"])
        problems, aside = [], []
        if not same_rows(now, locked[p]):
            problems.append(Problem(p, f"edits made after the lock at {record['frozen at']} were ignored: what counts "
                                       "is your submission as it stood at the lock"))
            aside = now
        out[p] = parse(game, state, p, locked[p], window_of(record), problems, aside, unread.get(p, ()))
    return out


def _set_aside(round_number: int, attempt: int, readings: Mapping[str, Reading]) -> list[dict]:
    """Archive rows for what was in the tabs but counts for nothing (no header, edits after a lock)."""
    return attempt_records(round_number, attempt, "set aside", {p: r.aside for p, r in readings.items() if r.aside})


# ---- check and lock -------------------------------------------------------------------------------


@dataclass
class CheckReport:
    round: int | None
    readings: dict[str, Reading]
    name: str = ""  # the round as the game names it ("day 2")
    host_todo: list[str] = field(default_factory=list)  # what the host must type before resolving

    def table(self) -> pd.DataFrame:
        return pd.DataFrame([{"player": p, "submission": r.state, "counts": r.parsed.kept or "",
                              "problems": len(r.parsed.problems)} for p, r in self.readings.items()])


def _tell_players(session: Session, readings: Mapping[str, Reading], moment, locked: bool = False) -> None:
    """Each player's status, in their own book: what counts of what was read at `moment` (a check,
    a lock), and its problems. A lock also protects their submit tabs, shows each player their
    commitments and publishes everyone's in the public book."""
    game = session.game
    committed = commitments.read(session.tabs, session.players) if locked else []
    writes = {}
    for role, book in player_books(session).items():
        player = role.split(":", 1)[1]
        if player not in readings:  # a book not read (`check` of some players)
            continue
        tabs = {"status": status_frame(session, player, readings[player], moment)}
        if locked:
            tabs[commitments.PRIVATE_TAB] = commitments.private_frame(game, committed, player)
        locks = {tab.name: True for tab in game.submit_tabs(session.state, player)} if locked else {}
        tabs, layouts = _laid_out(tabs)
        writes[role] = partial(book.write, tabs, layouts=layouts, protect=locks)
    if locked:
        tabs = {commitments.PUBLIC_TAB: commitments.public_frame(game, committed)}
        tabs, layouts = _laid_out(tabs)
        writes["public"] = partial(session.backend.book("public").write, tabs, layouts=layouts)
    each_book(session.backend.in_flight, writes.items())


def _laid_out(tabs: Mapping[str, pd.DataFrame]) -> tuple[dict[str, pd.DataFrame], dict[str, TabLayout]]:
    """The status and commitments tabs and their layouts, each with its key."""
    done = {name: keyed(tab, status_layout(tab) if name == "status" else commitments.layout(tab))
            for name, tab in tabs.items()}
    return {name: tab for name, (tab, _) in done.items()}, {name: layout for name, (_, layout) in done.items()}


def check(backend: Backend, clock: Clock = now_utc, players: Collection[str] | None = None,
          then: Callable[[Session, Mapping[str, Reading]], None] | None = None) -> CheckReport:
    """Read every submission, report, and tell each player (in their own book) what counts; with
    `players`, only theirs (`watch`: those whose books changed); `then` gets the readings while
    the game is still held (the private receipts and nudges)."""
    with backend.hold("check"):
        roles = None if players is None else {f"player:{p}" for p in players}
        session, books, read, _ = caught_up(backend, clock, roles=roles)
        record = session.open_round
        if record is None:
            raise RoundError("the game is over: there is nothing to check")
        checked = clock()
        readings = _read_submissions(session, record, read, checked)
        _tell_players(session, readings, checked)
        if then is not None:
            then(session, readings)
    return CheckReport(record["round"], readings, session.game.round_name(record["round"]),
                       session.game.host_todo(session.state))


def catch_up(backend: Backend, clock: Clock = now_utc) -> ResolveReport | None:
    """Finish a delivery a crash interrupted, as every command does first; None when every book
    already shows the host's last commit."""
    with backend.hold("catch up"):
        return caught_up(backend, clock)[3]


class RoundDone(NamedTuple):
    """The round lock or undo acted on, and its name as the game says it ("day 2")."""

    round: int
    name: str

    def __str__(self) -> str:
        return self.name


def _expected(session: Session, expect: int | None) -> None:
    """Refuse when the open round is not the one the caller (`watch`) decided to act on: another
    command acted first, and acting again would act on the next round."""
    record = session.open_round
    if expect is not None and (record is None or record["round"] != expect):
        raise RoundError(f"{session.game.round_name(expect)} is no longer open: another command resolved it")


def lock(backend: Backend, clock: Clock = now_utc, expect: int | None = None) -> RoundDone:
    """Freeze submissions now: a copy of every submit tab goes into the host book (it is what the
    round resolves with) and the tabs are protected so only the host can edit them. With `expect`,
    only if that round is the open one."""
    with backend.hold("lock"):
        session, books, read, _ = caught_up(backend, clock)
        _expected(session, expect)
        record = session.open_round
        if record is None:
            raise RoundError("the game is over: there is nothing to lock")
        if record["status"] != "locked":
            frozen = clock()
            readings = _read_submissions(session, record, read, frozen)
            attempt = session.next_attempt(record["round"])
            rows = attempt_records(record["round"], attempt, "locked", {p: r.rows for p, r in readings.items()})
            rows += _set_aside(record["round"], attempt + 1, readings)
            record.update({"status": "locked", "attempt": attempt, "frozen at": stamp(frozen)})
            session.note(record["round"], attempt, "lock", f"submissions copied and tabs locked at {record['frozen at']}")
            note_unread(session, record["round"], attempt, readings)
            made = commitments.of_submissions(session.game, record["round"], attempt, {p: r.rows for p, r in readings.items()},
                                              session.players, record["frozen at"], session.commit.salt_key)
            check_writable(session, books)
            commit(session, session.state, archive=rows, commitments=made)
        else:  # locked before (this is a re-run): what counts is the copy taken then
            frozen = parse_time(record["frozen at"], "rounds:frozen at")
            readings = _read_submissions(session, record, read, frozen)
        _tell_players(session, readings, frozen, locked=True)
    return RoundDone(record["round"], session.game.round_name(record["round"]))


# ---- resolve ------------------------------------------------------------------------------------


def resolve(backend: Backend, redo: bool = False, early: bool = False, allow_empty: bool = False,
            clock: Clock = now_utc, expect: int | None = None, reason: str | None = None,
            config: pd.DataFrame | None = None) -> ResolveReport:
    """Resolve the open round (or, with redo, the last resolved one again from its snapshot); with
    `expect`, only if that round is the open one. The host's `reason` (for a redo, or an edit of
    the state since the last round) goes into the round's root. `config`: a redo's new config
    tab, written in the redo's own commit, so no kill leaves a config the round was not resolved
    with (`engine.given`)."""
    reason = host_reason(reason)
    with backend.hold("resolve --redo" if redo else "resolve"):
        session, books, read, delivery = caught_up(backend, clock, correcting=redo)
        if delivery is not None:  # the command a crash interrupted is finished; the next round waits
            return delivery
        _expected(session, expect)
        if not redo:
            return _resolve_open(session, books, read, early=early, allow_empty=allow_empty, reason=reason)
        if config is not None:  # the tab as the book shows it stays the session's until the commit (a diff's base)
            session.config = read_config(config, session.game)
        return _redo(session, books, read, reason=reason, config=config)


REASON_LIMIT = 500  # characters: a reason is read in an announcement, a line or two


def host_reason(reason: str | None) -> str | None:
    """The host's reason as published (its spaces made one), or None; refused when too long to read."""
    said = " ".join((reason or "").split())
    if len(said) > REASON_LIMIT:
        raise SheetsHostError(f"--reason is {len(said)} characters long; give at most {REASON_LIMIT}: it is published "
                              "in the round's announcement")
    return said or None


def _resolve_open(session: Session, books, read, *, early: bool, allow_empty: bool, reason: str | None) -> ResolveReport:
    clock = session.clock
    record = session.open_round
    if record is None:
        raise RoundError("the game is over: every round is resolved (use --redo to resolve the last again)")
    deadline = parse_time(record.get("deadline"), "rounds:deadline")
    if deadline and clock() < deadline and not early:
        raise RoundError(f"{session.game.round_name(record['round'])}'s deadline is {stamp(deadline)}, still to come; "
                         "use --early to resolve now")
    number = record["round"]
    locked = record["status"] == "locked"
    frozen = clock().replace(microsecond=0)  # as stamped, so a redo sees the very same window
    readings = _read_submissions(session, record, read, None if locked else frozen)
    due = [r for r in readings.values() if r.due]
    if not allow_empty and due and not any(r.rows or r.aside for r in due):
        # Most often a second `resolve` run by mistake right after the first.
        raise RoundError(f"nobody has submitted anything for {session.game.round_name(number)}; "
                         "use --allow-empty to resolve it anyway (everyone gets the default)")
    if locked:
        attempt = record["attempt"]
        archive = _set_aside(number, session.next_attempt(number), readings)
    else:
        attempt = session.next_attempt(number)
        archive = attempt_records(number, attempt, "submitted", {p: r.rows for p, r in readings.items()})
        archive += _set_aside(number, attempt + 1, readings)
        record["frozen at"] = stamp(frozen)
        session.note(number, attempt, "freeze", f"submissions read (frozen) at {record['frozen at']}")
        note_unread(session, number, attempt, readings)
    return _apply(session, books, read, record, session.state, readings, attempt, archive, redo=False, reason=reason)


def _submission_commitments(session: Session, number: int, attempt: int, readings: Mapping[str, Reading],
                            earlier: list[dict]) -> list[dict]:
    """The attempt's commitments to what counts for each player: those its lock made, or new ones."""
    if commitments.of_attempt(earlier, number, attempt, "submission"):
        return []
    return commitments.of_submissions(session.game, number, attempt, {p: r.rows for p, r in readings.items()},
                                      session.players, stamp(session.clock()), session.commit.salt_key)


def _redo(session: Session, books, read, *, reason: str | None, config: pd.DataFrame | None) -> ResolveReport:
    last = session.last_resolved
    if last is None:
        raise RoundError("no round has been resolved yet: there is nothing to redo")
    number = last["round"]
    state = session.snapshot(number)
    attempt = session.next_attempt(number)
    rows = session.attempt_rows(number, last["attempt"])
    readings = {p: parse(session.game, state, p, rows[p], window_of(last)) for p in session.players}
    archive = attempt_records(number, attempt, "corrected", rows)
    session.note(number, attempt, "redo", f"round {number} resolved again from attempt {last['attempt']} "
                 "as the archive holds it now")
    note_unread(session, number, attempt, {p: replace(readings[p], unread=told)
                                           for p, told in unread_at(session, number, last["attempt"]).items()})
    return _apply(session, books, read, last, state, readings, attempt, archive, redo=True, reason=reason,
                  config=config)


def _apply(session: Session, books, read, record: dict, state: Any, readings: Mapping[str, Reading], attempt: int,
           archive: list[dict], *, redo: bool, reason: str | None, config: pd.DataFrame | None = None) -> ResolveReport:
    """Resolve `readings` on `state`, commit to the host book, then deliver."""
    game, clock = session.game, session.clock
    number = record["round"]
    submissions = {}
    for player, reading in readings.items():
        # A row typed when nothing was due is told why by its own line (`note_fates`), not twice.
        told = () if not reading.due and reading.rows else reading.parsed.problems
        for p in (p for p in told if p not in reading.unread):
            session.note(number, attempt, "problem", p.message if p.row is None else f"{p.where()}: {p.message}",
                         player, row_ref(p.tab, p.row))
        if reading.parsed.submission is None:
            submissions[player] = game.default(state, player)
            if reading.due:
                session.note(number, attempt, "default", "no valid submission: the rule text's default applies", player)
        else:
            submissions[player] = reading.parsed.submission
    outcome: Outcome = game.resolve(state, submissions, rng_for(session.config["seed"], number, "resolve"))
    note_fates(session, number, attempt, readings, outcome, state)
    # The round's commitments: a redo's replace the round's earlier ones, which stay, superseded.
    committed = commitments.read(session.tabs, session.players)
    replaced = commitments.roots_of(committed, number) if redo else []
    if redo:
        # A lock of the next round stays: its rows are untouched.
        committed = commitments.supersede(committed, f"redone at {stamp(clock())}" + (f": {reason}" if reason else ""),
                                          number, number)
    made = _submission_commitments(session, number, attempt, readings, committed)
    fixed = session.fixed() if number == 1 else None
    for line in outcome.log:
        session.note(number, attempt, "resolve", line)
    new_state = outcome.state
    over = game.is_over(new_state)

    following = next((r for r in session.rounds if r["round"] == number + 1), None)
    record.update({"status": "resolved", "attempt": attempt, "resolved at": stamp(clock()),
                   "rows read": attempt_digest({p: r.rows for p, r in readings.items()})})
    session.rounds = [r for r in session.rounds if r["round"] <= number]
    if not over:
        if following is None:
            # A deadline `extend` moved alone leaves the schedule where it was.
            deadline = (parse_time(record.get("scheduled"), "rounds:scheduled")
                        or parse_time(record.get("deadline"), "rounds:deadline"))
            hours = session.config.get("round hours")
            # The next round opens as this one freezes: no row can be typed into its fresh tab before.
            following = {"round": number + 1, "status": "open", "attempt": 0,
                         "deadline": stamp(deadline + timedelta(hours=hours)) if deadline and hours else None,
                         "opened at": record.get("frozen at") or stamp(clock())}
        following["state given"] = state_given(game, new_state)  # what a host's edit is told against
        session.rounds.append(following)
    session.note(number, attempt, "redo" if redo else "resolve",
                 f"round {number} {'re-' if redo else ''}resolved" + (": the game is over" if over else ""))
    # The state before the round, once: a redo (or a resolve after an undo) usually starts from the
    # snapshot already there; one the host changed in between replaces it.
    # Those of later rounds (undone) go with it: the rounds will start from other states.
    snapshots = snapshot_tabs(session.tabs["snapshots"])
    earlier = {n: tabs for n, tabs in snapshots.items() if n < number}
    added, extra = snapshot_rows(game, state, number, earlier, fixed), {}
    if number in snapshots:
        if snapshots[number] != snapshot_of(game, state, fixed):
            kept = [r for r in session.tabs["snapshots"].to_dict("records")
                    if cells.text(r.get("round")) in {str(n) for n in earlier}]
            extra = {"snapshots": frame(kept + added, SNAPSHOTS.header)}
        added = []
    submitted = commitments.of_attempt(committed + made, number, attempt, "submission")
    edits = edited_tabs(game, state, record.get("state given"))
    made += commitments.of_round(game, number, attempt, state, fixed, session.config, record, submitted, stamp(clock()),
                                 session.commit.salt_key, committed + made, replaced, reason, edits)
    if redo:
        extra[commitments.COMMITMENTS.name] = commitments.host_frame(committed + made)
    if config is not None:
        extra["config"] = config
    text = commitments.announced(game, committed + made, number, state, new_state)
    files = round_files(game, new_state, number, text)
    check_writable(session, books)
    try:
        # A redo leaves submit tabs alone (players may already be typing the next round): it owes
        # them nothing.
        commit(session, new_state, archive=archive, snapshots=added, extra=extra, commitments=[] if redo else made,
               operation=next_commit(
            session, "redo" if redo else "resolve", number, attempt, files=files,
            held={} if redo else held(session, session.state, read)))
    except SheetsHostError as e:
        raise BookError(f"writing the host book failed, so {game.round_name(number)} is not {'re' if redo else ''}resolved: {e}") from None
    session.state = new_state

    with after_commit(game.round_name(number), "redone" if redo else "resolved"):
        submits = {} if redo else {p: fresh_submits(game, new_state, p) for p in session.players}
        deliver(session, new_state, books, submits=submits, shown=read,
                announcements_tab=announcements(game, read["public"].get("announcements"), number, text))
        settle_files(session.backend, session.commit, lambda: files)
    note = ""
    if redo and following is not None and following["attempt"]:
        note = (f"{game.round_name(following['round'])} stays {following['status']}, its submissions untouched: "
                "`resolve` resolves it")
    if edits and not reason:
        since = "the game was set up" if number == 1 else "the round before"
        note = " ".join(filter(None, (note, f"You changed the state tab(s) {', '.join(map(repr, edits))} since "
                                            f"{since}: the round's root and announcement say so, with no reason "
                                            "(resolve --redo --reason TEXT would give one).")))
    folder = session.backend.output_dir()
    return ResolveReport(number, "redone" if redo else "resolved", dict(readings), text, [folder / f for f in files], over,
                         game.standings(new_state) if over else None, note, game.round_name(number))


# ---- undo, status -------------------------------------------------------------------------------


def undo(backend: Backend, clock: Clock = now_utc, reason: str | None = None) -> RoundDone:
    """Restore the state before the last resolve and give players back that round's submissions;
    whatever they had typed for the next round is set aside in the archive first. The undo enters
    the chain of commitments with the host's `reason`."""
    reason = host_reason(reason)
    with backend.hold("undo"):
        session, books, read, delivery = caught_up(backend, clock, correcting=True)
        if delivery is not None and session.commit.operation == "undo":  # the undo a kill cut short, finished
            return RoundDone(delivery.round, delivery.name)
        last = session.last_resolved
        if last is None:
            raise RoundError("no round has been resolved yet: there is nothing to undo")
        number, attempt = last["round"], last["attempt"]
        state = session.snapshot(number)
        restored = session.attempt_rows(number, attempt)
        # The next round's rows are replaced: keep them (unless its lock already did).
        following = session.open_round
        locked = (session.attempt_rows(following["round"], following["attempt"])
                  if following and following["status"] == "locked" else {})
        aside = {p: rows for p in session.players
                 if (rows := unaccounted(session.game, session.state, p, read[f"player:{p}"], locked.get(p, [])))}
        archive = set_aside_once(session, number + 1, aside)
        session.rounds = [r for r in session.rounds if r["round"] < number] + [
            {**last, "status": "open", "frozen at": None, "resolved at": None, "rows read": None}]
        session.note(number, attempt, "undo", f"round {number} undone: state restored from its snapshot"
                     + (f"; rows typed for round {number + 1} by {', '.join(aside)} set aside in the archive" if aside else ""))
        # The next round's lock, if any, goes with the round.
        withdrawn = commitments.of_undo(session.game, number, attempt, commitments.read(session.tabs, session.players),
                                        reason, stamp(clock()))
        check_writable(session, books)
        commit(session, state, archive=archive, extra={commitments.COMMITMENTS.name: commitments.host_frame(withdrawn)},
               operation=next_commit(session, "undo", number, attempt, held=held(session, session.state, read)))
        session.state = state
        with after_commit(session.game.round_name(number), "undone"):
            deliver(session, state, books, shown=read,
                    submits={p: archived_submits(session.game, state, p, restored[p]) for p in session.players},
                    announcements_tab=announcements(session.game, read["public"].get("announcements"), number, None))
            settle_files(backend, session.commit, dict)
    return RoundDone(number, session.game.round_name(number))


@dataclass
class StatusReport:
    game: str
    round: int | None
    deadline: str
    submitted: dict[str, str]
    name: str = ""  # the round as the game names it ("day 2")


def status(backend: Backend, clock: Clock = now_utc) -> StatusReport:
    session = open_session(backend, clock)
    record = session.open_round
    if record is None:
        return StatusReport(session.game.title, None, "game over", {})
    deadline = parse_time(record.get("deadline"), "rounds:deadline")
    if deadline is None:
        when = "no deadline set"
    else:
        delta = deadline - clock()
        when = f"{stamp(deadline)} ({'in' if delta.total_seconds() >= 0 else 'passed'} {abs(delta)})"
    if record["status"] == "locked":
        when += f"; locked at {record['frozen at']}"
    game, state = session.game, session.state
    books = player_books(session)
    read = each_book(backend.in_flight, ((role, partial(book.read, [
        *(tab.name for tab in game.submit_tabs(state, role.split(":", 1)[1])), ENGINE_TAB], formulas=True))
        for role, book in books.items()))
    for role, book in books.items():
        check_owner(session, role, book, read[role])
    readings = _read_submissions(session, record, read, clock())
    return StatusReport(session.game.title, record["round"], when, {p: r.state for p, r in readings.items()},
                        session.game.round_name(record["round"]))


# ---- replay -------------------------------------------------------------------------------------


def replay(source: Backend, target: Backend, clock: Clock = now_utc) -> int:
    """Play a game again from its host book alone: same config, data, state before round 1 and
    archived submissions (the attempt each round was resolved with), each round read at its
    original freeze time (so time controls see the same windows); returns the rounds replayed."""
    src = open_session(source, clock)
    game = src.game
    config = src.tabs["config"]
    settings = {cells.text(k): ("" if cells.is_blank(v) else v) for k, v in zip(config["key"], config["value"])
                if cells.text(k) not in ("game", "seed")}
    resolved = [r for r in src.rounds if r["status"] == "resolved"]

    def at(value: object) -> Clock:
        moment = parse_time(value, "rounds:time")
        return (lambda: moment) if moment else clock

    session = new_game(target, game.name, src.players, src.config["seed"], src.emails, settings,
                       at(src.rounds[0].get("opened at") if src.rounds else None), salt_key=src.commit.salt_key)
    first = src.snapshot(1) if resolved else src.state
    dumped = game.dump(first)
    session.host.write({**{s.name: src.tabs[s.name] for s in game.data_tabs},
                        **{s.name: s.frame(dumped[s.name]) for s in game.state_tabs}})
    for record in resolved:
        state = src.snapshot(record["round"])
        # The host's edits between rounds (a correction, a ranking typed by hand) are in the
        # snapshot of the state the round was resolved from: typed again, as the host did.
        type_state(open_session(target, clock), state)
        for player, rows in src.attempt_rows(record["round"], record["attempt"]).items():
            target.book(f"player:{player}").write(archived_submits(game, state, player, rows))
        resolve(target, early=True, allow_empty=True, clock=at(record.get("frozen at")))
    return len(resolved)

