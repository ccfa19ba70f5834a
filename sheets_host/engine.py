"""The host's commands over books: new, check, resolve (and redo), undo, lock, status, replay.

The host book is the game's single source of truth and its commit point. A resolve reads
everything first, computes the round purely, then writes the host book (new state, the snapshot
of the state before the round, the archived raw submissions, the log, the round marked resolved)
in one write, and only then the public and players' books. Every other book carries the round it
last received ("delivered round" in its `status` tab): a resolve that finds a book behind the
host finishes the delivery, from the host book alone, before anything else. So a crash at any
point loses nothing and a re-run completes the round.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from . import cells
from .backends import Backend, Book
from .cells import Problem, SubmitRow
from .errors import RoundError, SchemaError, SchemaErrors, SheetsHostError
from .game import Game, Outcome, Parsed, Window, rng_for
from .games import get_game
from .table import Column, TabSchema, check_all

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
Clock = Callable[[], datetime]
SNAPSHOT_PART = 40_000  # characters per snapshot cell: Google Sheets holds at most 50,000 in one

CONFIG = TabSchema("config", (Column("key"), Column("value", optional=True)), "Game settings.")
ENGINE_SETTINGS = (
    Column("game", doc="which game this is"),
    Column("seed", "int", doc="every random choice derives from it"),
    Column("first deadline", optional=True, doc="UTC, e.g. 2026-11-23 18:00; blank for none"),
    Column("round hours", "float", lo=0, optional=True, doc="time between deadlines; blank for none"),
)
PLAYERS = TabSchema("players", (Column("player"), Column("email", optional=True), Column("book", optional=True)))
ROUNDS = TabSchema("rounds", (
    Column("round", "int", lo=1), Column("status", "choice", ("open", "resolved")),
    Column("attempt", "int", lo=0), Column("deadline", optional=True), Column("opened at", optional=True),
    Column("frozen at", optional=True), Column("resolved at", optional=True)))
SNAPSHOTS = TabSchema("snapshots", (Column("round", "int", lo=1), Column("tab"), Column("part", "int", lo=0),
                                    Column("json", "json")))
LOG_HEADER = ["round", "attempt", "at", "kind", "player", "message"]
ARCHIVE_KEYS = ["round", "attempt", "player", "row"]
BOOKS_HEADER = ["role", "book"]
ENGINE_TABS = {"config", "players", "rounds", "archive", "snapshots", "log", "books", "status"}


def now_utc() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def stamp(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def parse_time(raw: object, where: str) -> datetime | None:
    """A host-typed UTC time ('2026-11-23 18:00', ISO, with or without 'UTC'); None when blank.
    `where` is 'tab:column', for the message."""
    if cells.is_blank(raw):
        return None
    try:
        return cells.as_time(raw, "a time")
    except cells.CellError:
        tab, _, column = where.partition(":")
        raise SchemaErrors([SchemaError(tab, None, column, cells.text(raw), "a UTC time like 2026-11-23 18:00")]) from None


def template(game: Game) -> tuple[dict[str, pd.DataFrame], dict[str, str]]:
    """The game's shipped rules data (one CSV per data tab) and its default settings."""
    folder = TEMPLATES / game.name
    data = {tab.name: pd.read_csv(folder / f"{tab.name}.csv", dtype=object, keep_default_na=False)
            for tab in game.data_tabs}
    with open(folder / "config.csv", newline="") as f:
        defaults = {row["key"]: row["value"] for row in csv.DictReader(f)}
    return data, defaults


