"""The host book's commit and what follows it: one write of the host book per command, the books
behind it finished after a crash, and the checks that come before a commit.

The archive is appended to in attempts (`host`); a submit tab is replaced only after what it held
is in the archive, so nothing a player typed is ever lost.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from sheets_host.backends import ENGINE_TAB, Backend, Book, match_tab
from sheets_host.backends.in_flight import each_book
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import BookError, SheetsHostError
from sheets_host.kit.game import Game
from sheets_host.kit.layout import keyed, lay_out_tab
from .announcements_tab import announcements
from .commitments import COMMITMENTS, announced, host_frame
from .commitments import read as read_commitments
from .delivery import (check_owner, deliver, delivered, file_digest, fresh_submits, grown, other_books, round_files,
                       settle_files, submit_frames)
from .host import (ARCHIVE, ARCHIVE_KEYS, LOG, LOG_HEADER, ROUNDS, Clock, Commit, Held, Session, archive_header,
                   frame, open_session, submit_columns)
from .snapshots import SNAPSHOTS
from .reading import Reading, rows_digest, same_rows, typed_rows

# ---- writing the host book ----------------------------------------------------------------------


def _appended(old: pd.DataFrame | None, new: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([old, new], ignore_index=True) if old is not None and len(old) else new


def attempt_records(round_number: int, attempt: int, use: str, rows_by_player: Mapping[str, Sequence[SubmitRow]]) -> list[dict]:
    return [{"round": round_number, "attempt": attempt, "use": use, "player": player, "row": row.row, "tab": row.tab,
             **row.values} for player, rows in rows_by_player.items() for row in rows]


def commit(session: Session, state: Any, *, archive: Sequence[dict] = (), snapshots: Sequence[dict] = (),
           commitments: Sequence[dict] = (), operation: Commit | None = None,
           extra: Mapping[str, pd.DataFrame] = {}) -> None:
    """One write of the host book: the state and rounds whole; the new log, archive, snapshot and
    commitment rows appended, so what is sent stays the same size however long the game has run."""
    dumped = session.game.dump(state)
    tabs = {**{s.name: s.frame(dumped[s.name]) for s in session.game.state_tabs},
            "rounds": ROUNDS.frame(session.rounds), **extra}
    if operation is not None:
        session.commit = operation
        tabs[ENGINE_TAB] = operation.frame()
    added = {"log": frame(session.log, LOG_HEADER),
             "archive": frame(archive, archive_header(session.game)),
             "snapshots": frame(snapshots, SNAPSHOTS.header), COMMITMENTS.name: host_frame(commitments)}
    append = {}
    for name in [s.name for s in session.game.state_tabs if s.name not in extra]:
        rows = grown(session.tabs.get(name), tabs[name])
        if rows is not None:
            del tabs[name]
            if len(rows):
                append[name] = rows
    for name, rows in added.items():
        old = session.tabs.get(name)
        if name in tabs:  # written whole (a new game)
            tabs[name] = _appended(tabs[name], rows)
        elif old is None:  # not in the book yet
            tabs[name] = rows
        elif len(rows):
            if set(rows.columns) <= set(old.columns) and old.columns.is_unique:
                append[name] = rows.reindex(columns=old.columns)  # the host may have moved columns
            else:  # a header an append cannot fill: the whole tab
                tabs[name] = _appended(old, rows)
    game = session.game
    # A tab appended to is laid out whole, what it held with its new rows under it, so that they
    # look as the rows above (`Book.write`).
    whole = {**{name: _appended(session.tabs.get(name), rows) for name, rows in append.items()}, **tabs}
    layouts = {s.name: lay_out_tab(whole[s.name], s, players=session.players, palettes=game.palettes())
               for s in (*game.state_tabs, *game.data_tabs) if s.name in whole}
    # The engine's tabs: widths from what their columns hold; the rounds' fingerprints one line a row.
    submit_tabs = {"tab": [t.name for t in game.every_submit_tab()]} if game.several_submit_tabs else {}
    layouts |= {s.name: lay_out_tab(whole[s.name], s, players=session.players, choices=submit_tabs, clipped=["rows read", "state given"])
                for s in (ROUNDS, ARCHIVE, LOG, SNAPSHOTS, COMMITMENTS) if s.name in whole}
    for name in [n for n in tabs if n in layouts]:  # a tab written whole with its key, where its colours need one
        tabs[name], layouts[name] = keyed(tabs[name], layouts[name])
    session.host.write(tabs, append=append, layouts=layouts, hidden=(ENGINE_TAB,),
                       shown={name: session.tabs[name] for name in whole if name in session.tabs})
    session.tabs.update(whole)
    session.log = []
    header = submit_columns(session.game)
    session.archive_rows += [{**{k: r[k] for k in ARCHIVE_KEYS}, "tab": r.get("tab"), "values": {h: r.get(h) for h in header}}
                             for r in archive]


def type_state(session: Session, state: Any) -> bool:
    """Write `state` into the host book's state tabs where it differs from the session's, as the
    host edits them between rounds (a bot host typing a ranking; a replay repeating the host's
    edits); whether any tab differed. Not a commit: the next command reads it as the host's edit."""
    game = session.game
    before, after = game.dump(session.state), game.dump(state)
    tabs = {s: s.frame(after[s.name]) for s in game.state_tabs if after[s.name] != before[s.name]}
    if tabs:
        laid = {s.name: keyed(f, lay_out_tab(f, s, players=session.players, palettes=game.palettes()))
                for s, f in tabs.items()}
        session.host.write({name: f for name, (f, _) in laid.items()}, layouts={name: l for name, (_, l) in laid.items()})
    return bool(tabs)


