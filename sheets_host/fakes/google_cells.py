"""Cells of the fake's spreadsheets (`sheets_host.fakes.google`): values and formulas, formats,
notes and dropdowns, checked, applied through a field mask and computed when read, and the
Spreadsheet resource (grid data) as ``spreadsheets.get`` answers it.

A cell is kept as the part of Google's ``CellData`` that a client sets: ``userEnteredValue``,
``userEnteredFormat``, ``note`` and ``dataValidation``; ``effectiveValue``, ``formattedValue`` and
``effectiveFormat`` are computed when read. Cell fields and formats the fake does not know are
refused, as is an empty dropdown list, so a gap fails a test.
Colours: `sheets_host.fakes.google_colours`.
"""

from __future__ import annotations

import ast
import copy
import math
import operator
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sheets_host.kit.cells import units
from .google_colours import SPREADSHEET_THEME, as_read, check_colours, plain_colours, take
from .google_model import FakeFile, FakeSheet, GoogleError, GridPart, Mask, cell_index, parse_mask, submask, wants

CELL_FIELDS = ("userEnteredValue", "userEnteredFormat", "note", "dataValidation")
_VALUE_KINDS = ("stringValue", "numberValue", "boolValue", "formulaValue")
_FORMAT_FIELDS = {"numberFormat", "backgroundColor", "backgroundColorStyle", "horizontalAlignment", "verticalAlignment",
                  "wrapStrategy", "textFormat"}
_NUMBER_TYPES = {"TEXT", "NUMBER", "PERCENT", "CURRENCY", "DATE", "TIME", "DATE_TIME", "SCIENTIFIC"}
_DATE_TYPES = {"DATE", "TIME", "DATE_TIME"}
_ENUMS = {"horizontalAlignment": {"LEFT", "CENTER", "RIGHT"}, "verticalAlignment": {"TOP", "MIDDLE", "BOTTOM"},
          "wrapStrategy": {"OVERFLOW_CELL", "LEGACY_WRAP", "CLIP", "WRAP"}}
_TEXT_FORMAT = {"bold", "italic", "strikethrough", "underline", "fontSize", "fontFamily", "foregroundColor",
                "foregroundColorStyle"}
_RULE_FIELDS = {"condition", "inputMessage", "strict", "showCustomUi"}
DEFAULT_WIDTH, DEFAULT_HEIGHT = 100, 21  # pixels
CELL_LIMIT = 50_000  # characters (UTF-16 units) a Google cell holds


def sheet_properties(sheet: FakeSheet, index: int) -> dict[str, Any]:
    grid: dict[str, Any] = {"rowCount": sheet.rows, "columnCount": sheet.cols}
    if sheet.frozen_rows:  # Google leaves 0 out
        grid["frozenRowCount"] = sheet.frozen_rows
    props: dict[str, Any] = {"sheetId": sheet.sheet_id, "title": sheet.title, "index": index, "sheetType": "GRID",
                             "gridProperties": grid}
    if sheet.hidden:  # Google leaves false out
        props["hidden"] = True
    return props


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
    resource = {
        "spreadsheetId": file.id,
        "properties": {"title": file.name, "locale": file.locale, "autoRecalc": "ON_CHANGE", "timeZone": "Etc/GMT",
                       "spreadsheetTheme": SPREADSHEET_THEME},
        "sheets": sheets,
        "spreadsheetUrl": f"https://docs.google.com/spreadsheets/d/{file.id}/edit",
    }
    if file.developer_metadata:  # whatever the ranges: it is the spreadsheet's
        resource["developerMetadata"] = copy.deepcopy(file.developer_metadata)
    return resource


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
        data["rowMetadata"] = [{"pixelSize": sheet.heights.get(r, DEFAULT_HEIGHT)} for r in range(r0, r1)]
    if column_metadata:
        data["columnMetadata"] = [{"pixelSize": sheet.widths.get(c, DEFAULT_WIDTH)} for c in range(c0, c1)]
    return data


