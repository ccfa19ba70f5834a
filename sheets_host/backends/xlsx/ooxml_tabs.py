"""A tab already in an .xlsx file: its values read back (calamine, or openpyxl for formulas, long
numbers and whatever calamine fails on), rows appended, its protection and selection changed as
text, and the hidden tab of long dropdown lists (see `backends.xlsx_edit`)."""

from __future__ import annotations

import io
import re
import sys
import warnings
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from decimal import Decimal

import python_calamine

from sheets_host.kit.cells import column_letter, is_blank, whole_characters
from sheets_host.kit.errors import BookError
from sheets_host.kit.layout import MAX_WIDTH, MIN_WIDTH, ColumnLayout, TabLayout, row_height
from .ooxml import (_ESCAPED, _attrs, _col_index, _excel_width, _Package, _set_attr, _Sheet, _split_ref, _Unsupported,
                    _Workbook)
from .ooxml_render import _cell_xml
from .ooxml_styles import _Styles

# Dropdown options that cannot go inline (too long, or holding a comma or a quote), one column a list.
LISTS_TAB = "sheets-host lists"
_FORMULA = re.compile(rb"<(?:\w+:)?f[\s>/]")
# A formula cell that a spreadsheet program computed from one constant and holds the value of:
# LibreOffice saves a yes/no cell as <c t="b"><f>TRUE()</f><v>1</v></c>. The rule: the formula is
# TRUE or FALSE (with or without "()"), a number or a "string", and the cell holds a value that is
# not an error. Such a cell reads as that value in every tab; any other formula reads as typed.
_CELL_XML = re.compile(rb"<c\b[^>]*?(?:/>|>.*?</c>)", re.DOTALL)
_F_XML = re.compile(rb"<((?:\w+:)?f)\b[^>]*?(?:/>|>(.*?)</\1>)", re.DOTALL)
_CONSTANT = re.compile(rb'\s*(?:(?:TRUE|FALSE)(?:\(\s*\))?|[-+]?(?:\d+\.?\d*|\.\d+)(?:E[-+]?\d+)?|"(?:[^"]|"")*")\s*',
                       re.IGNORECASE)
_VALUE_XML = re.compile(rb"<(?:\w+:)?v>")
_ERROR_XML = re.compile(rb"""<c\b[^>]*?\st\s*=\s*["']e["']""")
_LONG_NUMBER = re.compile(rb"<(?:\w+:)?v>\s*-?\d{16}")
_LISTS_REF = re.compile(rb"(?:'|&apos;)" + re.escape(LISTS_TAB.encode()) + rb"(?:'|&apos;)!\$([A-Z]{1,3})\$")


@contextmanager
def _any_digits() -> Iterator[None]:
    """Lift Python's 4,300-digit limit on int(str) while openpyxl parses a file: a cell holding a
    longer number would otherwise make the whole book unreadable. (The limit is process-wide;
    commands are single-threaded.)"""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def _long_int(value: object) -> bool:
    """An int with more than 15 digits, which Excel cannot show exactly: kept as its digits."""
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15


def _cell(value: object) -> object:
    return str(Decimal(value)) if _long_int(value) else value


def _unescape(value: object) -> object:
    """A string as Excel means it: `_x000D_` is a carriage return (openpyxl leaves these as typed);
    a code for half of a character stays as written (`cells.whole_characters`), so no tab, a host's
    included, reads a character no book can store again."""
    if isinstance(value, str) and "_x" in value:
        return whole_characters(_ESCAPED.sub(lambda m: chr(int(m[1], 16)), value))
    return value


def _from_calamine(value: object) -> object:
    """A calamine value as openpyxl gives it: whole numbers as int, dates as datetime, '' as None."""
    kind = type(value)
    if kind is str:
        return value or None
    if kind is float:
        return int(value) if value.is_integer() and -1e15 < value < 1e15 else value
    if kind is date:
        return datetime(value.year, value.month, value.day)
    return value


def _selected(text: str, on: bool) -> str | None:
    """The sheet with its tab (de)selected; None when it already is (or has no view to say so)."""
    m = re.search(r"<sheetView\b[^>]*>", text)
    if not m or (_attrs(m[0]).get("tabSelected") in ("1", "true")) == on:
        return None
    return text[:m.start()] + _set_attr(m[0], "tabSelected", "1" if on else None) + text[m.end():]


