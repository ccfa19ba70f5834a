"""Offline books: one .xlsx file per book in a folder (host.xlsx, public.xlsx, players/<name>.xlsx).

Strings are always stored as text (inline strings): a player's ``=...`` never becomes a formula.
Files are replaced atomically, so a crash mid-write leaves the old file whole; every failure a
host can meet is a one-line BookError saying what to do.

How a write works. An .xlsx file is a zip of XML parts, one per sheet. `write` rebuilds the zip in
memory: the sheets it is asked to write are rendered anew from their frames and layouts (`_render`);
every other part is copied byte for byte, so a player's own submit tab, a tab the host added, its
formulas, styles, comments, charts, protection and hidden state are kept exactly. Around them only
a few things are edited as text: the sheet list in workbook.xml (new tabs, hidden state, the active
tab), styles appended to styles.xml (existing style numbers never move), a tab's protection flag,
which tab is selected, rows added at the end of a tab (`append`), and parts nothing refers to any
more dropped. A book whose XML this editing does not know (prefixed element names, strict OOXML,
no styles part...) is first rewritten by openpyxl, then edited the same way (`_Unsupported`).

Reads use python-calamine for a sheet's values; a sheet whose XML holds a formula, an error cell or
a number of more than 15 digits is read by openpyxl instead, which gives a formula as its text
(``'=A1+1'``) and a long number exactly.
"""

from __future__ import annotations

import html
import io
import json
import math
import os
import posixpath
import re
import socket
import stat
import sys
import tempfile
import zipfile
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote

import pandas as pd
import python_calamine
from filelock import FileLock, Timeout

from ..cells import column_letter, is_blank
from ..errors import BookError, BusyError
from ..layout import (
    HEADER_FILL,
    INPUT_FILL,
    MAX_WIDTH,
    MIN_WIDTH,
    ColumnLayout,
    TabLayout,
    lay_out,
)
from . import _plain, frame_from_rows, match_tab, role_file

LOCK = ".sheets-host.lock"
HOLDER = ".sheets-host.holder"  # who holds the lock: filelock may truncate the lock file itself
TMP = ".xlsx.tmp"
CELL_LIMIT = 32_767  # Excel's; a longer string would be cut or refused by spreadsheet programs
CLOSE = "close it there and run again"
# Dropdown options that cannot go inline (too long, or holding a comma or a quote), one column a list.
LISTS_TAB = "sheets-host lists"
INLINE_LIST = 255  # the most characters of an inline list formula Excel accepts
ZIP_LEVEL = 6

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
DOC_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
CT_WORKSHEET = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
CT_COMMENTS = "application/vnd.openxmlformats-officedocument.spreadsheetml.comments+xml"
CT_VML = "application/vnd.openxmlformats-officedocument.vmlDrawing"

# Characters an .xlsx file cannot hold: control characters (pasted on Google, say), lone surrogates.
ILLEGAL_CHARACTERS_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_FORMULA = re.compile(rb"<(?:\w+:)?f[\s>/]")
_LONG_NUMBER = re.compile(rb"<(?:\w+:)?v>\s*-?\d{16}")
_LISTS_REF = re.compile(rb"(?:'|&apos;)" + re.escape(LISTS_TAB.encode()) + rb"(?:'|&apos;)!\$([A-Z]{1,3})\$")
_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")  # how Excel stores a character XML cannot hold
_DATE_FORMATS = {datetime: "yyyy-mm-dd h:mm:ss", date: "yyyy-mm-dd", time: "h:mm:ss", timedelta: "[h]:mm:ss"}
_BUILTIN_FORMATS = {"General": 0, "0": 1, "0.00": 2, "#,##0": 3, "#,##0.00": 4, "0%": 9, "0.00%": 10,
                    "0.00E+00": 11, "mm-dd-yy": 14, "h:mm": 20, "h:mm:ss": 21, "m/d/yy h:mm": 22, "@": 49}


class _Unsupported(Exception):
    """XML that the text-level editing here does not handle: the book is rewritten by openpyxl first."""


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


def _frame_rows(frame: pd.DataFrame) -> list[list[object]]:
    """`rows_from_frame`, taking the values in one step rather than a column at a time (pandas'
    itertuples is slow on wide frames); the same values (tests compare them)."""
    rows: list[list[object]] = [[str(_plain(c)) for c in frame.columns]]
    rows += [[_plain(v) for v in row] for row in frame.to_numpy(dtype=object).tolist()]
    return rows


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


# ---- XML as text ------------------------------------------------------------------------------

_ATTR = re.compile(r"""([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _attrs(tag: str) -> dict[str, str]:
    out = {}
    for name, double, single in _ATTR.findall(tag):
        value = double or single
        out[name] = html.unescape(value) if "&" in value else value
    return out


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")


def _esc_attr(text: str) -> str:
    return _esc(text).replace('"', "&quot;").replace("\n", "&#10;").replace("\t", "&#9;")


def _set_attr(tag: str, name: str, value: str | None) -> str:
    """A start tag with attribute `name` set to `value` (removed when None)."""
    tag = re.sub(r"\s" + re.escape(name) + r"""\s*=\s*(?:"[^"]*"|'[^']*')""", "", tag, count=1)
    if value is None:
        return tag
    end = len(tag) - (2 if tag.endswith("/>") else 1)
    return f'{tag[:end].rstrip()} {name}="{_esc_attr(value)}"{tag[end:]}'


