"""The season's commands: `season new`, `next`, `settle`, `give` and `correct`.

A season lives in its own books (a backend's `host` and `public` roles): the host's season book is
the one source of truth and is written in one write per command, so a command killed at any moment
either wrote all of it or none of it; everything else (the public season book, each game player's
`season` tab) is derived from it and written after, so a re-run finishes it. Every command holds
the season (`Backend.hold`), one at a time.
"""

from __future__ import annotations

import hashlib
import random
from itertools import takewhile

import pandas as pd
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from sheets_host.backends import Backend
from sheets_host.engine.host import BOOKS_HEADER, Clock, now_utc, open_session, stamp
from sheets_host.engine.commit import caught_up
from sheets_host.engine.creation import new_game
from sheets_host.kit import cells
from sheets_host.kit.errors import SchemaErrors, SheetsHostError
from sheets_host.kit.result import DEATH_MATCH, GARNET, MAIN_MATCH, THINGS, TOKEN, Change
from . import books
from .ledger import BY_HOST, BY_SEASON, Entry, net, settled
from .state import Season, SeasonGame, Settlement, result_changes
from .tabs import DECISIONS_TAB, DEFAULTS, PLAN_TAB, SETTINGS, host_tabs, ledger_frame, load, read_settings
from .takes import dated, expiring, making, match_of
from .week import host_words, pending_death_match, week

BOOKS = "books"  # role -> book: where the season's public book is (Google: its spreadsheet)
NEW_SPREADSHEETS = "-"  # `season next`'s FOLDER on Google: the game's books are new spreadsheets
# Opens the backend of a game of the season (its books are where the games tab says).
OpenGame = Callable[[SeasonGame], Backend]


def read(backend: Backend) -> Season:
    """The season from its host book (one read), its other books' places learnt from its `books` tab."""
    tabs = backend.book("host").read(["season", "cast", "games", "ledger", DECISIONS_TAB.name, PLAN_TAB.name, BOOKS])
    if BOOKS in tabs:
        backend.bind({cells.text(r["role"]): cells.text(r["book"]) for r in tabs[BOOKS].to_dict("records")
                      if not cells.is_blank(r.get("role")) and not cells.is_blank(r.get("book"))})
    return load(tabs)


def game_seed(season: Season, number: str) -> int:
    """Each game's seed, from the season's: the same season plays the same games."""
    return int(hashlib.sha256(f"sheets-host season/{season.seed}/{number}".encode()).hexdigest()[:12], 16)


def _write(backend: Backend, before: Season, after: Season) -> None:
    """The host's season book in one write (the ledger's new rows appended), then the public book."""
    added = after.entries[len(before.entries):]
    tabs = _host_book(backend, after)
    layouts = books.host_layouts(tabs)
    del tabs["ledger"]
    backend.book("host").write(tabs, append={"ledger": ledger_frame(after.entries, len(before.entries))} if added else {},
                               layouts=layouts,
                               shown={"ledger": ledger_frame(before.entries)})
    books.deliver_public(backend, after)


def _host_book(backend: Backend, season: Season) -> dict[str, pd.DataFrame]:
    """Every tab of the host's season book, whole: those read back, the balances, the books' places."""
    return host_tabs(season) | {"balances": books.balances_frame(season),
                                BOOKS: pd.DataFrame([[r, ref] for r, ref in backend.refs().items()],
                                                    columns=BOOKS_HEADER, dtype=object)}


# ---- season new ---------------------------------------------------------------------------------

