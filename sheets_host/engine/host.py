"""The host book: the game's single source of truth, read and checked whole before any command acts.

Every tab a host can edit is validated against the game's own records before anything is written:
the config (keys unique, every setting typed), the players (unique, usable names), the rounds (one
record per round, in order, agreeing with the state), the archive (typed keys, each attempt's rows
once), the snapshots (whole JSON, each built on the one before where it can), the data and state tabs (present, by their schemas). A problem
is a `SchemaError` naming the tab, row and column.

The archive keeps every submission ever read, grouped in attempts: each attempt is one set of rows
read for one round, numbered per round and never reused. A resolve reads an attempt (from the
submit tabs, or the copy `lock` took), a redo copies the last one (as the host corrected it) into
a new one, and rows a command would otherwise overwrite are set aside as an attempt of their own.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, NamedTuple

import pandas as pd

from sheets_host.backends import ENGINE_TAB, Backend, Book
from sheets_host.games import get_game
from sheets_host.kit import cells
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import RoundError, SchemaError, SchemaErrors, SheetsHostError
from sheets_host.kit.game import Game, Window
from sheets_host.kit.table import Column, TabSchema, check_all, frame_records
from .history import FIXED, check_archive, check_fixed, check_players, fixed_inputs
from .reading import clean
from .snapshots import snapshot_of, snapshot_tabs

Clock = Callable[[], datetime]

# A setting given from outside the game (a season's ledger) says by what and keeps the value as
# given: a value typed over it is refused, naming both, so the game never runs on another.
GIVEN_BY, AS_GIVEN = "given by", "as given"
CONFIG = TabSchema("config", (Column("key"), Column("value", optional=True), Column(GIVEN_BY, optional=True),
                              Column(AS_GIVEN, optional=True)), "Game settings.")
ENGINE_SETTINGS = (
    Column("game", doc="which game this is"),
    Column("seed", "int", doc="every random choice derives from it"),
    Column("first deadline", optional=True, doc="UTC, e.g. 2026-11-23 18:00; blank for none"),
    Column("round hours", "float", lo=0, optional=True, doc="time between deadlines; blank for none"),
    Column("reminder hours", optional=True,
           doc="`watch` posts a reminder this many hours before each deadline, e.g. 24, 1; blank for none"),
    Column("check minutes", "float", lo=0.5, optional=True,
           doc="how often `watch` checks submissions (each player's status tab); blank: 5"),
    Column("receipt minutes", "float", lo=0, optional=True,
           doc="at most one private receipt a player this often (a check sends the latest); blank: 1"),
    Column("early close", "bool", optional=True,
           doc="yes: `watch` closes a round before its deadline once every submission due counts and is marked "
               "final; blank or no: at the deadline"),
)
# What `new` writes for the engine's settings the host leaves out.
ENGINE_DEFAULTS = {"first deadline": "", "round hours": "", "reminder hours": "24, 1", "check minutes": 5}
PLAYERS = TabSchema("players", (Column("player"), Column("email", optional=True), Column("book", optional=True)))
ROUND_STATUS = ("open", "locked", "resolved")
ROUNDS = TabSchema("rounds", (
    Column("round", "int", lo=1), Column("status", "choice", ROUND_STATUS),
    Column("attempt", "int", lo=0), Column("deadline", optional=True), Column("opened at", optional=True),
    Column("frozen at", optional=True), Column("resolved at", optional=True),
    Column("scheduled", optional=True, doc="the deadline `round hours` gave the round before `extend` moved it "
                                           "alone: the next round's deadline follows this one"),
    Column("rows read", optional=True, doc="the archive rows the round was resolved with: how many and their "
                                           "fingerprint, whole, by row and by column, so an edit of them is "
                                           "noticed and named (see the archive)"),
    Column("state given", optional=True, doc="a fingerprint of each state tab as the engine gave it to the round "
                                             "(the setup, or the round before's resolve), so the host's edits of "
                                             "the state are named in the round's root")))
# What an attempt's rows were read for: by resolve from the submit tabs, by lock, a redo's copy,
# or rows a command replaced in a submit tab (kept so that nothing a player typed is ever lost).
USES = ("submitted", "locked", "corrected", "set aside")
ARCHIVE_KEYS = ["round", "attempt", "use", "player", "row"]
ARCHIVE = TabSchema("archive", (Column("round", "int", lo=1), Column("attempt", "int", lo=1),
                                Column("use", "choice", USES, optional=True), Column("player", "player"),
                                Column("row", "int", lo=1), Column("tab", optional=True)))
# What a log line records: a command's steps, what it read (a submission, a default, a problem, what
# was typed but not read) and what the resolver did with each part of a player's submission
# (counted, not counted: by row, and the whole of what counted). "submission", what was read as
# counting, is no longer written: a game logged before the resolver's record shows it as it was.
LOG_KINDS = ("new", "lock", "freeze", "submission", "default", "problem", "resolve", "redo", "undo", "delivery",
             "extend", "counted", "not counted", "not read")
LOG = TabSchema("log", (Column("round", "int", lo=0), Column("attempt", "int", lo=0), Column("at"),
                        Column("kind", "choice", LOG_KINDS), Column("player", "player", optional=True),
                        Column("row", "int", lo=1, optional=True), Column("message", optional=True)))
LOG_HEADER = list(LOG.header)
BOOKS_HEADER = ["role", "book"]
# The host's own bookkeeping: how many commits it has made and what the last one was, so a
# delivery can be finished after a crash and a stale copy of the host book is recognised.
COMMIT = TabSchema(ENGINE_TAB, (Column("key"), Column("value", optional=True)))
HOST_TABS = ("config", "players", "rounds", "log", "archive", "snapshots")


def now_utc() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def stamp(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def parse_time(raw: object, where: str, row: int | None = None) -> datetime | None:
    """A host-typed UTC time, the one way every command reads one: a date cell (as either backend
    reads it) or text as `cells.as_time` takes it; None when blank. `where` is 'tab:column', for
    the message."""
    if cells.is_blank(raw):
        return None
    try:
        return cells.as_time(raw, "a time")
    except cells.CellError as e:
        tab, _, column = where.partition(":")
        expected = e.expected or f"a UTC time: {cells.TIME_FORMS}"
        raise SchemaErrors([SchemaError(tab, row, column, cells.text(raw), expected)]) from None


def window_of(record: Mapping, frozen: datetime | None = None) -> Window:
    """When a round (a rounds tab record) opened and was frozen, as the game's parser gets it
    (`frozen`: the moment a command reads an open round)."""
    return Window(parse_time(record.get("opened at"), "rounds:opened at"),
                  frozen if frozen is not None else parse_time(record.get("frozen at"), "rounds:frozen at"))


def name_key(name: str) -> str:
    """Two player names are the same name when this is equal: any case, any Unicode form.

    >>> name_key("Zoe\u0308") == name_key("ZOË"), name_key("Zoë") == name_key("Zoé")
    (True, False)
    """
    return unicodedata.normalize("NFKC", cells.text(name)).casefold()


def frame(rows: Sequence[Mapping], header: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame([[r.get(h) for h in header] for r in rows], columns=list(header), dtype=object)


def reindex(data: pd.DataFrame) -> pd.DataFrame:
    """Host-written frames get sheet row numbers as index, so schema errors name the right row."""
    data = data.copy()
    data.index = range(2, len(data) + 2)
    return data


class Held(NamedTuple):
    """What a player's submit tabs held when a command read them: the tabs, and a digest of their
    rows (`reading.rows_digest`). The command archived all of it before replacing the tabs."""

    tabs: tuple[str, ...]
    digest: str


@dataclass(frozen=True)
class Commit:
    """The host's last commit: its number, what it did, and what its delivery owes besides every
    book showing its number, so a delivery a kill cut short is finished from this record alone."""

    version: int = 0
    operation: str = ""  # new, resolve, redo, undo
    round: int = 0  # the round resolved, redone or undone (0 for new)
    attempt: int = 0
    # The announcement files the round's delivery writes: path in the output folder -> digest of
    # the content (`delivery.file_digest`).
    files: Mapping[str, str] = field(default_factory=dict)
    # player -> what their submit tabs held when read, for a command that replaces them.
    held: Mapping[str, Held] = field(default_factory=dict)
    # The secret every commitment's salt is derived from (`commitment.salt_for`), drawn by `new`
    # and never shown or revealed; blank in a game made before commitments (salts then random).
    salt_key: str = ""

    @property
    def last_round_kept(self) -> int:
        """The last round whose announcement files the output folder keeps."""
        return self.round - 1 if self.operation == "undo" else self.round

    def shown(self) -> pd.DataFrame:
        """The commit as other books show it: its number and what it did (nothing of other players)."""
        return frame([{"key": k, "value": getattr(self, k)} for k in ("version", "operation", "round", "attempt")],
                     ["key", "value"])

    def frame(self) -> pd.DataFrame:
        """The host's engine tab: the commit as shown, then what its delivery owes, a row each."""
        rows = [*({"key": f"file {path}", "value": digest} for path, digest in self.files.items()),
                *({"key": f"held by {player}", "value": json.dumps({"tabs": list(h.tabs), "digest": h.digest})}
                  for player, h in self.held.items()),
                *([{"key": "salt key", "value": self.salt_key}] if self.salt_key else [])]
        return pd.concat([self.shown(), frame(rows, ["key", "value"])], ignore_index=True)