def _root_ok(text: str, element: str) -> bool:
    """The part's root element is unprefixed in the transitional main namespace, and no XML
    comment or CDATA section could hide an element from the text-level editing."""
    m = re.search(rf"<{element}\b[^>]*>", text)
    return bool(m) and _attrs(m[0]).get("xmlns") == MAIN and "<!--" not in text and "<![CDATA[" not in text


_PLAIN_TEXT = re.compile(r"[^&<>\r\n\t_]*")


def _text_xml(value: str) -> str:
    if _PLAIN_TEXT.fullmatch(value) and value[:1] != " " and value[-1:] != " ":
        return f"<t>{value}</t>"
    value = _ESCAPED.sub(r"_x005F_x\1_", value)  # a typed `_x0041_` stays those characters in Excel
    space = ' xml:space="preserve"' if value != value.strip() or "\n" in value or "\t" in value else ""
    return f"<t{space}>{_esc(value)}</t>"


def _col_index(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


def _split_ref(ref: str) -> tuple[int, int]:
    """'B12' -> (row 12, column 1)."""
    m = re.fullmatch(r"\$?([A-Z]{1,3})\$?(\d+)", ref)
    if not m:
        raise _Unsupported(f"cell reference {ref!r}")
    return int(m[2]), _col_index(m[1])


def _excel_width(chars: float) -> float:
    """Excel's column width for `chars` digits of the default font (7 pixels each, 5 of padding)."""
    return int((int(chars * 7 + 0.5) + 5) / 7 * 256) / 256


# ---- the zip --------------------------------------------------------------------------------


@dataclass
class _Rel:
    id: str
    type: str
    target: str  # a part name for an internal target
    external: bool
    tag: str


def _rels_part(part: str) -> str:
    head, tail = posixpath.split(part)
    return posixpath.join(head, "_rels", f"{tail}.rels")


def _resolve(source: str, target: str) -> str:
    target = unquote(target)
    if target.startswith("/"):
        return posixpath.normpath(target[1:])
    return posixpath.normpath(posixpath.join(posixpath.dirname(source), target))


def _relative(source: str, part: str) -> str:
    return posixpath.relpath(part, posixpath.dirname(source) or ".")


class _Package:
    """The parts of an .xlsx zip, read when first needed, with the content types kept in step."""

    TYPES = "[Content_Types].xml"

    def __init__(self, data: bytes | None):
        self._zip = zipfile.ZipFile(io.BytesIO(data)) if data is not None else None
        self._parts: dict[str, bytes | None] = {}
        if self._zip is not None:
            for info in self._zip.infolist():
                if not info.is_dir():
                    self._parts[info.filename] = None
        else:
            self._parts.update((name, text.encode()) for name, text in _TEMPLATE.items())
        self._names = {n.lower(): n for n in self._parts}
        self._types_added: dict[str, tuple[str, str]] = {}
        self._types_removed: set[str] = set()
        self._rels_cache: dict[str, list[_Rel]] = {}

    def has(self, part: str) -> bool:
        return part.lower() in self._names

    def get(self, part: str) -> bytes:
        name = self._names.get(part.lower())
        if name is None:
            raise _Unsupported(f"no part {part}")
        data = self._parts[name]
        if data is None:
            data = self._parts[name] = self._zip.read(name)
        return data

    def text(self, part: str) -> str:
        try:
            return self.get(part).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise _Unsupported(f"{part} is not UTF-8") from None

    def put(self, part: str, data: bytes | str, content_type: str | None = None) -> None:
        name = self._names.setdefault(part.lower(), part)
        self._parts[name] = data.encode() if isinstance(data, str) else data
        self._rels_cache.pop(name.lower(), None)
        if content_type:
            self._types_added[name.lower()] = (name, content_type)
            self._types_removed.discard(name.lower())

    def drop(self, part: str) -> None:
        name = self._names.pop(part.lower(), None)
        if name is not None:
            del self._parts[name]
            self._rels_cache.pop(name.lower(), None)
            self._types_added.pop(name.lower(), None)
            self._types_removed.add(name.lower())

    def free(self, pattern: str, reuse: Collection[str] = ()) -> str:
        """The first name `pattern.format(n)` (n = 1, 2...) no part has, or that is in `reuse`."""
        n = 1
        while self.has(pattern.format(n)) and pattern.format(n).lower() not in reuse:
            n += 1
        return pattern.format(n)

    def rels(self, source: str) -> list[_Rel]:
        """The relationships of part `source` ('' for the package's own)."""
        path = _rels_part(source)
        if path.lower() not in self._rels_cache:
            rels = []
            if self.has(path):
                for m in re.finditer(r"<(?:\w+:)?Relationship\b[^>]*>", self.text(path)):
                    a = _attrs(m[0])
                    if "Id" not in a or "Target" not in a:
                        raise _Unsupported(f"relationship in {path}")
                    external = a.get("TargetMode") == "External"
                    rels.append(_Rel(a["Id"], a.get("Type", ""), a["Target"] if external else _resolve(source, a["Target"]),
                                     external, m[0]))
            self._rels_cache[path.lower()] = rels
        return self._rels_cache[path.lower()]

    def unlink(self, candidates: Collection[str]) -> None:
        """Drop the parts among `candidates` that no relationship refers to any more (the old
        comments of a rewritten sheet, a calculation chain), and what only they referred to."""
        count: dict[str, int] = {}
        for path in [n for n in self._parts if n.lower().endswith(".rels")]:
            head, tail = posixpath.split(path)
            if posixpath.basename(head) != "_rels":
                continue
            source = posixpath.join(posixpath.dirname(head), tail[:-len(".rels")])
            if source and not self.has(source):
                continue
            for rel in self.rels(source):
                if not rel.external:
                    count[rel.target.lower()] = count.get(rel.target.lower(), 0) + 1
        todo = [c.lower() for c in candidates]
        while todo:
            part = todo.pop()
            if count.get(part) or not self.has(part):
                continue
            for rel in self.rels(part):
                if not rel.external:
                    count[rel.target.lower()] -= 1
                    todo.append(rel.target.lower())
            self.drop(part)
            self.drop(_rels_part(part))

    def _types(self) -> bytes:
        text = self.text(self.TYPES)
        gone = self._types_removed | set(self._types_added)

        def keep(m: re.Match) -> str:
            part = _attrs(m[0]).get("PartName", "").lstrip("/").lower()
            return "" if part in gone else m[0]

        text = re.sub(r"<Override\b[^>]*?(?:/>|>\s*</Override>)", keep, text)
        added = "".join(f'<Override PartName="/{_esc_attr(name)}" ContentType="{ctype}"/>'
                        for name, ctype in self._types_added.values())
        end = text.rfind("</Types>")
        if end < 0:
            raise _Unsupported("content types")
        return (text[:end] + added + text[end:]).encode()

    def zipped(self) -> bytes:
        if self._types_added or self._types_removed:
            self.put(self.TYPES, self._types())
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL) as z:
            for name in self._parts:
                info = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                z.writestr(info, self.get(name), compresslevel=ZIP_LEVEL)
        return out.getvalue()


