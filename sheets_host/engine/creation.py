"""`new`: a game made from its players, seed and settings, with the template of its data tabs.

A game is made whole or not at all: every book is created (and on Google shared) before the host
book's first write, the commit, which is the moment the game exists (`engine` for the commands
that follow).
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from sheets_host.backends import Backend, Book, role_file
from sheets_host.games import get_game
from sheets_host.kit import cells
from sheets_host.kit.errors import BookError, SheetsHostError
from sheets_host.kit.game import Game
from sheets_host.kit.table import TEMPLATES
from .commit import caught_up, commit
from sheets_host.kit.commitment import new_salt
from .commitments import of_seed
from .delivery import deliver, fresh_submits, settle_files
from .host import (AS_GIVEN, GIVEN_BY, archive_header, BOOKS_HEADER, ENGINE_DEFAULTS, ENGINE_SETTINGS, Clock, Commit, Session, frame,
                   name_key, now_utc, parse_time, read_config, reindex, stamp)
from .snapshots import SNAPSHOTS, state_given


def template(game: Game) -> tuple[dict[str, pd.DataFrame], dict[str, str]]:
    """The game's shipped rules data (one CSV per data tab) and its default settings."""
    folder = TEMPLATES / game.name
    data = {tab.name: pd.read_csv(folder / f"{tab.name}.csv", dtype=object, keep_default_na=False)
            for tab in game.data_tabs}
    with open(folder / "config.csv", newline="") as f:
        defaults = {row["key"]: row["value"] for row in csv.DictReader(f)}
    return data, defaults


def _number(value: object, kind: str | None) -> object:
    """A number setting's value (the templates' CSV gives text) as a number, so that the config tab
    holds numbers as numbers; anything else as it is.

    >>> _number("1.0", "float"), _number("7", "int"), _number("24, 1", "text"), _number("x", "int")
    (1.0, 7, '24, 1', 'x')
    """
    if kind in ("int", "float") and isinstance(value, str):
        try:
            return int(value) if kind == "int" else float(value)
        except ValueError:
            return value
    return value


# ---- new ----------------------------------------------------------------------------------------


def _name_problems(players: Sequence[str]) -> list[str]:
    """Problems with player names: blank, repeated (any case or Unicode form), read as a formula,
    or sharing a book file with another."""
    problems, seen, files = [], {}, {}
    for p in players:
        if not p:
            problems.append("a player name is blank")
            continue
        if p[0] in "=+-@":
            problems.append(f"{p!r} starts with {p[0]!r}: a player name may not start with =, +, - or @ "
                            "(spreadsheets read such a name as a formula)")
        key = name_key(p)
        if key in seen:
            problems.append(f"{seen[key]!r} and {p!r} are the same name to a spreadsheet: names must be distinct")
            continue
        seen[key] = p
        other = files.setdefault(role_file(f"player:{p}").casefold(), p)
        if other != p:
            problems.append(f"{other!r} and {p!r} would share one book file: rename one of them")
    return problems


