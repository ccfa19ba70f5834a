"""A player's submit tab as the game's parser sees it: the header found, cells cleaned, rows parsed.

What the parser, the archive, a redo and a replay see is decided once, here, when a tab is read:
control characters are removed, a lone surrogate is kept as the `_xD800_` a program wrote for it,
and a cell too long for every backend is cut (with a message), so every later reading of the
archived rows gives the same result on any backend.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.cells import Problem, SubmitRow
from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.game import Game, Parsed, Window
from sheets_host.kit.table import SubmitTab, frame_rows
from .snapshots import CELL_PART

# Control characters no spreadsheet shows (tabs and line breaks are kept), and the two an .xlsx cannot hold.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")
HEADER_SEARCH = 20  # rows searched for a header that was moved down
# What is read of one player's submission in a round, in UTF-16 units: of each cell, eighteen times
# the longest cell a bot types (Spirit Chain's, 54), so a page pasted into one cell leaves the rest of
# the submission read; of all their submit tabs together, ten times the longest submission a bot
# types (the Academy's, 923), and small enough that twenty players at it keep the host's resolve
# request to Google (which archives, commits and logs it) under 3 MB, far from the 10 MB Google
# refuses (docs/architecture.md, "Cells"; tests/engine/test_submission_limit.py).
CELL_READ = 1_000
SUBMISSION_LIMIT = 10_000


@dataclass
class Reading:
    """One player's submission for a round: the rows that count, what the parser made of them,
    and rows that were in the tab but are not read (kept in the archive as set aside)."""

    player: str
    rows: list[SubmitRow]
    parsed: Parsed
    due: bool = True  # whether the player has anything to submit this round
    aside: list[SubmitRow] = field(default_factory=list)
    # What was typed but not read (past `CELL_READ` in a cell or `SUBMISSION_LIMIT` in a round),
    # told first among the problems: the log keeps it apart ("not read"), so a redo of the archived
    # rows, cut already, still tells it.
    unread: tuple[Problem, ...] = ()

    @property
    def state(self) -> str:
        if not self.due:
            return "nothing due"
        if self.parsed.submission is None:
            return "errors" if self.rows or self.parsed.problems else "empty"
        return "problems" if self.parsed.problems else "valid"


def clean(value: object, limit: int | None = CELL_PART) -> object:
    """A cell as every reader will see it: control characters removed, and cut to `limit` UTF-16
    units (an archived cell; a submit tab's are read as far as `within_limit` goes).

    >>> clean("si\\x00te 3")
    'site 3'
    >>> len(clean("x" * 40_000)), len(clean("x" * 40_000, None))
    (30000, 40000)

    A pair of surrogates is the character they make; a lone one stays as the text `_xD800_` that an
    .xlsx file holds for it, which every book can store and every message can print:

    >>> clean("W\\ud800 \\ud83d\\ude00")
    'W_xD800_ 😀'

    What is kept is counted as programs count, in UTF-16 units (an emoji is two):

    >>> len(clean("😀" * 20_000))
    15000
    """
    if not isinstance(value, str):
        return value
    value = cells.whole_characters(_CONTROL.sub("", value))
    return value if limit is None else cells.head(value, limit)


def _find_header(data: pd.DataFrame, wanted: dict[str, str]) -> tuple[list[str], pd.DataFrame] | None:
    """The header row (the first row naming at least half of the game's columns: row 1 unless a
    title was inserted above it) and the rows below it; None when no row names the columns."""
    need = max(1, (len(wanted) + 1) // 2)
    first = [cells.text(c) for c in data.columns]
    if sum(cells.fold(c) in wanted for c in first) >= need:
        return first, data
    for position, values in enumerate(frame_rows(data.head(HEADER_SEARCH))):
        names = [cells.text(v) for v in values]
        if sum(cells.fold(n) in wanted for n in names if n) >= need:
            below = data.iloc[position + 1:]
            return names, pd.DataFrame(below.values, columns=names, index=below.index, dtype=object)
    return None


def _raw_rows(player: str, data: pd.DataFrame, tab: SubmitTab, key: str | None) -> list[SubmitRow]:
    """Every non-blank row of a tab with no header, row 1 included, by position (for the archive)."""
    header = tab.header
    table = [(1, list(data.columns))] + list(zip(data.index, frame_rows(data)))
    out = []
    for number, values in table:
        values = [None if isinstance(v, str) and re.fullmatch(r"\([A-Z]+\)", v) else v for v in values]
        typed = {h: clean(v, None) for h, v in zip(header, values)}
        if tab.typed(typed):
            out.append(SubmitRow(player, int(number), list(header), typed, key))
    return out


def submit_rows(game: Game, player: str, tab: SubmitTab, data: pd.DataFrame | None
                ) -> tuple[list[SubmitRow], list[Problem], list[SubmitRow]]:
    """The non-blank rows of one submit tab, columns matched to the tab's by name (any case), with
    problems about the tab itself, and the rows that could not be read at all (no header)."""
    header, key = tab.header, game.tab_key(tab.name)
    if data is None:
        return [], [Problem(player, f"your book has no {tab.name!r} tab: ask the host to restore it", tab=key)], []
    if data.empty and not len(data.columns):
        return [], [], []
    wanted = {cells.fold(c): c for c in header}
    found = _find_header(data, wanted)
    if found is None:
        first = ", ".join(repr(cells.text(c)) for c in data.columns if not re.fullmatch(r"\([A-Z]+\)", str(c)))
        message = (f"the {tab.name} tab has no row naming its columns: row 1 must name them ({', '.join(header)})"
                   + (f"; row 1 holds {first}" if first else "") + ". Nothing in the tab was read")
        return [], [Problem(player, message, tab=key)], _raw_rows(player, data, tab, key)
    names, body = found
    columns = [wanted.get(cells.fold(n)) for n in names]
    # The tab's own column order, in the game's names, so a message names the letter the player sees.
    letters = [c or n for c, n in zip(columns, names)]
    problems = [Problem(player, f"the {tab.name} tab has no column {c!r} (its header row must name the columns: "
                                f"{', '.join(header)})", tab=key) for c in header if c not in columns]
    rows = []
    for number, values in zip(body.index, frame_rows(body)):
        typed = {}
        for column, value in zip(columns, values):
            if column:
                typed[column] = clean(value, None)
        if tab.typed(typed):
            rows.append(SubmitRow(player, int(number), letters, typed, key))
    return rows, (problems if rows else [p for p in problems if "no column" not in p.message]), []


def nothing_due(game: Game, state: Any, player: str) -> str:
    """That `player` has nothing to submit this round, and the game's why: what their status tab
    and `check` say of whatever they type then."""
    why = game.nothing_due(state, player)
    return f"nothing is due from you this {game.round_word}" + (f"; {why}" if why else "")


def _rows_named(rows: Sequence[SubmitRow]) -> str:
    """The rows, as a message names them: "row 3", "rows 2, 3 and 5", each tab's apart.

    >>> _rows_named([SubmitRow("Ada", n, [], {}) for n in (5, 2, 3)])
    'rows 2, 3 and 5'
    """
    parts = []
    for tab in dict.fromkeys(r.tab for r in rows):
        numbers = [str(n) for n in sorted({r.row for r in rows if r.tab == tab})]
        listed = numbers[0] if len(numbers) == 1 else f"{', '.join(numbers[:-1])} and {numbers[-1]}"
        parts.append((f"tab {tab!r}, " if tab else "") + f"row{'s' if len(numbers) > 1 else ''} {listed}")
    return "; ".join(parts)


def parse(game: Game, state: Any, player: str, rows: list[SubmitRow], window: Window,
          problems: Sequence[Problem] = (), aside: Sequence[SubmitRow] = (), unread: Sequence[Problem] = ()) -> Reading:
    """What `rows` count for, with `problems` found before parsing shown first. A player with
    nothing due gets nothing of what they typed: the round takes the rule text's default for them,
    and they are told why (the rows stay in the archive)."""
    if not game.submits(state, player):
        typed = rows or list(aside)
        said = (*unread, Problem(player, f"what you typed in {_rows_named(typed)} will not count: "
                                         f"{nothing_due(game, state, player)}")) if typed else ()
        return Reading(player, rows, Parsed(None, said, "nothing"), False, list(aside), tuple(unread) if typed else ())
    try:
        parsed = game.parse(state, player, rows, window)
    except SheetsHostError as e:  # a game's parser should not raise; if it does, the player is told
        parsed = Parsed(None, (Problem(player, str(e)),), "nothing")
    return Reading(player, rows, replace(parsed, problems=(*unread, *problems, *parsed.problems)), aside=list(aside),
                   unread=tuple(unread))


def _every_tab(game: Game, state: Any, player: str, book: Mapping[str, pd.DataFrame],
               tabs: Sequence[SubmitTab] | None = None
               ) -> tuple[list[SubmitRow], list[Problem], list[SubmitRow], list[Problem]]:
    """Rows read, problems, rows of tabs with no header, and what was not read (past the limit)."""
    rows, problems, aside = [], [], []
    for tab in game.submit_tabs(state, player) if tabs is None else tabs:
        r, p, u = submit_rows(game, player, tab, book.get(tab.name))
        rows, problems, aside = rows + r, problems + p, aside + u
    (rows, aside), unread = within_limit((rows, aside), game.round_word)
    return rows, problems, aside, unread


def within_limit(groups: Sequence[Sequence[SubmitRow]], round_word: str = "round", limit: int = SUBMISSION_LIMIT,
                 cell: int = CELL_READ) -> tuple[list[list[SubmitRow]], list[Problem]]:
    """One player's rows (in `groups`, read in order): each cell as far as `cell` UTF-16 units go,
    then the rows as far as `limit` units of text go: the cell that passes it is cut, the rest of its
    row and every later row are not read. The player is told where and why, by row (the log keeps
    a row, and `notes.unread_at` reads it). A cell is counted as its text; a number, a date or a
    tick as nothing (the game's columns bound them).

    >>> rows = [SubmitRow("Ada", n, ["a", "b"], {"a": "x" * 6, "b": 1}) for n in (2, 3, 4)]
    >>> (kept,), problems = within_limit([rows], "day", limit=10)
    >>> [r.values for r in kept]
    [{'a': 'xxxxxx', 'b': 1}, {'a': 'xxxx'}]
    >>> [p.where() for p in problems]
    ['row 3', 'row 4']
    >>> print(problems[0].message)
    only the first 4 characters of its 'a' cell (A) were read: a submission is read up to 10 characters a day, and yours holds 18
    >>> print(problems[1].message)
    this row was not read: a submission is read up to 10 characters a day, and yours holds 18

    A page pasted into one cell costs the rest of the submission nothing:

    >>> (kept,), problems = within_limit([[rows[0], replace(rows[1], values={"a": "y" * 50})]], "day", 10, cell=4)
    >>> [r.values for r in kept], [p.message for p in problems]
    ([{'a': 'xxxx', 'b': 1}, {'a': 'yyyy'}], ["only the first 4 characters of its 'a' cell (A) were read: a cell of a submission is read up to 4 characters (it holds 6)", "only the first 4 characters of its 'a' cell (A) were read: a cell of a submission is read up to 4 characters (it holds 50)"])
    """
    problems: list[Problem] = []

    def cut(row: SubmitRow, column: str, value: str, room: int, why: str) -> str:
        kept = cells.head(value, room)
        problems.append(row.problem(None, f"only the first {cells.units(kept):,} characters of its {column!r} cell "
                                          f"({row.problem(column, '').letter}) were read: {why}"))
        return kept

    texts = [v for group in groups for r in group for v in r.values.values() if isinstance(v, str)]
    total = sum(map(cells.units, texts))
    over = sum(min(cells.units(v), cell) for v in texts) > limit
    why = f"a submission is read up to {limit:,} characters a {round_word}, and yours holds {total:,}"
    left, out, unread = limit if over else math.inf, [], []
    for group in groups:
        kept = []
        for row in group:
            if left <= 0:
                unread.append(row)
                continue
            values = {}
            for column, value in row.values.items():
                if isinstance(value, str):
                    if cells.units(value) > cell:
                        value = cut(row, column, value, cell, f"a cell of a submission is read up to {cell:,} "
                                                              f"characters (it holds {cells.units(value):,})")
                    if cells.units(value) > left:
                        values[column] = cut(row, column, value, int(left), why)
                        left = 0
                        break
                    left -= cells.units(value)
                values[column] = value
            kept.append(replace(row, values=values))
        out.append(kept)
    for tab in dict.fromkeys(r.tab for r in unread):
        missed = [r for r in unread if r.tab == tab]
        if len(missed) == 1:
            problems.append(missed[0].problem(None, f"this row was not read: {why}"))
        else:
            problems.append(Problem(missed[0].player, f"{_rows_named([replace(r, tab=None) for r in missed])} "
                                                      f"were not read: {why}", tab=tab))
    return out, problems


def read_player(game: Game, state: Any, player: str, book: Mapping[str, pd.DataFrame], window: Window) -> Reading:
    """A player's submission from their book's submit tabs (`book`: tab name -> as read)."""
    rows, problems, aside, unread = _every_tab(game, state, player, book)
    return parse(game, state, player, rows, window, problems, aside, unread)


def typed_rows(game: Game, state: Any, player: str, book: Mapping[str, pd.DataFrame],
               tabs: Sequence[SubmitTab] | None = None) -> list[SubmitRow]:
    """Everything typed in a player's submit tabs (those they have in `state`, or `tabs`), read or
    not: what a command keeps before replacing the tabs."""
    rows, _, aside, _ = _every_tab(game, state, player, book, tabs)
    return rows + aside


def unaccounted(game: Game, state: Any, player: str, book: Mapping[str, pd.DataFrame],
                kept: Sequence[SubmitRow]) -> list[SubmitRow]:
    """What a player's submit tabs hold beyond `kept` (rows already archived): all of it, or nothing."""
    typed = typed_rows(game, state, player, book)
    return typed if typed and not same_rows(typed, kept) else []


def _cells(rows: Sequence[SubmitRow]) -> list:
    return sorted((r.tab or "", r.row, cells.typed_cells(r)) for r in rows)


def same_rows(a: Sequence[SubmitRow], b: Sequence[SubmitRow]) -> bool:
    """Whether two readings hold the same cells in the same rows of the same tabs (text as typed,
    any spacing)."""
    return _cells(a) == _cells(b)


def rows_digest(rows: Sequence[SubmitRow]) -> str:
    """A digest equal for two readings exactly when `same_rows` holds, to record a reading in a cell."""
    return hashlib.sha256(json.dumps(_cells(rows), ensure_ascii=False).encode()).hexdigest()[:32]