_TEMPLATE = {
    "[Content_Types].xml":
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
        '<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>'
        '</Types>',
    "_rels/.rels":
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{PKG_REL}">'
        f'<Relationship Id="rId1" Type="{DOC_REL}/officeDocument" Target="xl/workbook.xml"/>'
        f'<Relationship Id="rId2" Type="{DOC_REL}/extended-properties" Target="docProps/app.xml"/>'
        '</Relationships>',
    "docProps/app.xml":
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">'
        '<Application>sheets-host</Application></Properties>',
    "xl/workbook.xml":
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="{MAIN}" xmlns:r="{DOC_REL}">'
        '<workbookPr/><bookViews><workbookView activeTab="0"/></bookViews><sheets></sheets><calcPr calcId="191029"/>'
        '</workbook>',
    "xl/_rels/workbook.xml.rels":
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{PKG_REL}">'
        f'<Relationship Id="rId1" Type="{DOC_REL}/styles" Target="styles.xml"/></Relationships>',
    "xl/styles.xml":
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="{MAIN}">'
        '<fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>'
        '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
        '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>'
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
        '<dxfs count="0"/><tableStyles count="0"/></styleSheet>',
}


# ---- the workbook part --------------------------------------------------------------------------


@dataclass
class _Sheet:
    name: str
    part: str
    kind: str  # "worksheet", "chartsheet", "dialogsheet"...
    rid: str
    tag: str  # its <sheet/> element in workbook.xml
    sheet_id: int
    state: str = "visible"
    new: bool = False


