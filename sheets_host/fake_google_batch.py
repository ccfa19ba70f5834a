"""The fake's spreadsheets (`sheets_host.fake_google`): sheets and cells, ranges, field masks, grid
data as ``spreadsheets.get`` answers it, and the requests of ``spreadsheets:batchUpdate``, applied all
or nothing as Google does.

A cell is kept as the part of Google's ``CellData`` that a client sets: ``userEnteredValue``,
``userEnteredFormat``, ``note`` and ``dataValidation``; ``effectiveValue``, ``formattedValue`` and
``effectiveFormat`` are computed when read. It refuses what Google refuses and what we have not
made it do, so a gap fails a test: unknown body fields, properties, cell fields and formats, a
sheet title already taken (compared without case), an unknown sheetId, a range past the grid,
freezing every row of a sheet, an empty dropdown list.
"""

from __future__ import annotations

import ast
import copy
import math
import operator
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
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


@dataclass
class FakeFile:
    id: str
    name: str
    parents: list[str]
    sheets: list[FakeSheet]
    permissions: list[dict[str, Any]] = field(default_factory=list)

    def sheet(self, title: str) -> FakeSheet:
        return next(s for s in self.sheets if s.title == title)


_BODY_FIELDS = {"requests", "includeSpreadsheetInResponse", "responseIncludeGridData", "responseRanges"}
_SHEET_PROPERTIES = {"sheetId", "title", "index", "gridProperties", "hidden"}
_GRID_PROPERTIES = {"rowCount", "columnCount", "frozenRowCount"}
CELL_FIELDS = ("userEnteredValue", "userEnteredFormat", "note", "dataValidation")
_VALUE_KINDS = ("stringValue", "numberValue", "boolValue", "formulaValue")
_FORMAT_FIELDS = {"numberFormat", "backgroundColor", "horizontalAlignment", "verticalAlignment", "wrapStrategy", "textFormat"}
_NUMBER_TYPES = {"TEXT", "NUMBER", "PERCENT", "CURRENCY", "DATE", "TIME", "DATE_TIME", "SCIENTIFIC"}
_DATE_TYPES = {"DATE", "TIME", "DATE_TIME"}
_ENUMS = {"horizontalAlignment": {"LEFT", "CENTER", "RIGHT"}, "verticalAlignment": {"TOP", "MIDDLE", "BOTTOM"},
          "wrapStrategy": {"OVERFLOW_CELL", "LEGACY_WRAP", "CLIP", "WRAP"}}
_TEXT_FORMAT = {"bold", "italic", "strikethrough", "underline", "fontSize", "fontFamily", "foregroundColor"}
_RULE_FIELDS = {"condition", "inputMessage", "strict", "showCustomUi"}
DEFAULT_WIDTH, DEFAULT_HEIGHT = 100, 21  # pixels


def sheet_properties(sheet: FakeSheet, index: int) -> dict[str, Any]:
    grid: dict[str, Any] = {"rowCount": sheet.rows, "columnCount": sheet.cols}
    if sheet.frozen_rows:  # Google leaves 0 out
        grid["frozenRowCount"] = sheet.frozen_rows
    props: dict[str, Any] = {"sheetId": sheet.sheet_id, "title": sheet.title, "index": index, "sheetType": "GRID",
                             "gridProperties": grid}
    if sheet.hidden:  # Google leaves false out
        props["hidden"] = True
    return props


GridPart = tuple[FakeSheet, int, int, int, int]  # sheet, r0, c0, r1, c1 (0-based, half-open)


def spreadsheet_resource(file: FakeFile, *, grid: bool = False, ranges: list[GridPart] | None = None,
                         mask: Mask | None = None) -> dict[str, Any]:
    """The Spreadsheet resource as spreadsheets.get answers it: with `ranges`, only the sheets
    they touch; with `grid`, each sheet's cells (those of the ranges, else all) as GridData.
    `mask` (of the Spreadsheet) only spares computing what it leaves out; apply it afterwards."""
    cell_mask = submask(mask, ("sheets", "data", "rowData", "values"))
    metadata = wants(mask, ("sheets", "data", "rowMetadata")), wants(mask, ("sheets", "data", "columnMetadata"))
    sheets = []
    for index, s in enumerate(file.sheets):
        parts = [(r0, c0, r1, c1) for sheet, r0, c0, r1, c1 in (ranges or []) if sheet is s]
        if ranges is not None and not parts:
            continue
        entry: dict[str, Any] = {"properties": sheet_properties(s, index)}
        if s.protected:
            entry["protectedRanges"] = copy.deepcopy(s.protected)
        if grid:
            entry["data"] = [grid_data(s, *part, cell_mask, *metadata) for part in parts or [(0, 0, s.rows, s.cols)]]
        sheets.append(entry)
    return {
        "spreadsheetId": file.id,
        "properties": {"title": file.name, "locale": "en_US", "autoRecalc": "ON_CHANGE", "timeZone": "Etc/GMT"},
        "sheets": sheets,
        "spreadsheetUrl": f"https://docs.google.com/spreadsheets/d/{file.id}/edit",
    }


