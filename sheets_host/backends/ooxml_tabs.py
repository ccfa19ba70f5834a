"""A tab of an .xlsx file as XML: styles appended to the styles part, a frame and its `TabLayout`
rendered as a sheet, rows appended, a tab's protection and selection, values read back, and the
hidden tab of long dropdown lists (see `backends.xlsx`)."""

from __future__ import annotations

import io
import math
import re
import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import ClassVar

import python_calamine

from ..cells import column_letter, is_blank
from ..layout import (
    HEADER_FILL,
    INPUT_FILL,
    MAX_WIDTH,
    MIN_WIDTH,
    ColumnLayout,
    TabLayout,
)
from .ooxml import (
    _ESCAPED,
    DOC_REL,
    ILLEGAL_CHARACTERS_RE,
    MAIN,
    _attrs,
    _col_index,
    _esc,
    _esc_attr,
    _excel_width,
    _Package,
    _root_ok,
    _set_attr,
    _Sheet,
    _split_ref,
    _text_xml,
    _Unsupported,
    _Workbook,
)

# Dropdown options that cannot go inline (too long, or holding a comma or a quote), one column a list.
LISTS_TAB = "sheets-host lists"
INLINE_LIST = 255  # the most characters of an inline list formula Excel accepts
_FORMULA = re.compile(rb"<(?:\w+:)?f[\s>/]")
_LONG_NUMBER = re.compile(rb"<(?:\w+:)?v>\s*-?\d{16}")
_LISTS_REF = re.compile(rb"(?:'|&apos;)" + re.escape(LISTS_TAB.encode()) + rb"(?:'|&apos;)!\$([A-Z]{1,3})\$")
_DATE_FORMATS = {datetime: "yyyy-mm-dd h:mm:ss", date: "yyyy-mm-dd", time: "h:mm:ss", timedelta: "[h]:mm:ss"}
_BUILTIN_FORMATS = {"General": 0, "0": 1, "0.00": 2, "#,##0": 3, "#,##0.00": 4, "0%": 9, "0.00%": 10,
                    "0.00E+00": 11, "mm-dd-yy": 14, "h:mm": 20, "h:mm:ss": 21, "m/d/yy h:mm": 22, "@": 49}


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
    """A string as Excel means it: `_x000D_` is a carriage return (openpyxl leaves these as typed)."""
    if isinstance(value, str) and "_x" in value:
        return _ESCAPED.sub(lambda m: chr(int(m[1], 16)), value)
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


def _items(inner: str, element: str) -> list[str]:
    return re.findall(rf"<{element}\b[^>]*?(?:/>|>.*?</{element}>)", inner, re.DOTALL)