def _protection(text: str) -> str | None:
    m = re.search(r"<sheetProtection\b[^>]*?(?:/>|>\s*</sheetProtection>)", text)
    return m[0] if m else None


def _protected(text: str, on: bool) -> str | None:
    """The sheet (un)protected; None when it already is."""
    m = re.search(r"<sheetProtection\b[^>]*>", text)
    if m:
        if (_attrs(m[0]).get("sheet") in ("1", "true")) == on:
            return None
        return text[:m.start()] + _set_attr(m[0], "sheet", "1" if on else "0") + text[m.end():]
    if not on:
        return None
    m = re.search(r"(?:</sheetData>|<sheetData\b[^>]*/>)(?:\s*<sheetCalcPr\b[^>]*/>)?", text)
    if not m:
        raise _Unsupported("sheet without sheetData")
    return text[:m.end()] + '<sheetProtection sheet="1" objects="1" scenarios="1"/>' + text[m.end():]


DEFAULT_COLUMN_WIDTH = 8.43  # characters: a column without a <col> width
_ROW_START = re.compile(r"<row\b[^>]*?/?>")
_CELL = re.compile(r"<c\b[^>]*?(?:/>|>.*?</c>)", re.DOTALL)


def _tail_rows(inner: str, first: int) -> tuple[int, list[tuple[int, str]]]:
    """Where in sheetData's content the rows numbered `first` or more begin, and those rows and
    the one before them (number, XML); read from the end, as rows are in order."""
    rows: list[tuple[int, str]] = []
    end = split = len(inner)
    while True:
        at = inner.rfind("<row", 0, end)
        while at >= 0 and inner[at + 4:at + 5] not in (" ", ">", "/", "\n", "\t", "\r"):
            at = inner.rfind("<row", 0, at)
        if at < 0:
            return split, rows[::-1]
        tag = _ROW_START.match(inner, at)
        number = _attrs(tag[0]).get("r", "") if tag else ""
        if not number.isdigit():
            raise _Unsupported("row without a number")
        rows.append((int(number), inner[at:end]))
        end = at
        if int(number) < first:
            return split, rows[::-1]
        split = at


def _cells(row_xml: str) -> dict[int, tuple[str, int]]:
    """column -> (the cell's XML, its format number)."""
    out = {}
    for m in _CELL.finditer(row_xml):
        a = _attrs(m[0][:m[0].index(">") + 1])
        if "r" not in a:
            raise _Unsupported("cell without a reference")
        s = a.get("s", "0")
        out[_split_ref(a["r"])[1]] = (m[0], int(s) if s.isdigit() else 0)
    return out


def _column_widths(text: str) -> dict[int, float]:
    """A sheet's column widths from its <col> elements (0-based column -> characters)."""
    out = {}
    for tag in re.findall(r"<col\b[^>]*>", text):
        a = _attrs(tag)
        try:
            out.update(dict.fromkeys(range(int(a["min"]) - 1, min(int(a["max"]), 16384)), float(a["width"])))
        except (KeyError, ValueError):
            continue  # a <col> without a width keeps the default
    return out