def cell_data(sheet: FakeSheet, cell: dict[str, Any], computed: bool = True, formats: bool = True) -> dict[str, Any]:
    """A stored cell as CellData, with what Google computes: the effective and formatted values
    (`computed`) and the effective format (`formats`)."""
    out = dict(cell)  # stored cells are never changed in place (see apply_cell)
    if "userEnteredFormat" in cell:
        out["userEnteredFormat"] = as_read(cell["userEnteredFormat"])
    entered = cell.get("userEnteredValue")
    if entered and computed:
        value = effective_value(sheet, cell)
        out["effectiveValue"] = value
        out["formattedValue"] = formatted_value(value, cell.get("userEnteredFormat", {}).get("numberFormat"))
    if formats and (entered or "userEnteredFormat" in cell):
        out["effectiveFormat"] = effective_format(cell.get("userEnteredFormat", {}))
    return out


# Google's format of a cell nobody formatted, as a read answers it.
_DEFAULT_FORMAT: dict[str, Any] = as_read({
    "backgroundColorStyle": {"rgbColor": {"red": 1, "green": 1, "blue": 1}}, "verticalAlignment": "BOTTOM",
    "wrapStrategy": "OVERFLOW_CELL",
    "textFormat": {"foregroundColorStyle": {"rgbColor": {}}, "fontFamily": "arial", "fontSize": 10, "bold": False,
                   "italic": False, "strikethrough": False, "underline": False},
})


def effective_format(entered: dict[str, Any]) -> dict[str, Any]:
    """Google's defaults under what was entered (numberFormat only when one was set), the text
    format field by field; read-only."""
    if not entered:
        return _DEFAULT_FORMAT
    shown = as_read(entered)
    base = {**_DEFAULT_FORMAT, **shown}
    if "textFormat" in shown:
        base["textFormat"] = {**_DEFAULT_FORMAT["textFormat"], **shown["textFormat"]}
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
    text = value.get("stringValue", value.get("formulaValue"))
    if isinstance(text, str) and units(text) > CELL_LIMIT:  # as Google refuses a write or a person's typing
        raise GoogleError(400, f"Your input contains more than the maximum of {CELL_LIMIT} characters in a single cell.")


