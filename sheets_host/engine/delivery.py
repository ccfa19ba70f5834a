"""Writing the books other than the host's: what each reader sees after a commit.

Everything written here is computed from the host book alone (the state, the rounds, the archive
and the log), so a delivery that a crash interrupted is finished later exactly as it would have
been. Each book records, in its hidden engine tab, the host commit it shows: a book behind the
host is finished by the next command; a book ahead of it means the host book is an old copy. It
records too whose book it is (a book found in another's place stops every command before anything
is read) and the tabs the tool made in it, so an undo or a redo takes back the tabs of the round
it takes back, and never a tab of the player's own.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from sheets_host.backends import ENGINE_TAB, Backend, Book, book_of, rows_from_frame, written_header
from sheets_host.backends.in_flight import each_book
from sheets_host.kit import cells
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import BookError, SchemaErrors
from sheets_host.kit.game import Game
from sheets_host.kit.layout import (INPUT_ROWS, LOCKED_FILL, MEANINGS, PROBLEM_FILL, TabLayout, keyed, lay_out,
                                    lay_out_tab, unkeyed)
from sheets_host.kit.table import SubmitTab, frame_records
from . import commitments
from .announcements_tab import announcements_layout
from .host import Commit, Session, frame, name_key, read_commit, row_ref
from .reading import typed_rows
from .status_tab import status_frame, status_layout

HISTORY = "my submissions"
HAPPENED, COUNTED, TYPED = "what happened", "counted", "what you typed"  # my submissions' columns
NOT_COUNTED = "not counted: nothing the round resolved came from this row"


def kv(pairs: Sequence[tuple[str, object]], header=("what", "value")) -> pd.DataFrame:
    return pd.DataFrame([list(p) for p in pairs], columns=list(header), dtype=object)


def delivered(data: pd.DataFrame | None) -> int:
    """The host commit a book shows, from its engine tab (a copy of the host's): -1 for a book never
    delivered to, or whose engine tab was damaged (it is then delivered to again)."""
    try:
        return read_commit(data).version if data is not None and not data.empty else -1
    except SchemaErrors:
        return -1


@dataclass(frozen=True)
class Mark:
    """What a book's engine tab says of the book itself: whose it is (its role) and the tabs the tool
    made in it, each with the round that was open when it was first made. None for a book delivered
    to before these rows existed (or whose rows were damaged): it is accepted, and its next delivery
    writes them."""

    owner: str | None = None
    made: dict[str, int] | None = None


def mark_of(data: pd.DataFrame | None) -> Mark:
    if data is None or data.empty or not {"key", "value"} <= set(data.columns):
        return Mark()
    values = {cells.text(k): v for k, v in zip(data["key"], data["value"])}
    owner = cells.text(values.get("book")) or None
    try:
        made = {str(t): int(n) for t, n in json.loads(cells.text(values.get("tabs"))).items()}
    except (ValueError, TypeError, AttributeError):
        made = None
    return Mark(owner, made)


def check_owner(session: Session, role: str, book: Book, tabs: Mapping[str, pd.DataFrame]) -> None:
    """Refuse a book that says it is another's (two books swapped, one copied over another, a wrong
    id in the host's `books` tab), before anything in it is read as a submission."""
    owner = mark_of(tabs.get(ENGINE_TAB)).owner
    if owner is None or name_key(owner) == name_key(role):  # as names are told apart
        return
    home = session.backend.refs().get(owner)
    there = f"its place is {home}" if home else "it is no book of this game"
    raise BookError(f"{book.ref}, where {book_of(role)} should be, is {book_of(owner)} (its hidden {ENGINE_TAB!r} tab "
                    f"says {owner}; {there}): put each book back in its place (or, on Google Sheets, correct "
                    "the spreadsheet ids in the host book's `books` tab) and run again; nothing was read or written")


def tidied(mark: Mark, keep: Iterable[str], there: Collection[str], current: int) -> tuple[dict[str, int], list[str]]:
    """The tabs the tool has made in a book once a delivery for `current` (the round open after the
    commit) has written or kept `keep`, each with the round open when first made; and the tabs to
    remove: made for a later round (an undo took it back) or for this one but not delivered now (a
    redo resolved it otherwise). A tab of an earlier round stays (the pregame's submit tab, locked).
    In a book with no record yet, tabs already `there` count as made before any round: what the
    tool cannot tell it made is never removed.

    >>> tidied(Mark(made={"status": 1, "board": 2, "bolts": 3}), ["status", "board"], (), 2)  # round 2 undone
    ({'status': 1, 'board': 2}, ['bolts'])
    >>> tidied(Mark(made={"status": 1, "preferences": 1}), ["status", "board"], (), 2)  # round 1 resolved
    ({'status': 1, 'board': 2, 'preferences': 1}, [])
    """
    old = mark.made
    made = {}
    for tab in keep:
        if old is not None and tab in old:
            made[tab] = min(old[tab], current)
        else:
            made[tab] = 0 if old is None and tab in there else current
    remove = []
    for tab, number in (old or {}).items():
        if tab not in made:
            if number >= current:
                remove.append(tab)
            else:
                made[tab] = number
    return made, remove


def submit_tab(game: Game, state: Any, player: str, tab: SubmitTab, typed: pd.DataFrame
               ) -> tuple[pd.DataFrame, TabLayout]:
    """A player's submit tab as written, holding `typed` (its key, if read with it, left out):
    shaded input rows with a dropdown where the values are a known set, a note on each header
    cell saying what goes there, and the key saying where to type."""
    typed = unkeyed(typed)
    return keyed(typed, lay_out_tab(typed, tab.schema, players=game.players(state),
                                    choices=game.submit_choices(state, player, tab.name), palettes=game.palettes(),
                                    input_rows=max(len(typed), len(tab.labels) or len(typed) + INPUT_ROWS)))


LOCKED = MEANINGS[LOCKED_FILL]


def locked_tab(game: Game, state: Any, player: str, tab: SubmitTab, read: Mapping[str, pd.DataFrame],
               round_name: str) -> tuple[pd.DataFrame, TabLayout] | None:
    """A submit tab the player can no longer type in (a past round's, or any once the game is
    over), as it was read, its rows where they were typed: greyed, with no "type here", its key
    saying "locked" and the round it counted for. None when it is not in the book, or already
    looks so (it is then left alone: it costs nothing to deliver)."""
    held = read.get(tab.name)
    if held is None or any(cells.text(c).startswith(LOCKED) for c in held.columns):
        return None
    rows = typed_rows(game, state, player, read, [tab])
    typed = submit_frames(game, state, player, [{**r.values, "tab": r.tab} for r in rows], [r.row for r in rows],
                          [tab])[tab.name]
    return typed, lay_out_tab(typed, tab.schema, players=game.players(state), palettes=game.palettes(),
                              highlight={i: LOCKED_FILL for i in range(len(typed))},
                              key=[(f"{LOCKED}: {round_name}", LOCKED_FILL)])


def due_tabs(game: Game, state: Any, player: str) -> tuple[SubmitTab, ...]:
    """The submit tabs the player has to fill in the round open: none once the game is over."""
    return () if game.is_over(state) else game.submit_tabs(state, player)


def fresh_submits(game: Game, state: Any, player: str) -> dict[str, pd.DataFrame]:
    """The player's submit tabs as a new round delivers them: empty (a grid with its labels); once
    the game is over, none (every one is then locked)."""
    return {tab.name: tab.empty() for tab in due_tabs(game, state, player)}


def submit_frames(game: Game, state: Any, player: str, rows: Sequence[Mapping[str, object]],
                  at: Sequence[int] | None = None, tabs: Sequence[SubmitTab] | None = None) -> dict[str, pd.DataFrame]:
    """Rows as typed into the player's submit tabs (those they have in `state`, or `tabs`): each
    row's "tab" key names its tab (None or absent: the game's one tab); `at` gives each row's
    sheet row (blank rows between), else the rows follow one another. A grid keeps its labels
    where no row replaces them."""
    out = {}
    for tab in game.submit_tabs(state, player) if tabs is None else tabs:
        key = game.tab_key(tab.name)
        if at is not None:
            by_row = {n: r for n, r in zip(at, rows) if r.get("tab") == key}
        else:
            by_row = dict(enumerate((r for r in rows if r.get("tab") == key), start=2))
        last = max([*by_row, 1 + len(tab.labels)])
        labelled = {2 + i: {tab.header[0]: label} for i, label in enumerate(tab.labels)}
        out[tab.name] = frame([by_row.get(n) or labelled.get(n, {}) for n in range(2, last + 1)], tab.header)
    return out


def view_layouts(game: Game, tabs: Mapping[str, pd.DataFrame]) -> dict[str, TabLayout]:
    """Views coloured where the game's colour rules are meant to colour them."""
    palettes = game.palettes()
    return {name: lay_out(tab, tab=name, palettes=palettes) for name, tab in tabs.items()}


def typed_text(row: SubmitRow, grid: bool = False) -> str:
    """What a row held, as one line: each typed cell after its column's name, in the tab's order;
    a grid's row starts with its label, and each cell follows its column's letter or name.

    >>> typed_text(SubmitRow("Ada", 2, ["what", "site", "power"], {"what": "bid", "site": None, "power": 3}))
    'what: bid, power: 3'
    >>> typed_text(SubmitRow("Ada", 2, ["rank", "A", "B"], {"rank": 8, "A": "fire", "B": "wind"}), grid=True)
    'rank 8: A fire, B wind'
    """
    typed = [(h, row.values.get(h)) for h in row.header if not cells.is_blank(row.values.get(h))]
    if grid and typed and typed[0][0] == row.header[0]:
        (label, value), *typed = typed
        return f"{label} {cells.text(value)}: " + ", ".join(f"{h} {cells.text(v)}" for h, v in typed)
    return ", ".join(f"{h}: {cells.text(v)}" for h, v in typed)


def round_label(game: Game, number: int) -> int | str:
    """Round `number` in a column named by the game's word for a round: its number, or its name
    when the game gives it another (the festival's pregame, whose round 1 is engine round 2)."""
    name, word = game.round_name(number), game.round_word + " "
    rest = name[len(word):] if name.startswith(word) else ""
    return int(rest) if rest.isdigit() else name


def history_frames(session: Session, players: Iterable[str]) -> dict[str, pd.DataFrame]:
    """Every round's submission of each of `players` as it was read, left to right: the {round},
    the tab (when the game has several) and row, what happened to the row and why, then what it
    held; a line of its own for what counted or was defaulted. What happened is the parser's
    problems with the row and the resolver's record of the part the row gave (counted, or not and
    why), never a reading of the row again: a row that gave no part the resolver counted does not
    say "counted". From the archive and the log, so it is the same after a crash, a redo or an
    undo. The log and each round's rows are read once for all the players (a delivery writes every
    book)."""
    game, word = session.game, session.game.round_word
    tabbed = ["tab"] if game.several_submit_tabs else []
    grids = {game.tab_key(t.name) for t in game.every_submit_tab() if t.labels}
    wanted = set(players)
    # (player, round, attempt) -> by row: the parser's problems, the resolver's word; lines of the
    # whole submission; the attempts whose resolver kept its record (a game logged before did not)
    by_row: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    fated: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    general: dict[tuple[str, str, str], list[str]] = {}
    recorded: set[tuple[str, str, str]] = set()
    for e in frame_records(session.tabs.get("log", pd.DataFrame())):
        who, kind = cells.text(e.get("player")), cells.text(e.get("kind"))
        if who not in wanted or kind not in ("problem", "not read", "submission", "default", "counted", "not counted"):
            continue
        key = (who, cells.text(e.get("round")), cells.text(e.get("attempt")))
        row, message = cells.text(e.get("row")), cells.text(e.get("message"))
        recorded |= {key} if kind in ("counted", "not counted") else set()
        if row and kind in ("problem", "not read"):
            by_row.setdefault(key, {}).setdefault(row, []).append(message)
        elif row:
            told = COUNTED if kind == "counted" else f"not counted: {message}"
            fated.setdefault(key, {}).setdefault(row, []).append(told)
        else:
            general.setdefault(key, []).append(f"what counted: {message}" if kind in ("counted", "submission")
                                               else message)
    out: dict[str, list[dict]] = {p: [] for p in wanted}
    for record in session.rounds:
        if record["status"] != "resolved":
            continue
        number, attempt = record["round"], record["attempt"]
        label = round_label(game, number)
        rows = session.attempt_rows(number, attempt)
        for player in out:
            key = (player, str(number), str(attempt))
            problems, told = by_row.get(key, {}), fated.get(key, {})
            for row in rows.get(player, []):
                ref = str(row_ref(row.tab, row.row))
                said = problems.get(ref, []) + list(dict.fromkeys(told.get(ref, [])))
                if key not in recorded:  # logged before the resolver kept its record: as it was read
                    said = problems.get(ref, []) or [COUNTED]
                out[player].append({word: label, "tab": row.tab, "row": row.row, TYPED: typed_text(row, row.tab in grids),
                                    HAPPENED: "; ".join(said) or NOT_COUNTED})
            out[player] += [{word: label, HAPPENED: line} for line in general.get(key, [])]
    return {player: frame(rows, [word, *tabbed, "row", HAPPENED, TYPED]) for player, rows in out.items()}


def history_layout(history: pd.DataFrame) -> TabLayout:
    """A row that did not count as typed (a problem) stands out, the key saying so."""
    marks = {i: PROBLEM_FILL for i, (row, happened) in enumerate(zip(history["row"], history[HAPPENED]))
             if not cells.is_blank(row) and happened != COUNTED}
    return lay_out(history, highlight=marks, key=[(f"{MEANINGS[PROBLEM_FILL]}: did not count as typed", PROBLEM_FILL)]
                   if marks else [])


def grown(old: pd.DataFrame | None, new: pd.DataFrame) -> pd.DataFrame | None:
    """The rows `new` adds after all of `old`'s (none when they are equal), when `old` (a tab as
    read) is where `new` starts: a state tab that only grows (a history of auctions, orders,
    stones) is then appended to, and one that did not change is not written."""
    if old is None or not len(old) or len(new) < len(old):
        return None
    width = len(old.columns)
    # A tab may widen under blank header cells (the announcements, for a wider table): rows added.
    if written_header(new)[:width] != written_header(old) or any(written_header(new)[width:]):
        return None
    def shown(rows: Iterable[Sequence[object]]) -> list[list[str | None]]:
        return [[None if v is None or v == "" else str(v) for v in row] for row in rows]
    # Plain rows, sliced as lists: slicing the frames cost more than the comparison.
    head = rows_from_frame(new)[1:len(old) + 1]
    if any(v is not None and v != "" for row in head for v in row[width:]):
        return None
    return new.iloc[len(old):] if shown(rows_from_frame(old)[1:]) == shown(row[:width] for row in head) else None


def deliver(session: Session, state: Any, books: Mapping[str, Book], *,
            submits: Mapping[str, Mapping[str, pd.DataFrame]], announcements_tab: pd.DataFrame | None = None,
            shown: Mapping[str, Mapping[str, pd.DataFrame]] = {}) -> None:
    """Write every non-host book (by role) for the host's current commit: the public view, each
    player's private view, status and history (and `submits[player]`, submit tab name -> frame,
    as their submit tabs when given), each group's view; then the book's engine tab, with whose book
    it is and the tabs the tool made, and the tabs of a round taken back removed (`tidied`). A tab the book already `shown` (as read
    by this command) is not sent again, one that only grew gets only its new rows, and the backend
    may send only the rows that changed of the others. Each book's write is made in the books' order
    and sent as soon as it is made, `in_flight` at once: the first are on their way while the others
    are made."""
    each_book(session.backend.in_flight, _writes(session, state, books, submits, announcements_tab, shown))


def _writes(session: Session, state: Any, books: Mapping[str, Book], submits: Mapping[str, Mapping[str, pd.DataFrame]],
            announcements_tab: pd.DataFrame | None, shown: Mapping[str, Mapping[str, pd.DataFrame]]
            ) -> Iterator[tuple[str, Callable[[], None]]]:
    """Each book's write for `deliver`, by role."""
    game = session.game
    stamp_tab = session.commit.shown()
    current = 1 + max((r["round"] for r in session.rounds if r["status"] == "resolved"), default=0)
    last = game.round_name(max(current - 1, 1))  # the round a tab locked now counted for
    committed = commitments.read(session.tabs, session.players)
    histories = history_frames(session, [role.partition(":")[2] for role in books if role.startswith("player:")])
    for role, book in books.items():
        kind, _, name = role.partition(":")
        protect = {}
        status = status_frame(session, name if kind == "player" else None)
        engine_views = {}
        if role == "public":
            views = game.public_view(state)
            engine_views = {commitments.PUBLIC_TAB: commitments.public_frame(game, committed)}
        elif kind == "player":
            views = {**game.private_view(state, name), HISTORY: histories[name]}
            engine_views = {commitments.PRIVATE_TAB: commitments.private_frame(game, committed, name)}
        else:
            views = game.group_view(state, role)
        tabs = {"status": status, **views, **engine_views}
        layouts = {"status": status_layout(status), **view_layouts(game, views),
                   **{t: commitments.layout(f) for t, f in engine_views.items()}}
        if HISTORY in views:
            layouts[HISTORY] = history_layout(views[HISTORY])
        if role == "public" and announcements_tab is not None:
            tabs["announcements"] = announcements_tab
            layouts["announcements"] = announcements_layout(game, announcements_tab)
        before = shown.get(role, {})
        if kind == "player" and submits.get(name) is not None:
            own = {tab.name: tab for tab in game.submit_tabs(state, name)}
            for tab_name, typed in submits[name].items():
                tabs[tab_name], layouts[tab_name] = submit_tab(game, state, name, own[tab_name], typed)
            # A tab the player no longer has (the pregame's, once it is over) is locked, and looks it.
            protect = {tab.name: tab.name not in submits[name] for tab in game.every_submit_tab()}
            # Those made for an earlier round only: a later round's (an undo took it back) goes.
            made = mark_of(before.get(ENGINE_TAB)).made or {}
            for tab in game.every_submit_tab():
                if (tab.name not in submits[name] and made.get(tab.name, 0) < current
                        and (locked := locked_tab(game, state, name, tab, before, last))):
                    tabs[tab.name], layouts[tab.name] = locked
        for tab in tabs:  # each tab's key, where its colours need one
            tabs[tab], layouts[tab] = keyed(tabs[tab], layouts[tab])
        # The status first, then the tabs to fill this round, where a player finds them at once;
        # the views; a past round's tabs last. A tab the player made follows them.
        due = [t.name for t in due_tabs(game, state, name)] if kind == "player" else []
        submit_names = {tab.name for tab in game.every_submit_tab()}
        first = ["status", *due, *(t for t in tabs if t != "status" and t not in submit_names),
                 *(t.name for t in game.every_submit_tab() if t.name not in due)]
        # The submit tabs the player has now are kept, written or not; a redo, which writes none,
        # keeps every one there (a player may be typing in it). An undo archived what it removes.
        own = {t.name for t in game.submit_tabs(state, name)} if kind == "player" else set()
        mine = [t.name for t in game.every_submit_tab()
                if t.name in own or (kind == "player" and submits.get(name) is None and t.name in before)]
        made, remove = tidied(mark_of(before.get(ENGINE_TAB)), [*tabs, *mine], before, current)
        mark = kv([("book", role), ("tabs", json.dumps(made, ensure_ascii=False))], ("key", "value"))
        append = {}
        for tab in [t for t in tabs if t != "status" and t not in submit_names]:
            rows = grown(shown.get(role, {}).get(tab), tabs[tab])
            if rows is not None:
                del tabs[tab]
                if len(rows):
                    append[tab] = rows
        # A tab appended to keeps the layout of the whole tab and what it held: its new rows look
        # as they would written whole (`Book.write`).
        layouts = {t: layout for t, layout in layouts.items() if t in tabs or t in append}
        yield role, partial(book.write, {**tabs, ENGINE_TAB: pd.concat([stamp_tab, mark], ignore_index=True)},
                            append=append, layouts=layouts, protect=protect, hidden=(ENGINE_TAB,),
                            shown={t: before[t] for t in [*tabs, *append] if t in before}, remove=remove, first=first)


def other_books(session: Session) -> dict[str, Book]:
    """Every book but the host's, by role: public, players', groups'."""
    roles = ["public", *(f"player:{p}" for p in session.players), *session.game.groups(session.state)]
    return {role: session.backend.book(role) for role in roles}


def player_books(session: Session) -> dict[str, Book]:
    return {f"player:{p}": session.backend.book(f"player:{p}") for p in session.players}


# ---- announcement files -------------------------------------------------------------------------


def _replace(path: Path, data: bytes) -> None:
    """Write a file whole or not at all (a crash leaves the old file, or none)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def round_files(game: Game, state: Any, round_number: int, text: str) -> dict[str, bytes]:
    """Round `round_number`'s announcement files by their path in the output folder: the text, the
    picture, and each player's private pictures (in `private/<player>/`), from the state after it."""
    name = f"round-{round_number:02d}"
    files = {f"{name}.md": text.encode()}
    if png := game.picture(state):
        files[f"{name}.png"] = png
    for player, png in game.private_pictures(state).items():
        files[f"{PRIVATE}/{player_folder(player)}/{name}.png"] = png
    return files


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)


