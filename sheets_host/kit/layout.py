"""How a tab looks, decided once for both backends: header, widths, number formats, dropdowns, colours.

A `TabLayout` is a plain description the backends render (openpyxl/xlsxwriter styles offline, one
``batchUpdate`` on Google Sheets); nothing here knows a backend, and no game writes formatting
code: `lay_out` turns a frame plus the game's hints (a tab's schema, the choices a player has,
the game's colour rules) into a layout.

Every colour a book shows explains itself: a header or heading (`HEADINGS`); a fill of one meaning
in every book (`MEANINGS`: the yellow "type here", a problem, the to-do, a lock) with a cell of
its tab saying that meaning; or a game's colour rule (`Palette`), which colours a cell by its own
text in the columns it names alone, so a cell's colour sits beside its name ("fire", "Red
Meadow"). What no cell names (the yellow of a submit tab, a map's `E`) is said by the tab's
**key**: cells right of the tab's columns, past a blank one, in its header row, each in its colour
and saying what it means (`keyed`).

>>> frame = pd.DataFrame([["Ada", 12, 2.5], ["Blaise", 3, None]], columns=["player", "garnets", "score"])
>>> tab = lay_out(frame)
>>> [(c.width, c.number_format, c.align) for c in tab.columns]
[(8, None, 'left'), (9, '#,##0', 'right'), (7, '#,##0.0', 'right')]
>>> tab.frozen_rows, tab.input_rows
(1, 0)
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import cached_property

import pandas as pd

from . import cells
from .table import TabSchema, frame_rows

Colour = str  # "RRGGBB"

HEADER_FILL: Colour = "D9E2F3"  # pale blue: the header row of every tab
INPUT_FILL: Colour = "FFF8DC"  # pale yellow: where a player types
PROBLEM_FILL: Colour = "F8D7DA"  # pale red: a problem the reader should see
NEXT_FILL: Colour = "D4EDDA"  # pale green: what the reader must do next
LOCKED_FILL: Colour = "E7E6E6"  # pale grey: what a player typed in a tab now locked
TITLE_FILL: Colour = "B4C6E7"  # blue: the first row of a round's announcement, its title
HEADING_FILL: Colour = "EDEDED"  # pale grey: a heading within an announcement
# Fills that mark a header or a heading: the text they shade is what they head.
HEADINGS = frozenset({HEADER_FILL, TITLE_FILL, HEADING_FILL})
# Fills of one meaning in every book, and the words that say it: a tab showing one has a cell of
# that fill saying so, alone or followed by ": " and more (the row's label, or the tab's key).
MEANINGS: dict[Colour, str] = {INPUT_FILL: "type here", PROBLEM_FILL: "problem", NEXT_FILL: "to do",
                               LOCKED_FILL: "locked"}
KEY_GAP = 2  # characters: the blank column between a tab's columns and its key

MIN_WIDTH, MAX_WIDTH = 6, 60  # characters; a wider text wraps
# A column of numbers shows as many decimals as its most precise value needs, up to this many.
MAX_DECIMALS = 2
# The number formats the tool gives values that are not dates: whole numbers, then 1 to MAX_DECIMALS decimals.
NUMBER_FORMATS = ("#,##0", *(f"#,##0.{'0' * d}" for d in range(1, MAX_DECIMALS + 1)))
INPUT_ROWS = 30  # rows of a submit tab shaded and given dropdowns, beyond what it already holds
TINT = 0.6  # how far a game's colour is mixed with white for a cell background (text stays readable)
# Points: a line of the default font, the padding a row adds, and the height of a row of one line.
# LibreOffice and Excel do not resize rows when opening a file, so a wrapped cell's row is given its height.
LINE_POINTS, ROW_PADDING, DEFAULT_ROW_HEIGHT = 12.75, 2.25, 15.0
# Excel's tallest row (LibreOffice and Google allow more): a cell needing more, a pasted page, is
# read whole in the formula bar, and the rows below it stay in reach.
MAX_ROW_HEIGHT = 409.0


@dataclass(frozen=True)
class ColumnLayout:
    """One column. `width` in characters; `number_format` an Excel pattern (both backends take it);
    `choices` a dropdown on the body cells (a warning, never a refusal: the parser decides);
    `note` shown on the header cell; `clip`: machine text (a fingerprint, JSON) kept to one line a
    row rather than wrapped into tall rows (cut at the column's edge on Google; offline it runs on
    into the empty cells to its right, as spreadsheets show a long line)."""

    width: int
    number_format: str | None = None
    align: str = "left"  # "left" or "right"
    wrap: bool = False
    choices: tuple[str, ...] = ()
    note: str = ""
    clip: bool = False
    indent: bool = False  # left text one character in: the right-aligned numbers before it never touch it


@dataclass(frozen=True)
class TabLayout:
    """A tab: its columns, the header rows frozen (bold, shaded), `input_rows` body rows shaded for
    input (dropdowns go there too) over its first `input_columns` columns (all when None), and
    background `fills` by (row, column), 0-based with the header as row 0: by each cell's text, or
    `positional_fills` when they mark rows by where they are (a problem highlighted), so that a
    writer cannot keep a row's fill when the row moves. `key`: what the tab's key must say, each
    words and colour, placed by `keyed`."""

    columns: tuple[ColumnLayout, ...]
    frozen_rows: int = 1
    input_rows: int = 0
    fills: Mapping[tuple[int, int], Colour] = field(default_factory=dict)
    positional_fills: bool = False
    heights: Mapping[int, float] = field(default_factory=dict)
    input_columns: int | None = None
    key: tuple[tuple[str, Colour], ...] = ()

    def rows(self, data_rows: int) -> int:
        """How many body rows the layout covers: the data, or the input area when larger."""
        return max(data_rows, self.input_rows)


def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatchcase(cells.fold(name), cells.fold(p)) for p in patterns)


@dataclass(frozen=True)
class Palette:
    """A colour rule of a game: the colour of a cell whose text is one of `colours` (case and spaces
    ignored), in the columns it is meant for alone: those named in `columns` (`*` standing for
    any text: "* played" is each player's column) of the tabs named in `tabs` (any tab when
    empty). A text is the name of its colour ("fire"), unless `names` says what a symbol stands for
    ("E": "Treasure"): the tab's key then says it.

    >>> tiles = Palette({"E": "7FE5F0", "R": "E8DCC0", "A": "E8DCC0"}, ("?",), ("maps",), {"E": "Treasure", "R": "road", "A": "road"})
    >>> tiles.colour(" e "), tiles.fires("maps", "D"), tiles.fires("defence", "facing"), tiles.fires("maps", "kind")
    ('7FE5F0', True, False, False)
    >>> tiles.key_entries()
    {'7FE5F0': ('E: Treasure',), 'E8DCC0': ('R, A: road',)}
    """

    colours: Mapping[str, Colour]
    columns: tuple[str, ...]
    tabs: tuple[str, ...] = ()
    names: Mapping[str, str] = field(default_factory=dict)

    def fires(self, tab: str, column: str | None = None) -> bool:
        """Whether the rule colours `column` of `tab` (some column of it, when None)."""
        return (not self.tabs or _matches(tab, self.tabs)) and (column is None or _matches(column, self.columns))

    @cached_property
    def _folded(self) -> dict[str, Colour]:
        return {cells.fold(t): c for t, c in self.colours.items()}

    def colour(self, text: object) -> Colour | None:
        """The colour of a cell holding `text`, if the rule gives it one."""
        return self._folded.get(cells.fold(text)) if isinstance(text, str) else None

    def symbol(self, text: object) -> bool:
        """Whether `text` is a symbol the tab's key must name."""
        return isinstance(text, str) and cells.fold(text) in {cells.fold(s) for s in self.names}

    def key_entries(self) -> dict[Colour, tuple[str, ...]]:
        """What a tab's key says of each colour whose texts are symbols: the symbols, then their name."""
        named: dict[tuple[Colour, str], list[str]] = {}
        for symbol, name in self.names.items():
            named.setdefault((self.colours[symbol], name), []).append(symbol)
        out: dict[Colour, tuple[str, ...]] = {}
        for (colour, name), symbols in named.items():
            out[colour] = (*out.get(colour, ()), f"{', '.join(symbols)}: {name}")
        return out