def new_game(backend: Backend, game_name: str, players: Sequence[str], seed: int,
             emails: Mapping[str, str] | None = None, settings: Mapping[str, object] | None = None,
             clock: Clock = now_utc, force: bool = False, salt_key: str = "",
             given: Mapping[str, str] | None = None) -> Session:
    """Create the host, public and players' books of a new game; refuses to replace a game unless
    `force`. `salt_key`: the secret of the commitments' salts (`replay` keeps the original's), else a
    new one. `given`: setting -> what gave its value (a season's ledger), shown in the config and
    held to: a value typed over it is refused (`host.read_config`)."""
    game = get_game(game_name)
    players = [cells.text(p) for p in players]
    problems = _name_problems(players)
    if problems:
        raise SheetsHostError("; ".join(problems))
    if not game.min_players <= len(players) <= game.max_players:
        span = (f"{game.min_players}" if game.min_players == game.max_players
                else f"{game.min_players} to {game.max_players}")
        raise SheetsHostError(f"{game.title} takes {span} players; got {len(players)}: {', '.join(players)}")
    data_frames, defaults = template(game)
    config_values = {"game": game.name, "seed": seed, **ENGINE_DEFAULTS, **defaults}
    known = {c.name.casefold(): c.name for c in ENGINE_SETTINGS + game.settings}
    for key, value in (settings or {}).items():
        if key.casefold() not in known:
            raise SheetsHostError(f"unknown setting {key!r}; allowed: {', '.join(known.values())}")
        config_values[known[key.casefold()]] = value
    docs = {c.name: c.doc for c in ENGINE_SETTINGS + game.settings}
    kinds = {c.name: c.kind for c in ENGINE_SETTINGS + game.settings}
    given = {known[k.casefold()]: by for k, by in (given or {}).items()}
    header = ["key", "value", "about"] + ([GIVEN_BY, AS_GIVEN] if given else [])
    config_frame = reindex(frame([{"key": k, "value": _number(v, kinds.get(k)), "about": docs.get(k, ""),
                                   **({GIVEN_BY: given[k], AS_GIVEN: cells.text(_number(v, kinds.get(k)))} if k in given else {})}
                                  for k, v in config_values.items()], header))
    config = read_config(config_frame, game)
    problems = game.check_config(config, players)
    if problems:
        raise SheetsHostError("; ".join(problems))
    data = {s.name: s.records(reindex(data_frames[s.name]), players) for s in game.data_tabs}
    state = game.setup(players, seed, config, data)
    emails = dict(emails or {})

    # The same command run again finds the game it made: it finishes a `new` killed halfway
    # rather than make a second set of books.
    key = hashlib.sha256(json.dumps([game.name, players, seed, sorted(config_values.items()), sorted(emails.items())]
                                    + ([sorted(given.items())] if given else []),
                                    default=str).encode()).hexdigest()[:32]
    if backend.begin_new(key):
        with backend.hold("new"):
            session = caught_up(backend, clock)[0]  # a delivery a kill cut short is finished
        if session.commit.version > 1:
            raise SheetsHostError(f"this same command made {game.title} at {session.host.ref}, played since: go on with "
                                  "it, or run new with another --seed for a new game")
        return session
    with backend.hold("new"):
        existing = backend.existing()
        if existing and not force:
            shown = ", ".join(existing[:6]) + (f" and {len(existing) - 6} more" if len(existing) > 6 else "")
            raise SheetsHostError(f"a game is already here ({shown}); --force replaces it, removing its books")
        if existing:
            backend.discard()
        try:
            session, books = _create_and_commit(backend, game, players, seed, emails, config, config_frame,
                                                data_frames, data, state, clock, salt_key or new_salt())
        except SheetsHostError as e:  # a refusal before the commit: all of it or nothing
            left = backend.abandon_new()
            if not left:
                raise
            raise BookError(f"{e}; {left}") from None
        except BaseException:
            backend.abandon_new()
            raise
        deliver(session, state, books,
                submits={p: fresh_submits(game, state, p) for p in players})
        settle_files(backend, session.commit, dict)  # no round's file is left of a game replaced
    return session


def _create_and_commit(backend: Backend, game: Game, players: Sequence[str], seed: int, emails: Mapping[str, str],
                       config: Mapping[str, Any], config_frame: pd.DataFrame, data_frames: Mapping[str, pd.DataFrame],
                       data: Mapping[str, Any], state: Any, clock: Clock, key: str) -> tuple[Session, dict[str, Book]]:
    """Every book of a new game made and shared, then the commit: what `new` undoes when refused.
    The session and the books to deliver to (all but the host's)."""
    host = backend.create("host", f"{game.title} (host)")
    public = backend.create("public", f"{game.title} (public)", public=True)
    books = {f"player:{p}": backend.create(f"player:{p}", f"{game.title}: {p}",
                                           readers=[emails[p]] if p in emails else []) for p in players}
    for role, members in game.groups(state).items():
        books[role] = backend.create(role, f"{game.title}: {role.split(':', 1)[1]}",
                                     readers=[emails[m] for m in members if m in emails])
    refs = {"host": host.ref, "public": public.ref, **{r: b.ref for r, b in books.items()}}
    deadline = parse_time(config["first deadline"], "config:first deadline")
    session = Session(backend, host, game, {}, config, players, emails, data, state,
                      [{"round": 1, "status": "open", "attempt": 0,
                        "deadline": stamp(deadline) if deadline else None, "opened at": stamp(clock()),
                        "state given": state_given(game, state)}],
                      clock=clock)
    session.note(0, 0, "new", f"{game.title} created for {', '.join(players)} with seed {seed}")
    commit(session, state, operation=Commit(1, "new", salt_key=key), commitments=[of_seed(game, seed, stamp(clock()), key)],
           extra={
        "config": config_frame, **data_frames,
        "players": frame([{"player": p, "email": emails.get(p), "book": refs[f"player:{p}"]} for p in players],
                         ["player", "email", "book"]),
        "books": frame([{"role": r, "book": b} for r, b in refs.items()], BOOKS_HEADER),
        "archive": pd.DataFrame(columns=archive_header(game)),
        "snapshots": pd.DataFrame(columns=SNAPSHOTS.header)})
    return session, {"public": public, **books}