@dataclass
class Session:
    """A game as read from its host book, every tab validated."""

    backend: Backend
    host: Book
    game: Game
    tabs: dict[str, pd.DataFrame]
    config: dict[str, Any]
    players: list[str]
    emails: dict[str, str]
    data: dict[str, list[dict]]
    state: Any
    rounds: list[dict]
    commit: Commit = Commit()
    clock: Clock = now_utc
    log: list[dict] = field(default_factory=list)
    archive_rows: list[dict] = field(default_factory=list)  # validated archive, host corrections included

    @property
    def open_round(self) -> dict | None:
        return next((r for r in self.rounds if r["status"] != "resolved"), None)

    @property
    def last_resolved(self) -> dict | None:
        done = [r for r in self.rounds if r["status"] == "resolved"]
        return done[-1] if done else None

    def note(self, round_number: int, attempt: int, kind: str, message: str, player: str = "",
             row: int | None = None) -> None:
        assert kind in LOG_KINDS, kind  # the log's dropdown and width know every kind
        self.log.append({"round": round_number, "attempt": attempt, "at": stamp(self.clock()), "kind": kind,
                         "player": player, "row": row, "message": message})

    def snapshot(self, round_number: int) -> Any:
        """The state before `round_number` was resolved, from the snapshots tab."""
        tabs = snapshot_tabs(self.tabs["snapshots"]).get(round_number)
        if tabs is None:
            raise RoundError(f"no snapshot of the state before round {round_number} in the host book's snapshots tab")
        return self.game.load(self.players, {t: v for t, v in tabs.items() if t != FIXED}, self.config, self.data)

    def fixed(self) -> dict:
        """The settings and data round 1 is resolved with, kept in its snapshot (see `history`)."""
        return fixed_inputs(self.game, self.config, self.data)

    def next_attempt(self, round_number: int) -> int:
        """A number no attempt of this round has used, in the archive, the rounds tab or the log."""
        used = [r["attempt"] for r in self.archive_rows if r["round"] == round_number]
        used += [r["attempt"] for r in self.rounds if r["round"] == round_number]
        for rec in frame_records(self.tabs.get("log", pd.DataFrame())):
            if cells.text(rec.get("round")) == str(round_number):
                try:
                    used.append(int(float(cells.text(rec.get("attempt")) or 0)))
                except ValueError:
                    pass
        return max(used, default=0) + 1

    def attempt_rows(self, round_number: int, attempt: int) -> dict[str, list[SubmitRow]]:
        """Each player's archived rows of one attempt (as the host may have corrected them)."""
        tabs = {self.game.tab_key(t.name): t for t in self.game.every_submit_tab()}
        out: dict[str, list[SubmitRow]] = {p: [] for p in self.players}
        for r in self.archive_rows:
            if r["round"] == round_number and r["attempt"] == attempt and r["player"] in out:
                tab = tabs[r.get("tab")]
                values = {h: r["values"].get(h) for h in tab.header}
                if tab.typed(values):
                    out[r["player"]].append(SubmitRow(r["player"], r["row"], tab.header, values, r.get("tab")))
        for rows in out.values():
            rows.sort(key=lambda row: (row.tab or "", row.row))
        return out