def says(text: object, colour: Colour) -> bool:
    """Whether a cell's text says what a fill of one meaning (`MEANINGS`) means.

    >>> says("locked: round 2", LOCKED_FILL), says("Problem", PROBLEM_FILL), says("problems", PROBLEM_FILL)
    (True, True, False)
    """
    meaning = MEANINGS.get(colour)
    words = cells.text(text).strip().casefold() if isinstance(text, str) else ""
    return meaning is not None and (words == meaning or words.startswith(meaning + ":"))


def tint(rgb: Sequence[int], amount: float = TINT) -> Colour:
    """A colour mixed with white, as RRGGBB: a picture's colour made fit for a cell behind text.

    >>> tint((196, 62, 40)), tint((0, 0, 0), 0)
    ('E7B2A9', '000000')
    """
    return "".join(f"{round(c + (255 - c) * amount):02X}" for c in rgb)


def row_height(row: Iterable[tuple[object, float]]) -> float | None:
    """The height in points a row needs for its wrapped cells, given as (value, column width in
    characters): each line of a text takes ceil(length / (width - 1)) lines, up to the tallest row
    Excel holds; None when one line does (the default height).

    >>> row_height([("a" * 30, 10), ("x", 10)]), row_height([("one\\ntwo", 20)]), row_height([("short", 20)])
    (53.25, 27.75, None)
    >>> row_height([("a" * 40_000, 60)])
    409.0
    """
    # Text as written (`cells.text` would fold its line breaks); anything else as shown.
    lines = max((sum(max(1, math.ceil(len(line) / max(width - 1, 1)))
                     for line in (v if isinstance(v, str) else cells.text(v)).split("\n"))
                 for v, width in row if not cells.is_blank(v)), default=1)
    height = min(lines * LINE_POINTS + ROW_PADDING, MAX_ROW_HEIGHT)
    return height if height > DEFAULT_ROW_HEIGHT else None