def next_commit(session: Session, operation: str, round_number: int, attempt: int, *,
                files: Mapping[str, bytes] = {}, held: Mapping[str, Held] = {}) -> Commit:
    """The commit a command makes, with what its delivery owes: the `files` it writes (recorded by
    digest) and what each player's submit tabs `held` when it read them, if it replaces them."""
    return Commit(session.commit.version + 1, operation, round_number, attempt,
                  {name: file_digest(data) for name, data in files.items()}, dict(held), session.commit.salt_key)


def held(session: Session, state: Any, read: Mapping[str, Mapping[str, pd.DataFrame]]) -> dict[str, Held]:
    """What each player's submit tabs (those they have in `state`) held as this command read them."""
    game = session.game
    return {p: Held(tuple(t.name for t in game.submit_tabs(state, p)),
                    rows_digest(typed_rows(game, state, p, read[f"player:{p}"]))) for p in session.players}


def check_writable(session: Session, books: Mapping[str, Book]) -> None:
    """Refuse before committing anything if some book cannot be written now."""
    for book in [session.host, *books.values()]:
        book.check_writable()


@contextmanager
def after_commit(round_name: str, what: str) -> Iterator[None]:
    """Turn a failure while delivering into a message that says truly what was committed
    (`round_name` as the game says it: "day 2")."""
    try:
        yield
    except SheetsHostError as error:
        raise BookError(f"{round_name} is {what} and saved in the host book, but the other books "
                        f"were not all written: {error}. Run the same command again to finish.") from None


def versions(session: Session, read: Mapping[str, Mapping[str, pd.DataFrame]]) -> dict[str, int]:
    """The commit each book shows; refuses when one is ahead of the host (an old host book)."""
    versions = {role: delivered(tabs.get(ENGINE_TAB)) for role, tabs in read.items()}
    ahead = {role: v for role, v in versions.items() if v > session.commit.version}
    if ahead:
        role, v = next(iter(ahead.items()))
        raise BookError(f"the host book ({session.host.ref}) is behind the books it wrote: {role} shows commit {v}, "
                        f"the host book only {session.commit.version}. It was probably replaced by an older copy "
                        "(a spreadsheet program saving a book it had open, or a restored backup): put the newest "
                        "host book back before running any command")
    return versions


def caught_up(backend: Backend, clock: Clock, correcting: bool = False, roles: Collection[str] | None = None
              ) -> tuple[Session, dict[str, Book], dict[str, dict[str, pd.DataFrame]], ResolveReport | None]:
    """The game with every other book read (with `roles`, only theirs); what the host's last commit
    still owes (books behind it, announcement files) is finished first and reported, so no command
    reads a submit tab that still holds the previous round. `correcting`: see `open_session`."""
    session = open_session(backend, clock, correcting)
    books = {r: b for r, b in other_books(session).items() if roles is None or r in roles}
    read = read_books(session, books)
    behind = [r for r, v in versions(session, read).items() if v < session.commit.version]
    if not behind:
        files = settle_files(backend, session.commit, lambda: owed_files(session))
        if not files:
            return session, books, read, None
        last = session.commit
        return session, books, read, ResolveReport(last.round, "delivered", files=files,
                                                   name=session.game.round_name(last.round))
    report = finish_delivery(session, books, read, behind)
    session = open_session(backend, clock, correcting)
    books = {r: b for r, b in other_books(session).items() if roles is None or r in roles}
    return session, books, read_books(session, books), report


def owed_files(session: Session) -> dict[str, bytes]:
    """The announcement files of the host's last commit, computed again from the host book."""
    last = session.commit
    if last.operation not in ("resolve", "redo"):
        return {}
    text = announced(session.game, read_commitments(session.tabs, session.players), last.round,
                     session.snapshot(last.round), session.state)
    return round_files(session.game, session.state, last.round, text)


