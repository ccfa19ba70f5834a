"""The public announcements tab: each round's announcement as rows a reader takes in at a glance.

A round's rows are its title (the round's name beside it, as players read it: "day 2", the
Academy's "pregame" and "round 1"; shaded), its headings (in the round column, standing out to the
left), its lines of text and its tables, each table cell in its own column (`markdown.lines` reads
the games' Markdown; the `.md` files and Discord keep it). The tab is rewritten whole at every
resolve, redo and undo from the tab as read: a round's rows are those from its name in the first
column to the next round's, so a redone round's rows replace its own and an undone round's go.

>>> from sheets_host.games import get_game
>>> market = get_game("magicians-market")
>>> tab = announcements(market, None, 2, "## Day 2\\n\\nAll sold.")
>>> tab.columns.tolist(), tab.values.tolist()
(['day', 'announcement'], [['day 2', 'Day 2'], [None, 'All sold.']])
>>> announcements(market, tab, 2, None) is None  # day 2 undone: no tab
True
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from sheets_host.kit import cells, markdown
from sheets_host.kit.game import Game
from sheets_host.kit.layout import HEADER_FILL, HEADING_FILL, MAX_WIDTH, TITLE_FILL, Colour, TabLayout, lay_out, row_height

ANNOUNCEMENT = "announcement"


ROUNDS = 1000  # more rounds than any game plays: the names a round column may hold


def round_names(game: Game) -> dict[str, int]:
    """Each round's name, as written in the round column (folded), to its number."""
    return {cells.fold(game.round_name(n)): n for n in range(1, ROUNDS)}


def _round_key(value: object, names: dict[str, int]) -> int | None:
    """The round a row of the announcements tab starts: its first cell is a round's name (a tab
    written before names were, a round's number), else None (a heading)."""
    if isinstance(value, str):
        return names.get(cells.fold(value))
    number = isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer()
    return int(value) if number and value > 0 else None


def announcement_rows(label: str, text: str) -> list[list[object]]:
    """A round's announcement as rows of the announcements tab: its name, `label`, beside its
    title; a heading in the round column, standing out to the left; text and tables after it.

    >>> announcement_rows("day 2", "## Day 2\\n\\n### Prices\\n| good | now |\\n|---|---:|\\n| cape | 3 |\\nAll sold.")
    [['day 2', 'Day 2'], ['Prices'], [None, 'good', 'now'], [None, 'cape', 3], [None, 'All sold.']]
    """
    rows: list[list[object]] = []
    for line in markdown.lines(text):
        if line.kind == "title":
            rows.append([label, *line.cells])
        else:
            rows.append([*line.cells] if line.kind == "heading" else [None, *line.cells])
    # The first row carries the round's name, even in a round without a title.
    if rows and rows[0][0] is None:
        rows[0][0] = label
    elif not rows or rows[0][0] != label:
        rows.insert(0, [label])
    return rows


def announced(game: Game, existing: pd.DataFrame | None) -> dict[int, list[list[object]]]:
    """The rounds' rows an announcements tab holds (as read: no blank rows), by the round each
    belongs to: the one whose name last stood in the first column. A tab written before the
    announcements were rows (a round's Markdown in one cell) or before its rounds were named (their
    numbers) is read as rows of named rounds."""
    names = round_names(game)
    out: dict[int, list[list[object]]] = {}
    key = None
    for row in [] if existing is None else existing.to_numpy(dtype=object).tolist():
        row = [None if cells.is_blank(v) else v for v in row]
        while row and row[-1] is None:
            row.pop()
        if (number := _round_key(row[0] if row else None, names)) is not None:
            key = number
            if len(row) == 2 and isinstance(row[1], str) and "\n" in row[1]:  # the older kind
                out[key] = announcement_rows(game.round_name(key), str(row[1]))
                continue
            out[key] = []
            row[0] = game.round_name(key)
        if key is not None and row:
            table = sum(v is not None for v in row[1:]) > 1  # a table's numbers, read back as text
            out[key].append([markdown.number(v) if table and isinstance(v, str) else v for v in row])
    return out


def announcements(game: Game, existing: pd.DataFrame | None, round_number: int, text: str | None) -> pd.DataFrame | None:
    """The public announcements tab with round `round_number`'s rows replaced by `text`'s (removed
    when None); its first column is named as the game names a round (day, round). None when no
    round is left in it: the tab goes, as it was before the first announcement."""
    rounds = announced(game, existing)
    rounds.pop(round_number, None)
    if text is not None:
        rounds[round_number] = announcement_rows(game.round_name(round_number), text)
    rows = [row for number in sorted(rounds) for row in rounds[number]]
    if not rows:
        return None
    width = max(2, *(len(row) for row in rows))
    # Header cells past the text's column stay blank: a table's columns are its own, under its header row.
    return pd.DataFrame([row + [None] * (width - len(row)) for row in rows],
                        columns=[game.round_word, ANNOUNCEMENT, *[""] * (width - 2)], dtype=object)


def announcements_layout(game: Game, tab: pd.DataFrame) -> TabLayout:
    """Each round's title row stands out, then its headings; a table's header row is shaded as a
    tab's header is. Columns are as wide as the tables need: a title, heading or line of text
    runs on over the empty cells to its right rather than widening a table's first column."""
    rows = tab.to_numpy(dtype=object).tolist()
    names = round_names(game)
    fills: dict[int, Colour] = {}
    tabled, in_table = [], False
    for r, row in enumerate(rows):
        filled = sum(not cells.is_blank(v) for v in row[1:])
        table = cells.is_blank(row[0]) and filled > 1
        if _round_key(row[0], names) is not None:
            fills[r] = TITLE_FILL
        elif not cells.is_blank(row[0]):
            fills[r] = HEADING_FILL
        elif table and not in_table:
            fills[r] = HEADER_FILL
        tabled.append(table)
        in_table = table
    sized = pd.DataFrame([[row[0] if _round_key(row[0], names) is not None else None,
                           *(row[1:] if table else [None] * (len(row) - 1))] for row, table in zip(rows, tabled)],
                         columns=tab.columns, dtype=object)
    layout = lay_out(sized, highlight=fills)
    # A heading runs on to the right from the round column: left-aligned, as its numbers then are.
    columns = [replace(layout.columns[0], align="left"), *layout.columns[1:]]
    # A shaded row's title or heading ends within its shading: the last column widens for it.
    short = max((len(v) + 2 - sum(c.width for c in columns[k:]) for r in fills
                 for k, v in enumerate(rows[r][:2]) if isinstance(v, str)), default=0)
    if short > 0:
        columns[-1] = replace(columns[-1], width=min(MAX_WIDTH, columns[-1].width + short))
    layout = replace(layout, columns=tuple(columns))
    if layout.columns[1].wrap:  # a table's first column wraps, and so do the lines of text in it
        heights = {r + 1: h for r, (row, table) in enumerate(zip(rows, tabled))
                   if not table and (h := row_height([(row[1], layout.columns[1].width)]))}
        layout = replace(layout, heights={**layout.heights, **heights})
    return layout