def _width(texts: Iterable[str]) -> int:
    """A column's width for `texts` (as `cells.text` gives them: one line each)."""
    return min(MAX_WIDTH, max(MIN_WIDTH, max(map(len, texts), default=0) + 2))


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _decimals(value: float) -> int:
    """The decimals `value` needs to show as written, up to MAX_DECIMALS.

    >>> _decimals(16.1), _decimals(16.10), _decimals(3.0), _decimals(2 / 3)
    (1, 1, 0, 2)
    """
    return next((d for d in range(MAX_DECIMALS) if math.isclose(value, round(value, d), rel_tol=0, abs_tol=1e-9)),
                MAX_DECIMALS)


def _number_format(values: Sequence[object]) -> str | None:
    """One format for a column of numbers, with the decimals of its most precise value, so that
    16.1 shows as 16.10 beside 26.31; None when the column holds anything else.

    >>> _number_format([16.1, 26.31, 0]), _number_format([2, 3]), _number_format([1, "x"])
    ('#,##0.00', '#,##0', None)
    """
    filled = [v for v in values if not cells.is_blank(v)]
    if not filled or not all(_number(v) for v in filled):
        return None
    return NUMBER_FORMATS[max(0 if type(v) is int else _decimals(float(v)) for v in filled)]  # a whole number needs none


def shown(values: Sequence[object]) -> list[str]:
    """A column's values as a book shows them, in the column's one number format (blank as ""):
    for a table drawn outside a spreadsheet, as the standings posted with an announcement.

    >>> shown([16.1, 26.31, None]), shown([3, 1200]), shown([3, "x"])
    (['16.10', '26.31', ''], ['3', '1,200'], ['3', 'x'])
    """
    pattern = _number_format(values)
    decimals = NUMBER_FORMATS.index(pattern) if pattern else None
    return ["" if cells.is_blank(v) else f"{v:,.{decimals}f}" if decimals is not None else str(v) for v in values]