def grid_data(sheet: FakeSheet, r0: int, c0: int, r1: int, c1: int, cell_mask: Mask | None,
              row_metadata: bool = True, column_metadata: bool = True) -> dict[str, Any]:
    """GridData of a range: rows up to the last one holding anything, each up to its last cell
    holding anything, empty cells and rows as {} (as Google answers)."""
    r1, c1 = min(r1, sheet.rows), min(c1, sheet.cols)
    inside = sorted(k for k in sheet.cells if r0 <= k[0] < r1 and c0 <= k[1] < c1)
    computed = wants(cell_mask, ("effectiveValue",)) or wants(cell_mask, ("formattedValue",))
    formats = wants(cell_mask, ("effectiveFormat",))
    rows: list[dict[str, Any]] = []
    for r, c in inside:
        while len(rows) <= r - r0:
            rows.append({})
        values = rows[r - r0].setdefault("values", [])
        while len(values) < c - c0:
            values.append({})
        values.append(cell_data(sheet, sheet.cells[(r, c)], computed, formats))
    data: dict[str, Any] = {}
    if r0:
        data["startRow"] = r0
    if c0:
        data["startColumn"] = c0
    if rows:
        data["rowData"] = rows
    if row_metadata:
        data["rowMetadata"] = [{"pixelSize": DEFAULT_HEIGHT} for _ in range(r0, r1)]
    if column_metadata:
        data["columnMetadata"] = [{"pixelSize": sheet.widths.get(c, DEFAULT_WIDTH)} for c in range(c0, c1)]
    return data


def cell_data(sheet: FakeSheet, cell: dict[str, Any], computed: bool = True, formats: bool = True) -> dict[str, Any]:
    """A stored cell as CellData, with what Google computes: the effective and formatted values
    (`computed`) and the effective format (`formats`)."""
    out = dict(cell)  # stored cells are never changed in place (see apply_cell)
    entered = cell.get("userEnteredValue")
    if entered and computed:
        value = effective_value(sheet, cell)
        out["effectiveValue"] = value
        out["formattedValue"] = formatted_value(value, cell.get("userEnteredFormat", {}).get("numberFormat"))
    if formats and (entered or "userEnteredFormat" in cell):
        out["effectiveFormat"] = effective_format(cell.get("userEnteredFormat", {}))
    return out


_DEFAULT_FORMAT: dict[str, Any] = {
    "backgroundColor": {"red": 1, "green": 1, "blue": 1}, "verticalAlignment": "BOTTOM", "wrapStrategy": "OVERFLOW_CELL",
    "textFormat": {"foregroundColor": {}, "fontFamily": "arial", "fontSize": 10, "bold": False, "italic": False,
                   "strikethrough": False, "underline": False},
}


def effective_format(entered: dict[str, Any]) -> dict[str, Any]:
    """Google's defaults under what was entered (numberFormat only when one was set); read-only."""
    if not entered:
        return _DEFAULT_FORMAT
    base = dict(_DEFAULT_FORMAT)
    for key, value in entered.items():
        base[key] = {**base[key], **value} if isinstance(base.get(key), dict) and isinstance(value, dict) else value
    return base


# -- values -----------------------------------------------------------------------------------------

def set_cell(sheet: FakeSheet, row: int, col: int, value: dict[str, Any]) -> None:
    """Set a cell's userEnteredValue ({} clears it), keeping its format, note and validation."""
    check_value(value)
    cell = dict(sheet.cells.get((row, col), {}))
    if not value or value == {"stringValue": ""}:
        cell.pop("userEnteredValue", None)
    else:
        cell["userEnteredValue"] = dict(value)
    if cell:
        sheet.cells[(row, col)] = cell
    else:
        sheet.cells.pop((row, col), None)


