"""A player's submit tab as the game's parser sees it: the header found, cells cleaned, rows parsed.

What the parser, the archive, a redo and a replay see is decided once, here, when a tab is read:
control characters are removed, a lone surrogate is kept as the `_xD800_` a program wrote for it,
and a cell too long for every backend is cut (with a message), so every later reading of the
archived rows gives the same result on any backend.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.cells import Problem, SubmitRow
from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.game import Game, Parsed, Window
from sheets_host.kit.table import SubmitTab
from .snapshots import CELL_PART

# Control characters no spreadsheet shows (tabs and line breaks are kept), and the two an .xlsx cannot hold.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")
HEADER_SEARCH = 20  # rows searched for a header that was moved down


@dataclass
class Reading:
    """One player's submission for a round: the rows that count, what the parser made of them,
    and rows that were in the tab but are not read (kept in the archive as set aside)."""

    player: str
    rows: list[SubmitRow]
    parsed: Parsed
    due: bool = True  # whether the player has anything to submit this round
    aside: list[SubmitRow] = field(default_factory=list)

    @property
    def state(self) -> str:
        if not self.due:
            return "nothing due"
        if self.parsed.submission is None:
            return "errors" if self.rows or self.parsed.problems else "empty"
        return "problems" if self.parsed.problems else "valid"


def clean(value: object) -> tuple[object, str | None]:
    """A cell as every reader will see it, and a message when it had to be cut.

    >>> clean("si\\x00te 3")
    ('site 3', None)
    >>> value, why = clean("x" * 40_000)
    >>> len(value), why
    (30000, 'the cell holds 40,000 characters; only the first 30,000 were read')

    A pair of surrogates is the character they make; a lone one stays as the text `_xD800_` that an
    .xlsx file holds for it, which every book can store and every message can print:

    >>> clean("W\\ud800 \\ud83d\\ude00")
    ('W_xD800_ 😀', None)

    What is kept is counted as programs count, in UTF-16 units (an emoji is two):

    >>> value, why = clean("😀" * 20_000)
    >>> len(value), why
    (15000, 'the cell holds 20,000 characters; only the first 15,000 were read')
    """
    if not isinstance(value, str):
        return value, None
    value = _CONTROL.sub("", value)
    value = cells.whole_characters(value)
    kept = cells.head(value, CELL_PART)  # as programs count: an emoji is two
    if kept != value:
        return kept, f"the cell holds {len(value):,} characters; only the first {len(kept):,} were read"
    return value, None


def _find_header(data: pd.DataFrame, wanted: dict[str, str]) -> tuple[list[str], pd.DataFrame] | None:
    """The header row (the first row naming at least half of the game's columns: row 1 unless a
    title was inserted above it) and the rows below it; None when no row names the columns."""
    need = max(1, (len(wanted) + 1) // 2)
    first = [cells.text(c) for c in data.columns]
    if sum(cells.fold(c) in wanted for c in first) >= need:
        return first, data
    for position, values in enumerate(data.head(HEADER_SEARCH).itertuples(index=False, name=None)):
        names = [cells.text(v) for v in values]
        if sum(cells.fold(n) in wanted for n in names if n) >= need:
            below = data.iloc[position + 1:]
            return names, pd.DataFrame(below.values, columns=names, index=below.index, dtype=object)
    return None


def _raw_rows(player: str, data: pd.DataFrame, tab: SubmitTab, key: str | None) -> list[SubmitRow]:
    """Every non-blank row of a tab with no header, row 1 included, by position (for the archive)."""
    header = tab.header
    table = [(1, list(data.columns))] + list(zip(data.index, (list(v) for v in data.itertuples(index=False, name=None))))
    out = []
    for number, values in table:
        values = [None if isinstance(v, str) and re.fullmatch(r"\([A-Z]+\)", v) else v for v in values]
        typed = {h: clean(v)[0] for h, v in zip(header, values)}
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
    for number, values in zip(body.index, body.itertuples(index=False, name=None)):
        typed = {}
        for column, value in zip(columns, values):
            if column:
                typed[column], cut = clean(value)
                if cut:
                    problems.append(SubmitRow(player, int(number), letters, {}, key).problem(column, cut))
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
          problems: Sequence[Problem] = (), aside: Sequence[SubmitRow] = ()) -> Reading:
    """What `rows` count for, with `problems` found before parsing shown first. A player with
    nothing due gets nothing of what they typed: the round takes the rule text's default for them,
    and they are told why (the rows stay in the archive)."""
    if not game.submits(state, player):
        typed = rows or list(aside)
        said = (Problem(player, f"what you typed in {_rows_named(typed)} will not count: "
                                f"{nothing_due(game, state, player)}"),) if typed else ()
        return Reading(player, rows, Parsed(None, said, "nothing"), False, list(aside))
    try:
        parsed = game.parse(state, player, rows, window)
    except SheetsHostError as e:  # a game's parser should not raise; if it does, the player is told
        parsed = Parsed(None, (Problem(player, str(e)),), "nothing")
    return Reading(player, rows, replace(parsed, problems=tuple(problems) + parsed.problems), aside=list(aside))


def _every_tab(game: Game, state: Any, player: str, book: Mapping[str, pd.DataFrame],
               tabs: Sequence[SubmitTab] | None = None) -> tuple[list[SubmitRow], list[Problem], list[SubmitRow]]:
    rows, problems, unread = [], [], []
    for tab in game.submit_tabs(state, player) if tabs is None else tabs:
        r, p, u = submit_rows(game, player, tab, book.get(tab.name))
        rows, problems, unread = rows + r, problems + p, unread + u
    return rows, problems, unread


def read_player(game: Game, state: Any, player: str, book: Mapping[str, pd.DataFrame], window: Window) -> Reading:
    """A player's submission from their book's submit tabs (`book`: tab name -> as read)."""
    rows, problems, aside = _every_tab(game, state, player, book)
    return parse(game, state, player, rows, window, problems, aside)


def typed_rows(game: Game, state: Any, player: str, book: Mapping[str, pd.DataFrame],
               tabs: Sequence[SubmitTab] | None = None) -> list[SubmitRow]:
    """Everything typed in a player's submit tabs (those they have in `state`, or `tabs`), read or
    not: what a command keeps before replacing the tabs."""
    rows, _, unread = _every_tab(game, state, player, book, tabs)
    return rows + unread


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