class _Workbook:
    """workbook.xml and its relationships: the sheets in tab order, and which one is active."""

    def __init__(self, pkg: _Package):
        self.pkg = pkg
        main = [r for r in pkg.rels("") if r.type == f"{DOC_REL}/officeDocument"]
        if len(main) != 1 or main[0].external:
            raise _Unsupported("no transitional workbook part")
        self.part = main[0].target
        text = pkg.text(self.part)
        root = re.search(r"<workbook\b[^>]*>", text)
        if not root or not _root_ok(text, "workbook"):
            raise _Unsupported("workbook root")
        prefixes = [k.split(":", 1)[1] for k, v in _attrs(root[0]).items() if k.startswith("xmlns:") and v == DOC_REL]
        if not prefixes:
            raise _Unsupported("no relationship prefix")
        self.r = prefixes[0]
        self.rels_part = _rels_part(self.part)
        self.rels_text = pkg.text(self.rels_part)
        self.rels = {r.id: r for r in pkg.rels(self.part)}
        block = re.search(r"<sheets\b[^>]*?(?:/>|>(.*?)</sheets>)", text, re.DOTALL)
        if not block:
            raise _Unsupported("no sheets element")
        self.sheets: list[_Sheet] = []
        for m in re.finditer(r"<sheet\b[^>]*?(?:/>|>\s*</sheet>)", block[1] or ""):
            a = _attrs(m[0])
            rel = self.rels.get(a.get(f"{self.r}:id", ""))
            if rel is None or rel.external or "name" not in a or not a.get("sheetId", "").isdigit():
                raise _Unsupported("sheet element")
            self.sheets.append(_Sheet(a["name"], rel.target, rel.type.rsplit("/", 1)[-1], rel.id, m[0],
                                      int(a["sheetId"]), a.get("state", "visible")))
        self.text = text
        self._block = block.span()
        view = re.search(r"<workbookView\b[^>]*>", text)
        active = _attrs(view[0]).get("activeTab", "0") if view else "0"
        self.active = int(active) if active.isdigit() else 0
        self.unlinked: set[str] = set()  # parts a relationship no longer refers to (maybe others still do)

    def find(self, name: str) -> _Sheet | None:
        have = match_tab(name, [s.name for s in self.sheets])
        return next(s for s in self.sheets if s.name == have) if have is not None else None

    def rel_of(self, kind: str) -> _Rel | None:
        return next((r for r in self.rels.values() if r.type == f"{DOC_REL}/{kind}"), None)

    def _new_rel(self, part: str) -> str:
        n = 1
        while f"rId{n}" in self.rels:
            n += 1
        rid = f"rId{n}"
        tag = f'<Relationship Id="{rid}" Type="{DOC_REL}/worksheet" Target="{_esc_attr(_relative(self.part, part))}"/>'
        self.rels[rid] = _Rel(rid, f"{DOC_REL}/worksheet", part, False, tag)
        end = self.rels_text.rfind("</Relationships>")
        if end < 0:
            raise _Unsupported("workbook relationships")
        self.rels_text = self.rels_text[:end] + tag + self.rels_text[end:]
        return rid

    def drop_rel(self, rel: _Rel) -> None:
        self.rels_text = self.rels_text.replace(rel.tag, "", 1)
        del self.rels[rel.id]
        self.unlinked.add(rel.target)

    def add(self, name: str) -> _Sheet:
        part = self.pkg.free("xl/worksheets/sheet{}.xml")
        self.pkg.put(part, b"", CT_WORKSHEET)  # the name is taken; the content comes when it is rendered
        rid = self._new_rel(part)
        sheet_id = max((s.sheet_id for s in self.sheets), default=0) + 1
        tag = f'<sheet name="{_esc_attr(name)}" sheetId="{sheet_id}" {self.r}:id="{rid}"/>'
        sheet = _Sheet(name, part, "worksheet", rid, tag, sheet_id, new=True)
        self.sheets.append(sheet)
        return sheet

    def make_worksheet(self, sheet: _Sheet) -> None:
        """A chart (or dialog) sheet written as data: a worksheet in its place; the old part goes."""
        self.drop_rel(self.rels[sheet.rid])
        sheet.part = self.pkg.free("xl/worksheets/sheet{}.xml")
        self.pkg.put(sheet.part, b"", CT_WORKSHEET)
        sheet.rid = self._new_rel(sheet.part)
        sheet.kind = "worksheet"
        sheet.tag = _set_attr(sheet.tag, f"{self.r}:id", sheet.rid)

    def set_state(self, sheet: _Sheet, state: str) -> None:
        if sheet.state != state:
            sheet.state = state
            sheet.tag = _set_attr(sheet.tag, "state", None if state == "visible" else state)

    def save(self) -> None:
        text = self.text
        start, end = self._block
        text = text[:start] + "<sheets>" + "".join(s.tag for s in self.sheets) + "</sheets>" + text[end:]
        view = re.search(r"<workbookView\b[^>]*>", text)
        if view:
            tag = _set_attr(view[0], "activeTab", str(self.active) if self.active else None)
            first = _attrs(tag).get("firstSheet", "0")
            if not first.isdigit() or int(first) >= len(self.sheets):
                tag = _set_attr(tag, "firstSheet", None)
            text = text[:view.start()] + tag + text[view.end():]
        elif self.active:
            at = text.find("<sheets>")
            text = text[:at] + f'<bookViews><workbookView activeTab="{self.active}"/></bookViews>' + text[at:]
        self.pkg.put(self.part, text)
        self.pkg.put(self.rels_part, self.rels_text)


# ---- styles ---------------------------------------------------------------------------------------


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


# ---- rendering a tab ---------------------------------------------------------------------------------


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


# ---- edits of sheets the write does not render ---------------------------------------------------------


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


# ---- values ---------------------------------------------------------------------------------------------


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


