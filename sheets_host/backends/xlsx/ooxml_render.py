"""A tab of an .xlsx file rendered anew as worksheet XML: a frame's rows and their `TabLayout`
(widths, fills, frozen header, number formats), header notes as comments, dropdowns inline or
in the lists tab, the sheet's protection kept (see `backends.xlsx_edit`)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from sheets_host.kit.cells import column_letter
from sheets_host.kit.layout import HEADER_FILL, INPUT_FILL, TabLayout
from .ooxml import DOC_REL, ILLEGAL_CHARACTERS_RE, MAIN, _esc, _esc_attr, _excel_width, _set_attr, _Sheet, _text_xml
from .ooxml_styles import _Styles

INLINE_LIST = 255  # the most characters of an inline list formula Excel accepts
_DATE_FORMATS = {datetime: "yyyy-mm-dd h:mm:ss", date: "yyyy-mm-dd", time: "h:mm:ss", timedelta: "[h]:mm:ss"}
_NO_LEAP_DAY = datetime(1900, 3, 1)


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
            if isinstance(value, date):
                given = value
                if isinstance(value, datetime) and value.tzinfo is not None:
                    try:
                        value = value.astimezone(UTC).replace(tzinfo=None)
                    except OverflowError:  # before year 1 in UTC
                        value = datetime.min
                if value.year < 1900:  # no spreadsheet holds a date before 1900: its text as given
                    return f' t="inlineStr"><is>{_text_xml(str(given))}</is>', None
                moment = value if isinstance(value, datetime) else datetime(value.year, value.month, value.day)
                # Day 1 is 1 January 1900, and Excel counts a 29 February 1900 that never was.
                serial = (moment - datetime(1899, 12, 30)).total_seconds() / 86400 - (moment < _NO_LEAP_DAY)
            elif isinstance(value, time):
                serial = (value.hour * 3600 + value.minute * 60 + value.second + value.microsecond / 1e6) / 86400
            else:
                serial = value.total_seconds() / 86400
            return f"><v>{serial!r}</v>", style(_DATE_FORMATS[kind])
    return f' t="inlineStr"><is>{_text_xml(str(value))}</is>', None


def _cell_xml(ref: str, value: object, s: int, style: Callable[[str | None], int]) -> str:
    """A cell, its format always named: a spreadsheet program may give a cell without one its
    row's or its column's default, which another program may have made a date."""
    if value is None:
        return f'<c r="{ref}" s="{s}"/>'
    if isinstance(value, str):
        body = f' t="inlineStr"><is>{_text_xml(value)}</is>'
    else:
        body, dated = _number(value, style)
        if dated is not None:
            s = dated
    return f'<c r="{ref}" s="{s}"{body}</c>'


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


def _height_attrs(points: float | None) -> str:
    """A <row>'s height attributes: LibreOffice and Excel keep a row's height on opening a file,
    so a row of wrapped lines says how tall it is."""
    return f' ht="{points:g}" customHeight="1"' if points else ""


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
    inputs = width if layout.input_columns is None else layout.input_columns  # the columns shaded for input
    last = max([len(rows), body + 1 if body else 0, *by_row])
    cache: dict[tuple, int] = {}

    def style(header: bool, col: int, fill: str | None, number_format: str | None = None) -> int:
        """A cell's format from its column, whether it is a header, and its fill."""
        key = (header, col, fill, number_format)
        if key not in cache:
            c = cols[col] if col < len(cols) else None
            if header:
                # Left, whatever the column: a right-aligned header beside a left-aligned one would read as one word.
                cache[key] = styles.xf(True, fill or HEADER_FILL, None, "left" if c else None, bool(c and c.wrap),
                                       bool(c and c.indent))
            else:
                cache[key] = styles.xf(False, fill, number_format or (c.number_format if c else None),
                                       c.align if c else None, bool(c and c.wrap), bool(c and c.indent))
        return cache[key]

    heads = [style(True, c, None) for c in range(width)] if frozen else []
    plain = [style(False, c, None) for c in range(width)]
    shaded = [style(False, c, shade if c < inputs else None) for c in range(width)] if shade else plain
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
                cells.append(f'<c r="{letters[c]}{r}" s="{s}" t="inlineStr"><is>{_text_xml(value)}</is></c>')
            elif value is None:
                if s:  # a blank cell holds no value a format could change
                    cells.append(f'<c r="{letters[c]}{r}" s="{s}"/>')
            elif kind is int:
                cells.append(f'<c r="{letters[c]}{r}" s="{s}"><v>{value}</v></c>')
            else:
                fill = coloured.get(c) if coloured else None
                cells.append(_cell_xml(f"{letters[c]}{r}", value, s,
                                       lambda fmt, c=c, head=head, fill=fill or (shade if in_body and c < inputs else None):
                                       style(head, c, fill, fmt)))
        if cells:
            out.append(f'<row r="{r}"{_height_attrs(layout.heights.get(r - 1))}>{"".join(cells)}</row>')
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


NOT_LISTED = "This is not one of the choices in the list. Keep it anyway? It is checked when the round is read."


def _protection_element(old: str | None, on: bool | None) -> str | None:
    """A rewritten sheet's <sheetProtection>: the old one kept (password and all), locked or
    unlocked as asked."""
    if on is None or (old is None and not on):
        return old
    if old is None:
        return '<sheetProtection sheet="1" objects="1" scenarios="1"/>'
    start = re.match(r"<sheetProtection\b[^>]*>", old)[0]
    return _set_attr(start, "sheet", "1" if on else "0") + old[len(start):]


@dataclass
class _Render:
    sheet: _Sheet
    rows: list[list[object]]
    layout: TabLayout
    name: str  # as the caller named it
