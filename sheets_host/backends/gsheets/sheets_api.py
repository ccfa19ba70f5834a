"""The Sheets API's side of a book: the fields a read asks for, the tabs and cells a read
answers, and the `batchUpdate` requests that write a tab whole, patch the rows that changed or
append rows, laid out by its `TabLayout` (see `gsheets` for how a book uses them)."""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from datetime import datetime, time, timedelta
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from sheets_host.backends import appended_layout
from sheets_host.kit.layout import HEADER_FILL, INPUT_FILL, ColumnLayout, TabLayout

LOCK = "sheets-host lock"
# A new tab gets at least Google's default grid, so players have room to type.
NEW_TAB_ROWS, NEW_TAB_COLUMNS = 1000, 26
# A column `width` characters wide, in pixels: about 7 a character in Sheets' default font, and padding.
PIXELS_PER_CHARACTER, PADDING_PIXELS = 7, 10
# A row's height: Google's default in pixels, and pixels a point (a layout's heights are in points).
DEFAULT_ROW_PIXELS, PIXELS_PER_POINT = 21, 4 / 3
DEFAULT_COLUMN_PIXELS = 100  # Google's, a column of a new tab
LIST_LIMIT = 500  # the most items a dropdown is given
PROPERTIES = ("properties(sheetId,title,gridProperties(rowCount,columnCount,frozenRowCount)),"
              "protectedRanges(protectedRangeId,description)")
# The developer metadata key of a write's mark (`mark`).
WRITE_MARK = "sheets-host write"
MARKS = "developerMetadata(metadataId,metadataKey)"
METADATA_FIELDS = f"{MARKS},sheets({PROPERTIES})"
# Number formats that make a number a date or a time: such a cell reads as its moment, as offline.
DATE_TYPES = frozenset({"DATE", "TIME", "DATE_TIME"})
EPOCH = datetime(1899, 12, 30)  # day 0 of a serial number (Sheets has no 1900 leap day)
# Every cell field a tab written whole is given (the rest of the sheet has them cleared).
WRITTEN_FIELDS = "userEnteredValue,userEnteredFormat,note,dataValidation"
FILL = "backgroundColorStyle"  # the CellFormat field of a background (`fill`)
COLUMN_FIELDS = ("userEnteredFormat.numberFormat,userEnteredFormat.horizontalAlignment,"
                 "userEnteredFormat.verticalAlignment,userEnteredFormat.wrapStrategy,dataValidation")


def grid_fields(formulas: bool) -> str:
    """The fields mask of a read: the metadata, and of each cell its value as typed (`formulas`) or
    as computed, the text shown (for errors) and whether its number format is a date."""
    value = "userEnteredValue" if formulas else "effectiveValue"
    return (f"{MARKS},sheets({PROPERTIES},data(startRow,startColumn,"
            f"rowData(values({value},formattedValue,effectiveFormat(numberFormat(type))))))")


@dataclass
class Tab:
    sheet_id: int
    rows: int  # grid size: 0 x 0 for a sheet without cells (a chart sheet)
    cols: int
    locks: list[int]  # ids of our protected ranges on it
    frozen: int = 0  # frozen rows


Cells = list[list[dict[str, Any]]]  # a tab's CellData by row, as a read answers them


# -- reading ---------------------------------------------------------------------------------------

def tabs_of(spreadsheet: Mapping[str, Any]) -> dict[str, Tab]:
    """Tabs by title from a Spreadsheet resource (the fields of `PROPERTIES`)."""
    tabs = {}
    for sheet in spreadsheet.get("sheets", []):
        props, grid = sheet["properties"], sheet["properties"].get("gridProperties", {})
        locks = [p["protectedRangeId"] for p in sheet.get("protectedRanges", []) if p.get("description") == LOCK]
        tabs[props["title"]] = Tab(props["sheetId"], grid.get("rowCount", 0), grid.get("columnCount", 0), locks,
                                    grid.get("frozenRowCount", 0))
    return tabs