def settle_files(backend: Backend, commit: Commit, content: Callable[[], Mapping[str, bytes]]) -> list[Path]:
    """Make the output folder hold what `commit` owes: each of its files with the content it
    recorded (`content()` gives them, computed only when one is missing or differs, and a file
    already holding it is left alone) and no file of a round after `commit.last_round_kept` (an
    undone round's), nor a temporary file a kill left behind. The paths written or removed."""
    if not commit.version:  # a host book with no commit record: nothing is known to be owed
        return []
    folder = backend.output_dir()

    def holds(path: Path, digest: str) -> bool:
        return path.is_file() and file_digest(path.read_bytes()) == digest
    changed = []
    owed = [name for name, digest in commit.files.items() if not holds(folder / name, digest)]
    if owed:
        data = content()
        for name in [n for n in owed if n in data]:
            path = folder / name
            if not holds(path, file_digest(data[name])):  # the host book may have changed since
                path.parent.mkdir(parents=True, exist_ok=True)
                _replace(path, data[name])
                changed.append(path)
    if folder.is_dir():
        private = folder / PRIVATE
        for path in [*folder.iterdir(), *(p for mine in (private.iterdir() if private.is_dir() else ())
                                           if mine.is_dir() for p in mine.iterdir())]:
            stem = path.name.split(".")[0]
            if ((path.name.startswith(".") and path.name.endswith(".tmp"))
                    or (stem.startswith("round-") and stem[6:].isdigit() and int(stem[6:]) > commit.last_round_kept)):
                _remove(path)
                changed.append(path)
    return changed


PRIVATE = "private"  # announcements/private/<player>/: pictures for one player, sent to them alone


def player_folder(player: str) -> str:
    """A folder name for a player's private pictures: their name with what a file system or a
    shell trips on replaced, and a short digest of the name so two names never share a folder.

    >>> player_folder("Ada"), player_folder("../Zoë & co")
    ('Ada-99a5', 'Zoë_co-0c1d')
    """
    digest = hashlib.sha256(player.encode()).hexdigest()[:4]
    name = re.sub(r"[^\w-]+", "_", player).strip("_")[:40] or "player"
    return f"{name}-{digest}"