@dataclass
class ResolveReport:
    round: int
    action: str  # "resolved", "redone" or "delivered"
    readings: dict[str, Reading] = field(default_factory=dict)
    announcement: str = ""
    files: list[Path] = field(default_factory=list)
    over: bool = False
    standings: pd.DataFrame | None = None
    note: str = ""  # something the host should know (e.g. the round the redo left open)
    name: str = ""  # the round as the game names it ("day 2")


def read_books(session: Session, books: Mapping[str, Book]) -> dict[str, dict[str, pd.DataFrame]]:
    """Every tab of every book (one request each on Google Sheets, `in_flight` at once): the submit
    tabs and engine tabs the command needs, and what each book shows, so a delivery sends only what
    changed. A book that says it is another's stops the command here (`check_owner`)."""
    out = {}
    names = [*(tab.name for tab in session.game.every_submit_tab()), ENGINE_TAB, "announcements"]
    read = each_book(session.backend.in_flight,
                     ((role, partial(book.read, formulas=role.startswith("player:"))) for role, book in books.items()))
    for role, book in books.items():
        tabs = read[role]
        for name in names:  # as people renamed them (`match_tab`)
            have = match_tab(name, tabs)
            if have is not None and have != name:
                tabs[name] = tabs.pop(have)
        check_owner(session, role, book, tabs)
        out[role] = tabs
    return out


def finish_delivery(session: Session, books: Mapping[str, Book], read: Mapping[str, Mapping[str, pd.DataFrame]],
                     behind: Sequence[str]) -> ResolveReport:
    """Deliver the host's last commit to the books a kill left behind, as the command that made it
    would have, then its files. What a behind player's submit tabs hold is compared with what the
    commit recorded they held when it read them (`Commit.held`, in the tabs it read): the same is
    archived already; anything else was typed since and is set aside first, once."""
    last, game, state = session.commit, session.game, session.state
    number = last.round
    submits: dict[str, dict[str, pd.DataFrame]] = {}
    aside: dict[str, list[SubmitRow]] = {}
    for role in behind:
        if not role.startswith("player:"):
            continue
        player = role.split(":", 1)[1]
        if last.operation in ("new", "resolve"):
            submits[player] = fresh_submits(game, state, player)
        elif last.operation == "undo":
            submits[player] = archived_submits(game, state, player, session.attempt_rows(number, last.attempt)[player])
        else:
            continue  # a redo leaves submit tabs alone
        was = last.held.get(player)
        tabs = None if was is None else [t for t in game.every_submit_tab() if t.name in was.tabs]
        now = typed_rows(game, state, player, read[role], tabs)
        if was is None or rows_digest(now) != was.digest:  # no record (an older commit): keep it all
            aside[player] = now
    # The open round's rows go with it; the round just resolved keeps late edits to it.
    aside_round = number + 1 if last.operation == "undo" else max(number, 1)
    rows = set_aside_once(session, aside_round, aside)
    session.note(number, last.attempt, "delivery", f"finished delivering commit {last.version} "
                 f"({last.operation} of round {number}) to {', '.join(behind)}")
    commit(session, state, archive=rows)
    text = None
    if last.operation in ("resolve", "redo"):
        text = announced(game, read_commitments(session.tabs, session.players), number, session.snapshot(number), state)
    public = read.get("public", {}).get("announcements")
    targets = {r: books[r] for r in behind}
    deliver(session, state, targets, submits=submits, shown=read,
            announcements_tab=announcements(game, public, number, text) if "public" in behind and number else None)
    files = settle_files(session.backend, last, lambda: owed_files(session))
    return ResolveReport(number, "delivered", announcement=text or "", files=files, name=game.round_name(number))


def set_aside_once(session: Session, round_number: int, aside: Mapping[str, Sequence[SubmitRow]]) -> list[dict]:
    """Set-aside rows not already in the archive as the latest set-aside of that player's round
    (a delivery interrupted twice sets them aside once)."""
    fresh = {}
    for player, rows in aside.items():
        if not rows:
            continue
        earlier = [r for r in session.archive_rows if r["round"] == round_number and r["player"] == player
                   and r.get("use") == "set aside"]
        last = max((r["attempt"] for r in earlier), default=None)
        if last is None or not same_rows(rows, session.attempt_rows(round_number, last)[player]):
            fresh[player] = rows
    return attempt_records(round_number, session.next_attempt(round_number), "set aside", fresh) if fresh else []


def archived_submits(game: Game, state: Any, player: str, rows: Sequence[SubmitRow]) -> dict[str, pd.DataFrame]:
    """Archived rows back into the player's submit tabs at the rows they were typed in."""
    return submit_frames(game, state, player, [{**r.values, "tab": r.tab} for r in rows], at=[r.row for r in rows])