def marks_of(spreadsheet: Mapping[str, Any]) -> list[int]:
    """The ids of the marks our writes left in a spreadsheet (`mark`): the last write's, and any a
    write running at the same time left."""
    return [m["metadataId"] for m in spreadsheet.get("developerMetadata", []) if m.get("metadataKey") == WRITE_MARK]


def grid_of(spreadsheet: Mapping[str, Any]) -> dict[str, Cells]:
    """Each tab's cells, by title, from a Spreadsheet resource with grid data (a sheet without
    cells, such as a chart sheet, is left out)."""
    out: dict[str, Cells] = {}
    for sheet in spreadsheet.get("sheets", []):
        props = sheet["properties"]
        if not props.get("gridProperties", {}).get("columnCount"):
            continue
        rows: Cells = []
        for block in sheet.get("data", []):
            r0, c0 = block.get("startRow", 0), block.get("startColumn", 0)
            for i, row in enumerate(block.get("rowData", [])):
                while len(rows) <= r0 + i:
                    rows.append([])
                cells, target = row.get("values", []), rows[r0 + i]
                if len(target) < c0 + len(cells):
                    target.extend([{}] * (c0 + len(cells) - len(target)))
                target[c0:c0 + len(cells)] = cells
        out[props["title"]] = rows
    return out


def cell_values(cells: Cells, formulas: bool) -> list[list[object]]:
    return [[cell_value(cell, formulas) for cell in row] for row in cells]


def cell_value(cell: Mapping[str, Any], formulas: bool) -> object:
    """A cell as the values API renders it: UNFORMATTED_VALUE, or FORMULA when `formulas`, an error
    as its text (#DIV/0!); a number whose format is a date or time as what the xlsx backend reads
    (`moment`), never the text shown, which follows the spreadsheet's locale."""
    value = cell.get("userEnteredValue" if formulas else "effectiveValue")
    if not value:
        return None
    if "formulaValue" in value:
        return value["formulaValue"]
    number_type = cell.get("effectiveFormat", {}).get("numberFormat", {}).get("type")
    if "errorValue" in value:
        return cell.get("formattedValue")
    if "numberValue" in value and number_type in DATE_TYPES:
        return moment(value["numberValue"], number_type)
    result = next(iter(value.values()))
    if isinstance(result, float) and result.is_integer() and abs(result) < 2**53:
        return int(result)  # as the values API's JSON: 5, not 5.0
    return result


def moment(serial: float, number_type: str) -> datetime | time | float:
    """A serial number (days since 1899-12-30, the time a fraction of a day) to the millisecond:
    a time of day for a TIME under one day, else a datetime, naive and meant as UTC; a number no
    datetime holds stays the number.

    >>> moment(46350.75, "DATE_TIME"), moment(0.5, "TIME")
    (datetime.datetime(2026, 11, 24, 18, 0), datetime.time(12, 0))
    """
    try:
        value = EPOCH + timedelta(milliseconds=round(serial * 86_400_000))
    except OverflowError:
        return serial
    return value.time() if number_type == "TIME" and 0 <= serial < 1 else value


# -- writing ---------------------------------------------------------------------------------------

def free_sheet_id(tabs: Iterable[Tab]) -> int:
    """The smallest unused positive sheetId: we choose it so later requests of the batch can use it."""
    used = {t.sheet_id for t in tabs}
    return next(i for i in range(1, len(used) + 2) if i not in used)


def cell_data(value: object) -> dict[str, Any]:
    """A CellData for a plain value (see `rows_from_frame`); {} clears the cell."""
    if value is None:
        return {}
    if isinstance(value, bool):
        return {"userEnteredValue": {"boolValue": value}}
    if isinstance(value, (int, float)) and math.isfinite(value):
        return {"userEnteredValue": {"numberValue": value}}
    return {"userEnteredValue": {"stringValue": str(value)}}