def new_season(backend: Backend, name: str, cast: Sequence[str], seed: int, emails: Mapping[str, str] | None = None,
               settings: Mapping[str, object] | None = None, clock: Clock = now_utc, force: bool = False) -> Season:
    """A season's books for `cast`; the Gamewide Tiebreak drawn from `seed` unless set. Run again
    with the same arguments it finishes what a killed run began; refuses to replace another season
    unless `force`."""
    cast = tuple(cells.text(p) for p in cast)
    if len(cast) < 2 or len({cells.fold(p) for p in cast}) != len(cast):
        raise SheetsHostError(f"--cast: two or more different players, comma-separated; got {', '.join(cast)}")
    values = dict(DEFAULTS)
    known = {c.name.casefold(): c.name for c in SETTINGS}
    for key, value in (settings or {}).items():
        if key.casefold() not in known:
            raise SheetsHostError(f"unknown season setting {key!r}; allowed: {', '.join(known.values())}")
        values[known[key.casefold()]] = value
    if cells.is_blank(values["gamewide tiebreak"]):
        drawn = list(cast)
        random.Random(f"sheets-host season/{seed}/gamewide tiebreak").shuffle(drawn)
        values["gamewide tiebreak"] = ", ".join(drawn)
    records = [{"key": k, "value": v, "_row": i} for i, (k, v) in enumerate({"name": name, "seed": seed, **values}.items(), 2)]
    try:
        _, _, parsed = read_settings(records, cast)
    except SchemaErrors as e:
        raise SheetsHostError(str(e)) from None
    when = stamp(clock())
    entries = tuple(Entry(i, when, "", "season new", p, GARNET, parsed.starting_garnets,
                          "starting garnets (season setting 'starting garnets')", BY_SEASON)
                    for i, p in enumerate(cast, 1) if parsed.starting_garnets)
    season = Season(name, seed, cast, parsed, (), entries, dict(emails or {}))
    # The same command run again takes over what a killed run made (Google: its marked spreadsheets).
    backend.begin_new(hashlib.sha256(repr(("season", name, seed, cast, sorted(values.items()))).encode()).hexdigest()[:32])
    with backend.hold("season new"):
        existing = backend.existing()
        if existing:
            try:
                there = read(backend)
            except (SheetsHostError, SchemaErrors):
                there = None
            if there is not None and (there.name, there.seed, there.cast) == (name, seed, cast) and not there.games:
                books.deliver_public(backend, there)  # the same command, killed after its host write
                return there
            if not force:
                raise SheetsHostError(f"a season or a game is already here ({', '.join(existing[:4])}); --force "
                                      "replaces it, removing its books")
            backend.discard()
        host = backend.create("host", f"{name} (season, host)")
        public = backend.create("public", f"{name} (season)", public=True)
        tabs = _host_book(backend, season)
        host.write(tabs, layouts=books.host_layouts(tabs), first=list(tabs))
        books.write_public(public, season)
    return season


# ---- season next --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Made:
    season: Season
    game: SeasonGame
    title: str
    refs: dict[str, str] = field(default_factory=dict)