def _lock_owner(path: Path) -> str | None:
    """Which program holds `path` open, from the lock file it leaves beside it; None when none."""
    name = path.name
    for excel in dict.fromkeys([f"~${name}", f"~${name[1:]}", f"~${name[2:]}"]):  # Excel shortens long names
        lock = path.with_name(excel)
        if lock.is_file():
            with suppress(OSError):
                data = lock.read_bytes()  # first byte: length of the user's name, then the name
                if data and data[1:1 + data[0]].strip():
                    return f"Excel (user {data[1:1 + data[0]].decode('cp1252', 'replace').strip()}, lock file {lock})"
            return f"Excel (lock file {lock})"
    lock = path.with_name(f".~lock.{name}#")
    if lock.is_file():
        try:
            # CSV: name, login, machine, time, profile; ',' ';' '\' escaped with '\'.
            fields, field, escaped = [], "", False
            for ch in lock.read_text("utf-8", "replace"):
                if escaped or (ch != "\\" and ch not in ",;"):
                    field, escaped = field + ch, False
                elif ch == "\\":
                    escaped = True
                else:
                    fields.append(field)
                    field = ""
        except OSError:
            fields = []
        fields += [""] * 4
        who = fields[0] or fields[1]
        where = f" on {fields[2]}" if fields[2] else ""
        since = f" since {fields[3]}" if fields[3] else ""
        return f"LibreOffice ({'user ' + who if who else 'unknown user'}{where}{since}, lock file {lock})"
    return None


def _read_only(path: Path) -> bool:
    # The mode bit too: root may write anyway, and Windows shows its read-only attribute there.
    return not os.access(path, os.W_OK) or not path.stat().st_mode & stat.S_IWUSR


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