def read_config(data: pd.DataFrame, game: Game | None = None) -> dict[str, Any]:
    rows = CONFIG.records(data)
    raw: dict[str, tuple[object, int]] = {}
    errors = []
    for r in rows:
        key = cells.fold(cells.text(r["key"]))
        if key in raw:
            errors.append(SchemaError("config", r["_row"], "key", cells.text(r["key"]),
                                      f"a setting named once (also in row {raw[key][1]})"))
        raw[key] = (r["value"], r["_row"])
        if not cells.is_blank(r.get(GIVEN_BY)) and cells.text(r["value"]) != cells.text(r.get(AS_GIVEN)):
            errors.append(SchemaError("config", r["_row"], "value", cells.text(r["value"]),
                                      f"{cells.text(r.get(AS_GIVEN))!r}, as {cells.text(r[GIVEN_BY])} gave it: type "
                                      "that back, or correct it where it came from and make the game again"))
    config: dict[str, Any] = {}
    columns = ENGINE_SETTINGS + (game.settings if game else ())
    for col in columns:
        value, row = raw.get(cells.fold(col.name), (None, None))
        try:
            config[col.name] = col.parse(value)
        except ValueError:
            errors.append(SchemaError("config", row, col.name, cells.text(value), col.expected()))
    if not errors:
        try:
            parse_time(config["first deadline"], "config:first deadline", raw.get(cells.fold("first deadline"), (0, None))[1])
        except SchemaErrors as e:
            errors.extend(e.errors)
        try:
            config["reminder hours"] = reminder_hours(config["reminder hours"])
        except ValueError:
            errors.append(SchemaError("config", raw.get(cells.fold("reminder hours"), (0, None))[1], "reminder hours",
                                      config["reminder hours"], "hours before a deadline, e.g. 24, 1 (blank for none)"))
    if errors:
        raise SchemaErrors(errors)
    return config


