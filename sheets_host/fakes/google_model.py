"""The fake's spreadsheets as data (`sheets_host.fakes.google`): files and sheets, the error answer,
A1 ranges and GridRanges checked against the grid, and field masks (``fields``).

Cells are kept and computed in `sheets_host.fakes.google_cells`; ``spreadsheets:batchUpdate`` is in
`sheets_host.fakes.google_batch`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
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
    # (row, col) 0-based -> CellData: userEnteredValue, userEnteredFormat, note, dataValidation
    cells: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    protected: list[dict[str, Any]] = field(default_factory=list)
    hidden: bool = False
    frozen_rows: int = 0
    widths: dict[int, int] = field(default_factory=dict)  # column -> pixelSize, where set
    heights: dict[int, int] = field(default_factory=dict)  # row -> pixelSize, where set


@dataclass
class FakeFile:
    id: str
    name: str
    parents: list[str]
    sheets: list[FakeSheet]
    permissions: list[dict[str, Any]] = field(default_factory=list)
    developer_metadata: list[dict[str, Any]] = field(default_factory=list)  # of the whole spreadsheet
    app_properties: dict[str, str] = field(default_factory=dict)  # Drive's appProperties
    trashed: bool = False
    modified: str = ""  # Drive's modifiedTime (RFC 3339, to the millisecond): every change to the file sets it
    locale: str = "en_US"  # how what a person types is read as a date, and how dates are shown

    def sheet(self, title: str) -> FakeSheet:
        return next(s for s in self.sheets if s.title == title)


GridPart = tuple[FakeSheet, int, int, int, int]  # sheet, r0, c0, r1, c1 (0-based, half-open)


def snapshot(sheets: list[FakeSheet]) -> list[FakeSheet]:
    """Copies of `sheets` that a batch can change and throw away (cells are replaced, not changed)."""
    return [replace(s, cells=dict(s.cells), protected=[dict(p) for p in s.protected], widths=dict(s.widths), heights=dict(s.heights))
            for s in sheets]


# -- cells and ranges ------------------------------------------------------------------------------

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


def parse_range(file: FakeFile, a1: str) -> GridPart:
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


def grid_range(sheets: list[FakeSheet], grid: dict[str, Any]) -> GridPart:
    """A GridRange (unbounded sides reach the grid's edge) checked against the grid."""
    sheet = sheet_by_id(sheets, grid.get("sheetId", 0))
    r0, c0 = grid.get("startRowIndex", 0), grid.get("startColumnIndex", 0)
    r1, c1 = grid.get("endRowIndex", sheet.rows), grid.get("endColumnIndex", sheet.cols)
    if not (0 <= r0 <= r1 and 0 <= c0 <= c1):
        raise GoogleError(400, f"fake: bad range {grid}")
    if r1 > sheet.rows or c1 > sheet.cols:
        raise GoogleError(400, f"Range ({sheet_name(sheet.title)}!{cell_name(r0, c0)}:{cell_name(r1 - 1, c1 - 1)}) exceeds "
                               f"grid limits. Max rows: {sheet.rows}, max columns: {sheet.cols}")
    return sheet, r0, c0, r1, c1


def sheet_by_id(sheets: list[FakeSheet], sheet_id: int) -> FakeSheet:
    sheet = next((s for s in sheets if s.sheet_id == sheet_id), None)
    if sheet is None:
        raise GoogleError(400, f"No grid with id: {sheet_id}")
    return sheet


# -- field masks -----------------------------------------------------------------------------------

Mask = dict[str, "Mask | None"]  # None: the whole value


def parse_mask(text: str) -> Mask:
    """'a,b.c,d(e,f(g)),h/i' -> {'a': None, 'b': {'c': None}, 'd': {'e': None, 'f': {'g': None}}, 'h': {'i': None}}."""
    tokens = re.findall(r"[A-Za-z0-9_*]+|[./,()]", text)
    pos = 0

    def items() -> Mask:
        nonlocal pos
        tree: Mask = {}
        while pos < len(tokens) and tokens[pos] != ")":
            path = [tokens[pos]]
            pos += 1
            while pos < len(tokens) and tokens[pos] in "./":
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
                child = node.setdefault(key, {})
                node = child
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
    if isinstance(value, dict):  # a whole field (mask None) is kept as is: no call per cell
        return {k: value[k] if m is None else masked(value[k], m) for k, m in mask.items() if k in value}
    return value


def submask(mask: Mask | None, path: Iterable[str]) -> Mask | None:
    """The part of `mask` under `path` (None: everything there)."""
    node = mask
    for key in path:
        if node is None or "*" in node:
            return None
        node = node.get(key, {})
    return node


def wants(mask: Mask | None, path: Iterable[str]) -> bool:
    """Whether `mask` selects anything at `path`."""
    node = mask
    for key in path:
        if node is None or "*" in node:
            return True
        if key not in node:
            return False
        node = node[key]
    return True