def check_value(value: Any) -> None:
    if not isinstance(value, dict) or (value and (len(value) != 1 or next(iter(value)) not in _VALUE_KINDS)):
        raise GoogleError(400, f"fake: bad userEnteredValue {value}")


def raw(value: Any) -> dict[str, Any]:
    """A value entered as is (RAW input, or a CellData built from a Python value)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, (int, float)):
        return {"numberValue": value}
    return {"stringValue": str(value)}


def effective_value(sheet: FakeSheet, cell: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """The ExtendedValue a cell shows: a formula computed (plain arithmetic over numbers and
    same-sheet references, an errorValue for anything else)."""
    entered = cell["userEnteredValue"]
    if "formulaValue" not in entered:
        return entered  # read-only, like every stored value
    value = entered["formulaValue"]
    result = _evaluate(sheet, value, depth)
    if result is None:
        return {"errorValue": {"type": "ERROR", "message": f"fake: cannot compute {value}"}}
    return {"numberValue": result}


def formatted_value(value: dict[str, Any], number_format: dict[str, Any] | None) -> str:
    (kind, v), = value.items()
    if kind == "errorValue":
        return "#ERROR!"
    if kind == "boolValue":
        return "TRUE" if v else "FALSE"
    if kind == "stringValue":
        return v
    return format_number(v, number_format)


def format_number(number: float, number_format: dict[str, Any] | None) -> str:
    """A number as shown: dates and times as days since 1899-12-30, simple number patterns
    ('#,##0', '0.00', '#,##0.##', '0%'), else Google's automatic format."""
    kind = (number_format or {}).get("type")
    pattern = (number_format or {}).get("pattern", "")
    if kind in _DATE_TYPES:
        moment = datetime(1899, 12, 30) + timedelta(days=number)
        pattern = pattern or {"DATE": "yyyy-mm-dd", "TIME": "hh:mm:ss", "DATE_TIME": "yyyy-mm-dd hh:mm:ss"}[kind]
        return _date_text(moment, pattern)
    m = re.fullmatch(r"([#0,]*0|#,##0|#)(?:\.(0*)(#*))?(%?)", pattern) if kind in ("NUMBER", "PERCENT") else None
    if m:
        if m.group(4):
            number *= 100
        decimals_min, decimals_max = len(m.group(2) or ""), len(m.group(2) or "") + len(m.group(3) or "")
        text = f"{number:{',' if ',' in m.group(1) else ''}.{decimals_max}f}"
        if "." in text:
            whole, frac = text.split(".")
            frac = frac.rstrip("0").ljust(decimals_min, "0")
            text = whole + ("." + frac if frac or m.group(3) else "")
        return text + m.group(4)
    if float(number).is_integer() and abs(number) < 1e15:
        return str(int(number))
    return f"{number:.10g}"


def _date_text(moment: datetime, pattern: str) -> str:
    tokens = re.findall(r"yyyy|yy|mm|m|dd|d|hh|h|ss|s|[^ymdhs]+", pattern)
    out = []
    for i, token in enumerate(tokens):
        minutes = token in ("mm", "m") and (any(t in ("hh", "h") for t in tokens[:i][-2:])
                                            or any(t in ("ss", "s") for t in tokens[i + 1:i + 3]))
        out.append({"yyyy": f"{moment.year:04d}", "yy": f"{moment.year % 100:02d}",
                    "mm": f"{moment.minute:02d}" if minutes else f"{moment.month:02d}",
                    "m": str(moment.minute) if minutes else str(moment.month),
                    "dd": f"{moment.day:02d}", "d": str(moment.day), "hh": f"{moment.hour:02d}", "h": str(moment.hour),
                    "ss": f"{moment.second:02d}", "s": str(moment.second)}.get(token, token))
    return "".join(out)