def raw(value: Any) -> dict[str, Any]:
    """A value entered as is (RAW input, or a CellData built from a Python value)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, (int, float)):
        return {"numberValue": value}
    return {"stringValue": str(value)}


# Each locale the fake knows: the order of a date's day, month and year as typed there, their
# separator, and the patterns Google then gives the cell (so it shows as that locale writes dates).
LOCALES = {
    "en_US": ("mdy", "/", "M/d/yyyy", "H:mm:ss"),
    "en_GB": ("dmy", "/", "dd/MM/yyyy", "HH:mm:ss"),
    "de_DE": ("dmy", ".", "dd.MM.yyyy", "HH:mm:ss"),
}
_EPOCH = datetime(1899, 12, 30)  # day 0 of Google's serial numbers
_TIME = r"(\d{1,2}):(\d{2})(?::(\d{2}))?"


def typed(value: Any, locale: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """What Sheets makes of a value a person types (USER_ENTERED input) in a spreadsheet of
    `locale`: its userEnteredValue, and the numberFormat a date or time gets (else None). A date is
    read in the locale's order (en_US 11/24/2026, en_GB 24/11/2026, de_DE 24.11.2026) or year first
    (2026-11-24), with or without a time; one that is no date there (a month 24) stays text."""
    if isinstance(value, datetime):
        return _dated(value, value.time() != datetime.min.time(), locale)
    if not isinstance(value, str):
        return raw(value), None
    if value.startswith("'"):
        return {"stringValue": value[1:]}, None
    if value.startswith("="):
        return {"formulaValue": value}, None
    text = value.strip()
    if text.upper() in ("TRUE", "FALSE"):
        return {"boolValue": text.upper() == "TRUE"}, None
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
        return {"numberValue": float(text)}, None
    order, sep, _, time_pattern = LOCALES[locale]
    local = rf"(\d{{1,2}}){re.escape(sep)}(\d{{1,2}}){re.escape(sep)}(\d{{4}})"
    for pattern, parts in ((r"(\d{4})-(\d{1,2})-(\d{1,2})", "ymd"), (local, order)):
        m = re.fullmatch(rf"{pattern}(?:\s+{_TIME})?", text)
        if m:
            date = dict(zip(parts, map(int, m.groups()[:3])))
            clock = [int(g or 0) for g in m.groups()[3:]]
            try:
                return _dated(datetime(date["y"], date["m"], date["d"], *clock), m.group(4) is not None, locale)
            except ValueError:  # no such date, or no such time of day
                break
    m = re.fullmatch(_TIME, text)
    if m and int(m.group(1)) < 24 and int(m.group(2)) < 60 and int(m.group(3) or 0) < 60:
        seconds = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3) or 0)
        return {"numberValue": seconds / 86400}, {"type": "TIME", "pattern": time_pattern}
    return {"stringValue": value}, None


def _dated(moment: datetime, timed: bool, locale: str) -> tuple[dict[str, Any], dict[str, Any]]:
    _, _, date_pattern, time_pattern = LOCALES[locale]
    days = (moment.replace(tzinfo=None) - _EPOCH) / timedelta(days=1)
    if timed:
        return {"numberValue": days}, {"type": "DATE_TIME", "pattern": f"{date_pattern} {time_pattern}"}
    return {"numberValue": days}, {"type": "DATE", "pattern": date_pattern}


def type_cell(sheet: FakeSheet, row: int, col: int, value: Any, locale: str) -> None:
    """A person typing `value` into a cell (`typed`): a date or time also sets its number format."""
    entered, number_format = typed(value, locale)
    set_cell(sheet, row, col, entered)
    if number_format:
        cell = sheet.cells[(row, col)]  # a new dict (set_cell); what it holds may be shared
        cell["userEnteredFormat"] = {**cell.get("userEnteredFormat", {}), "numberFormat": number_format}


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
        moment = _EPOCH + timedelta(days=number)
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
    # Google's tokens in either case (its own patterns read M/d/yyyy H:mm:ss); m is a minute beside an hour or a second.
    tokens = [t.lower() for t in re.findall(r"yyyy|yy|mm|m|dd|d|hh|h|ss|s|[^ymdhs]+", pattern, re.IGNORECASE)]
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
    text = fmt.get("textFormat")
    if text is not None and (not isinstance(text, dict) or text.keys() - _TEXT_FORMAT):
        raise GoogleError(400, f"fake: textFormat {text!r} is not supported")
    check_colours(fmt)


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
        if key == "userEnteredFormat":
            fmt = _format(cell.get(key, {}), data.get(key, {}), sub)
            if fmt:
                cell[key] = fmt
            else:
                cell.pop(key, None)
        elif key in data:
            cell[key] = data[key]
        else:
            cell.pop(key, None)
    if cell.get("userEnteredValue") == {"stringValue": ""}:
        cell.pop("userEnteredValue")
    if cell:
        sheet.cells[(row, col)] = cell
    else:
        sheet.cells.pop((row, col), None)


def _format(old: dict[str, Any], given: dict[str, Any], mask: Mask | None) -> dict[str, Any]:
    """A cell's format `old` with the fields of `mask` (a CellFormat mask; None: all of it) set
    from `given`, its colours kept as styles."""
    if mask is None:
        if not plain_colours(given):
            return given  # as sent, most often: read-only, shared by the cells of one request
        old, mask = {}, dict.fromkeys(given)
    fmt = dict(old)
    for part, deeper in mask.items():
        if part != "textFormat":
            take(fmt, given, part)
            continue
        sent = given.get("textFormat", {})
        text = {} if deeper is None else dict(fmt.get("textFormat", {}))
        for key in sent if deeper is None else deeper:
            take(text, sent, key)
        if text:
            fmt["textFormat"] = text
        else:
            fmt.pop("textFormat", None)
    return fmt


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