def next_game(backend: Backend, game: str, where: str, backend_kind: str, open_game: OpenGame,
              players: Sequence[str] = (), red: Sequence[str] = (), green: Sequence[str] = (),
              clock: Clock = now_utc, settings: Mapping[str, object] | None = None) -> Made:
    """Game `game` made from the season at `where`: its players and every value the season gives
    filled in from the ledger. The season records the game first (with any Tokens of Life that stop
    protecting now), then makes it: the same command run again after a kill makes the same game.
    `settings`: the host's own for the game (deadlines, its rules), never one the season gives."""
    with backend.hold("season next"):
        read_now = read(backend)
        again = next((g for g in read_now.games if g.where == where and g.game == game), None)
        # A game is made from the ledger as the games stand now: each result settled first (a redo
        # or an undo since the last settle changes what the next game is made from); the game this
        # same command recorded before a kill is made, not read.
        report = SettleReport()
        season, opened = _settling(read_now, open_game, clock, report, skip=again.number if again else None)
        if report.problems:
            raise SheetsHostError("the season's games are not all read, so the ledger is not known: "
                                  + "; ".join(report.problems))
        open_games = [g for g in season.games if not (g.settlement and g.settlement.over)]
        if again is None:
            if open_games:
                raise SheetsHostError(f"game {open_games[-1].number} ({open_games[-1].game}, {open_games[-1].where}) is "
                                      "not over: play it to its end first")
            if match_of(game) == DEATH_MATCH and not players:
                players = _picked(season)
            plan = making(season, game, players, red, green)
            ours = sorted(k for k in (settings or {}) if k.casefold() in {g.casefold() for g in plan.given})
            if ours:
                raise SheetsHostError(f"--set {', '.join(ours)}: given by the season from its ledger, not by hand")
            number, now = season.next_number(), clock()
            when = stamp(now)
            own = dated({k: cells.text(v) for k, v in (settings or {}).items()}, now)
            made = SeasonGame(number, game, match_of(game), where, backend_kind, plan.players, game_seed(season, number),
                              when, {k: plan.settings[k] for k in plan.given}, own=own, made_after=len(season.entries))
            first = len(season.entries)
            gone = tuple(Entry(first + i, when, number, "made", p, TOKEN, -n,
                               "a Token of Life protects in the Death Match picks right after the game that gave it "
                               "(season setting 'token of life lasts'): a new Main Match begins", BY_SEASON)
                         for i, (p, n) in enumerate(expiring(season, game).items(), 1))
            if where == NEW_SPREADSHEETS:
                # Google: the game is made first (a `new` run again takes over what it made), then
                # recorded with its place, in the season's one write.
                session = _made(open_game(made), season, made, clock)
                made = replace(made, where=session.host.ref)
            after = season.with_games([*season.games, made]).with_entries(gone)
            _write(backend, read_now, after)
            _deliver_changed(read_now, season, opened, report)
            season = after
            if where != NEW_SPREADSHEETS:
                try:
                    session = _made(open_game(made), season, made, clock)
                except (SheetsHostError, SchemaErrors):
                    _write(backend, season, unrecorded(season, made.number, clock, "its making was refused"))
                    raise
        else:
            made = again
            session = _made(open_game(made), season, made, clock)
        books.deliver_season_tabs(session.backend, season, made)
        return Made(season, made, session.game.title, session.backend.refs())


def unrecorded(season: Season, number: str, clock: Clock, why: str) -> Season:
    """The season without its last game `number` (never begun): the game's row gone, what its
    making wrote to the ledger withdrawn by rows that say why."""
    when, first = stamp(clock()), len(season.entries)
    rows = [e for e in season.entries if e.game == number and e.corrects is None and net(season.entries, e.number)]
    back = [Entry(first + i, when, number, "dropped", e.player, e.what, -net(season.entries, e.number),
                  f"withdrawn: game {number} was dropped before it began ({why})", BY_SEASON, e.number)
            for i, e in enumerate(rows, 1)]
    return season.with_games([g for g in season.games if g.number != number]).with_entries(back)


def _picked(season: Season) -> tuple[str, str]:
    """The next Death Match the picks made (candidate, opponent); refused, saying what the week
    waits for, before the picks are in."""
    wk = week(season)
    pair = pending_death_match(season, wk)
    if pair is not None and not wk.picking:
        return pair
    waits = "; ".join([f"{' and '.join(a.players)} to decide {a.what}" for a in wk.asks]
                      + [host_words(a) for a in wk.host]) or "no Elimination Candidate is owed a Death Match"
    raise SheetsHostError(f"--players: no Death Match is picked yet ({waits}): run sheets-host season step, or "
                          "name the two with --players")


def _made(game_backend: Backend, season: Season, made: SeasonGame, clock: Clock):
    """The game's session: made now, or as a run killed after making it left it (its delivery
    finished); refused when another game is there."""
    try:
        with game_backend.hold("season next"):
            session = caught_up(game_backend, clock)[0]
    except (SheetsHostError, SchemaErrors):
        return new_game(game_backend, made.game, list(made.players), made.seed,
                        {p: season.emails[p] for p in made.players if p in season.emails},
                        {**made.own, **made.given}, clock=clock, given={k: _given_by(season, made) for k in made.given})
    if (session.game.name, session.config["seed"], tuple(session.players)) != (made.game, made.seed, made.players):
        raise SheetsHostError(f"another game is at {made.where} ({session.game.title}, seed {session.config['seed']}, "
                              f"{', '.join(session.players)}): move it, or make game {made.number} elsewhere")
    return session


