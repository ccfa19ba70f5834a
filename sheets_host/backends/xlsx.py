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

import io
import json
import os
import re
import socket
import stat
import tempfile
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
from filelock import FileLock, Timeout

from ..cells import column_letter
from ..errors import BookError, BusyError
from ..layout import (
    TabLayout,
    lay_out,
)
from . import frame_from_rows, match_tab, role_file, rows_from_frame
from .ooxml import (
    CT_COMMENTS,
    CT_VML,
    CT_WORKSHEET,
    DOC_REL,
    ILLEGAL_CHARACTERS_RE,
    PKG_REL,
    _Package,
    _relative,
    _rels_part,
    _root_ok,
    _Sheet,
    _Unsupported,
    _Workbook,
)
from .ooxml_tabs import (
    _FORMULA,
    LISTS_TAB,
    _any_digits,
    _append_xml,
    _cell,
    _comments,
    _last_row,
    _Lists,
    _lists_layout,
    _long_int,
    _protected,
    _protection,
    _protection_element,
    _Render,
    _render,
    _selected,
    _Styles,
    _unescape,
    _Values,
    _vml,
)

LOCK = ".sheets-host.lock"
HOLDER = ".sheets-host.holder"  # who holds the lock: filelock may truncate the lock file itself
TMP = ".xlsx.tmp"
CELL_LIMIT = 32_767  # Excel's; a longer string would be cut or refused by spreadsheet programs
CLOSE = "close it there and run again"


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
              hidden: Collection[str] = (), shown: Mapping[str, pd.DataFrame] = {}) -> None:
        """`Book.write`; `shown` is not used: a tab changed is a part of the file written anew,
        which costs no request."""
        for name in [*tabs, *append]:
            if not name or len(name) > 31 or re.search(r"[\[\]:*?/\\\x00-\x1f]", name) or name[0] == "'" or name[-1] == "'":
                raise BookError(f"{self.path}: {name!r} cannot name a tab (at most 31 characters, none of "
                                "[ ] : * ? / \\, not starting or ending with '); nothing was written")
        whole = {name: self._clean(name, rows_from_frame(frame)) for name, frame in tabs.items()}  # checks first
        for name, frame in append.items():
            if name in whole:  # a tab written whole and appended to: the rows go under it
                whole[name] += self._clean(name, rows_from_frame(frame)[1:], len(whole[name]) + 1)
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
            rows = rows_from_frame(frame)
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