def reminder_hours(raw: object) -> tuple[float, ...]:
    """The hours before a deadline at which `watch` reminds the players, longest first; raises
    ValueError.

    >>> reminder_hours("1, 24"), reminder_hours(None), reminder_hours(2)
    ((24.0, 1.0), (), (2.0,))
    """
    if cells.is_blank(raw):
        return ()
    hours = {float(part) for part in cells.text(raw).replace(";", ",").split(",") if part.strip()}
    if not all(0 < h < 24 * 366 for h in hours):  # also nan
        raise ValueError(raw)
    return tuple(sorted(hours, reverse=True))


def read_players(data: pd.DataFrame) -> tuple[list[str], dict[str, str]]:
    rows = PLAYERS.records(data)
    players, emails, seen, errors = [], {}, {}, []
    for r in rows:
        name = cells.text(r["player"])
        key = name_key(name)
        if key in seen:
            errors.append(SchemaError("players", r["_row"], "player", name, f"a name used once (also in row {seen[key]})"))
        seen[key] = r["_row"]
        players.append(name)
        if r["email"]:
            emails[name] = cells.text(r["email"])
    if errors:
        raise SchemaErrors(errors)
    return players, emails


def archive_header(game: Game) -> list[str]:
    """The archive's columns: the keys (with the tab in a game of several submit tabs), then every
    column of every submit tab, once."""
    return ARCHIVE_KEYS + (["tab"] if game.several_submit_tabs else []) + submit_columns(game)


def submit_columns(game: Game) -> list[str]:
    return list(dict.fromkeys(h for t in game.every_submit_tab() for h in t.header))