def lay_out(frame: pd.DataFrame, *, tab: str = "", choices: Mapping[str, Sequence[str]] = {},
            notes: Mapping[str, str] = {}, palettes: Sequence[Palette] = (), input_rows: int = 0,
            highlight: Mapping[int, Colour] = {}, fills: Mapping[tuple[int, int], Colour] = {},
            key: Sequence[tuple[str, Colour]] = (), clipped: Collection[str] = ()) -> TabLayout:
    """The layout of `frame` written as tab `tab`: widths fit the content (capped; longer text
    wraps, but for the `clipped` columns, one line a row), number columns right-aligned in one
    format; `choices` and `notes` by column name; a cell takes the colour its text has under a
    palette meant for its column (`Palette.fires`); `highlight` colours whole body rows (0-based
    body row -> colour), e.g. a problem, and `fills` single cells (row 0 the header). The key says
    `key`, then each fill of one meaning (`MEANINGS`) that no cell of its fill says, then each
    symbol's colour shown (`Palette.names`).

    >>> frame = pd.DataFrame([["E", "fire"], ["R", "E"]], columns=["D", "facing"])
    >>> tiles = Palette({"E": "7FE5F0", "R": "E8DCC0"}, ("?",), names={"E": "Treasure", "R": "road"})
    >>> tab = lay_out(frame, palettes=[tiles], input_rows=5)
    >>> tab.fills, tab.key
    ({(1, 0): '7FE5F0', (2, 0): 'E8DCC0'}, (('type here', 'FFF8DC'), ('E: Treasure', '7FE5F0'), ('R: road', 'E8DCC0')))
    """
    rows = [tuple(frame.columns), *frame_rows(frame)]  # once: a frame's rows cost
    columns_values = list(zip(*rows[1:])) if len(frame) else [()] * len(frame.columns)
    columns = []
    coloured: dict[tuple[int, int], Colour] = {}
    symbols: set[Colour] = set()  # the colours of symbols shown, which the key names
    for c, (name, values) in enumerate(zip(frame.columns, columns_values)):
        name = cells.text(name)
        options = tuple(dict.fromkeys(cells.text(o) for o in choices.get(name, ()) if not cells.is_blank(o)))
        texts = [cells.text(v) for v in values]
        width = _width([name, *texts, *options])
        number_format = _number_format(values)
        longest = max(map(len, texts), default=0)
        clip = name in clipped
        columns.append(ColumnLayout(width=width, number_format=number_format,
                                    align="right" if number_format else "left", wrap=longest > MAX_WIDTH - 2 and not clip,
                                    choices=options, note=notes.get(name, ""), clip=clip))
        rules = [p for p in palettes if p.fires(tab, name)]
        for r, v in enumerate(values, start=1):
            for rule in rules:
                if colour := rule.colour(v):
                    coloured[r, c] = colour
                    if rule.symbol(v):
                        symbols.add(colour)
                    break
    # Offline, a number flush right meets text flush left ("0 16.10" reads "016.10"; Google's
    # gridlines and padding part them): the text column steps in.
    columns = [replace(column, indent=True) if c and column.align == "left" and columns[c - 1].align == "right" else column
               for c, column in enumerate(columns)]
    for r, colour in highlight.items():
        for c in range(len(columns)):
            coloured.setdefault((r + 1, c), colour)
    coloured.update(fills)
    wrapped = [c for c, column in enumerate(columns) if column.wrap]
    heights = {}
    for r, row in enumerate(rows if wrapped else []):
        height = row_height((row[c], columns[c].width) for c in wrapped)
        if height:
            heights[r] = height
    return TabLayout(tuple(columns), frozen_rows=1, input_rows=input_rows, fills=coloured,
                     positional_fills=bool(highlight or fills), heights=heights,
                     key=_key(rows, coloured, input_rows, key,
                              [(entry, c) for p in palettes if p.fires(tab) for c, entries in p.key_entries().items()
                               if c in symbols for entry in entries]))


def _key(rows: Sequence[Sequence[object]], fills: Mapping[tuple[int, int], Colour], input_rows: int,
         given: Sequence[tuple[str, Colour]], symbols: Sequence[tuple[str, Colour]]) -> tuple[tuple[str, Colour], ...]:
    """What a tab's key says: `given` (a tab's own words for a fill), each fill of one meaning the
    tab shows that no cell of that fill (`rows`: the header, then the body) says, then the
    `symbols` a palette names."""
    shown = ([INPUT_FILL] if input_rows else []) + [c for c in fills.values() if c in MEANINGS]
    said = {c for (r, k), c in fills.items() if c in MEANINGS and r < len(rows) and k < len(rows[r]) and says(rows[r][k], c)}
    told = {colour for _, colour in given}
    return tuple(dict.fromkeys([*given, *((MEANINGS[c], c) for c in dict.fromkeys(shown) if c not in said | told),
                                *symbols]))