class XlsxBook:
    def __init__(self, path: Path, ref: str, cell_limit: int = CELL_LIMIT):
        self.path = path
        self.ref = ref  # relative to the game folder, so the folder can move
        self.cell_limit = cell_limit

    @contextmanager
    def _opening(self) -> Iterator[None]:
        """The many ways of failing on a missing, locked or damaged file, as BookErrors."""
        try:
            with _any_digits():
                yield
        except (BookError, _Unsupported):
            raise
        except FileNotFoundError:
            raise BookError(f"no book at {self.path}") from None
        except PermissionError as e:
            raise BookError(f"cannot open {self.path} ({e.strerror or e}): if a program holds it, {CLOSE}; "
                            "otherwise make it readable") from None
        except Exception as e:
            why = " ".join(f"{type(e).__name__}: {e}".split())
            raise BookError(f"cannot read {self.path}: it is not a valid .xlsx file ({why}); "
                            "open it in a spreadsheet program and save it as .xlsx, or restore a copy") from None

    # ---- reading ----------------------------------------------------------------------------------

    def tabs(self) -> list[str]:
        with self._opening():
            data = self.path.read_bytes()
            try:
                return [s.name for s in _Workbook(_Package(data)).sheets]
            except _Unsupported:
                import openpyxl

                wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
                try:
                    return list(wb.sheetnames)
                finally:
                    wb.close()

    def read(self, tabs: Sequence[str] | None = None, *, formulas: bool = False) -> dict[str, pd.DataFrame]:
        # A formula cell comes back as its text either way: offline files hold no values
        # computed by us, so the text is the only honest reading.
        with self._opening():
            data = self.path.read_bytes()
            try:
                return self._read_package(data, tabs)
            except _Unsupported:
                return self._read_openpyxl(data, tabs)

    @staticmethod
    def _read_package(data: bytes, tabs: Sequence[str] | None) -> dict[str, pd.DataFrame]:
        pkg = _Package(data)
        sheets = {s.name: s for s in _Workbook(pkg).sheets}
        names = ({n: n for n in sheets if n != LISTS_TAB} if tabs is None
                 else {t: match_tab(t, sheets) for t in tabs})
        values = _Values(data, pkg)
        try:
            return {want: frame_from_rows(values.rows(sheets[have])) for want, have in names.items()
                    if have is not None and sheets[have].kind == "worksheet"}  # chart sheets hold no cells
        finally:
            values.close()

    def _read_openpyxl(self, data: bytes, tabs: Sequence[str] | None) -> dict[str, pd.DataFrame]:
        import openpyxl

        wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=False)
        try:
            names = ({n: n for n in wb.sheetnames if n != LISTS_TAB} if tabs is None
                     else {t: match_tab(t, wb.sheetnames) for t in tabs})
            return {want: frame_from_rows([[_cell(_unescape(v)) for v in row] for row in wb[have].iter_rows(values_only=True)])
                    for want, have in names.items()
                    if have is not None and hasattr(wb[have], "iter_rows")}
        finally:
            wb.close()

    # ---- writing ----------------------------------------------------------------------------------

    def _clean(self, name: str, rows: list[list[object]], first: int = 1) -> list[list[object]]:
        """Rows fit for a cell each, their first being sheet row `first`; refuses a string too long."""
        for r, row in enumerate(rows, start=first):
            for c, value in enumerate(row):
                if isinstance(value, str):
                    row[c] = value = ILLEGAL_CHARACTERS_RE.sub("", value)
                    if len(value) > self.cell_limit:
                        raise BookError(f"{self.path}, tab {name!r}, cell {column_letter(c)}{r}: "
                                        f"{len(value):,} characters, more than the {self.cell_limit:,} an .xlsx cell "
                                        "holds; nothing was written: shorten it and run again")
                elif value is pd.NaT:
                    row[c] = None
        return rows

    def write(self, tabs: Mapping[str, pd.DataFrame], *, append: Mapping[str, pd.DataFrame] = {},
              layouts: Mapping[str, TabLayout] = {}, protect: Mapping[str, bool] = {},
              hidden: Collection[str] = ()) -> None:
        for name in [*tabs, *append]:
            if not name or len(name) > 31 or re.search(r"[\[\]:*?/\\\x00-\x1f]", name) or name[0] == "'" or name[-1] == "'":
                raise BookError(f"{self.path}: {name!r} cannot name a tab (at most 31 characters, none of "
                                "[ ] : * ? / \\, not starting or ending with '); nothing was written")
        whole = {name: self._clean(name, _frame_rows(frame)) for name, frame in tabs.items()}  # checks first
        for name, frame in append.items():
            if name in whole:  # a tab written whole and appended to: the rows go under it
                whole[name] += self._clean(name, _frame_rows(frame)[1:], len(whole[name]) + 1)
        looks = {name: layouts[name] if name in layouts else lay_out(frame) for name, frame in tabs.items()}
        grow = {name: frame for name, frame in append.items() if name not in tabs}
        data = None
        if self.path.exists():
            self._check_file()
            with self._opening():
                data = self.path.read_bytes()
        try:
            out = self._edit(data, whole, looks, grow, layouts, protect, hidden)
        except _Unsupported:
            try:
                out = self._edit(self._normalized(data), whole, looks, grow, layouts, protect, hidden)
            except _Unsupported as e:  # openpyxl's own output: not expected
                raise BookError(f"cannot write {self.path}: its content is not understood ({e}); open it in a "
                                "spreadsheet program and save it as .xlsx, or restore a copy") from None
        self._save(out)

    def _normalized(self, data: bytes | None) -> bytes:
        """The book as openpyxl saves it: XML that the editing here handles."""
        with self._opening():
            import openpyxl

            wb = openpyxl.load_workbook(io.BytesIO(data)) if data is not None else openpyxl.Workbook()
            self._keep_long_ints(wb, {})
            out = io.BytesIO()
            wb.save(out)
            return out.getvalue()

    def _edit(self, data: bytes | None, whole: Mapping[str, list[list[object]]], looks: Mapping[str, TabLayout],
              grow: Mapping[str, pd.DataFrame], layouts: Mapping[str, TabLayout], protect: Mapping[str, bool],
              hidden: Collection[str]) -> bytes:
        """The new content of the book file (see the module's doc)."""
        with self._opening():
            pkg = _Package(data)
            book = _Workbook(pkg)
            styles = _Styles(pkg, book)
            values = _Values(data, pkg) if data is not None else None
        try:
            return self._edited(pkg, book, styles, values, whole, looks, grow, layouts, protect, hidden)
        finally:
            if values is not None:
                values.close()

    def _edited(self, pkg: _Package, book: _Workbook, styles: _Styles, values: _Values | None,
                whole, looks, grow, layouts, protect, hidden) -> bytes:
        renders: dict[str, _Render] = {}
        appends: dict[str, tuple[_Sheet, int, list[list[object]]]] = {}

        def target(name: str) -> _Sheet:
            sheet = book.find(name)
            if sheet is None:
                sheet = book.add(name)
            elif sheet.kind != "worksheet":
                book.make_worksheet(sheet)
            if name in hidden:
                book.set_state(sheet, "hidden")
            return sheet

        for name, rows in whole.items():
            sheet = target(name)
            renders[sheet.name] = _Render(sheet, rows, looks[name], name)
        for name, frame in grow.items():
            rows = _frame_rows(frame)
            sheet = book.find(name)
            if sheet is not None and sheet.name in renders:
                renders[sheet.name].rows += self._clean(name, rows[1:], len(renders[sheet.name].rows) + 1)
                continue
            if sheet is not None and sheet.kind == "worksheet" and not sheet.new and values is not None:
                with self._opening():
                    last = _last_row(values.rows(sheet))
                if last:  # the header there is left alone
                    appends[sheet.name] = (sheet, last, self._clean(name, rows[1:], last + 1))
                    continue
            sheet = target(name)
            renders[sheet.name] = _Render(sheet, self._clean(name, rows),
                                          layouts[name] if name in layouts else lay_out(frame), name)

        locks: dict[str, bool] = {}
        for name, on in protect.items():
            sheet = book.find(name)
            if sheet is not None:
                locks[sheet.name] = on

        lists: _Lists | None = None
        formulas_gone = False

        def render(job: _Render) -> None:
            nonlocal lists, formulas_gone
            sheet = job.sheet
            old = None
            if not sheet.new and pkg.has(sheet.part):
                raw = pkg.get(sheet.part)
                formulas_gone |= bool(_FORMULA.search(raw))
                old = _protection(raw.decode("utf-8", "replace"))

            def list_ref(options: tuple[str, ...], column: str) -> str:
                nonlocal lists
                if lists is None:
                    with self._opening():
                        lists = _Lists(book, values, renders)
                return lists.ref(options, f"{job.name}: {column}")

            xml, notes = _render(job.rows, job.layout, styles, list_ref, _protection_element(old, locks.get(sheet.name)))
            # What hung on the old sheet (comments, drawings) goes with it; its own names are reused.
            mine = {r.target.lower() for r in pkg.rels(sheet.part) if not r.external}
            book.unlinked |= mine
            pkg.drop(_rels_part(sheet.part))
            if notes:
                comments = pkg.free("xl/comments{}.xml", mine)
                vml = pkg.free("xl/drawings/vmlDrawing{}.vml", mine)
                pkg.put(comments, _comments(notes), CT_COMMENTS)
                pkg.put(vml, _vml(notes, sheet.sheet_id), CT_VML)
                pkg.put(_rels_part(sheet.part),
                        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{PKG_REL}">'
                        f'<Relationship Id="rId1" Type="{DOC_REL}/vmlDrawing" Target="{_relative(sheet.part, vml)}"/>'
                        f'<Relationship Id="rId2" Type="{DOC_REL}/comments" Target="{_relative(sheet.part, comments)}"/>'
                        "</Relationships>")
            pkg.put(sheet.part, xml, CT_WORKSHEET)

        for job in renders.values():
            render(job)
        for sheet, last, rows in appends.values():
            text = pkg.text(sheet.part)
            if not _root_ok(text, "worksheet"):
                raise _Unsupported("worksheet root")
            text = _append_xml(text, last, rows, styles)
            if sheet.name in locks:
                text = _protected(text, locks[sheet.name]) or text
            pkg.put(sheet.part, text)
        for name, on in locks.items():
            sheet = next(s for s in book.sheets if s.name == name)
            if name in renders or name in appends or sheet.kind != "worksheet":
                continue
            text = pkg.text(sheet.part)
            if not _root_ok(text, "worksheet"):
                raise _Unsupported("worksheet root")
            changed = _protected(text, on)
            if changed is not None:
                pkg.put(sheet.part, changed)
        if lists is not None and lists.changed:
            sheet = lists.sheet or book.add(LISTS_TAB)
            book.set_state(sheet, "hidden")
            rows = lists.rows()
            render(_Render(sheet, self._clean(LISTS_TAB, rows), _lists_layout(rows), LISTS_TAB))
        if formulas_gone and (chain := book.rel_of("calcChain")) is not None:
            book.drop_rel(chain)  # it lists formula cells that are no more: Excel would call the file damaged

        if not book.sheets:
            render(_Render(book.add("info"), [], TabLayout(()), "info"))
        self._show_one(pkg, book)
        if any(s.new for s in book.sheets):
            self._untitled(pkg)
        book.save()
        styles.save()
        if book.unlinked:
            pkg.unlink(book.unlinked)
        return pkg.zipped()

    @staticmethod
    def _show_one(pkg: _Package, book: _Workbook) -> None:
        """Excel refuses a book whose sheets are all hidden, or whose active sheet is hidden; one
        sheet's tab is selected, the active one's."""
        sheets = book.sheets
        visible = [s for s in sheets if s.state == "visible"]
        if not visible:
            book.set_state(sheets[0], "visible")
            visible = [sheets[0]]
        if not (book.active < len(sheets) and sheets[book.active] in visible):
            book.active = sheets.index(visible[0])
        for i, sheet in enumerate(sheets):
            if sheet.kind != "worksheet":
                continue
            raw = pkg.get(sheet.part)
            view = re.search(rb"<sheetView\b[^>]*>", raw)
            if view and (re.search(rb"""\stabSelected\s*=\s*["'](?:1|true)["']""", view[0]) is not None) != (i == book.active):
                text = raw.decode("utf-8")
                if not _root_ok(text, "worksheet"):
                    raise _Unsupported("worksheet root")
                pkg.put(sheet.part, _selected(text, i == book.active))

    @staticmethod
    def _untitled(pkg: _Package) -> None:
        """The document properties without their list of sheet names, which would now be short
        (both lists are optional; a spreadsheet program writes them anew)."""
        rel = next((r for r in pkg.rels("") if r.type == f"{DOC_REL}/extended-properties" and not r.external), None)
        if rel is None or not pkg.has(rel.target):
            return
        text = pkg.text(rel.target)
        trimmed = re.sub(r"<(HeadingPairs|TitlesOfParts)\b[^>]*?(?:/>|>.*?</\1>)", "", text, flags=re.DOTALL)
        if trimmed != text:
            pkg.put(rel.target, trimmed)

    @staticmethod
    def _keep_long_ints(wb, content: Mapping[str, object]) -> None:
        """Long ints in tabs we keep, as text: openpyxl saves numbers as '%.16g', which rounds
        them and fails past 1e308."""
        for ws in wb.worksheets:
            if ws.title in content:
                continue
            for line in ws.iter_rows():
                for cell in line:
                    if _long_int(cell.value):
                        cell.value = _cell(cell.value)

    def _save(self, data: bytes) -> None:
        tmp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=TMP)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self.path)
        except OSError as e:
            if tmp is None:
                raise BookError(f"cannot write in {self.path.parent} ({e.strerror or e}): make the folder writable "
                                "and run again; nothing was written") from None
            raise BookError(f"cannot write {self.path} ({e.strerror or e}): if a program has it open, {CLOSE}; "
                            "if it is read-only or the disk is full, fix that and run again; "
                            "the book is unchanged") from None
        finally:
            if tmp is not None and os.path.exists(tmp):
                os.remove(tmp)

    def _check_file(self) -> None:
        owner = _lock_owner(self.path)
        if owner:
            raise BookError(f"{owner} has {self.path} open: {CLOSE} (if that program is not running, "
                            "delete the lock file)")
        if _read_only(self.path):
            raise BookError(f"{self.path} is read-only: make it writable and run again")
        try:
            with open(self.path, "r+b"):  # Windows refuses this while another program holds the file
                pass
        except OSError as e:
            raise BookError(f"cannot write {self.path} ({e.strerror or e}): "
                            f"if a program has it open, {CLOSE}") from None

    def check_writable(self) -> None:
        if self.path.exists():
            self._check_file()
        folder = self.path.parent
        while not folder.exists():  # a folder not made yet: its first existing parent will hold it
            folder = folder.parent
        try:
            # Try it: access() says yes to root and lies on network drives.
            fd, probe = tempfile.mkstemp(dir=folder, suffix=TMP)
            os.close(fd)
            os.remove(probe)
        except OSError as e:
            raise BookError(f"cannot write in {folder} ({e.strerror or e}), where {self.path.name} goes: "
                            "make the folder writable and run again") from None


