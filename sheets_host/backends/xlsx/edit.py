"""The write of an offline book (`backends.xlsx`): its file rebuilt in memory, by a mixin of XlsxBook.

An .xlsx file is a zip of XML parts, one per sheet. `XlsxBook.write` rebuilds the zip in memory: the
sheets it is asked to write are rendered anew from their frames and layouts (`_render`);
every other part is copied byte for byte, so a player's own submit tab, a tab the host added, its
formulas, styles, comments, charts, protection and hidden state are kept exactly. Around them only
a few things are edited as text: the sheet list in workbook.xml (new tabs, hidden state, the active
tab), styles appended to styles.xml (existing style numbers never move), a tab's protection flag,
which tab is selected, rows added at the end of a tab (`append`), tabs removed (`remove`), and parts
nothing refers to any more dropped. A book whose XML this editing does not know (prefixed element names, strict OOXML,
no styles part...) is first rewritten by openpyxl, then edited the same way (`_Unsupported`).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import pandas as pd

from sheets_host.backends import rows_from_frame
from sheets_host.kit.layout import TabLayout, lay_out
from .ooxml import (CT_COMMENTS, CT_VML, CT_WORKSHEET, DOC_REL, PKG_REL, _Package, _relative, _rels_part, _root_ok,
                    _Sheet, _Unsupported, _Workbook)
from .ooxml_render import _comments, _protection_element, _Render, _render, _vml
from .ooxml_styles import _Styles
from .ooxml_tabs import (_FORMULA, LISTS_TAB, _append_xml, _cell, _last_row, _Lists, _lists_layout, _long_int,
                         _protected, _protection, _selected, _Values)


class XlsxEditing:
    """The edit of a book's package that `XlsxBook.write` makes, mixed into XlsxBook."""

    path: Path
    _opening: Callable[[], AbstractContextManager[None]]
    _clean: Callable[..., list[list[object]]]
    _parsed: Callable[[bytes], tuple[_Package, dict[str, list[list[object]]]]]

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
              hidden: Collection[str], remove: Collection[str] = (), placed: Mapping[str, TabLayout] = {},
              first: Sequence[str] = ()) -> bytes:
        """The new content of the book file (see the module's doc); `placed` lays out the rows
        appended to a tab of `grow` (`appended_layout`); the tabs named in `first` come first."""
        with self._opening():
            if data is None:
                pkg, values = _Package(None), None
            else:
                read, seen = self._parsed(data)
                pkg = read.copy()
                values = _Values(data, pkg, self.path, seen)
            book = _Workbook(pkg)
            styles = _Styles(pkg, book)
        try:
            return self._edited(pkg, book, styles, values, whole, looks, grow, layouts, protect, hidden, remove, placed,
                                first)
        finally:
            if values is not None:
                values.close()

    def _edited(self, pkg: _Package, book: _Workbook, styles: _Styles, values: _Values | None,
                whole, looks, grow, layouts, protect, hidden, remove, placed, first) -> bytes:
        renders: dict[str, _Render] = {}
        appends: dict[str, tuple[_Sheet, int, list[list[object]], TabLayout | None]] = {}
        formulas_gone = False
        removed = False
        for name in [n for n in remove if n not in whole and n not in grow]:
            if (sheet := book.find(name)) is not None:
                if pkg.has(sheet.part):
                    formulas_gone |= bool(_FORMULA.search(pkg.get(sheet.part)))
                book.remove(sheet)
                removed = True

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
            rows = rows_from_frame(frame)
            sheet = book.find(name)
            if sheet is not None and sheet.name in renders:
                renders[sheet.name].rows += self._clean(rows[1:])
                continue
            if sheet is not None and sheet.kind == "worksheet" and not sheet.new and values is not None:
                with self._opening():
                    last = _last_row(values.rows(sheet))
                if last:  # the header there is left alone
                    appends[sheet.name] = (sheet, last, self._clean(rows[1:]), placed.get(name))
                    continue
            sheet = target(name)
            renders[sheet.name] = _Render(sheet, self._clean(rows),
                                          layouts[name] if name in layouts else lay_out(frame), name)

        locks: dict[str, bool] = {}
        for name, on in protect.items():
            sheet = book.find(name)
            if sheet is not None:
                locks[sheet.name] = on

        lists: _Lists | None = None

        def render(job: _Render) -> None:
            nonlocal formulas_gone
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
        for sheet, last, rows, layout in appends.values():
            text = pkg.text(sheet.part)
            if not _root_ok(text, "worksheet"):
                raise _Unsupported("worksheet root")
            text = _append_xml(text, last, rows, styles, layout)
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
            render(_Render(sheet, self._clean(rows), _lists_layout(rows), LISTS_TAB))
        if formulas_gone and (chain := book.rel_of("calcChain")) is not None:
            book.drop_rel(chain)  # it lists formula cells that are no more: Excel would call the file damaged

        if not book.sheets:
            render(_Render(book.add("info"), [], TabLayout(()), "info"))
        book.put_first(first)
        self._show_one(pkg, book)
        if removed or any(s.new for s in book.sheets):
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