def keyed(frame: pd.DataFrame, layout: TabLayout) -> tuple[pd.DataFrame, TabLayout]:
    """`frame` and its `layout` with the tab's key (`layout.key`) in place: right of the columns,
    past a blank one, in the header row, each entry in its colour. Its columns take no input
    shading and, holding nothing below the header, are never read as a submission's.

    >>> frame, layout = keyed(pd.DataFrame([["stone"]], columns=["kind"]), TabLayout((ColumnLayout(7),), input_rows=3,
    ...                                                                           key=(("type here", INPUT_FILL),)))
    >>> frame.columns.tolist(), frame.values.tolist(), layout.fills, layout.input_columns
    (['kind', '', 'type here'], [['stone', None, None]], {(0, 2): 'FFF8DC'}, 1)
    >>> keyed(frame, layout)[0].columns.tolist()
    ['kind', '', 'type here']
    """
    if not layout.key:
        return frame, layout
    width, texts = len(frame.columns), [text for text, _ in layout.key]
    out = pd.DataFrame([[*row, None, *[None] * len(texts)] for row in frame_rows(frame)],
                       columns=[*frame.columns, "", *texts], index=frame.index, dtype=object)
    out.attrs = dict(frame.attrs)
    return out, replace(layout, columns=(*layout.columns, ColumnLayout(KEY_GAP), *(ColumnLayout(_width([cells.text(t)])) for t in texts)),
                        fills={**layout.fills, **{(0, width + 1 + i): colour for i, (_, colour) in enumerate(layout.key)}},
                        input_columns=width, key=())  # in place: keyed again, it is left as it is


def unkeyed(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame`, a tab as read, without the key of one meaning's words (`keyed`: a blank column,
    then a header saying "type here" or "locked: round 2"), for it to be written again.

    >>> unkeyed(pd.DataFrame([["stone", None, None]], columns=["kind", "(B)", "type here"])).columns.tolist()
    ['kind']
    """
    names = [cells.text(c) for c in frame.columns]
    end = len(names)
    while end and any(says(names[end - 1], colour) for colour in MEANINGS):
        end -= 1
    gap = end - 1
    if end == len(names) or gap < 0 or names[gap] not in ("", f"({cells.column_letter(gap)})"):
        return frame
    return frame.iloc[:, :gap]


def lay_out_tab(frame: pd.DataFrame, schema: TabSchema, *, players: Sequence[str] = (),
                choices: Mapping[str, Sequence[str]] = {}, palettes: Sequence[Palette] = (),
                input_rows: int = 0, highlight: Mapping[int, Colour] = {}, key: Sequence[tuple[str, Colour]] = (),
                clipped: Collection[str] = ()) -> TabLayout:
    """The layout of a tab that has a schema: each column's doc is its header note, and a column
    of known values (a choice, a player, yes/no) gets its dropdown and is as wide as they are
    (a tab that grows by appended rows is widened as they need, `Book.write`); `choices` narrows a
    column to what a reader may pick now (a player's own options); a JSON column is `clipped`.

    >>> from .table import Column, TabSchema
    >>> schema = TabSchema("submit", (Column("kind", "choice", ("stone", "ward"), doc="stone or ward"),
    ...                               Column("to", "player"), Column("light", "bool", optional=True)))
    >>> tab = lay_out_tab(pd.DataFrame(columns=schema.header), schema, players=["Ada", "Blaise"], input_rows=5)
    >>> [(c.choices, c.note) for c in tab.columns]
    [(('stone', 'ward'), 'stone or ward'), (('Ada', 'Blaise'), ''), (('yes', 'no'), '')]
    """
    known = {}
    for column in schema.columns:
        if column.kind == "choice":
            known[column.name] = column.choices
        elif column.kind == "player":
            known[column.name] = tuple(players)
        elif column.kind == "bool":
            known[column.name] = ("yes", "no")
    notes = {c.name: c.doc for c in schema.columns if c.doc}
    json = [c.name for c in schema.columns if c.kind == "json"]
    return lay_out(frame, tab=schema.name, choices={**known, **choices}, notes=notes, palettes=palettes,
                   input_rows=input_rows, highlight=highlight, key=key, clipped=[*json, *clipped])