def _frame(rows: Sequence[Mapping], header: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame([[r.get(h) for h in header] for r in rows], columns=list(header), dtype=object)


def _kv(pairs: Sequence[tuple[str, object]], header=("what", "value")) -> pd.DataFrame:
    return pd.DataFrame([list(p) for p in pairs], columns=list(header), dtype=object)


def _reindex(frame: pd.DataFrame) -> pd.DataFrame:
    """Host-written frames get sheet row numbers as index, so schema errors name the right row."""
    frame = frame.copy()
    frame.index = range(2, len(frame) + 2)
    return frame


# ---- reading a game -------------------------------------------------------------------------


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
    clock: Clock = now_utc
    log: list[dict] = field(default_factory=list)

    @property
    def open_round(self) -> dict | None:
        return next((r for r in self.rounds if r["status"] == "open"), None)

    @property
    def last_resolved(self) -> dict | None:
        done = [r for r in self.rounds if r["status"] == "resolved"]
        return done[-1] if done else None

    def note(self, round_number: int, attempt: int, kind: str, message: str, player: str = "") -> None:
        self.log.append({"round": round_number, "attempt": attempt, "at": stamp(self.clock()), "kind": kind,
                         "player": player, "message": message})

    def snapshot(self, round_number: int) -> Any:
        """The state before `round_number` was resolved, from the snapshots tab."""
        rows = [r for r in SNAPSHOTS.records(self.tabs["snapshots"]) if r["round"] == round_number]
        if not rows:
            raise RoundError(f"no snapshot of the state before round {round_number}")
        parts: dict[str, list[tuple[int, str]]] = {}
        for r in rows:
            parts.setdefault(r["tab"], []).append((r["part"], r["json"]))
        tabs = {t: json.loads("".join(j for _, j in sorted(p))) for t, p in parts.items()}
        return self.game.load(self.players, tabs, self.config, self.data)


def read_config(frame: pd.DataFrame, game: Game | None = None) -> dict[str, Any]:
    rows = CONFIG.records(frame)
    raw = {cells.fold(cells.text(r["key"])): (r["value"], r["_row"]) for r in rows}
    config: dict[str, Any] = {}
    errors = []
    columns = ENGINE_SETTINGS + (game.settings if game else ())
    for col in columns:
        value, row = raw.get(cells.fold(col.name), (None, None))
        try:
            config[col.name] = col.parse(value)
        except ValueError:
            errors.append(SchemaError("config", row, col.name, cells.text(value), col.expected()))
    if errors:
        raise SchemaErrors(errors)
    return config


def open_session(backend: Backend, clock: Clock = now_utc) -> Session:
    """Read and validate the host book; raises SchemaErrors listing every bad cell."""
    host = backend.book("host")
    tabs = host.read()
    missing = [t for t in ("config", "players", "rounds", "log", "archive", "snapshots") if t not in tabs]
    if missing:
        raise SchemaErrors([SchemaError(t, None, None, "", "present in the host book") for t in missing])
    config = read_config(tabs["config"])
    game = get_game(config["game"])
    config = read_config(tabs["config"], game)
    players_rows = PLAYERS.records(tabs["players"])
    players = [cells.text(r["player"]) for r in players_rows]
    emails = {cells.text(r["player"]): cells.text(r["email"]) for r in players_rows if r["email"]}
    if "books" in tabs and hasattr(backend, "bind"):
        backend.bind({cells.text(r["role"]): cells.text(r["book"]) for r in tabs["books"].to_dict("records")})
    problems = game.check_config(config, players)
    if problems:
        raise SchemaErrors([SchemaError("config", None, None, p, "valid") for p in problems])

    def data_tab(schema: TabSchema):
        return lambda: schema.records(tabs.get(schema.name, pd.DataFrame(columns=schema.header)), players)

    data_list = check_all([data_tab(s) for s in game.data_tabs])
    data = {s.name: d for s, d in zip(game.data_tabs, data_list)}
    state_list = check_all([data_tab(s) for s in game.state_tabs])
    state = game.load(players, {s.name: d for s, d in zip(game.state_tabs, state_list)}, config, data)
    rounds = ROUNDS.records(tabs["rounds"])
    session = Session(backend, host, game, tabs, config, players, emails, data, state, rounds, clock)
    _check_frozen(session)
    return session


def _check_frozen(session: Session) -> None:
    """Tabs such as a seating may change only before round 1: compare them with its snapshot."""
    frozen = session.game.frozen_tabs
    if not frozen or not any(r["status"] == "resolved" for r in session.rounds):
        return
    first = [r for r in SNAPSHOTS.records(session.tabs["snapshots"]) if r["round"] == 1]
    now = session.game.dump(session.state)
    for tab in frozen:
        parts = sorted((r["part"], r["json"]) for r in first if r["tab"] == tab)
        if parts and json.loads("".join(j for _, j in parts)) != json.loads(json.dumps(now[tab])):
            raise SchemaErrors([SchemaError(tab, None, None, "edited after round 1",
                                            "editable only before round 1 (restore it, or undo back to round 1)")])


# ---- new --------------------------------------------------------------------------------------


def new_game(backend: Backend, game_name: str, players: Sequence[str], seed: int,
             emails: Mapping[str, str] | None = None, settings: Mapping[str, object] | None = None,
             clock: Clock = now_utc) -> Session:
    """Create the host, public and players' books of a new game."""
    game = get_game(game_name)
    players = [cells.text(p) for p in players]
    folded = [p.casefold() for p in players]
    if len(set(folded)) != len(players) or any(not p for p in players):
        raise SheetsHostError(f"player names must be distinct and not blank: {', '.join(players)}")
    if not game.min_players <= len(players) <= game.max_players:
        span = (f"{game.min_players}" if game.min_players == game.max_players
                else f"{game.min_players} to {game.max_players}")
        raise SheetsHostError(f"{game.title} takes {span} players; got {len(players)}: {', '.join(players)}")
    data_frames, defaults = template(game)
    config_values = {"game": game.name, "seed": seed, "first deadline": "", "round hours": "", **defaults}
    for key, value in (settings or {}).items():
        known = {c.name.casefold(): c.name for c in ENGINE_SETTINGS + game.settings}
        if key.casefold() not in known:
            raise SheetsHostError(f"unknown setting {key!r}; allowed: {', '.join(known.values())}")
        config_values[known[key.casefold()]] = value
    docs = {c.name: c.doc for c in ENGINE_SETTINGS + game.settings}
    config_frame = _reindex(_frame([{"key": k, "value": v, "about": docs.get(k, "")}
                                    for k, v in config_values.items()], ["key", "value", "about"]))
    config = read_config(config_frame, game)
    problems = game.check_config(config, players)
    if problems:
        raise SheetsHostError("; ".join(problems))
    data = {s.name: s.records(_reindex(data_frames[s.name]), players) for s in game.data_tabs}
    state = game.setup(players, seed, config, data)
    emails = dict(emails or {})

    host = backend.create("host", f"{game.title} (host)")
    public = backend.create("public", f"{game.title} (public)", public=True)
    books = {f"player:{p}": backend.create(f"player:{p}", f"{game.title}: {p}", readers=[emails[p]] if p in emails else [])
             for p in players}
    for role, members in game.groups(state).items():
        books[role] = backend.create(role, f"{game.title}: {role.split(':', 1)[1]}",
                                     readers=[emails[m] for m in members if m in emails])
    refs = {"host": host.ref, "public": public.ref, **{r: b.ref for r, b in books.items()}}
    deadline = parse_time(config["first deadline"], "config:first deadline")
    session = Session(backend, host, game, {}, config, players, emails, data, state,
                      [{"round": 1, "status": "open", "attempt": 0, "deadline": stamp(deadline) if deadline else None,
                        "opened at": stamp(clock())}], clock)
    session.note(0, 0, "new", f"{game.title} created for {', '.join(players)} with seed {seed}")
    _write_host(session, state, extra={"config": config_frame, **{n: f for n, f in data_frames.items()},
                                       "players": _frame([{"player": p, "email": emails.get(p), "book": refs[f"player:{p}"]}
                                                          for p in players], ["player", "email", "book"]),
                                       "books": _frame([{"role": r, "book": b} for r, b in refs.items()], BOOKS_HEADER),
                                       "archive": pd.DataFrame(columns=ARCHIVE_KEYS + game.submit_tab.header),
                                       "snapshots": pd.DataFrame(columns=SNAPSHOTS.header)})
    _deliver(session, state, 0, {"public": public, **books}, fresh_submit=True)
    return session


# ---- writing --------------------------------------------------------------------------------


def _state_frames(game: Game, state: Any) -> dict[str, pd.DataFrame]:
    dumped = game.dump(state)
    return {s.name: s.frame(dumped[s.name]) for s in game.state_tabs}


def _write_host(session: Session, state: Any, extra: Mapping[str, pd.DataFrame] = {}) -> None:
    old_log = session.tabs.get("log", pd.DataFrame(columns=LOG_HEADER))
    log = pd.concat([old_log, _frame(session.log, LOG_HEADER)], ignore_index=True) if len(old_log) else \
        _frame(session.log, LOG_HEADER)
    tabs = {**_state_frames(session.game, state), "rounds": ROUNDS.frame(session.rounds), "log": log, **extra}
    session.host.write(tabs)
    session.log = []


def _status_frame(session: Session, player: str | None, delivered: int, check: Sequence[tuple] = ()) -> pd.DataFrame:
    open_round = session.open_round
    rows: list[tuple] = [("game", session.game.title)]
    if player:
        rows.append(("player", player))
    rows += [("round open", open_round["round"] if open_round else "game over"),
             ("deadline", (open_round or {}).get("deadline") or "none set"),
             ("delivered round", delivered)]
    if player:
        rows.append(("how to submit", session.game.how_to_submit(session.state)))
    return _kv(rows + list(check))


def _deliver(session: Session, state: Any, round_number: int, books: Mapping[str, Book], *, fresh_submit: bool,
             announcements: pd.DataFrame | None = None, submits: Mapping[str, pd.DataFrame] = {}) -> None:
    """Write every non-host book (by role) for the state after `round_number`: the public view,
    each player's private view (and a fresh submit tab, or `submits[player]`), each group's view."""
    game = session.game
    for role, book in books.items():
        kind, _, name = role.partition(":")
        protect = {}
        if role == "public":
            tabs = {**game.public_view(state), "status": _status_frame(session, None, round_number)}
            if announcements is not None:
                tabs["announcements"] = announcements
        elif kind == "player":
            tabs = {**game.private_view(state, name), "status": _status_frame(session, name, round_number)}
            if fresh_submit or name in submits:
                tabs["submit"] = submits.get(name, pd.DataFrame(columns=game.submit_tab.header))
                protect = {"submit": False}
        else:
            tabs = {**game.group_view(state, role), "status": _status_frame(session, None, round_number)}
        book.write(tabs, protect=protect)


# ---- reading submissions ----------------------------------------------------------------------


def submit_rows(game: Game, player: str, frame: pd.DataFrame | None) -> list[SubmitRow]:
    """The non-blank rows of a submit tab, columns matched to the game's by name, any case."""
    if frame is None or frame.empty:
        return []
    wanted = {cells.fold(c): c for c in game.submit_tab.header}
    header = [str(c) for c in frame.columns]
    names = {c: wanted.get(cells.fold(cells.text(c))) for c in header}
    rows = []
    for number, values in zip(frame.index, frame.itertuples(index=False, name=None)):
        typed = {names[c]: v for c, v in zip(header, values) if names[c]}
        if any(not cells.is_blank(v) for v in typed.values()):
            rows.append(SubmitRow(player, int(number), header, typed))
    return rows


def _missing_columns(game: Game, player: str, frame: pd.DataFrame | None) -> list[Problem]:
    if frame is None:
        return [Problem(player, "your book has no 'submit' tab")]
    have = {cells.fold(cells.text(c)) for c in frame.columns}
    missing = [c for c in game.submit_tab.header if cells.fold(c) not in have]
    return [Problem(player, f"the submit tab has no column {c!r} (row 1 must name the columns: "
                            f"{', '.join(game.submit_tab.header)})") for c in missing] if len(frame.columns) else []


@dataclass
class Reading:
    player: str
    rows: list[SubmitRow]
    parsed: Parsed
    status: pd.DataFrame | None
    due: bool = True  # whether the player has anything to submit this round

    @property
    def state(self) -> str:
        if not self.due:
            return "nothing due"
        if self.parsed.submission is None:
            return "errors" if self.rows else "empty"
        return "problems" if self.parsed.problems else "valid"


def _read_player(session: Session, state: Any, player: str, frame: pd.DataFrame | None,
                 status: pd.DataFrame | None, window: Window) -> Reading:
    rows = submit_rows(session.game, player, frame)
    try:
        parsed = session.game.parse(state, player, rows, window)
    except SheetsHostError as e:  # a game's parser should not raise; if it does, the player is told
        parsed = Parsed(None, (Problem(player, str(e)),), "nothing")
    extra = tuple(_missing_columns(session.game, player, frame)) if rows or frame is None else ()
    return Reading(player, rows, Parsed(parsed.submission, extra + parsed.problems, parsed.kept), status,
                   session.game.submits(state, player))


def _delivered(frame: pd.DataFrame | None) -> int:
    if frame is None or frame.empty:
        return -1
    for what, value in zip(frame.iloc[:, 0], frame.iloc[:, 1]):
        if cells.text(what) == "delivered round":
            try:
                return int(float(value))
            except (TypeError, ValueError):
                return -1
    return -1


def _player_books(session: Session) -> dict[str, Book]:
    return {f"player:{p}": session.backend.book(f"player:{p}") for p in session.players}


def _other_books(session: Session) -> dict[str, Book]:
    """Every book but the host's, by role: public, players', groups'."""
    roles = ["public", *(f"player:{p}" for p in session.players), *session.game.groups(session.state)]
    return {role: session.backend.book(role) for role in roles}


def _read_players(session: Session, books: Mapping[str, Book], state: Any) -> dict[str, Reading]:
    """Every player's submission as it stands now (for check and status)."""
    record = session.open_round or {}
    window = Window(parse_time(record.get("opened at"), "rounds:opened at"), session.clock())
    out = {}
    for role, book in books.items():
        player = role.split(":", 1)[1]
        tabs = book.read(["submit", "status"], formulas=True)
        out[player] = _read_player(session, state, player, tabs.get("submit"), tabs.get("status"), window)
    return out


# ---- check -----------------------------------------------------------------------------------


@dataclass
class CheckReport:
    round: int | None
    readings: dict[str, Reading]

    def table(self) -> pd.DataFrame:
        return pd.DataFrame([{"player": p, "submission": r.state, "counts": r.parsed.kept or "",
                              "problems": len(r.parsed.problems)} for p, r in self.readings.items()])


def check(backend: Backend, clock: Clock = now_utc) -> CheckReport:
    """Read every submission, report, and tell each player (in their own book) what counts."""
    session = open_session(backend, clock)
    open_round = session.open_round
    if open_round is None:
        raise RoundError("the game is over: there is nothing to check")
    books = _player_books(session)
    readings = _read_players(session, books, session.state)
    checked = stamp(clock())
    for role, book in books.items():
        r = readings[role.split(":", 1)[1]]
        lines = [("checked at", checked), ("your submission", r.state), ("what counts", r.parsed.kept or "nothing")]
        lines += [("problem", f"{p.where()}: {p.message}" if p.where() else p.message) for p in r.parsed.problems]
        book.write({"status": _status_frame(session, r.player, _delivered(r.status), lines)})
    return CheckReport(open_round["round"], readings)


# ---- resolve ---------------------------------------------------------------------------------


@dataclass
class ResolveReport:
    round: int
    action: str  # "resolved", "redone" or "delivered"
    readings: dict[str, Reading] = field(default_factory=dict)
    announcement: str = ""
    files: list[Path] = field(default_factory=list)
    over: bool = False
    standings: pd.DataFrame | None = None


def _archive_rows(round_number: int, attempt: int, readings: Mapping[str, Reading], header: Sequence[str]):
    for player, reading in readings.items():
        for row in reading.rows:
            yield {"round": round_number, "attempt": attempt, "player": player, "row": row.row,
                   **{h: row.values.get(h) for h in header}}


def _snapshot_rows(game: Game, state: Any, round_number: int) -> list[dict]:
    rows = []
    for tab, records in game.dump(state).items():
        text = json.dumps(records, separators=(",", ":"), sort_keys=True)
        for part, start in enumerate(range(0, max(len(text), 1), SNAPSHOT_PART)):
            rows.append({"round": round_number, "tab": tab, "part": part, "json": text[start:start + SNAPSHOT_PART]})
    return rows


def _archived_readings(session: Session, state: Any, round_number: int, attempt: int) -> dict[str, Reading]:
    """The submissions of a past round as archived (and maybe corrected by the host), read in the
    window they were first read in."""
    header = session.game.submit_tab.header
    record = next((r for r in session.rounds if r["round"] == round_number), {})
    window = Window(parse_time(record.get("opened at"), "rounds:opened at"),
                    parse_time(record.get("frozen at"), "rounds:frozen at"))
    archive = session.tabs["archive"]
    frames: dict[str, list] = {p: [] for p in session.players}
    for rec in archive.to_dict("records"):
        if cells.text(rec.get("round")) == str(round_number) and cells.text(rec.get("attempt")) == str(attempt):
            player = cells.text(rec.get("player"))
            if player in frames:
                frames[player].append(rec)
    out = {}
    for player, recs in frames.items():
        rows = [SubmitRow(player, int(float(r["row"])), header, {h: r.get(h) for h in header}) for r in recs]
        rows = [r for r in rows if any(not cells.is_blank(v) for v in r.values.values())]
        parsed = session.game.parse(state, player, rows, window)
        out[player] = Reading(player, rows, parsed, None, session.game.submits(state, player))
    return out


def resolve(backend: Backend, redo: bool = False, early: bool = False, allow_empty: bool = False,
            clock: Clock = now_utc) -> ResolveReport:
    """Resolve the open round (or, with redo, the last resolved one again from its snapshot)."""
    session = open_session(backend, clock)
    game = session.game
    books = _other_books(session)
    last = session.last_resolved
    read = {role: book.read(["submit", "status"] if role.startswith("player:") else ["status", "announcements"],
                            formulas=role.startswith("player:")) for role, book in books.items()}
    existing_announcements = read["public"].get("announcements")

    # Finish a delivery that a crash interrupted, before anything else.
    if last is not None and not redo:
        behind = {r: b for r, b in books.items() if _delivered(read[r].get("status")) < last["round"]}
        if behind:
            before = session.snapshot(last["round"])
            text = game.announcement(before, session.state)
            _deliver(session, session.state, last["round"], behind, fresh_submit=True,
                     announcements=_announcements(existing_announcements, last["round"], text))
            session.note(last["round"], last["attempt"], "delivery",
                         f"finished delivering round {last['round']} to {', '.join(behind)}")
            _write_host(session, session.state)
            return ResolveReport(last["round"], "delivered", announcement=text)

    if redo:
        if last is None:
            raise RoundError("no round has been resolved yet: there is nothing to redo")
        round_number, attempt = last["round"], last["attempt"] + 1
        state = session.snapshot(round_number)
        readings = _archived_readings(session, state, round_number, last["attempt"])
        session.rounds = [r for r in session.rounds if r["round"] <= round_number]
        record = session.rounds[-1]
    else:
        record = session.open_round
        if record is None:
            raise RoundError("the game is over: every round is resolved (use --redo to resolve the last again)")
        deadline = parse_time(record.get("deadline"), "rounds:deadline")
        if deadline and clock() < deadline and not early:
            raise RoundError(f"round {record['round']}'s deadline is {stamp(deadline)}, still to come; "
                             "use --early to resolve now")
        round_number, attempt = record["round"], record["attempt"] + 1
        state = session.state
        frozen = clock().replace(microsecond=0)  # as stamped, so a redo sees the very same window
        window = Window(parse_time(record.get("opened at"), "rounds:opened at"), frozen)
        readings = {role.split(":", 1)[1]: _read_player(session, state, role.split(":", 1)[1],
                                                        tabs.get("submit"), tabs.get("status"), window)
                    for role, tabs in read.items() if role.startswith("player:")}
        due = [r for r in readings.values() if r.due]
        if not allow_empty and due and not any(r.rows for r in due):
            # Most often a second `resolve` run by mistake right after the first.
            raise RoundError(f"nobody has submitted anything for round {round_number}; "
                             "use --allow-empty to resolve it anyway (everyone gets the default)")
        record["frozen at"] = stamp(frozen)
        session.note(round_number, attempt, "freeze", f"submissions read (frozen) at {record['frozen at']}")

    submissions = {}
    for player, reading in readings.items():
        for p in reading.parsed.problems:
            session.note(round_number, attempt, "problem", f"{p.where()}: {p.message}" if p.where() else p.message, player)
        if reading.parsed.submission is None:
            submissions[player] = game.default(state, player)
            if reading.due:
                session.note(round_number, attempt, "default", "no valid submission: the rule text's default applies",
                             player)
        else:
            submissions[player] = reading.parsed.submission
            session.note(round_number, attempt, "submission", reading.parsed.kept, player)
    outcome: Outcome = game.resolve(state, submissions, rng_for(session.config["seed"], round_number, "resolve"))
    for line in outcome.log:
        session.note(round_number, attempt, "resolve", line)
    new_state = outcome.state

    record.update({"status": "resolved", "attempt": attempt, "resolved at": stamp(clock())})
    session.rounds = [r for r in session.rounds if r["round"] <= round_number]
    over = game.is_over(new_state)
    if not over:
        deadline = parse_time(record.get("deadline"), "rounds:deadline")
        hours = session.config.get("round hours")
        next_deadline = stamp(deadline + timedelta(hours=hours)) if deadline and hours else None
        # The next round opens as this one freezes: no row can be typed into its fresh tab before.
        session.rounds.append({"round": round_number + 1, "status": "open", "attempt": 0, "deadline": next_deadline,
                               "opened at": record.get("frozen at") or stamp(clock())})
    session.note(round_number, attempt, "redo" if redo else "resolve",
                 f"round {round_number} {'re-' if redo else ''}resolved" + (": the game is over" if over else ""))

    archive = session.tabs["archive"]
    new_archive = _frame(list(_archive_rows(round_number, attempt, readings, game.submit_tab.header)),
                         ARCHIVE_KEYS + game.submit_tab.header)
    if not redo:
        archive = pd.concat([archive, new_archive], ignore_index=True) if len(archive) else new_archive
    snapshots = session.tabs["snapshots"]
    kept = [r for r in snapshots.to_dict("records") if cells.text(r.get("round")) != str(round_number)]
    snapshots = _frame(kept + _snapshot_rows(game, state, round_number), SNAPSHOTS.header)
    extra = {"snapshots": snapshots}
    if not redo:
        extra["archive"] = archive
    _write_host(session, new_state, extra=extra)  # the commit point

    text = game.announcement(state, new_state)
    # A redo leaves submit tabs alone: players may already be typing the next round.
    _deliver(session, new_state, round_number, books, fresh_submit=not redo,
             announcements=_announcements(existing_announcements, round_number, text))
    files = _write_files(backend, game, new_state, round_number, text)
    return ResolveReport(round_number, "redone" if redo else "resolved", readings, text, files, over,
                         game.standings(new_state) if over else None)


def _announcements(existing: pd.DataFrame | None, round_number: int, text: str) -> pd.DataFrame:
    rows = [] if existing is None or existing.empty else [
        r for r in existing.to_dict("records") if cells.text(r.get("round")) != str(round_number)]
    rows.append({"round": round_number, "announcement": text})
    rows.sort(key=lambda r: int(float(r["round"])))
    return _frame(rows, ["round", "announcement"])


def _write_files(backend: Backend, game: Game, state: Any, round_number: int, text: str) -> list[Path]:
    folder = backend.output_dir()
    folder.mkdir(parents=True, exist_ok=True)
    md = folder / f"round-{round_number:02d}.md"
    md.write_text(text)
    files = [md]
    png = game.picture(state)
    if png:
        path = folder / f"round-{round_number:02d}.png"
        path.write_bytes(png)
        files.append(path)
    return files


# ---- undo, lock, status ------------------------------------------------------------------------


def undo(backend: Backend, clock: Clock = now_utc) -> int:
    """Restore the state before the last resolve and give players back their submissions."""
    session = open_session(backend, clock)
    last = session.last_resolved
    if last is None:
        raise RoundError("no round has been resolved yet: there is nothing to undo")
    round_number = last["round"]
    state = session.snapshot(round_number)
    readings = _archived_readings(session, state, round_number, last["attempt"])
    session.rounds = [r for r in session.rounds if r["round"] < round_number] + [
        {**last, "status": "open", "resolved at": None}]
    session.note(round_number, last["attempt"], "undo", f"round {round_number} undone: state restored from its snapshot")
    _write_host(session, state)
    books = _other_books(session)
    announcements = books["public"].read(["announcements"]).get("announcements")
    if announcements is not None and not announcements.empty:
        announcements = _frame([r for r in announcements.to_dict("records")
                                if cells.text(r.get("round")) != str(round_number)], ["round", "announcement"])
    header = session.game.submit_tab.header
    submits = {p: _frame([{h: row.values.get(h) for h in header} for row in r.rows], header)
               for p, r in readings.items()}
    _deliver(session, state, round_number - 1, books, fresh_submit=False, announcements=announcements,
             submits=submits)
    return round_number


def lock(backend: Backend, clock: Clock = now_utc) -> int:
    """Freeze submissions now: protect every submit tab so only the host can edit it."""
    session = open_session(backend, clock)
    record = session.open_round
    if record is None:
        raise RoundError("the game is over: there is nothing to lock")
    for book in _player_books(session).values():
        book.write({}, protect={"submit": True})
    record["frozen at"] = stamp(clock())
    session.note(record["round"], record["attempt"], "lock", f"submit tabs locked at {record['frozen at']}")
    _write_host(session, session.state)
    return record["round"]


@dataclass
class StatusReport:
    game: str
    round: int | None
    deadline: str
    submitted: dict[str, str]


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
    readings = _read_players(session, _player_books(session), session.state)
    return StatusReport(session.game.title, record["round"], when, {p: r.state for p, r in readings.items()})


# ---- replay ----------------------------------------------------------------------------------


def replay(source: Backend, target: Backend, clock: Clock = now_utc) -> int:
    """Play a game again from its host book alone: same config, data, state before round 1 and
    archived submissions, each round read at its original freeze time (so time controls see the
    same windows); returns the number of rounds replayed."""
    src = open_session(source, clock)
    game = src.game
    settings = {k: v for k, v in ((cells.text(r["key"]), r["value"]) for r in CONFIG.records(src.tabs["config"]))
                if k not in ("game", "seed")}
    resolved = [r for r in src.rounds if r["status"] == "resolved"]
    def at(value: object) -> Clock:
        moment = parse_time(value, "rounds:time")
        return (lambda: moment) if moment else clock

    session = new_game(target, game.name, src.players, src.config["seed"], src.emails,
                       {k: "" if v is None else v for k, v in settings.items()},
                       at(src.rounds[0].get("opened at") if src.rounds else None))
    first = src.snapshot(1) if resolved else src.state
    session.host.write({**{s.name: src.tabs[s.name] for s in game.data_tabs}, **_state_frames(game, first)})
    for record in resolved:
        state = src.snapshot(record["round"])
        readings = _archived_readings(src, state, record["round"], record["attempt"])
        for player, reading in readings.items():
            last_row = max((r.row for r in reading.rows), default=1)
            by_row = {r.row: r.values for r in reading.rows}
            rows = [{h: by_row.get(n, {}).get(h) for h in game.submit_tab.header} for n in range(2, last_row + 1)]
            target.book(f"player:{player}").write({"submit": _frame(rows, game.submit_tab.header)})
        resolve(target, early=True, allow_empty=True, clock=at(record.get("frozen at")))
    return len(resolved)