class _Styles:
    """styles.xml: the cell formats a layout needs, appended (or found) once; existing ones never move."""

    SECTIONS = ("numFmts", "fonts", "fills", "cellXfs")
    ITEMS: ClassVar[dict[str, str]] = {"numFmts": "numFmt", "fonts": "font", "fills": "fill", "cellXfs": "xf"}

    def __init__(self, pkg: _Package, book: _Workbook):
        rel = book.rel_of("styles")
        if rel is None:
            raise _Unsupported("no styles part")
        self.pkg, self.part = pkg, rel.target
        self.text = pkg.text(self.part)
        if not _root_ok(self.text, "styleSheet") or not re.search(r"<cellStyleXfs\b[^>]*>\s*<xf\b", self.text):
            raise _Unsupported("styles")
        self.spans: dict[str, tuple[int, int] | None] = {}
        self.items: dict[str, list[str]] = {}
        for section in self.SECTIONS:
            m = re.search(rf"<{section}\b[^>]*?(?:/>|>(.*?)</{section}>)", self.text, re.DOTALL)
            if m is None and section != "numFmts":
                raise _Unsupported(f"styles without {section}")
            self.spans[section] = m.span() if m else None
            self.items[section] = _items(m[1] or "", self.ITEMS[section]) if m else []
        if not self.items["fonts"] or not self.items["cellXfs"]:
            raise _Unsupported("styles without fonts")
        self.index = {s: {text: i for i, text in reversed(list(enumerate(self.items[s])))} for s in self.SECTIONS}
        self.formats = {_attrs(f).get("formatCode"): int(_attrs(f).get("numFmtId", 0)) for f in self.items["numFmts"]}
        self.added = False
        self._xfs: dict[tuple, int] = {}

    def _add(self, section: str, text: str) -> int:
        found = self.index[section].get(text)
        if found is None:
            found = self.index[section][text] = len(self.items[section])
            self.items[section].append(text)
            self.added = True
        return found

    def _format(self, code: str | None) -> int:
        if code is None:
            return 0
        if code in _BUILTIN_FORMATS:
            return _BUILTIN_FORMATS[code]
        if code not in self.formats:
            self.formats[code] = max([163, *self.formats.values()]) + 1
            self._add("numFmts", f'<numFmt numFmtId="{self.formats[code]}" formatCode="{_esc_attr(code)}"/>')
        return self.formats[code]

    def _bold(self) -> int:
        base = self.items["fonts"][0]
        if re.search(r"<b\s*/>|<b\s+val=\"(?:1|true)\"", base):
            return 0
        bold = "<font><b/></font>" if base.endswith("/>") else re.sub(r"^<font\b[^>]*>", lambda m: m[0] + "<b/>", base)
        return self._add("fonts", bold)

    def xf(self, bold: bool = False, fill: str | None = None, number_format: str | None = None,
           align: str | None = None, wrap: bool = False) -> int:
        """The number of the cell format; 0 (the book's default) when nothing is asked."""
        if fill is not None:
            fill = fill.lstrip("#").upper()
            fill = fill if re.fullmatch(r"[0-9A-F]{6}|[0-9A-F]{8}", fill) else None
        key = (bold, fill, number_format, align, wrap)
        if key not in self._xfs:
            if not any(key):
                self._xfs[key] = 0
            else:
                fmt = self._format(number_format)
                font = self._bold() if bold else 0
                fill_id = self._add("fills", f'<fill><patternFill patternType="solid"><fgColor rgb="{fill.rjust(8, "F")}"/>'
                                             '<bgColor indexed="64"/></patternFill></fill>') if fill else 0
                xf = f'<xf numFmtId="{fmt}" fontId="{font}" fillId="{fill_id}" borderId="0" xfId="0"'
                xf += ' applyNumberFormat="1"' * bool(fmt) + ' applyFont="1"' * bool(font) + ' applyFill="1"' * bool(fill_id)
                if align or wrap:
                    xf += ' applyAlignment="1"><alignment' + (f' horizontal="{align}"' if align else "")
                    xf += ' vertical="top" wrapText="1"' * wrap + "/></xf>"
                else:
                    xf += "/>"
                self._xfs[key] = self._add("cellXfs", xf)
        return self._xfs[key]

    def save(self) -> None:
        if not self.added:
            return
        text = self.text
        spans = [(self.spans[s], s) for s in self.SECTIONS if self.spans[s] is not None]
        for (start, end), section in sorted(spans, reverse=True):
            old = re.match(rf"<{section}\b[^>]*?(?=/?>)", text[start:end])[0]
            text = (text[:start] + _set_attr(old + ">", "count", str(len(self.items[section])))
                    + "".join(self.items[section]) + f"</{section}>" + text[end:])
        if self.spans["numFmts"] is None and self.items["numFmts"]:
            at = re.search(r"<fonts\b", text).start()
            text = (text[:at] + f'<numFmts count="{len(self.items["numFmts"])}">' + "".join(self.items["numFmts"])
                    + "</numFmts>" + text[at:])
        self.pkg.put(self.part, text)


def _number(value: object, style: Callable[[str | None], int]) -> tuple[str, int | None]:
    """A non-text value's <v> and, for a date or time, the format that shows it as one."""
    if isinstance(value, bool):
        return f' t="b"><v>{int(value)}</v>', None
    if isinstance(value, int):
        return f"><v>{value}</v>", None
    if isinstance(value, float):
        if math.isfinite(value):
            return f"><v>{value!r}</v>", None
        return f' t="inlineStr"><is>{_text_xml(str(value))}</is>', None
    if isinstance(value, Decimal):
        if value.is_finite():
            return f"><v>{value}</v>", None
        return f' t="inlineStr"><is>{_text_xml(str(value))}</is>', None
    for kind in (datetime, date, time, timedelta):
        if isinstance(value, kind):
            if isinstance(value, datetime):
                if value.tzinfo is not None:
                    value = value.astimezone(UTC).replace(tzinfo=None)
                serial = (value - datetime(1899, 12, 30)).total_seconds() / 86400
            elif isinstance(value, date):
                serial = float((value - date(1899, 12, 30)).days)
            elif isinstance(value, time):
                serial = (value.hour * 3600 + value.minute * 60 + value.second + value.microsecond / 1e6) / 86400
            else:
                serial = value.total_seconds() / 86400
            return f"><v>{serial!r}</v>", style(_DATE_FORMATS[kind])
    return f' t="inlineStr"><is>{_text_xml(str(value))}</is>', None


