"""The fake's spreadsheets (tests/fake_google.py): sheets and cells, ranges, field masks, and the
requests of ``spreadsheets:batchUpdate``, applied all or nothing as Google does.

It refuses what Google refuses and what we have not made it do, so a gap fails a test: unknown
body fields and properties, grid data in a reply, a sheet title already taken (compared without
case), an unknown sheetId, a range past the grid.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class GoogleError(Exception):
    """An error answer: HTTP status, message, and Drive's machine-readable reason if any."""

    def __init__(self, status: int, message: str, reason: str | None = None):
        super().__init__(message)
        self.status, self.message, self.reason = status, message, reason



@dataclass
class FakeSheet:
    sheet_id: int
    title: str
    rows: int = 1000
    cols: int = 26
    cells: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)  # (row, col) 0-based -> userEnteredValue
    protected: list[dict[str, Any]] = field(default_factory=list)
    hidden: bool = False


@dataclass
class FakeFile:
    id: str
    name: str
    parents: list[str]
    sheets: list[FakeSheet]
    permissions: list[dict[str, Any]] = field(default_factory=list)

    def sheet(self, title: str) -> FakeSheet:
        return next(s for s in self.sheets if s.title == title)




_BODY_FIELDS = {"requests", "includeSpreadsheetInResponse", "responseIncludeGridData"}
_SHEET_PROPERTIES = {"sheetId", "title", "index", "gridProperties", "hidden"}


def sheet_properties(sheet: FakeSheet, index: int) -> dict[str, Any]:
    props: dict[str, Any] = {"sheetId": sheet.sheet_id, "title": sheet.title, "index": index, "sheetType": "GRID",
                             "gridProperties": {"rowCount": sheet.rows, "columnCount": sheet.cols}}
    if sheet.hidden:  # Google leaves false out
        props["hidden"] = True
    return props


def spreadsheet_resource(file: FakeFile) -> dict[str, Any]:
    """The Spreadsheet resource without grid data, as spreadsheets.get answers it."""
    sheets = []
    for index, s in enumerate(file.sheets):
        entry: dict[str, Any] = {"properties": sheet_properties(s, index)}
        if s.protected:
            entry["protectedRanges"] = copy.deepcopy(s.protected)
        sheets.append(entry)
    return {
        "spreadsheetId": file.id,
        "properties": {"title": file.name, "locale": "en_US", "autoRecalc": "ON_CHANGE", "timeZone": "Etc/GMT"},
        "sheets": sheets,
        "spreadsheetUrl": f"https://docs.google.com/spreadsheets/d/{file.id}/edit",
    }


