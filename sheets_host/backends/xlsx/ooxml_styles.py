"""styles.xml of an .xlsx file as text: the cell formats a tab's layout needs, appended (or found)
once, existing ones never moved (see `backends.xlsx_edit`)."""

from __future__ import annotations

import re
from typing import ClassVar

from sheets_host.kit.layout import NUMBER_FORMATS
from .ooxml import _attrs, _esc_attr, _Package, _root_ok, _set_attr, _Unsupported, _Workbook

_BUILTIN_FORMATS = {"General": 0, "0": 1, "0.00": 2, "#,##0": 3, "#,##0.00": 4, "0%": 9, "0.00%": 10,
                    "0.00E+00": 11, "mm-dd-yy": 14, "h:mm": 20, "h:mm:ss": 21, "m/d/yy h:mm": 22, "@": 49}
# The number formats the tool gives a value that is not a date or time (`layout`): a cell written
# with another one, a date typed there by a person, would show and read a number as something else.
PLAIN_FORMATS = frozenset({"General", "#,##0.##", *NUMBER_FORMATS})  # and #,##0.## of books written before


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
        self._like: dict[tuple[int, str | None], int] = {}

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
           align: str | None = None, wrap: bool = False, indent: bool = False) -> int:
        """The number of the cell format; 0 (the book's default) when nothing is asked."""
        if fill is not None:
            fill = fill.lstrip("#").upper()
            fill = fill if re.fullmatch(r"[0-9A-F]{6}|[0-9A-F]{8}", fill) else None
        key = (bold, fill, number_format, align, wrap, indent)
        if key not in self._xfs:
            if not any(key) and self._code(0) == "General":
                self._xfs[key] = 0
            else:  # the book's default, unless another program gave it a number format
                fmt = self._format(number_format)
                font = self._bold() if bold else 0
                fill_id = self._add("fills", f'<fill><patternFill patternType="solid"><fgColor rgb="{fill.rjust(8, "F")}"/>'
                                             '<bgColor indexed="64"/></patternFill></fill>') if fill else 0
                xf = f'<xf numFmtId="{fmt}" fontId="{font}" fillId="{fill_id}" borderId="0" xfId="0"'
                xf += ' applyNumberFormat="1"' * bool(fmt) + ' applyFont="1"' * bool(font) + ' applyFill="1"' * bool(fill_id)
                # Top-aligned: a label beside wrapped text starts on its first line, not at the row's bottom.
                xf += ' applyAlignment="1"><alignment' + (f' horizontal="{align}"' if align else "")
                xf += ' indent="1"' * indent + ' vertical="top"' + ' wrapText="1"' * wrap + "/></xf>"
                self._xfs[key] = self._add("cellXfs", xf)
        return self._xfs[key]

    def _code(self, s: int) -> str | None:
        """The number format of cell format `s` (None for one the tool does not know)."""
        xfs = self.items["cellXfs"]
        number = _attrs(re.match(r"<xf\b[^>]*", xfs[s])[0]).get("numFmtId", "0") if s < len(xfs) else "0"
        if not number.isdigit():
            return None
        return next((code for code, n in [*_BUILTIN_FORMATS.items(), *self.formats.items()] if n == int(number)), None)

    def wraps(self, s: int) -> bool:
        """Whether cell format `s` wraps its text."""
        xfs = self.items["cellXfs"]
        return s < len(xfs) and re.search(r'<alignment\b[^>]*\bwrapText="(?:1|true)"', xfs[s]) is not None

    def like(self, s: int, number_format: str | None = None) -> int:
        """Cell format `s` (font, fill, borders, alignment, protection: how the cell above an
        appended row looks) with a number format the tool chose: `number_format` (a date's or a
        time's), else `s`'s own when it is one the tool gives plain values, else General."""
        key = (s, number_format)
        if key not in self._like:
            xfs = self.items["cellXfs"]
            code = self._code(s)
            want = number_format or (code if code in PLAIN_FORMATS else "General")
            if s >= len(xfs):
                self._like[key] = self.xf(number_format=None if want == "General" else want)
            elif want == code:
                self._like[key] = s
            else:
                tag = re.match(r"<xf\b[^>]*?(?=/?>)", xfs[s])[0]
                new = _set_attr(_set_attr(tag + ">", "numFmtId", str(self._format(want))), "applyNumberFormat", "1")
                self._like[key] = self._add("cellXfs", new[:-1] + xfs[s][len(tag):])
        return self._like[key]

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