def _append_xml(text: str, after: int, rows: Sequence[Sequence[object]], styles: _Styles,
                layout: TabLayout | None = None) -> str:
    """The sheet with `rows` written from row `after + 1` on. Given their `layout`
    (`appended_layout`: row 1 the first row added), they look as in a tab written whole (fills,
    number formats, wrapping, heights) and a column it makes wider is widened; otherwise a new
    cell looks like the cell above it (not a header in row 1), or keeps its look (a shaded input
    row), with a number format the tool chose for its value (`_Styles.like`), never a date a
    person typed above."""
    data = re.search(r"<sheetData\b[^>]*?(?:/>|>(.*?)</sheetData>)", text, re.DOTALL)
    if not data:
        raise _Unsupported("sheet without sheetData")
    inner = data[1] or ""
    first, end = after + 1, after + len(rows)
    split, tail = _tail_rows(inner, first)
    above = {c: s for c, (_, s) in _cells(next((x for r, x in tail if r == after), "")).items()} if after > 1 else {}
    existing = {r: x for r, x in tail if first <= r <= end}
    widths = _column_widths(text)
    fills: dict[int, dict[int, str]] = {}
    for (fr, fc), colour in (layout.fills.items() if layout is not None else ()):
        fills.setdefault(fr, {})[fc] = colour
    new_rows = []
    known: dict[tuple[int, str | None], tuple[int, dict]] = {}  # each (column, fill)'s format
    for i, values in enumerate(rows):
        r = first + i
        old_xml = existing.get(r, "")
        old = _cells(old_xml) if old_xml else {}
        row_cells = {c: x for c, (x, _) in old.items()}
        if layout is None:
            wrapped = []
            for c, value in enumerate(values):
                look = old[c][1] if c in old else above.get(c, 0)
                row_cells[c] = _cell_xml(f"{column_letter(c)}{r}", value, styles.like(look),
                                         lambda fmt, look=look: styles.like(look, fmt))
                if styles.wraps(look):
                    wrapped.append((value, widths.get(c, DEFAULT_COLUMN_WIDTH)))
            height = row_height(wrapped)
        else:
            row_cells.update(_laid_out_cells(r, values, layout, fills.get(1 + i, {}), styles, known))
            height = layout.heights.get(1 + i)
        start = (_set_attr(re.match(r"<row\b[^>]*?(?=/?>)", old_xml)[0] + ">", "spans", None) if old_xml
                 else f'<row r="{r}">')
        start = _set_attr(_set_attr(start, "ht", f"{height:g}" if height else None), "customHeight", "1" if height else None)
        new_rows.append(start + "".join(row_cells[c] for c in sorted(row_cells)) + "</row>")
    keep_after = "".join(x for r, x in tail if r > end)
    sheet_data = re.match(r"<sheetData\b[^>]*?(?=/?>)", data[0])[0] + ">"
    text = (text[:data.start()] + sheet_data + inner[:split] + "".join(new_rows) + keep_after + "</sheetData>"
            + text[data.end():])
    width = max((len(v) for v in rows), default=1)
    dim = re.search(r"<dimension\b[^>]*>", text)
    if dim:
        ref = _attrs(dim[0]).get("ref", "A1").split(":")
        try:
            low, high = _split_ref(ref[0]), _split_ref(ref[-1])
        except _Unsupported:
            low, high = (1, 0), (1, 0)
        high = (max(high[0], end), max(high[1], width - 1))
        new = f"{column_letter(low[1])}{low[0]}:{column_letter(high[1])}{high[0]}"
        text = text[:dim.start()] + _set_attr(dim[0], "ref", new) + text[dim.end():]
    if layout is not None:
        text = _widened(text, {c: _excel_width(column.width) for c, column in enumerate(layout.columns)})
    return text


def _laid_out_cells(r: int, values: Sequence[object], layout: TabLayout, row_fills: dict[int, str],
                    styles: _Styles, known: dict[tuple[int, str | None], tuple[int, dict]]) -> dict[int, str]:
    """Row `r`'s cells (0-based column -> XML) as `_render` writes a body row: each its column's
    format and its fill, a blank cell only where it shows one; `known` keeps each (column, fill)'s
    format from one row to the next."""
    cols = layout.columns
    out = {}
    for c in range(max(len(values), len(cols), max(row_fills, default=-1) + 1)):
        value = values[c] if c < len(values) else None
        if (c, row_fills.get(c)) not in known:
            col = cols[c] if c < len(cols) else None
            look = {"fill": row_fills.get(c), "align": col.align if col else None, "wrap": bool(col and col.wrap),
                    "indent": bool(col and col.indent)}
            known[c, row_fills.get(c)] = styles.xf(number_format=col.number_format if col else None, **look), look
        s, look = known[c, row_fills.get(c)]
        if value is not None or s:
            out[c] = _cell_xml(f"{column_letter(c)}{r}", value, s, lambda fmt, look=look: styles.xf(number_format=fmt, **look))
    return out