def _cell_xml(ref: str, value: object, s: int, style: Callable[[str | None], int]) -> str:
    if value is None:
        return f'<c r="{ref}" s="{s}"/>' if s else f'<c r="{ref}"/>'
    if isinstance(value, str):
        body = f' t="inlineStr"><is>{_text_xml(value)}</is>'
    else:
        body, dated = _number(value, style)
        if dated is not None:
            s = dated
    return f'<c r="{ref}" s="{s}"{body}</c>' if s else f'<c r="{ref}"{body}</c>'


def _vml(notes: Sequence[tuple[int, int, str]], sheet_id: int) -> str:
    shapes = []
    for i, (row, col, text) in enumerate(notes, start=1):
        lines = sum(max(1, math.ceil(len(line) / 36)) for line in text.split("\n"))
        height = min(400, 15 + 12 * lines)
        shapes.append(
            f'<v:shape id="_x0000_s{sheet_id * 1024 + i}" type="#_x0000_t202" style="position:absolute;'
            f'margin-left:80pt;margin-top:2pt;width:200pt;height:{height}pt;z-index:{i};visibility:hidden" '
            'fillcolor="#ffffe1" o:insetmode="auto"><v:fill color2="#ffffe1"/>'
            '<v:shadow on="t" color="black" obscured="t"/><v:path o:connecttype="none"/>'
            '<v:textbox style="mso-direction-alt:auto"><div style="text-align:left"></div></v:textbox>'
            '<x:ClientData ObjectType="Note"><x:MoveWithCells/><x:SizeWithCells/>'
            f'<x:Anchor>{col + 1}, 15, {row}, 2, {col + 4}, 15, {row + 4}, 16</x:Anchor>'
            f'<x:AutoFill>False</x:AutoFill><x:Row>{row}</x:Row><x:Column>{col}</x:Column></x:ClientData></v:shape>')
    return ('<xml xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
            'xmlns:x="urn:schemas-microsoft-com:office:excel">'
            f'<o:shapelayout v:ext="edit"><o:idmap v:ext="edit" data="{sheet_id}"/></o:shapelayout>'
            '<v:shapetype id="_x0000_t202" coordsize="21600,21600" o:spt="202" path="m,l,21600r21600,l21600,xe">'
            '<v:stroke joinstyle="miter"/><v:path gradientshapeok="t" o:connecttype="rect"/></v:shapetype>'
            + "".join(shapes) + "</xml>")


def _comments(notes: Sequence[tuple[int, int, str]]) -> str:
    items = "".join(f'<comment ref="{column_letter(col)}{row + 1}" authorId="0"><text>{_text_xml(text)}</text></comment>'
                    for row, col, text in notes)
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<comments xmlns="{MAIN}">'
            f"<authors><author>sheets-host</author></authors><commentList>{items}</commentList></comments>")


def _inline_list(options: Sequence[str]) -> str | None:
    """The options as an inline list formula ("a,b"), or None when Excel cannot hold them so."""
    joined = ",".join(options)
    if len(joined) + 2 > INLINE_LIST or any(ch in o for o in options for ch in ',"') or any(o != o.strip() for o in options):
        return None
    return f'"{joined}"'