_ARITHMETIC: dict[type, Callable[..., Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.USub: operator.neg, ast.UAdd: operator.pos,
}


def _evaluate(sheet: FakeSheet, formula: str, depth: int) -> float | None:
    def number(m: re.Match[str]) -> str:
        cell = sheet.cells.get(cell_index(m.group(0).replace("$", "")), {})
        if "userEnteredValue" not in cell:
            return "0"
        value = effective_value(sheet, cell, depth + 1)
        if "numberValue" not in value:
            raise ValueError(value)
        return repr(value["numberValue"])

    def compute(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            return _ARITHMETIC[type(node.op)](compute(node.left), compute(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _ARITHMETIC:
            return _ARITHMETIC[type(node.op)](compute(node.operand))
        raise ValueError(node)

    try:
        if depth > 50:  # a reference cycle
            raise ValueError(formula)
        result = compute(ast.parse(re.sub(r"\$?[A-Z]+\$?\d+", number, formula[1:]), mode="eval").body)
        return result if math.isfinite(result) else None
    except (ValueError, SyntaxError, ZeroDivisionError, OverflowError):
        return None


# -- cell data, formats, validation -----------------------------------------------------------------

def check_cell(data: Any) -> None:
    """Refuse CellData with fields or values the fake does not know (Google refuses most of them too)."""
    if not isinstance(data, dict):
        raise GoogleError(400, f"fake: a CellData must be an object, not {data!r}")
    if unknown := sorted(data.keys() - set(CELL_FIELDS)):
        raise GoogleError(400, f"fake: CellData field {unknown[0]!r} is not supported")
    if "userEnteredValue" in data:
        check_value(data["userEnteredValue"])
    if "userEnteredFormat" in data:
        check_format(data["userEnteredFormat"])
    if "note" in data and not isinstance(data["note"], str):
        raise GoogleError(400, f"fake: a note is a string, not {data['note']!r}")
    if "dataValidation" in data:
        check_rule(data["dataValidation"])


def check_format(fmt: Any) -> None:
    if not isinstance(fmt, dict) or (unknown := sorted(fmt.keys() - _FORMAT_FIELDS)):
        raise GoogleError(400, f"fake: CellFormat {fmt!r} is not supported{f' ({unknown})' if isinstance(fmt, dict) else ''}")
    for key, allowed in _ENUMS.items():
        if key in fmt and fmt[key] not in allowed:
            raise GoogleError(400, f"Invalid value at 'requests.cell.user_entered_format.{key}': {fmt[key]!r}")
    number = fmt.get("numberFormat")
    if number is not None and (not isinstance(number, dict) or number.keys() - {"type", "pattern"}
                               or number.get("type") not in _NUMBER_TYPES):
        raise GoogleError(400, f"fake: bad numberFormat {number!r}")
    if "backgroundColor" in fmt:
        check_colour(fmt["backgroundColor"])
    text = fmt.get("textFormat")
    if text is not None:
        if not isinstance(text, dict) or text.keys() - _TEXT_FORMAT:
            raise GoogleError(400, f"fake: textFormat {text!r} is not supported")
        if "foregroundColor" in text:
            check_colour(text["foregroundColor"])


def check_colour(colour: Any) -> None:
    if (not isinstance(colour, dict) or colour.keys() - {"red", "green", "blue", "alpha"}
            or not all(isinstance(v, (int, float)) and 0 <= v <= 1 for v in colour.values())):
        raise GoogleError(400, f"fake: bad colour {colour!r}")


def check_rule(rule: Any) -> None:
    if not isinstance(rule, dict) or rule.keys() - _RULE_FIELDS:
        raise GoogleError(400, f"fake: DataValidationRule {rule!r} is not supported")
    condition = rule.get("condition", {})
    if condition.get("type") != "ONE_OF_LIST" or condition.keys() - {"type", "values"}:
        raise GoogleError(400, f"fake: only ONE_OF_LIST validation is supported, not {condition!r}")
    values = condition.get("values", [])
    if not values:
        raise GoogleError(400, "Invalid ConditionValue: ONE_OF_LIST condition requires at least one value.")
    for v in values:
        if not isinstance(v, dict) or v.keys() != {"userEnteredValue"} or not isinstance(v["userEnteredValue"], str):
            raise GoogleError(400, f"fake: bad ConditionValue {v!r}")


def apply_cell(sheet: FakeSheet, row: int, col: int, data: dict[str, Any], mask: Mask) -> None:
    """Set the fields of `mask` (a CellData mask) from `data`; a field masked but absent is cleared.

    A stored cell is replaced, never changed in place, so a batch can copy a sheet's cells shallowly
    and cells may share the (read-only) values of one request."""
    cell = dict(sheet.cells.get((row, col), {}))
    for key, sub in mask.items():
        if sub is None or key != "userEnteredFormat":
            if key in data:
                cell[key] = data[key]
            else:
                cell.pop(key, None)
            continue
        fmt = dict(cell.get("userEnteredFormat", {}))
        given = data.get("userEnteredFormat", {})
        for part, deeper in sub.items():
            if deeper is not None and part == "textFormat":
                text = dict(fmt.get("textFormat", {}))
                for t in deeper:
                    if t in given.get("textFormat", {}):
                        text[t] = given["textFormat"][t]
                    else:
                        text.pop(t, None)
                if text:
                    fmt["textFormat"] = text
                else:
                    fmt.pop("textFormat", None)
            elif part in given:
                fmt[part] = given[part]
            else:
                fmt.pop(part, None)
        if fmt:
            cell["userEnteredFormat"] = fmt
        else:
            cell.pop("userEnteredFormat", None)
    if cell.get("userEnteredValue") == {"stringValue": ""}:
        cell.pop("userEnteredValue")
    if cell:
        sheet.cells[(row, col)] = cell
    else:
        sheet.cells.pop((row, col), None)


def snapshot(sheets: list[FakeSheet]) -> list[FakeSheet]:
    """Copies of `sheets` that a batch can change and throw away (cells are replaced, not changed)."""
    return [replace(s, cells=dict(s.cells), protected=[dict(p) for p in s.protected], widths=dict(s.widths))
            for s in sheets]


def cell_mask(fields: Any) -> Mask:
    """A CellData field mask ('userEnteredValue,userEnteredFormat.backgroundColor'); '*' is all."""
    if not isinstance(fields, str) or not fields.strip():
        raise GoogleError(400, "At least one field must be specified.")
    mask = parse_mask(fields)
    if "*" in mask:
        return {f: None for f in CELL_FIELDS}
    if unknown := sorted(mask.keys() - set(CELL_FIELDS)):
        raise GoogleError(400, f"fake: cell field {unknown[0]!r} is not supported")
    fmt = mask.get("userEnteredFormat")
    if fmt is not None and (fmt.keys() - _FORMAT_FIELDS):
        raise GoogleError(400, f"fake: format fields {sorted(fmt.keys() - _FORMAT_FIELDS)} are not supported")
    return mask


class BatchUpdates:
    """spreadsheets:batchUpdate, mixed into FakeGoogle."""

    _random: random.Random
    _file: Callable[[str], FakeFile]

    def _batch_update(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        file = self._file(sid)
        if unknown := sorted(body.keys() - _BODY_FIELDS):
            raise GoogleError(400, f'Invalid JSON payload received. Unknown name "{unknown[0]}": Cannot find field.')
        sheets = snapshot(file.sheets)  # all or nothing, like Google
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
        mask = parse_mask(query["fields"][0]) if "fields" in query else None
        ranges = None
        if body.get("responseRanges"):
            ranges = [parse_range(FakeFile(sid, file.name, [], sheets), a1) for a1 in body["responseRanges"]]
        file.sheets = sheets
        reply: dict[str, Any] = {"spreadsheetId": sid, "replies": replies}
        if body.get("includeSpreadsheetInResponse"):
            sub = submask(mask, ("updatedSpreadsheet",))
            # Google: responseIncludeGridData is ignored when a field mask is set; the mask decides.
            grid = wants(sub, ("sheets", "data")) if mask is not None else bool(body.get("responseIncludeGridData"))
            reply["updatedSpreadsheet"] = spreadsheet_resource(file, grid=grid, ranges=ranges, mask=sub)
        return masked(reply, mask)

    def _do_addSheet(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        props = args.get("properties", {})
        if unknown := sorted(props.keys() - _SHEET_PROPERTIES):
            raise GoogleError(400, f"fake: addSheet with properties {unknown} is not supported")
        grid = props.get("gridProperties", {})
        if not grid.keys() <= _GRID_PROPERTIES:
            raise GoogleError(400, f"fake: addSheet of gridProperties {grid} is not supported")
        title = props.get("title") or f"Sheet{len(sheets) + 1}"
        if any(s.title.lower() == title.lower() for s in sheets):
            raise GoogleError(400, f'A sheet with the name "{title}" already exists. Please enter another name.')
        sheet_id = props.get("sheetId", self._random.randrange(1, 2**31))
        if any(s.sheet_id == sheet_id for s in sheets):
            raise GoogleError(400, f"Sheet with ID {sheet_id} already exists.")
        sheet = FakeSheet(sheet_id, title, grid.get("rowCount", 1000), grid.get("columnCount", 26),
                          hidden=bool(props.get("hidden")), frozen_rows=grid.get("frozenRowCount", 0))
        _check_frozen(sheet)
        sheets.insert(props.get("index", len(sheets)), sheet)
        return {"addSheet": {"properties": sheet_properties(sheet, sheets.index(sheet))}}

    def _do_updateSheetProperties(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        props, mask = args.get("properties", {}), parse_mask(args.get("fields", ""))
        sheet = sheet_by_id(sheets, props.get("sheetId", 0))
        grid_mask = mask.pop("gridProperties", {})
        if grid_mask is None:  # the whole of gridProperties
            grid_mask = {k: None for k in _GRID_PROPERTIES}
        if (mask.keys() - {"hidden", "title"}) or not (grid_mask or mask) or not grid_mask.keys() <= _GRID_PROPERTIES:
            raise GoogleError(400, f"fake: updating {args.get('fields')!r} is not supported")
        grid = props.get("gridProperties", {})
        if "rowCount" in grid_mask:
            sheet.rows = grid.get("rowCount", 0)
        if "columnCount" in grid_mask:
            sheet.cols = grid.get("columnCount", 0)
        if "frozenRowCount" in grid_mask:
            sheet.frozen_rows = grid.get("frozenRowCount", 0)
        if "hidden" in mask:
            sheet.hidden = bool(props.get("hidden"))
        if "title" in mask:
            if any(s is not sheet and s.title.lower() == str(props.get("title")).lower() for s in sheets):
                raise GoogleError(400, f'A sheet with the name "{props.get("title")}" already exists. Please enter another name.')
            sheet.title = props.get("title")
        _check_frozen(sheet)
        sheet.cells = {(r, c): v for (r, c), v in sheet.cells.items() if r < sheet.rows and c < sheet.cols}
        sheet.widths = {c: w for c, w in sheet.widths.items() if c < sheet.cols}
        return {}

    def _do_updateCells(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        mask = cell_mask(args.get("fields"))
        if ("range" in args) == ("start" in args):
            raise GoogleError(400, "Exactly one of range or start must be set.")
        if "range" in args:
            sheet, r0, c0, r1, c1 = grid_range(sheets, args["range"])
        else:
            start = args["start"]
            sheet = sheet_by_id(sheets, start.get("sheetId", 0))
            r0, c0 = start.get("rowIndex", 0), start.get("columnIndex", 0)
            r1 = c1 = None
        rows = [row.get("values", []) for row in args.get("rows", [])]
        height, width = len(rows), max(map(len, rows), default=0)
        if r0 + height > sheet.rows or c0 + width > sheet.cols:
            wanted = f"{sheet_name(sheet.title)}!{cell_name(r0, c0)}:{cell_name(r0 + height - 1, c0 + width - 1)}"
            raise GoogleError(400, f"Range ({wanted}) exceeds grid limits. Max rows: {sheet.rows}, max columns: {sheet.cols}")
        if r1 is not None and (r0 + height > r1 or c0 + width > c1):
            raise GoogleError(400, "fake: rows go beyond the range")
        for row in rows:
            for cell in row:
                check_cell(cell)
        if r1 is not None:  # the masked fields of cells of the range that the rows do not cover are cleared
            for r, c in [k for k in sheet.cells if r0 <= k[0] < r1 and c0 <= k[1] < c1]:
                if r - r0 >= height or c - c0 >= len(rows[r - r0]):
                    apply_cell(sheet, r, c, {}, mask)
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                apply_cell(sheet, r0 + i, c0 + j, cell, mask)
        return {}

    def _do_repeatCell(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        mask = cell_mask(args.get("fields"))
        sheet, r0, c0, r1, c1 = grid_range(sheets, args.get("range", {}))
        cell = args.get("cell", {})
        check_cell(cell)
        for r in range(r0, r1):
            for c in range(c0, c1):
                apply_cell(sheet, r, c, cell, mask)
        return {}

    def _do_setDataValidation(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        sheet, r0, c0, r1, c1 = grid_range(sheets, args.get("range", {}))
        rule = args.get("rule")
        if rule is not None:
            check_rule(rule)
        for r in range(r0, r1):
            for c in range(c0, c1):
                apply_cell(sheet, r, c, {"dataValidation": rule} if rule else {}, {"dataValidation": None})
        return {}

    def _do_appendCells(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        """After the last row with data, inserting rows into the sheet as needed."""
        mask = cell_mask(args.get("fields"))
        sheet = sheet_by_id(sheets, args.get("sheetId", 0))
        rows = [row.get("values", []) for row in args.get("rows", [])]
        for row in rows:
            for cell in row:
                check_cell(cell)
        width = max(map(len, rows), default=0)
        if width > sheet.cols:
            raise GoogleError(400, f"Range ({sheet_name(sheet.title)}!A1:{cell_name(0, width - 1)}) exceeds grid limits. "
                                   f"Max rows: {sheet.rows}, max columns: {sheet.cols}")
        start = 1 + max((r for (r, _), cell in sheet.cells.items() if "userEnteredValue" in cell), default=-1)
        sheet.rows = max(sheet.rows, start + len(rows))
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                apply_cell(sheet, start + i, j, cell, mask)
        return {}

    def _do_updateDimensionProperties(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        span = args.get("range", {})
        sheet = sheet_by_id(sheets, span.get("sheetId", 0))
        if span.get("dimension") != "COLUMNS" or args.get("fields") != "pixelSize" or args.get("properties", {}).keys() != {"pixelSize"}:
            raise GoogleError(400, f"fake: only column widths (pixelSize) can be updated, not {args}")
        start, end = span.get("startIndex", 0), span.get("endIndex", sheet.cols)
        if not 0 <= start < end <= sheet.cols:
            raise GoogleError(400, f"Invalid dimension range {start}:{end} for a sheet of {sheet.cols} columns")
        size = args["properties"]["pixelSize"]
        if not isinstance(size, int) or size < 0:
            raise GoogleError(400, f"fake: bad pixelSize {size!r}")
        for c in range(start, end):
            sheet.widths[c] = size
        return {}

    def _do_insertDimension(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        """Rows moved down to make room; the new ones take the format of the row before or after."""
        sheet, start, end = _row_span(sheets, args.get("range", {}))
        before = bool(args.get("inheritFromBefore"))
        if start > sheet.rows or (before and start == 0):
            raise GoogleError(400, f"Invalid insertDimension: cannot insert rows {start}:{end} into a sheet of "
                                   f"{sheet.rows} rows{' inheriting from before the first' if before else ''}")
        count, source = end - start, start - 1 if before else start
        model = {c: cell.get("userEnteredFormat") for (r, c), cell in sheet.cells.items() if r == source}
        sheet.cells = {(r + count if r >= start else r, c): cell for (r, c), cell in sheet.cells.items()}
        for c, fmt in model.items():
            if fmt:
                for r in range(start, end):
                    sheet.cells[(r, c)] = {"userEnteredFormat": copy.deepcopy(fmt)}
        sheet.rows += count
        return {}

    def _do_deleteDimension(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        sheet, start, end = _row_span(sheets, args.get("range", {}))
        if end > sheet.rows:
            raise GoogleError(400, f"Invalid deleteDimension: rows {start}:{end} of a sheet of {sheet.rows} rows")
        if sheet.rows - (end - start) <= sheet.frozen_rows:
            raise GoogleError(400, "You can't delete all the rows on the sheet.")
        count = end - start
        sheet.cells = {(r - count if r >= end else r, c): cell for (r, c), cell in sheet.cells.items()
                       if not start <= r < end}
        sheet.rows -= count
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


def _row_span(sheets: list[FakeSheet], span: dict[str, Any]) -> tuple[FakeSheet, int, int]:
    """The sheet and rows of a DimensionRange; the fake moves rows only, never columns."""
    sheet = sheet_by_id(sheets, span.get("sheetId", 0))
    if span.get("dimension") != "ROWS":
        raise GoogleError(400, f"fake: only rows can be inserted or deleted, not {span}")
    start, end = span.get("startIndex", 0), span.get("endIndex", sheet.rows)
    if not 0 <= start < end:
        raise GoogleError(400, f"Invalid dimension range {start}:{end}")
    return sheet, start, end


def _check_frozen(sheet: FakeSheet) -> None:
    if sheet.frozen_rows < 0:
        raise GoogleError(400, "fake: frozenRowCount must not be negative")
    if sheet.frozen_rows and sheet.frozen_rows >= sheet.rows:
        raise GoogleError(400, "You can't freeze all visible rows on the sheet.")


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