def _widened(text: str, wanted: dict[int, float]) -> str:
    """The sheet with each column of `wanted` (0-based -> Excel width) at least that wide: a <col>
    narrower is widened (split from the range of columns it shares), none is narrowed."""
    have = _column_widths(text)
    wider = {c: w for c, w in wanted.items() if w > have.get(c, _excel_width(DEFAULT_COLUMN_WIDTH))}
    if not wider:
        return text
    cols = re.search(r"<cols\b[^>]*?(?:/>|>(.*?)</cols>)", text, re.DOTALL)
    placed: list[tuple[int, str]] = []

    def col(tag: str, low: int, high: int, width: float | None = None) -> tuple[int, str]:
        tag = _set_attr(_set_attr(tag, "min", str(low)), "max", str(high))
        return low, tag if width is None else _set_attr(_set_attr(tag, "width", f"{width}"), "customWidth", "1")

    for tag in re.findall(r"<col\b[^>]*?/>", (cols[1] or "") if cols else ""):
        a = _attrs(tag)
        try:
            low, high = int(a["min"]), int(a["max"])
        except (KeyError, ValueError):
            placed.append((0, tag))
            continue
        for c in sorted(c for c in wider if low <= c + 1 <= high):
            if low <= c:
                placed.append(col(tag, low, c))
            placed.append(col(tag, c + 1, c + 1, wider.pop(c)))
            low = c + 2
        if low <= high:
            placed.append(col(tag, low, high) if low != int(a["min"]) else (low, tag))
    placed += [col("<col/>", c + 1, c + 1, w) for c, w in wider.items()]
    element = "<cols>" + "".join(tag for _, tag in sorted(placed, key=lambda p: p[0])) + "</cols>"
    if cols:
        return text[:cols.start()] + element + text[cols.end():]
    at = re.search(r"<sheetData\b", text).start()
    return text[:at] + element + text[at:]


def _computed(xml: bytes) -> bytes:
    """The sheet with the formula of each cell computed from a constant taken out, so that both
    readers read the value the program stored (the same bytes when there is none)."""
    def plain(m: re.Match) -> bytes:
        cell = m[0]
        f = _F_XML.search(cell)
        if (f is None or f[2] is None or not _CONSTANT.fullmatch(f[2].replace(b"&quot;", b'"'))
                or not _VALUE_XML.search(cell) or _ERROR_XML.match(cell)):
            return cell
        return cell[:f.start()] + cell[f.end():]

    return _CELL_XML.sub(plain, xml) if _FORMULA.search(xml) else xml


def _openpyxl_only(xml: bytes) -> bool:
    """A sheet that calamine would not read as openpyxl does: with a formula (calamine gives its
    cached value), an error cell, or a number of 16 digits or more."""
    return bool(_FORMULA.search(xml) or b' t="e"' in xml or b" t='e'" in xml or _LONG_NUMBER.search(xml))


_FATAL = (KeyboardInterrupt, SystemExit, GeneratorExit)  # what no reader's failure may be taken for


@contextmanager
def _reading(where: object, tab: str) -> Iterator[None]:
    """A reader's failure on a tab as a one-line BookError naming the book and the tab: any
    failure, a panic of calamine's Rust code included (pyo3's PanicException is a BaseException)."""
    try:
        yield
    except (BookError, *_FATAL):
        raise
    except BaseException as e:
        why = " ".join(f"{type(e).__name__}: {e}".split())
        raise BookError(f"cannot read {where}, tab {tab!r}: {why}; open it in a spreadsheet program and save it "
                        "as .xlsx, or restore a copy") from None