def _render(rows: Sequence[Sequence[object]], layout: TabLayout, styles: _Styles,
            list_ref: Callable[[tuple[str, ...], str], str], protection: str | None) -> tuple[str, list[tuple[int, int, str]]]:
    """A worksheet's XML for `rows` (header first) laid out by `layout`, and its header notes as
    (row, column, text), 0-based."""
    cols = layout.columns
    header = list(rows[0]) if rows else []
    fills = layout.fills
    by_row: dict[int, dict[int, str]] = {}
    for (fr, fc), colour in fills.items():
        by_row.setdefault(fr + 1, {})[fc] = colour
    width = max([len(cols), *(len(r) for r in rows), *(fc + 1 for _, fc in fills)])
    letters = [column_letter(c) for c in range(width)]
    body = layout.rows(max(len(rows) - 1, 0)) if cols else 0
    frozen = layout.frozen_rows
    shade = INPUT_FILL if layout.input_rows else None
    last = max([len(rows), body + 1 if body else 0, *by_row])
    cache: dict[tuple, int] = {}

    def style(header: bool, col: int, fill: str | None, number_format: str | None = None) -> int:
        """A cell's format from its column, whether it is a header, and its fill."""
        key = (header, col, fill, number_format)
        if key not in cache:
            c = cols[col] if col < len(cols) else None
            if header:
                cache[key] = styles.xf(True, fill or HEADER_FILL, None, c.align if c else None, bool(c and c.wrap))
            else:
                cache[key] = styles.xf(False, fill, number_format or (c.number_format if c else None),
                                       c.align if c else None, bool(c and c.wrap))
        return cache[key]

    heads = [style(True, c, None) for c in range(width)] if frozen else []
    plain = [style(False, c, None) for c in range(width)]
    shaded = [style(False, c, shade) for c in range(width)] if shade else plain
    out = []
    for r in range(1, last + 1):
        values = rows[r - 1] if r <= len(rows) else ()
        head = r <= frozen
        in_body = not head and 2 <= r <= body + 1
        base = heads if head else shaded if in_body else plain
        coloured = by_row.get(r)
        n = max(len(values), len(cols) if (head or in_body) else 0, max(coloured) + 1 if coloured else 0)
        cells = []
        for c in range(n):
            value = values[c] if c < len(values) else None
            s = style(head, c, coloured[c]) if coloured and c in coloured else base[c]
            kind = type(value)
            if kind is str:
                cells.append(f'<c r="{letters[c]}{r}" s="{s}" t="inlineStr"><is>{_text_xml(value)}</is></c>' if s else
                             f'<c r="{letters[c]}{r}" t="inlineStr"><is>{_text_xml(value)}</is></c>')
            elif value is None:
                if s:
                    cells.append(f'<c r="{letters[c]}{r}" s="{s}"/>')
            elif kind is int:
                cells.append(f'<c r="{letters[c]}{r}" s="{s}"><v>{value}</v></c>' if s else
                             f'<c r="{letters[c]}{r}"><v>{value}</v></c>')
            else:
                fill = coloured.get(c) if coloured else None
                cells.append(_cell_xml(f"{letters[c]}{r}", value, s,
                                       lambda fmt, c=c, head=head, fill=fill or (shade if in_body else None): style(head, c, fill, fmt)))
        if cells:
            out.append(f'<row r="{r}">{"".join(cells)}</row>')
    notes = [(0, c, ILLEGAL_CHARACTERS_RE.sub("", col.note)) for c, col in enumerate(cols) if col.note]
    validations = []
    if body:
        for c, col in enumerate(cols):
            choices = tuple(dict.fromkeys(o for o in (ILLEGAL_CHARACTERS_RE.sub("", str(o)) for o in col.choices) if o.strip()))
            if choices:
                name = str(header[c]) if c < len(header) else letters[c]
                formula = _inline_list(choices) or list_ref(choices, name)
                validations.append(
                    f'<dataValidation type="list" errorStyle="warning" allowBlank="1" showInputMessage="1" '
                    f'showErrorMessage="1" errorTitle="Not one of the choices" error="{_esc_attr(NOT_LISTED)}" '
                    f'sqref="{letters[c]}2:{letters[c]}{body + 1}"><formula1>{_esc(formula)}</formula1></dataValidation>')
    dimension = f"A1:{column_letter(max(width, 1) - 1)}{max(last, 1)}" if out else "A1"
    pane = (f'<pane ySplit="{frozen}" topLeftCell="A{frozen + 1}" activePane="bottomLeft" state="frozen"/>'
            f'<selection pane="bottomLeft" activeCell="A{frozen + 1}" sqref="A{frozen + 1}"/>') if frozen else ""
    parts = [f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="{MAIN}" xmlns:r="{DOC_REL}">',
             f'<dimension ref="{dimension}"/>',
             f'<sheetViews><sheetView workbookViewId="0">{pane}</sheetView></sheetViews>',
             '<sheetFormatPr defaultRowHeight="15"/>']
    if cols:
        parts.append("<cols>" + "".join(f'<col min="{c + 1}" max="{c + 1}" width="{_excel_width(col.width)}" customWidth="1"/>'
                                        for c, col in enumerate(cols)) + "</cols>")
    parts.append(f"<sheetData>{''.join(out)}</sheetData>" if out else "<sheetData/>")
    if protection:
        parts.append(protection)
    if validations:
        parts.append(f'<dataValidations count="{len(validations)}">{"".join(validations)}</dataValidations>')
    parts.append('<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>')
    if notes:
        parts.append('<legacyDrawing r:id="rId1"/>')
    parts.append("</worksheet>")
    return "".join(parts), notes