def row_ref(tab: str | None, row: int | None) -> int | str | None:
    """A submit row as the log names it: its number, or "tab!number" when the game has several
    submit tabs (as a spreadsheet names a range).

    >>> row_ref(None, 3), row_ref("alchemy", 3), row_ref("alchemy", None)
    (3, 'alchemy!3', None)
    """
    return f"{tab}!{row}" if tab and row is not None else row


def read_archive(data: pd.DataFrame, players: Sequence[str], game: Game) -> list[dict]:
    """Typed archive rows ({round, attempt, use, player, row, tab, values, _row}); keys unique."""
    header = submit_columns(game)
    tabs = {game.tab_key(t.name): t.name for t in game.every_submit_tab()}
    by_fold = {cells.fold(name): key for key, name in tabs.items()}
    records = ARCHIVE.records(data, players)
    columns = {cells.fold(cells.text(c)): c for c in data.columns}
    seen: dict[tuple, int] = {}
    errors = []
    out = []
    for rec, values in zip(records, frame_records(data)):
        tab = None  # a game with one submit tab names none
        if None not in tabs:
            tab = by_fold.get(cells.fold(rec["tab"] or ""))
            if tab is None:
                errors.append(SchemaError("archive", rec["_row"], "tab", rec["tab"] or "",
                                          "one of the submit tabs: " + ", ".join(tabs.values())))
        rec["tab"] = tab
        key = (rec["round"], rec["attempt"], rec["player"], tab, rec["row"])
        if key in seen:
            errors.append(SchemaError("archive", rec["_row"], "row", rec["row"],
                                      f"archived once for round {key[0]}, attempt {key[1]}, {key[2]}"
                                      + (f", tab {tab!r}" if tab else "") + f" (also in row {seen[key]})"))
        seen[key] = rec["_row"]
        # As a submit tab's cell is read: a host's correction longer than that is cut the same way,
        # so what a redo parses is what it archives (and what every book can hold).
        rec["values"] = {h: clean(values.get(columns.get(cells.fold(h)))) for h in header}
        out.append(rec)
    if errors:
        raise SchemaErrors(errors)
    return out


def read_commit(data: pd.DataFrame | None) -> Commit:
    if data is None or data.empty:
        return Commit()
    values = {cells.text(r["key"]): r["value"] for r in COMMIT.records(data)}
    try:
        held = {key.removeprefix("held by "): json.loads(cells.text(value)) for key, value in values.items()
                if key.startswith("held by ")}
        return Commit(int(float(cells.text(values.get("version")) or 0)), cells.text(values.get("operation")),
                      int(float(cells.text(values.get("round")) or 0)), int(float(cells.text(values.get("attempt")) or 0)),
                      {key.removeprefix("file "): cells.text(value) for key, value in values.items() if key.startswith("file ")},
                      {player: Held(tuple(h["tabs"]), h["digest"]) for player, h in held.items()},
                      cells.text(values.get("salt key")))
    except (ValueError, TypeError, KeyError):
        raise SchemaErrors([SchemaError(ENGINE_TAB, None, "value", "", "the engine's own numbers (restore the tab)")]) from None


def check_rounds(rounds: list[dict], game: Game, state: Any) -> None:
    """The rounds tab against the state: one record per round from 1, every round before the last
    resolved, and the open round the one the state is waiting for; the last round's times readable
    (the commands read them later, where a message could not name the row)."""
    errors = []
    for column in ("deadline", "opened at", "frozen at"):
        try:
            if rounds:
                parse_time(rounds[-1][column], f"rounds:{column}", rounds[-1]["_row"])
        except SchemaErrors as e:
            errors += e.errors
    for expected, r in enumerate(rounds, start=1):
        if r["round"] != expected:
            errors.append(SchemaError("rounds", r["_row"], "round", r["round"], f"round {expected} (rounds are listed once each, in order)"))
    for r in rounds[:-1]:
        if r["status"] != "resolved":
            errors.append(SchemaError("rounds", r["_row"], "status", r["status"],
                                      "resolved (only the last round can be open; use undo to reopen a round)"))
    if not errors and rounds:
        last = rounds[-1]
        over = game.is_over(state)
        due = game.round(state)
        if last["status"] == "resolved" and not over:
            errors.append(SchemaError("rounds", last["_row"], "status", "resolved",
                                      f"followed by round {due}, which the state is waiting for"))
        elif last["status"] != "resolved" and (over or last["round"] != due):
            wanted = "resolved (the game is over)" if over else f"round {due}, the round the state is waiting for"
            errors.append(SchemaError("rounds", last["_row"], "round", f"{last['round']} {last['status']}",
                                      f"{wanted}; use undo to reopen a round"))
    if errors:
        raise SchemaErrors(errors)