def _openpyxl_rows(sheet) -> list[list[object]]:
    """An openpyxl worksheet's values as the tool reads them. A number its date format cannot
    show reads as openpyxl's '#VALUE!', without the warning a host would see."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Cell .* is marked as a date", UserWarning)
        return [[_cell(_unescape(v)) for v in row] for row in sheet.iter_rows(values_only=True)]


class _Values:
    """A sheet's cells as rows of plain values: calamine, or openpyxl for formulas and long numbers
    and wherever calamine fails; `where` names the book in errors. Each sheet is read once; `seen`
    holds the rows of a read of the same bytes (by sheet part), so a write does not parse again
    what the command read (the rows are never changed in place)."""

    def __init__(self, data: bytes, pkg: _Package, where: object, seen: dict[str, list[list[object]]] | None = None):
        self.data, self.pkg, self.where = data, pkg, where
        self.seen: dict[str, list[list[object]]] = {} if seen is None else seen
        self._calamine = None
        self._openpyxl = None

    def rows(self, sheet: _Sheet) -> list[list[object]]:
        if sheet.part not in self.seen:
            self.seen[sheet.part] = self._rows(sheet)
        return self.seen[sheet.part]

    def _rows(self, sheet: _Sheet) -> list[list[object]]:
        with _reading(self.where, sheet.name):
            if not _openpyxl_only(_computed(self.pkg.get(sheet.part))):
                try:
                    return self._calamine_rows(sheet)
                except _FATAL:
                    raise
                except BaseException:  # a panic or an overflow on a number its date format cannot show
                    pass
            if self._openpyxl is None:
                import openpyxl

                self._openpyxl = openpyxl.load_workbook(io.BytesIO(self._plain()), read_only=True, data_only=False)
            return _openpyxl_rows(self._openpyxl[sheet.name])

    def _plain(self) -> bytes:
        """The book for openpyxl: every sheet's formulas computed from a constant taken out."""
        copy, changed = _Package(self.data), False
        for s in _Workbook(copy).sheets:
            if s.kind == "worksheet" and copy.has(s.part):
                raw = copy.get(s.part)
                plain = _computed(raw)
                if plain != raw:
                    copy.put(s.part, plain)
                    changed = True
        return copy.zipped() if changed else self.data

    def _calamine_rows(self, sheet: _Sheet) -> list[list[object]]:
        if self._calamine is None:
            self._calamine = python_calamine.CalamineWorkbook.from_filelike(io.BytesIO(self.data))
        grid = self._calamine.get_sheet_by_name(sheet.name).to_python(skip_empty_area=False)
        return [[_from_calamine(v) for v in row] for row in grid]

    def close(self) -> None:
        if self._openpyxl is not None:
            self._openpyxl.close()
        if self._calamine is not None:
            self._calamine.close()


def _last_row(rows: Sequence[Sequence[object]]) -> int:
    """The number of the last row holding something (0 for a blank sheet)."""
    for i in range(len(rows), 0, -1):
        if any(not is_blank(v) for v in rows[i - 1]):
            return i
    return 0


class _Lists:
    """The hidden tab holding dropdown options, one list a column (label in row 1). A column that
    a sheet this write leaves alone refers to is kept as it is; others are reused or cleared."""

    def __init__(self, book: _Workbook, values: _Values | None, rendered: Collection[str]):
        self.book = book
        self.sheet = next((s for s in book.sheets if s.name == LISTS_TAB and s.kind == "worksheet"), None)
        self.columns: list[tuple[str, tuple[str, ...]] | None] = []
        self.keep: set[int] = set()
        self.changed = False
        if self.sheet is not None and not self.sheet.new and values is not None:
            rows = values.rows(self.sheet)
            for c in range(max((len(r) for r in rows), default=0)):
                cells = [r[c] if c < len(r) else None for r in rows]
                options = []
                for v in cells[1:]:
                    if is_blank(v):
                        break
                    options.append(str(v))
                self.columns.append((str(cells[0] or ""), tuple(options)) if cells and not is_blank(cells[0]) else None)
            for s in book.sheets:
                if s.kind == "worksheet" and s.name not in rendered and s is not self.sheet and not s.new:
                    self.keep |= {_col_index(m.decode()) for m in _LISTS_REF.findall(book.pkg.get(s.part))}

    def ref(self, options: tuple[str, ...], label: str) -> str:
        i = next((i for i, col in enumerate(self.columns) if col and col[1] == options), None)
        if i is None:
            i = next((i for i in range(len(self.columns)) if i not in self.keep), len(self.columns))
            if i == len(self.columns):
                self.columns.append(None)
            self.columns[i] = (label, options)
            self.changed = True
        self.keep.add(i)
        letter = column_letter(i)
        return f"'{LISTS_TAB}'!${letter}$2:${letter}${len(options) + 1}"

    def rows(self) -> list[list[object]]:
        columns = [col if i in self.keep else None for i, col in enumerate(self.columns)]
        height = max((len(col[1]) for col in columns if col), default=0)
        return ([[col[0] if col else None for col in columns]]
                + [[col[1][r] if col and r < len(col[1]) else None for col in columns] for r in range(height)])


def _lists_layout(rows: Sequence[Sequence[object]]) -> TabLayout:
    widths = [max([MIN_WIDTH, *(len(str(r[c])) + 2 for r in rows if c < len(r) and r[c] is not None)])
              for c in range(len(rows[0]) if rows else 0)]
    return TabLayout(tuple(ColumnLayout(width=min(w, MAX_WIDTH)) for w in widths))