NOT_LISTED = "This is not one of the choices in the list. Keep it anyway? The host's program will check it."


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


def _append_xml(text: str, after: int, rows: Sequence[Sequence[object]], styles: _Styles) -> str:
    """The sheet with `rows` written from row `after + 1` on; a new cell takes the format of the
    cell above it (not of a header in row 1), or keeps the one it has (a shaded input row)."""
    data = re.search(r"<sheetData\b[^>]*?(?:/>|>(.*?)</sheetData>)", text, re.DOTALL)
    if not data:
        raise _Unsupported("sheet without sheetData")
    inner = data[1] or ""
    first, end = after + 1, after + len(rows)
    split, tail = _tail_rows(inner, first)
    above = {c: s for c, (_, s) in _cells(next((x for r, x in tail if r == after), "")).items()} if after > 1 else {}
    existing = {r: x for r, x in tail if first <= r <= end}
    new_rows = []
    for i, values in enumerate(rows):
        r = first + i
        old_xml = existing.get(r, "")
        old = _cells(old_xml) if old_xml else {}
        row_cells = {c: x for c, (x, _) in old.items()}
        for c, value in enumerate(values):
            s = old[c][1] if c in old else above.get(c, 0)
            row_cells[c] = _cell_xml(f"{column_letter(c)}{r}", value, s, lambda fmt: styles.xf(number_format=fmt))
        start = (_set_attr(re.match(r"<row\b[^>]*?(?=/?>)", old_xml)[0] + ">", "spans", None) if old_xml
                 else f'<row r="{r}">')
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
    return text


def _openpyxl_only(xml: bytes) -> bool:
    """A sheet that calamine would not read as openpyxl does: with a formula (calamine gives its
    cached value), an error cell, or a number of 16 digits or more."""
    return bool(_FORMULA.search(xml) or b' t="e"' in xml or b" t='e'" in xml or _LONG_NUMBER.search(xml))


class _Values:
    """A sheet's cells as rows of plain values: calamine, or openpyxl for formulas and long numbers."""

    def __init__(self, data: bytes, pkg: _Package):
        self.data, self.pkg = data, pkg
        self._calamine = None
        self._openpyxl = None

    def rows(self, sheet: _Sheet) -> list[list[object]]:
        if _openpyxl_only(self.pkg.get(sheet.part)):
            if self._openpyxl is None:
                import openpyxl

                self._openpyxl = openpyxl.load_workbook(io.BytesIO(self.data), read_only=True, data_only=False)
            return [[_cell(_unescape(v)) for v in row] for row in self._openpyxl[sheet.name].iter_rows(values_only=True)]
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


def _protection_element(old: str | None, on: bool | None) -> str | None:
    """A rewritten sheet's <sheetProtection>: the old one kept (password and all), locked or
    unlocked as asked."""
    if on is None or (old is None and not on):
        return old
    if old is None:
        return '<sheetProtection sheet="1" objects="1" scenarios="1"/>'
    start = re.match(r"<sheetProtection\b[^>]*>", old)[0]
    return _set_attr(start, "sheet", "1" if on else "0") + old[len(start):]


def _lists_layout(rows: Sequence[Sequence[object]]) -> TabLayout:
    widths = [max([MIN_WIDTH, *(len(str(r[c])) + 2 for r in rows if c < len(r) and r[c] is not None)])
              for c in range(len(rows[0]) if rows else 0)]
    return TabLayout(tuple(ColumnLayout(width=min(w, MAX_WIDTH)) for w in widths))


@dataclass
class _Render:
    sheet: _Sheet
    rows: list[list[object]]
    layout: TabLayout
    name: str  # as the caller named it