def open_session(backend: Backend, clock: Clock = now_utc, correcting: bool = False) -> Session:
    """Read and validate the host book; raises SchemaErrors listing every bad cell. `correcting`:
    for a redo or an undo, which may find the last round's archived rows corrected (`history`)."""
    host = backend.book("host")
    tabs = host.read()
    missing = [t for t in HOST_TABS if t not in tabs]
    if missing:
        raise SchemaErrors([SchemaError(t, None, None, "", "present in the host book (restore the tab)") for t in missing])
    config = read_config(tabs["config"])
    game = get_game(config["game"])
    config = read_config(tabs["config"], game)
    players, emails = read_players(tabs["players"])
    renamed = check_players(tabs["players"], tabs.get("books"))
    if renamed:  # before anything that reads a name, which would blame another tab
        raise SchemaErrors(renamed)
    if "books" in tabs and hasattr(backend, "bind"):
        backend.bind({cells.text(r["role"]): cells.text(r["book"]) for r in frame_records(tabs["books"])})
    problems = game.check_config(config, players)
    if problems:  # each already names the setting and says what is allowed, quoted whole
        raise SheetsHostError("\n".join(problems))
    absent = [s.name for s in game.data_tabs + game.state_tabs if s.name not in tabs]
    if absent:
        raise SchemaErrors([SchemaError(t, None, None, "", f"present in the host book: {game.title} reads it "
                                        "(restore it from a copy, or undo)") for t in absent])

    data_list = check_all([lambda s=s: s.records(tabs[s.name], players) for s in game.data_tabs])
    data = {s.name: d for s, d in zip(game.data_tabs, data_list)}
    state_list = check_all([lambda s=s: s.records(tabs[s.name], players) for s in game.state_tabs])
    state_records = {s.name: d for s, d in zip(game.state_tabs, state_list)}
    snapshots = snapshot_tabs(tabs["snapshots"])
    rounds = ROUNDS.records(tabs["rounds"])
    if 1 in snapshots and any(r["round"] == 1 and r["status"] == "resolved" for r in rounds):
        # Before the state is loaded: a game reading a changed setting or data tab would blame another tab.
        now = {**fixed_inputs(game, config, data), "frozen": {},
               "rows": {t: [r["_row"] for r in d] for t, d in (data | state_records).items()}}
        fixed = check_fixed(game, tabs["config"], now, {t: v for t, v in snapshots[1].items() if t == FIXED})
        if fixed:
            raise SchemaErrors(fixed)
    state = game.load(players, state_records, config, data)
    check_rounds(rounds, game, state)
    archive = read_archive(tabs["archive"], players, game)
    missing_snapshots = [r["round"] for r in rounds if r["status"] == "resolved" and r["round"] not in snapshots]
    if missing_snapshots:
        raise SchemaErrors([SchemaError("snapshots", None, "round", n, "present for every resolved round") for n in missing_snapshots])
    session = Session(backend, host, game, tabs, config, players, emails, data, state, rounds,
                      read_commit(tabs.get(ENGINE_TAB)), clock, archive_rows=archive)
    errors = check_archive(rounds, archive, session.attempt_rows, correcting)
    if session.last_resolved and session.game.frozen_tabs:
        dumped = snapshot_of(game, state)
        now = {"frozen": dumped, "rows": {t: [r["_row"] for r in d] for t, d in state_records.items()}}
        errors += check_fixed(game, tabs["config"], now, {t: v for t, v in snapshots.get(1, {}).items() if t != FIXED})
    if errors:
        raise SchemaErrors(errors)
    return session