def _given_by(season: Season, game: SeasonGame) -> str:
    return f"season '{season.name}' (its ledger before game {game.number})"


# ---- season settle ------------------------------------------------------------------------------

@dataclass
class SettleReport:
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)  # the games not over, each with where it stands
    written: int = 0  # ledger rows added
    begun: set[str] = field(default_factory=set)  # the games with a round resolved


def settle(backend: Backend, open_game: OpenGame, clock: Clock = now_utc) -> SettleReport:
    """Every game of the season's result written to the ledger exactly once: a game newly over
    adds its rows, one whose result changed (a redo) or that is no longer over (an undo) corrects
    them. Run again, it writes nothing."""
    report = SettleReport()
    with backend.hold("season settle"):
        before = read(backend)
        season, opened = _settling(before, open_game, clock, report)
        if season != before:
            _write(backend, before, season)
        _deliver_changed(before, season, opened, report)
    if not report.lines and not report.problems:
        report.lines.append("nothing to write: the ledger already holds every finished game's result")
    report.lines += report.waiting
    return report


def _settling(season: Season, open_game: OpenGame, clock: Clock, report: SettleReport, skip: str | None = None
              ) -> tuple[Season, dict[str, Backend]]:
    """The season with every game's result as its host book says now (`settle`'s comparison), and
    each game's backend as read (it knows the game's books); game `skip` left as it is. A Main
    Match whose Elimination Candidates changed after a Death Match made from their picks began is
    not settled: that Death Match would be of the wrong players (`held_back`)."""
    before, games, opened, read_now = season, [], {}, {}
    for g in season.games:
        if g.number == skip:
            continue
        try:
            opened[g.number] = game_backend = open_game(g)
            read_now[g.number] = _read_game(season, g, game_backend, stamp(clock()))
        except (SheetsHostError, SchemaErrors) as e:
            report.problems.append(f"game {g.number} ({g.game}, {g.where}): {e}; not settled")
            opened.pop(g.number, None)
    begun = report.begun = {n for n, (_, _, _, started) in read_now.items() if started}
    for g in season.games:
        if g.number not in read_now:
            games.append(g)
            continue
        settlement, changes, at, _ = read_now[g.number]
        blocked = held_back(season, g, settlement, begun)
        if blocked:
            report.problems.append(blocked)
            games.append(g)
            continue
        new = settled(season.entries, g.number, changes, stamp(clock()), at)
        if settlement is None or not settlement.over:
            report.waiting.append(f"game {g.number} ({g.game}): {at}")
        if new:
            season = season.with_entries(new)
            report.lines.append(f"game {g.number} ({g.game}): {len(new)} ledger row(s) written ({at})")
        elif g.settlement and settlement and g.settlement.over == settlement.over:
            settlement = replace(settlement, at=g.settlement.at)
        games.append(replace(g, settlement=settlement or g.settlement))
    report.written = len(season.entries) - len(before.entries)
    return season.with_games(games), opened


def held_back(season: Season, g: SeasonGame, settlement: Settlement | None, begun: set[str]) -> str | None:
    """Why game `g`'s result as it stands now is not settled: its Elimination Candidates changed (a
    redo, an undo) while a Death Match made after it has begun; None when it may be."""
    was = g.settlement.candidates if g.settlement and g.settlement.over else ()
    now = settlement.candidates if settlement and settlement.over else ()
    if g.match != MAIN_MATCH or was == now:
        return None
    later = season.games[[x.number for x in season.games].index(g.number) + 1:]
    after = list(takewhile(lambda x: x.match == DEATH_MATCH, later))
    started = [x for x in after if x.number in begun]
    if not started:
        return None
    first = started[-1]
    return (f"game {g.number} ({g.game}): its Elimination Candidates would change ({', '.join(was) or 'none'} -> "
            f"{', '.join(now) or 'none'}), but game {first.number}, a Death Match made from their picks "
            f"({', '.join(first.players)}), has begun: undo its rounds (sheets-host undo {first.where}, until round "
            f"1 is open) and then its making (sheets-host season drop SEASON {first.number}), or put game "
            f"{g.number}'s last round back as it was; not settled")