class BatchUpdates:
    """spreadsheets:batchUpdate, mixed into FakeGoogle."""

    _random: random.Random
    _file: Callable[[str], FakeFile]

    def _batch_update(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        file = self._file(sid)
        if unknown := sorted(body.keys() - _BODY_FIELDS):
            raise GoogleError(400, f'Invalid JSON payload received. Unknown name "{unknown[0]}": Cannot find field.')
        if body.get("responseIncludeGridData") and "fields" not in query:
            raise GoogleError(400, "fake: responseIncludeGridData=true is not supported")
        sheets = copy.deepcopy(file.sheets)  # all or nothing, like Google
        replies = []
        for i, request in enumerate(body.get("requests", [])):
            if len(request) != 1:
                raise GoogleError(400, f"Invalid requests[{i}]: exactly one kind of request expected")
            (kind, args), = request.items()
            handler = getattr(self, f"_do_{kind}", None)
            if handler is None:
                raise GoogleError(400, f"fake: requests[{i}].{kind} is not supported")
            try:
                replies.append(handler(sheets, args))
            except GoogleError as e:
                raise GoogleError(e.status, f"Invalid requests[{i}].{kind}: {e.message}") from None
        file.sheets = sheets
        reply: dict[str, Any] = {"spreadsheetId": sid, "replies": replies}
        if body.get("includeSpreadsheetInResponse"):
            reply["updatedSpreadsheet"] = spreadsheet_resource(file)
        return masked(reply, parse_mask(query["fields"][0])) if "fields" in query else reply

    def _do_addSheet(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        props = args.get("properties", {})
        if unknown := sorted(props.keys() - _SHEET_PROPERTIES):
            raise GoogleError(400, f"fake: addSheet with properties {unknown} is not supported")
        if not props.get("gridProperties", {}).keys() <= {"rowCount", "columnCount"}:
            raise GoogleError(400, f"fake: addSheet of gridProperties {props['gridProperties']} is not supported")
        title = props.get("title") or f"Sheet{len(sheets) + 1}"
        if any(s.title.lower() == title.lower() for s in sheets):
            raise GoogleError(400, f'A sheet with the name "{title}" already exists. Please enter another name.')
        sheet_id = props.get("sheetId", self._random.randrange(1, 2**31))
        if any(s.sheet_id == sheet_id for s in sheets):
            raise GoogleError(400, f"Sheet with ID {sheet_id} already exists.")
        grid = props.get("gridProperties", {})
        sheet = FakeSheet(sheet_id, title, grid.get("rowCount", 1000), grid.get("columnCount", 26), hidden=bool(props.get("hidden")))
        sheets.insert(props.get("index", len(sheets)), sheet)
        return {"addSheet": {"properties": sheet_properties(sheet, sheets.index(sheet))}}

    def _do_updateSheetProperties(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        props, mask = args.get("properties", {}), parse_mask(args.get("fields", ""))
        sheet = sheet_by_id(sheets, props.get("sheetId", 0))
        grid_mask = mask.pop("gridProperties", {})
        if grid_mask is None:  # the whole of gridProperties
            grid_mask = {"rowCount": None, "columnCount": None}
        if mask or not grid_mask or not grid_mask.keys() <= {"rowCount", "columnCount"}:
            raise GoogleError(400, f"fake: only grid sizes can be updated, not {args.get('fields')!r}")
        grid = props.get("gridProperties", {})
        sheet.rows = grid.get("rowCount", sheet.rows) if "rowCount" in grid_mask else sheet.rows
        sheet.cols = grid.get("columnCount", sheet.cols) if "columnCount" in grid_mask else sheet.cols
        sheet.cells = {(r, c): v for (r, c), v in sheet.cells.items() if r < sheet.rows and c < sheet.cols}
        return {}

    def _do_updateCells(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        if args.get("fields") != "userEnteredValue":
            raise GoogleError(400, f"fake: only fields='userEnteredValue' is supported, not {args.get('fields')!r}")
        if "range" not in args:
            raise GoogleError(400, "fake: only updateCells with a range is supported")
        grid = args["range"]
        sheet = sheet_by_id(sheets, grid.get("sheetId", 0))
        r0, c0 = grid.get("startRowIndex", 0), grid.get("startColumnIndex", 0)
        r1, c1 = grid.get("endRowIndex", sheet.rows), grid.get("endColumnIndex", sheet.cols)
        rows = [row.get("values", []) for row in args.get("rows", [])]
        height, width = len(rows), max(map(len, rows), default=0)
        if r0 + height > sheet.rows or c0 + width > sheet.cols:
            wanted = f"{sheet_name(sheet.title)}!{cell_name(r0, c0)}:{cell_name(r0 + height - 1, c0 + width - 1)}"
            raise GoogleError(400, f"Range ({wanted}) exceeds grid limits. Max rows: {sheet.rows}, max columns: {sheet.cols}")
        if r0 + height > r1 or c0 + width > c1:
            raise GoogleError(400, "fake: rows go beyond the range")
        # Cells of the range that the rows do not cover are cleared.
        sheet.cells = {(r, c): v for (r, c), v in sheet.cells.items() if not (r0 <= r < r1 and c0 <= c < c1)}
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                set_cell(sheet, r0 + i, c0 + j, cell.get("userEnteredValue", {}))
        return {}

    def _do_addProtectedRange(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        protected = copy.deepcopy(args["protectedRange"])
        sheet = sheet_by_id(sheets, protected.get("range", {}).get("sheetId", 0))
        protected["protectedRangeId"] = self._random.randrange(1, 2**31)
        protected["requestingUserCanEdit"] = True
        sheet.protected.append(protected)
        return {"addProtectedRange": {"protectedRange": protected}}

    def _do_deleteProtectedRange(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        wanted = args.get("protectedRangeId")
        for sheet in sheets:
            kept = [p for p in sheet.protected if p["protectedRangeId"] != wanted]
            if len(kept) < len(sheet.protected):
                sheet.protected = kept
                return {}
        raise GoogleError(400, f"No protected range with id: {wanted}")

    def _do_deleteSheet(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        sheet = sheet_by_id(sheets, args.get("sheetId", 0))
        if len(sheets) == 1:
            raise GoogleError(400, "You can't remove all the sheets in a document.")
        sheets.remove(sheet)
        return {}



# -- cells and ranges ------------------------------------------------------------------------------

def set_cell(sheet: FakeSheet, row: int, col: int, value: dict[str, Any]) -> None:
    if not value or value == {"stringValue": ""}:
        sheet.cells.pop((row, col), None)
        return
    if len(value) != 1 or next(iter(value)) not in ("stringValue", "numberValue", "boolValue", "formulaValue"):
        raise GoogleError(400, f"fake: bad userEnteredValue {value}")
    sheet.cells[(row, col)] = dict(value)


def raw(value: Any) -> dict[str, Any]:
    """A value entered as is (RAW input, or a CellData built from a Python value)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, (int, float)):
        return {"numberValue": value}
    return {"stringValue": str(value)}


def cell_index(a1: str) -> tuple[int, int]:
    """'B3' -> (2, 1), 0-based (row, column)."""
    m = re.fullmatch(r"([A-Z]+)(\d+)", a1)
    if not m:
        raise GoogleError(400, f"Unable to parse range: {a1}")
    return int(m.group(2)) - 1, column_index(m.group(1))


def column_index(letters: str) -> int:
    index = 0
    for ch in letters:
        index = index * 26 + ord(ch) - 64
    return index - 1


def cell_name(row: int, col: int) -> str:
    letters, n = "", col + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    return f"{letters}{row + 1}"


def sheet_name(title: str) -> str:
    """A sheet name as Google writes it in a range: quoted only when needed."""
    return title if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", title) and not re.fullmatch(r"[A-Za-z]{1,3}\d+", title) else "'" + title.replace("'", "''") + "'"


def parse_range(file: FakeFile, a1: str) -> tuple[FakeSheet, int, int, int, int]:
    """'It''s'!B2:C9 -> (sheet, r0, c0, r1, c1), 0-based and half-open; a bare name is the whole grid."""
    m = re.fullmatch(r"'((?:[^']|'')+)'(?:!(.*))?", a1) if a1.startswith("'") else re.fullmatch(r"([^!]+)(?:!(.*))?", a1)
    name = m.group(1).replace("''", "'") if m and a1.startswith("'") else (m.group(1) if m else "")
    sheet = next((s for s in file.sheets if s.title == name), None)
    if sheet is None or m is None:
        raise GoogleError(400, f"Unable to parse range: {a1}")
    cells = m.group(2)
    if not cells:
        return sheet, 0, 0, sheet.rows, sheet.cols
    part = re.fullmatch(r"([A-Z]*)(\d*)(?::([A-Z]*)(\d*))?", cells)
    if part is None:
        raise GoogleError(400, f"Unable to parse range: {a1}")
    c0 = column_index(part.group(1)) if part.group(1) else 0
    r0 = int(part.group(2)) - 1 if part.group(2) else 0
    if ":" not in cells:
        return sheet, r0, c0, r0 + 1, c0 + 1
    c1 = column_index(part.group(3)) + 1 if part.group(3) else sheet.cols
    r1 = int(part.group(4)) if part.group(4) else sheet.rows
    return sheet, r0, c0, r1, c1


def sheet_by_id(sheets: list[FakeSheet], sheet_id: int) -> FakeSheet:
    sheet = next((s for s in sheets if s.sheet_id == sheet_id), None)
    if sheet is None:
        raise GoogleError(400, f"No grid with id: {sheet_id}")
    return sheet


# -- field masks -----------------------------------------------------------------------------------

Mask = dict[str, "Mask | None"]  # None: the whole value


def parse_mask(text: str) -> Mask:
    """'a,b.c,d(e,f(g))' -> {'a': None, 'b': {'c': None}, 'd': {'e': None, 'f': {'g': None}}}."""
    tokens = re.findall(r"[A-Za-z0-9_*]+|[.,()]", text)
    pos = 0

    def items() -> Mask:
        nonlocal pos
        tree: Mask = {}
        while pos < len(tokens) and tokens[pos] != ")":
            path = [tokens[pos]]
            pos += 1
            while pos < len(tokens) and tokens[pos] == ".":
                path.append(tokens[pos + 1])
                pos += 2
            sub = None
            if pos < len(tokens) and tokens[pos] == "(":
                pos += 1
                sub = items()
                pos += 1  # the ")"
            node: Mask | None = tree
            for key in path[:-1]:
                if node is None:
                    break
                node = node.setdefault(key, {})
            if node is not None:
                old = node.get(path[-1], {})
                node[path[-1]] = None if sub is None or old is None else {**old, **sub}
            if pos < len(tokens) and tokens[pos] == ",":
                pos += 1
        return tree

    return items()


def masked(value: Any, mask: Mask | None) -> Any:
    if mask is None or "*" in mask:
        return value
    if isinstance(value, list):
        return [masked(v, mask) for v in value]
    if isinstance(value, dict):
        return {k: masked(value[k], m) for k, m in mask.items() if k in value}
    return value


