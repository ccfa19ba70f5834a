"""The parts of an .xlsx file as text: XML escaping and attributes, the zip package and its
relationships, the workbook part (its sheet list). Edited as text so that every part the
offline backend does not rewrite is kept byte for byte (see `backends.xlsx_edit`)."""

from __future__ import annotations

import html
import io
import posixpath
import re
import zipfile
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from sheets_host.backends import match_tab

ZIP_LEVEL = 6
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
DOC_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
CT_WORKSHEET = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
CT_COMMENTS = "application/vnd.openxmlformats-officedocument.spreadsheetml.comments+xml"
CT_VML = "application/vnd.openxmlformats-officedocument.vmlDrawing"


# Characters an .xlsx file cannot hold: control characters (pasted on Google, say), lone surrogates.
ILLEGAL_CHARACTERS_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")  # how Excel stores a character XML cannot hold
_ESCAPE_START = re.compile(r"_(?=x[0-9A-Fa-f]{4}_)")


class _Unsupported(Exception):
    """XML that the text-level editing here does not handle: the book is rewritten by openpyxl first."""


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
    # A typed `_x0041_` stays those characters: each `_` that starts such a code is itself escaped,
    # the one a code ends with too when it starts the next (`_x005F_x0041_`), as readers decode
    # left to right.
    value = _ESCAPE_START.sub("_x005F_", value)
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

    def copy(self) -> _Package:
        """Another package of the same file to edit, with the parts read so far: an edit replaces
        a part, never changes one, so the two share them."""
        other = object.__new__(_Package)
        other._zip, other._parts, other._names = self._zip, dict(self._parts), dict(self._names)
        other._types_added, other._types_removed = dict(self._types_added), set(self._types_removed)
        other._rels_cache = dict(self._rels_cache)
        return other

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

    def remove(self, sheet: _Sheet) -> None:
        """Drop a sheet: its relationship (its part, and what hangs on it, go when nothing else
        refers to them) and the names defined on it; the names on later sheets and the active tab
        follow their sheets, which move down one place."""
        at = self.sheets.index(sheet)
        del self.sheets[at]
        self.drop_rel(self.rels[sheet.rid])
        self.active = self.active - 1 if self.active > at else 0 if self.active == at else self.active

        def moved(m: re.Match) -> str:
            local = _attrs(m[1]).get("localSheetId", "")
            if not local.isdigit() or int(local) < at:
                return m[0]
            return "" if int(local) == at else m[0].replace(m[1], _set_attr(m[1], "localSheetId", str(int(local) - 1)), 1)

        # definedNames come after the sheets element, so its span stays where it is.
        self.text = re.sub(r"(<definedName\b[^>]*?/?>)(?:(?<=/>)|.*?</definedName>)", moved, self.text, flags=re.DOTALL)

    def put_first(self, names: Sequence[str]) -> None:
        """The sheets named (those there) first, in that order, the others after them in theirs;
        the names defined on a sheet and the active tab follow their sheets."""
        front: list[_Sheet] = []
        for sheet in (self.find(n) for n in names):
            if sheet is not None and all(sheet is not f for f in front):
                front.append(sheet)
        order = front + [s for s in self.sheets if all(s is not f for f in front)]
        if all(a is b for a, b in zip(order, self.sheets)):
            return
        moved = {old: next(i for i, s in enumerate(order) if s is sheet) for old, sheet in enumerate(self.sheets)}
        self.active = moved.get(self.active, 0)
        self.sheets = order

        def local(m: re.Match) -> str:
            at = _attrs(m[1]).get("localSheetId", "")
            if not at.isdigit() or int(at) not in moved:
                return m[0]
            return m[0].replace(m[1], _set_attr(m[1], "localSheetId", str(moved[int(at)])), 1)

        self.text = re.sub(r"(<definedName\b[^>]*?/?>)(?:(?<=/>)|.*?</definedName>)", local, self.text, flags=re.DOTALL)

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