def _deliver_changed(before: Season, after: Season, opened: Mapping[str, Backend], report: SettleReport) -> None:
    """The season tabs of the games whose rows or settlement changed, and of the latest game."""
    changed = {e.game for e in after.entries[len(before.entries):]}
    changed |= {g.number for g, was in zip(after.games, before.games) if g.settlement != was.settlement}
    for g in after.games:
        if (g.number in changed or g is after.games[-1]) and g.number in opened:
            try:
                books.deliver_season_tabs(opened[g.number], after, g)
            except SheetsHostError as e:
                report.problems.append(f"game {g.number}: its players' season tabs: {e}")


def _read_game(season: Season, g: SeasonGame, game_backend: Backend, when: str
               ) -> tuple[Settlement | None, list[Change], str, bool]:
    """A game's settlement as its host book says now, the changes it gives, where it stands and
    whether it has begun (the backend then knows the game's books)."""
    session = open_session(game_backend)
    for key, value in g.given.items():
        typed = cells.text(session.config.get(key) or "")
        if typed != cells.text(value):
            raise SheetsHostError(f"config {key!r} is {typed!r} but the season gave {value!r}")
    game, state = session.game, session.state
    last = session.last_resolved
    at = (f"{game.round_name(last['round'])} resolved at {last['resolved at']}" if last else "not begun")
    if not game.is_over(state):
        return (Settlement(when, False) if g.settlement else None), [], f"not over: {at}", last is not None
    result = game.result(state)
    if result is None:
        raise SheetsHostError(f"{game.title} gives no result the season can read")
    changes = result_changes(season, g.number, result)
    outside = sorted({c.player for c in result.changes} - set(season.cast))
    beyond = (f"; what it gives {', '.join(outside)}, who are not of the cast, is not in the ledger" if outside else "")
    return (Settlement(when, True, result.winners, result.candidates, result.loser, result.owed),
            changes, f"endgame: {at}" + beyond, True)


# ---- the host's own rows ------------------------------------------------------------------------

def give(backend: Backend, player: str, what: str, amount: int, why: str, clock: Clock = now_utc) -> Entry:
    """A row the host writes: an artefact granted, a Token of Life used, an elimination by hand."""
    if not why.strip():
        raise SheetsHostError("--why: say why, for the ledger")
    if amount == 0:
        raise SheetsHostError("the amount: a whole number, not 0")
    with backend.hold("season give"):
        season = read(backend)
        try:
            player = cells.as_choice(player, season.cast, "a player of the cast")
            what = cells.as_choice(what, THINGS, "what")
        except cells.CellError as e:
            raise SheetsHostError(str(e)) from None
        entry = Entry(len(season.entries) + 1, stamp(clock()), "", "by hand", player, what, amount, why.strip(), BY_HOST)
        _write(backend, season, season.with_entries([entry]))
    return entry


def correct(backend: Backend, row: int, amount: int, why: str, clock: Clock = now_utc) -> Entry:
    """A correction of ledger row `row`: a new row of `amount` (added to the row's) that names it."""
    if not why.strip():
        raise SheetsHostError("--why: say why, for the ledger")
    with backend.hold("season correct"):
        season = read(backend)
        if not 1 <= row <= len(season.entries):
            raise SheetsHostError(f"row {row}: the ledger has rows 1 to {len(season.entries)}")
        old = season.entries[row - 1]
        entry = Entry(len(season.entries) + 1, stamp(clock()), old.game, "correction", old.player, old.what, amount,
                      why.strip(), BY_HOST, row)
        _write(backend, season, season.with_entries([entry]))
    return entry