def row_data(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """A RowData, trailing empty cells left out (the range clears them anyway)."""
    while cells and not cells[-1]:
        cells.pop()
    return {"values": cells} if cells else {}


def mark(old: Iterable[int], new: int) -> list[dict[str, Any]]:
    """The requests that replace the marks `old` with the mark `new`, a developer metadata of the
    whole spreadsheet (no tab, invisible to people) whose id the write chose. Google refuses to
    create metadata with an id in use, so a write carrying them is applied at most once: a retry of
    a try Google applied is refused whole, whenever either arrives, and the mark then says that the
    write landed (`GoogleBook.write`)."""
    out: list[dict[str, Any]] = [{"deleteDeveloperMetadata": {"dataFilter": {"developerMetadataLookup": {"metadataId": i}}}}
                                 for i in old]
    out.append({"createDeveloperMetadata": {"developerMetadata": {
        "metadataId": new, "metadataKey": WRITE_MARK, "location": {"spreadsheet": True}, "visibility": "DOCUMENT"}}})
    return out


def replace_tab(tabs: dict[str, Tab], title: str, rows: list[list[object]], layout: TabLayout, *,
                hidden: bool) -> list[dict[str, Any]]:
    """The requests that make tab `title` hold `rows` (header first) laid out by `layout`, adding
    or growing it as needed; `tabs` is updated to match."""
    body = len(rows) - 1
    covered = layout.rows(body)  # body rows the columns' formats and dropdowns cover
    frozen, columns = layout.frozen_rows, layout.columns
    input_end = 1 + layout.input_rows  # sheet rows 1 .. input_end - 1 are shaded for input
    fills = _fills_by_row(layout)
    sent = max(len(rows), max(fills, default=-1) + 1)  # rows given cell by cell
    height = max(sent, 1 + covered, input_end, frozen + 1)  # a sheet must keep a row unfrozen
    width = max(1, len(columns), *map(len, rows))
    out: list[dict[str, Any]] = []
    tab = tabs.get(title)
    added = tab is None  # a new tab has Google's default sizes: only others are sent
    if tab is None:
        tab = tabs[title] = Tab(free_sheet_id(tabs.values()), max(height, NEW_TAB_ROWS), max(width, NEW_TAB_COLUMNS), [], frozen)
        grid = {"rowCount": tab.rows, "columnCount": tab.cols}
        if frozen:
            grid["frozenRowCount"] = frozen
        props: dict[str, Any] = {"sheetId": tab.sheet_id, "title": title, "gridProperties": grid}
        if hidden:
            props["hidden"] = True
        out.append({"addSheet": {"properties": props}})
    else:
        out += _fit_grid(tab, height, width, frozen)
    # Values, header formats, notes and backgrounds cell by cell; a whole-sheet range, so every
    # cell they do not cover is cleared of all four fields.
    data = [_row_data(rows[r] if r < len(rows) else [], r, layout, fills.get(r, {})) for r in range(sent)]
    out.append({"updateCells": {"range": {"sheetId": tab.sheet_id}, "rows": data, "fields": WRITTEN_FIELDS}})
    if sent < input_end and columns:  # input rows beyond those sent: shaded as a block
        out.append({"repeatCell": {
            "range": {"sheetId": tab.sheet_id, "startRowIndex": sent, "endRowIndex": input_end,
                      "startColumnIndex": 0, "endColumnIndex": _input_columns(layout)},
            "cell": {"userEnteredFormat": fill(INPUT_FILL)},
            "fields": f"userEnteredFormat.{FILL}",
        }})
    return (out + _column_formats(tab, columns, covered, added)
            + _sizes(tab, "ROWS", 0, _heights(layout, 0, tab.rows), DEFAULT_ROW_PIXELS if added else None))


def patch_tab(tab: Tab, before: Sequence[Sequence[object]], rows: list[list[object]],
              layout: TabLayout) -> list[dict[str, Any]] | None:
    """The requests that turn `tab`, holding `before` (as read, header first), into `rows` laid
    out by `layout`, sending the header and only the body rows between the longest beginning and
    the longest end the two share: a history that grows at the top or at the bottom, or a record
    that changed, costs what changed rather than all the tab holds. Rows are inserted or deleted
    so the shared end moves into place. [] when nothing changed; None when the tab must be
    written whole (another header, fills tied to row positions, input rows, other frozen rows)."""
    if (layout.positional_fills or layout.input_rows or layout.frozen_rows != 1 or tab.frozen != 1
            or not before or _shown(before[0]) != _shown(rows[0])):
        return None
    old, new = [_shown(r) for r in before[1:]], [_shown(r) for r in rows[1:]]
    if old == new:
        return []
    shared = min(len(old), len(new))
    head = next((i for i in range(shared) if old[i] != new[i]), shared)
    tail = next((i for i in range(shared - head) if old[-1 - i] != new[-1 - i]), shared - head)
    old_end, new_end = len(old) - tail, len(new) - tail  # body rows [head, end) differ
    width = max(1, len(layout.columns), *map(len, rows))
    out: list[dict[str, Any]] = []
    if tail:  # rows below the change keep their content: move them into place
        out += _fit_grid(tab, tab.rows, width, 1)
        span = {"sheetId": tab.sheet_id, "dimension": "ROWS"}
        if new_end > old_end:
            # Inherit from the row after, never the header before.
            out.append({"insertDimension": {"range": {**span, "startIndex": 1 + old_end, "endIndex": 1 + new_end},
                                            "inheritFromBefore": False}})
        elif new_end < old_end:
            out.append({"deleteDimension": {"range": {**span, "startIndex": 1 + new_end, "endIndex": 1 + old_end}}})
        tab.rows += new_end - old_end
        end = new_end
    else:  # the change runs to the end: rows the old tab had beyond the new end are cleared
        end = max(new_end, old_end)
        out += _fit_grid(tab, 1 + end, width, 1)
    fills = _fills_by_row(layout)
    out.append({"updateCells": {"range": {"sheetId": tab.sheet_id, "startRowIndex": 0, "endRowIndex": 1},
                                "rows": [_row_data(rows[0], 0, layout, fills.get(0, {}))], "fields": WRITTEN_FIELDS}})
    if end > head:
        data = [_row_data(rows[1 + i] if i < len(new) else [], 1 + i, layout, fills.get(1 + i, {})) for i in range(head, end)]
        out.append({"updateCells": {"range": {"sheetId": tab.sheet_id, "startRowIndex": 1 + head, "endRowIndex": 1 + end},
                                    "rows": data, "fields": WRITTEN_FIELDS}})
    # The header's height and the rows sent, in one run where they meet.
    heights = _heights(layout, 0, 1) + [None] * head + _heights(layout, 1 + head, 1 + end)
    return out + _column_formats(tab, layout.columns, len(new)) + _sizes(tab, "ROWS", 0, heights)


def _shown(row: Sequence[object]) -> list[str | None]:
    """A row as compared: each cell as text, "" as blank (it reads back so), blanks at its end
    dropped (a read leaves them out)."""
    cells = [None if v is None or v == "" else str(v) for v in row]
    while cells and cells[-1] is None:
        cells.pop()
    return cells


def put_first(tabs: dict[str, Tab], titles: Sequence[str]) -> list[dict[str, Any]]:
    """The requests that move the tabs `titles` to the front of the book, in that order, the others
    keeping theirs; `tabs` (by title, in the book's order) is reordered to match. Each moves to
    the left or stays, so its new index is where it goes (Google counts a move to the right from
    before the move).

    >>> tabs = {t: Tab(i, 1, 1, []) for i, t in enumerate(["status", "views", "bolts", "board"])}
    >>> [r["updateSheetProperties"]["properties"] for r in put_first(tabs, ["status", "board", "bolts"])], list(tabs)
    ([{'sheetId': 3, 'index': 1}, {'sheetId': 2, 'index': 2}], ['status', 'board', 'bolts', 'views'])
    """
    order, out = list(tabs), []
    for index, title in enumerate(dict.fromkeys(titles)):
        if order.index(title) != index:
            order.remove(title)
            order.insert(index, title)
            out.append({"updateSheetProperties": {"properties": {"sheetId": tabs[title].sheet_id, "index": index},
                                                  "fields": "index"}})
    moved = {title: tabs.pop(title) for title in order}
    tabs.update(moved)
    return out


def _input_columns(layout: TabLayout) -> int:
    """How many columns, from the first, a tab's input rows shade (a key beside them is not)."""
    return len(layout.columns) if layout.input_columns is None else layout.input_columns


def _fills_by_row(layout: TabLayout) -> dict[int, dict[int, str]]:
    fills: dict[int, dict[int, str]] = {}
    for (r, c), colour in layout.fills.items():
        fills.setdefault(r, {})[c] = colour
    return fills


def _fit_grid(tab: Tab, height: int, width: int, frozen: int) -> list[dict[str, Any]]:
    """The request growing `tab` to `height` rows and `width` columns and freezing `frozen` rows,
    if it is not so already; `tab` is updated to match."""
    grid = {}
    if height > tab.rows:
        grid["rowCount"] = tab.rows = height
    if width > tab.cols:
        grid["columnCount"] = tab.cols = width
    if frozen != tab.frozen:
        grid["frozenRowCount"] = tab.frozen = frozen
    if not grid:
        return []
    return [{"updateSheetProperties": {
        "properties": {"sheetId": tab.sheet_id, "gridProperties": grid},
        "fields": ",".join(f"gridProperties.{key}" for key in grid),
    }}]


def _row_data(values: Sequence[object], r: int, layout: TabLayout, row_fills: Mapping[int, str]) -> dict[str, Any]:
    """Sheet row `r` (0 the header) holding `values`: formats, background and header notes as
    `layout` says."""
    columns, frozen = layout.columns, layout.frozen_rows
    input_row = 1 <= r < 1 + layout.input_rows
    inputs = _input_columns(layout)
    styled = r < frozen or input_row
    cells = []
    for c in range(max(len(values), len(columns) if styled else 0, max(row_fills, default=-1) + 1)):
        cell = cell_data(values[c]) if c < len(values) else {}
        fmt: dict[str, Any] = {"textFormat": {"bold": True}} if r < frozen else {}
        colour = row_fills.get(c) or (HEADER_FILL if r < frozen else INPUT_FILL if input_row and c < inputs else None)
        if colour:
            fmt.update(fill(colour))
        if fmt:
            cell["userEnteredFormat"] = fmt
        if r == 0 and c < len(columns) and columns[c].note:
            cell["note"] = columns[c].note
        cells.append(cell)
    return row_data(cells)


def _column_formats(tab: Tab, columns: Sequence[ColumnLayout], body_rows: int, added: bool = False) -> list[dict[str, Any]]:
    """Each run of alike columns: number format, alignment, wrapping and dropdown over the first
    `body_rows` body rows, and the columns' widths (a few requests, however many rows); `added`:
    the tab is new, its columns Google's default width."""
    return ((_column_cells(tab, columns, 1, 1 + body_rows) if body_rows else [])
            + _widths(tab, columns, range(len(columns)), DEFAULT_COLUMN_PIXELS if added else None))


def _column_cells(tab: Tab, columns: Sequence[ColumnLayout], start: int, end: int) -> list[dict[str, Any]]:
    """Each run of alike columns' number format, alignment, wrapping and dropdown over sheet rows
    [start, end)."""
    return [{"repeatCell": {
        "range": {"sheetId": tab.sheet_id, "startRowIndex": start, "endRowIndex": end, "startColumnIndex": c0, "endColumnIndex": c1},
        "cell": column_cell(column),
        "fields": COLUMN_FIELDS,
    }} for c0, c1, column in runs(columns, lambda col: (col.number_format, col.align, col.wrap, col.clip, col.choices))]


def _widths(tab: Tab, columns: Sequence[ColumnLayout], which: Collection[int], fresh: int | None = None) -> list[dict[str, Any]]:
    """The requests giving the columns `which` their widths (`_sizes`)."""
    return _sizes(tab, "COLUMNS", 0, [column.width * PIXELS_PER_CHARACTER + PADDING_PIXELS if c in which else None
                                      for c, column in enumerate(columns)], fresh)


def _heights(layout: TabLayout, start: int, end: int) -> list[int]:
    """The heights in pixels of sheet rows [start, end): the layout's, the others the default (a
    row that held wrapped text before may not now)."""
    return [round(layout.heights[r] * PIXELS_PER_POINT) if r in layout.heights else DEFAULT_ROW_PIXELS
            for r in range(start, end)]


def _sizes(tab: Tab, dimension: str, start: int, pixels: Sequence[int | None], fresh: int | None = None) -> list[dict[str, Any]]:
    """The requests giving rows (or columns) start, start + 1... of `tab` the sizes `pixels`
    (None: left as they are): one a run of adjacent ones of one size, none for a run of `fresh`,
    the size all have now (a new tab's default), if known. Over a stretch of sizes given, the size
    most runs share, if two or more, goes first over all of it and the other runs over it: fewer
    requests, as Google applies them in order."""
    out: list[dict[str, Any]] = []

    def request(first: int, end: int, pixel_size: int) -> None:
        out.append({"updateDimensionProperties": {
            "range": {"sheetId": tab.sheet_id, "dimension": dimension, "startIndex": start + first, "endIndex": start + end},
            "properties": {"pixelSize": pixel_size}, "fields": "pixelSize"}})

    for first, end, given in runs(pixels, lambda pixel_size: pixel_size is None):
        if given is None:
            continue
        stretch = runs(pixels[first:end], lambda pixel_size: pixel_size)
        shared = Counter(pixel_size for _, _, pixel_size in stretch)
        # What each size saves as the one under the others: its runs, less its own request.
        saves = {pixel_size: n - (pixel_size != fresh) for pixel_size, n in shared.items()}
        under = max(saves, key=lambda pixel_size: (saves[pixel_size], pixel_size == fresh))
        if saves[under] <= 0:
            under = None
        elif under != fresh:
            request(first, end, under)
        for r0, r1, pixel_size in stretch:
            if pixel_size != under:
                request(first + r0, first + r1, pixel_size)
    return out


def append_rows(tab: Tab, rows: list[list[object]], whole: TabLayout | None = None, before: int = 0,
                held: TabLayout | None = None) -> list[dict[str, Any]]:
    """The requests that add `rows` after the last row with data of `tab` (Google inserts rows as
    needed; columns are added here). Given the layout of the `whole` tab and that of the `before`
    body rows it `held`, which the new rows follow, each of their cells takes its column's format
    and its fill as in a tab written whole, the rows their heights, and a column they need wider
    than `held` its width (Google's reads give no widths: one a host widened by hand may narrow)."""
    out: list[dict[str, Any]] = []
    width = max(1, *map(len, rows))
    if width > tab.cols:
        tab.cols = width
        out.append({"updateSheetProperties": {"properties": {"sheetId": tab.sheet_id, "gridProperties": {"columnCount": width}},
                                              "fields": "gridProperties.columnCount"}})
    if whole is None:
        out.append({"appendCells": {"sheetId": tab.sheet_id, "rows": [row_data([cell_data(v) for v in row]) for row in rows],
                                    "fields": "userEnteredValue"}})
        return out
    layout, start = appended_layout(whole, before), 1 + before
    wider = [c for c, column in enumerate(whole.columns) if held is None or c >= len(held.columns)
             or column.width > held.columns[c].width]
    # Each cell its fill; the columns' formats over the new rows in a few requests, as a tab written
    # whole has them, rather than in every cell (bytes a long game would send again each round).
    fills = _fills_by_row(layout)
    data = []
    for i, row in enumerate(rows):
        row_fills = fills.get(1 + i, {})
        cells = [cell_data(row[c]) if c < len(row) else {} for c in range(max(len(row), max(row_fills, default=-1) + 1))]
        for c, colour in row_fills.items():
            cells[c]["userEnteredFormat"] = fill(colour)
        data.append(row_data(cells))
    out.append({"appendCells": {"sheetId": tab.sheet_id, "rows": data,
                                "fields": f"userEnteredValue,userEnteredFormat.{FILL}"}})
    out += _column_cells(tab, layout.columns, start, start + len(rows))
    if layout.heights:
        placed = replace(layout, heights={start - 1 + r: h for r, h in layout.heights.items()})
        out += _sizes(tab, "ROWS", start, _heights(placed, start, start + len(rows)))
    return out + _widths(tab, layout.columns, wider)


_T = TypeVar("_T")


def runs(items: Sequence[_T], key: Callable[[_T], object]) -> list[tuple[int, int, _T]]:
    """(start, end, first item) of each run of adjacent items with the same key.

    >>> runs("aabca", str)
    [(0, 2, 'a'), (2, 3, 'b'), (3, 4, 'c'), (4, 5, 'a')]
    """
    out: list[tuple[int, int, _T]] = []
    for i, item in enumerate(items):
        if out and key(out[-1][2]) == key(item) and out[-1][1] == i:
            out[-1] = (out[-1][0], i + 1, out[-1][2])
        else:
            out.append((i, i + 1, item))
    return out


def column_cell(column: ColumnLayout) -> dict[str, Any]:
    # Top-aligned: a label beside wrapped text starts on its first line, not at the row's bottom.
    fmt: dict[str, Any] = {"horizontalAlignment": column.align.upper(), "verticalAlignment": "TOP",
                           "wrapStrategy": "WRAP" if column.wrap else "CLIP" if column.clip else "OVERFLOW_CELL"}
    if column.number_format:
        fmt["numberFormat"] = number_format(column.number_format)
    cell: dict[str, Any] = {"userEnteredFormat": fmt}
    rule = dropdown(column.choices)
    if rule:
        cell["dataValidation"] = rule
    return cell


def fill(rgb: str) -> dict[str, dict[str, dict[str, float]]]:
    """A cell's background 'D9E2F3', as the CellFormat field that holds it: its ColorStyle (the
    discovery document marks the plain `backgroundColor` deprecated).

    >>> fill("FF8000")
    {'backgroundColorStyle': {'rgbColor': {'red': 1.0, 'green': 0.502, 'blue': 0.0}}}
    """
    return {FILL: {"rgbColor": dict(_fractions(rgb))}}


@functools.lru_cache(maxsize=256)
def _fractions(rgb: str) -> tuple[tuple[str, float], ...]:
    return tuple((name, round(int(rgb[i:i + 2], 16) / 255, 4)) for name, i in (("red", 0), ("green", 2), ("blue", 4)))


def number_format(pattern: str) -> dict[str, str]:
    """An Excel number pattern as a Google NumberFormat (Sheets reads the same pattern syntax).

    >>> number_format("#,##0.##"), number_format("0%")["type"], number_format("yyyy-mm-dd hh:mm")["type"]
    ({'type': 'NUMBER', 'pattern': '#,##0.##'}, 'PERCENT', 'DATE_TIME')
    """
    bare = re.sub(r'"[^"]*"|\\.|\[[^\]]*\]', "", pattern).lower()
    if bare.strip() == "@":
        kind = "TEXT"
    elif "%" in bare:
        kind = "PERCENT"
    elif re.search(r"[yd]", bare):
        kind = "DATE_TIME" if re.search(r"[hs]", bare) else "DATE"
    elif re.search(r"[hs]", bare):
        kind = "TIME"
    elif "e+" in bare or "e-" in bare:
        kind = "SCIENTIFIC"
    else:
        kind = "NUMBER"
    return {"type": kind, "pattern": pattern}


def dropdown(choices: Sequence[str]) -> dict[str, Any] | None:
    """A dropdown that warns but never refuses (the parser decides what counts). A choice that
    Sheets would read as a formula (= or + first) is left out."""
    values = [c for c in dict.fromkeys(choices) if c and c[0] not in "=+"][:LIST_LIMIT]
    if not values:
        return None
    return {"condition": {"type": "ONE_OF_LIST", "values": [{"userEnteredValue": v} for v in values]},
            "strict": False, "showCustomUi": True}