class XlsxBackend:
    name = "xlsx"
    cell_limit = CELL_LIMIT

    def __init__(self, folder: Path, wait: float = 5.0):
        self.folder = Path(folder)
        self.wait = wait  # seconds a command waits for another to finish before refusing
        self._refs: dict[str, str] = {}
        self._held = 0

    def bind(self, refs: Mapping[str, str]) -> None:
        """Learn role -> book path (relative to the folder) as recorded in the host book, so books
        named by an older `role_file` are still found."""
        for role, ref in refs.items():
            # The host is always the folder's host.xlsx: the book this list was read from.
            if role != "host" and ref:
                self._refs[role] = ref

    def _book(self, role: str) -> XlsxBook:
        ref = self._refs.get(role) or f"{role_file(role)}.xlsx"
        return XlsxBook(self.folder / ref, ref, self.cell_limit)

    def book(self, role: str) -> XlsxBook:
        book = self._book(role)
        if not book.path.exists():
            raise BookError(f"no book for {role!r}: {book.path} does not exist")
        return book

    def create(self, role: str, title: str, readers: Sequence[str] = (), public: bool = False) -> XlsxBook:
        book = self._book(role)
        if book.path.exists():
            raise BookError(f"{book.path} already exists: `new --force` replaces the game there")
        self._refs[role] = book.ref
        return book

    def refs(self) -> dict[str, str]:
        return dict(self._refs)

    def output_dir(self) -> Path:
        return self.folder / "announcements"

    def existing(self) -> list[str]:
        books = [self.folder / f for f in ("host.xlsx", "public.xlsx")]
        if self.folder.is_dir():
            for sub in sorted(self.folder.iterdir()):
                if sub.is_dir() and sub.name.endswith("s"):  # players/, meadows/: role_file's <kind>s
                    books += sorted(sub.glob("*.xlsx"))
        return [p.relative_to(self.folder).as_posix() for p in books
                if p.is_file() and not p.name.startswith("~$")]  # ~$: Excel's lock files

    def discard(self) -> None:
        books = [XlsxBook(self.folder / ref, ref) for ref in self.existing()]
        for book in books:  # all checked first, so a held book stops it before anything is removed
            book._check_file()
        out = self.output_dir()
        files = [b.path for b in books] + (sorted(p for p in out.iterdir() if p.is_file()) if out.is_dir() else [])
        for path in files:
            try:
                path.unlink()
            except OSError as e:
                raise BookError(f"cannot remove {path} ({e.strerror or e}): "
                                f"if a program has it open, {CLOSE}") from None

    @contextmanager
    def hold(self, command: str) -> Iterator[None]:
        if self._held:  # a command run inside another one of this backend
            self._held += 1
            try:
                yield
            finally:
                self._held -= 1
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            lock = FileLock(self.folder / LOCK, timeout=self.wait)
            lock.acquire()
        except Timeout:
            raise BusyError(f"another command is running on {self.folder}: {self._holder()}; "
                            "wait for it to finish and run again") from None
        except OSError as e:
            raise BookError(f"cannot lock {self.folder} ({e.strerror or e}): make the folder writable "
                            "and run again") from None
        holder = self.folder / HOLDER
        try:
            try:
                holder.write_text(json.dumps({
                    "command": command, "pid": os.getpid(), "machine": socket.gethostname(),
                    "started": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")}))
            except OSError as e:
                raise BookError(f"cannot write {holder} ({e.strerror or e}): make the folder writable "
                                "and run again") from None
            for tmp in self.folder.rglob(f"*{TMP}"):
                with suppress(OSError):  # a leftover that will not go is harmless; the next hold retries
                    tmp.unlink()
            self._held = 1
            yield
        finally:
            self._held = 0
            with suppress(OSError):  # the lock, not this file, is what keeps others out
                holder.unlink(missing_ok=True)
            lock.release()

    def _holder(self) -> str:
        try:
            h = json.loads((self.folder / HOLDER).read_text())
            return f"`{h['command']}` (process {h['pid']} on {h['machine']}, started {h['started']})"
        except (OSError, ValueError, KeyError, TypeError):  # written a moment after the lock is taken
            return "a sheets-host command that has not said which yet"
