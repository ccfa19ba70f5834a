"""Offline books: one .xlsx file per book in a folder (host.xlsx, public.xlsx, players/<name>.xlsx).

Strings are always stored as text (inline strings): a player's ``=...`` never becomes a formula.
Files are replaced atomically, so a crash mid-write leaves the old file whole; every failure a
host can meet is a one-line BookError saying what to do.

A write rebuilds the file in memory, copying byte for byte every part it does not rewrite
(`backends.xlsx_edit`).

Reads use python-calamine for a sheet's values; a sheet whose XML holds a formula, an error cell or
a number of more than 15 digits is read by openpyxl instead, which gives a formula as its text
(``'=A1+1'``) and a long number exactly, and so is a sheet calamine fails on (it panics, a
BaseException, on a huge number under a date format); a sheet neither reads is a one-line
BookError naming the book and the tab. A formula a program computed from a constant and stored the
value of (LibreOffice saves a yes/no cell as ``=TRUE()``) reads as that value
(`ooxml_tabs._computed`).
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

from sheets_host.backends import appended_layout, book_of, frame_from_rows, match_tab, role_file, rows_from_frame
from sheets_host.kit.cells import fold
from sheets_host.kit.errors import BookError, BusyError
from sheets_host.kit.layout import TabLayout, lay_out
from .edit import XlsxEditing
from .ooxml import ILLEGAL_CHARACTERS_RE, _Package, _Unsupported, _Workbook
from .ooxml_tabs import LISTS_TAB, _any_digits, _openpyxl_rows, _reading, _Values

LOCK = ".sheets-host.lock"
HOLDER = ".sheets-host.holder"  # who holds the lock: filelock may truncate the lock file itself
TMP = ".xlsx.tmp"
CLOSE = "close it there and run again"
# Files a spreadsheet program or a person may have saved a book as.
SPREADSHEETS = (".xlsx", ".xlsm", ".xls", ".ods", ".csv", ".numbers")
# What programs and people add to a copy's name: "Copy of Ann" (Google Drive), "Ann (1)" (a
# browser's download, a sync conflict's note), "Ann copy 2" (macOS), "Ann - Copy" (Windows), "Ann-2".
_COPY_MARKS = (re.compile(r"copy(?: \d+)? of (.+)", re.I), re.compile(r"(.+?) *\([^()]*\)"),
               re.compile(r"(.+?)[ _-]*copy(?: *\d+)?", re.I), re.compile(r"(.+?)[ _-]+\d+"))


def copied_from(stem: str) -> set[str]:
    """The names (folded, as the tool matches names) a file stem may be a copy of: itself, and
    itself with each copy mark taken off, one after another.

    >>> sorted(copied_from("Copy of Ann (1)"))
    ['ann', 'ann(1)', 'copyofann', 'copyofann(1)']
    """
    found, todo = set(), [stem.strip()]
    while todo:
        name = todo.pop()
        if name and fold(name) not in found:
            found.add(fold(name))
            todo += [m[1].strip() for mark in _COPY_MARKS if (m := mark.fullmatch(name))]
    return found


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


class XlsxBook(XlsxEditing):
    def __init__(self, path: Path, ref: str):
        self.path = path
        self.ref = ref  # relative to the game folder, so the folder can move
        # The file as this book last read it, its package and the rows read of each sheet part: a
        # write of the same bytes (the command's own read, then its write) reuses them rather than
        # parse the file again.
        self._seen: tuple[bytes, _Package, dict[str, list[list[object]]]] | None = None

    def _parsed(self, data: bytes) -> tuple[_Package, dict[str, list[list[object]]]]:
        """`data`'s package (never to be edited: `_Package.copy`) and the rows read of its sheets,
        known already when this book read the very same bytes before."""
        if self._seen is None or self._seen[0] != data:
            self._seen = (data, _Package(data), {})
        return self._seen[1], self._seen[2]

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
        # A formula cell comes back as its text either way (but one computed from a constant, as
        # its value): offline files hold no values computed by us, so the text is the only honest reading.
        with self._opening():
            data = self.path.read_bytes()
            try:
                return self._read_package(data, tabs)
            except _Unsupported:
                return self._read_openpyxl(data, tabs)

    def _read_package(self, data: bytes, tabs: Sequence[str] | None) -> dict[str, pd.DataFrame]:
        pkg, seen = self._parsed(data)
        sheets = {s.name: s for s in _Workbook(pkg).sheets}
        names = ({n: n for n in sheets if n != LISTS_TAB} if tabs is None
                 else {t: match_tab(t, sheets) for t in tabs})
        values = _Values(data, pkg, self.path, seen)
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
            out = {}
            for want, have in names.items():
                if have is not None and hasattr(wb[have], "iter_rows"):
                    with _reading(self.path, have):
                        out[want] = frame_from_rows(_openpyxl_rows(wb[have]))
            return out
        finally:
            wb.close()

    # ---- writing ----------------------------------------------------------------------------------

    @staticmethod
    def _clean(rows: list[list[object]]) -> list[list[object]]:
        """Rows fit for an .xlsx cell each: without the characters no .xlsx holds (a text is
        already cut to what a cell holds, `rows_from_frame`)."""
        for row in rows:
            for c, value in enumerate(row):
                if isinstance(value, str):
                    row[c] = ILLEGAL_CHARACTERS_RE.sub("", value)
                elif value is pd.NaT:
                    row[c] = None
        return rows

    def write(self, tabs: Mapping[str, pd.DataFrame], *, append: Mapping[str, pd.DataFrame] = {},
              layouts: Mapping[str, TabLayout] = {}, protect: Mapping[str, bool] = {},
              hidden: Collection[str] = (), shown: Mapping[str, pd.DataFrame] = {},
              remove: Collection[str] = (), first: Sequence[str] = ()) -> None:
        """`Book.write`; `shown` places the rows appended in their tab's layout, and is not used
        otherwise: a tab changed is a part of the file written anew, which costs no request."""
        for name in [*tabs, *append]:
            if not name or len(name) > 31 or re.search(r"[\[\]:*?/\\\x00-\x1f]", name) or name[0] == "'" or name[-1] == "'":
                raise BookError(f"{self.path}: {name!r} cannot name a tab (at most 31 characters, none of "
                                "[ ] : * ? / \\, not starting or ending with '); nothing was written")
        whole = {name: self._clean(rows_from_frame(frame)) for name, frame in tabs.items()}
        for name, frame in append.items():
            if name in whole:  # a tab written whole and appended to: the rows go under it
                whole[name] += self._clean(rows_from_frame(frame)[1:])
        looks = {name: layouts[name] if name in layouts else lay_out(frame) for name, frame in tabs.items()}
        grow = {name: frame for name, frame in append.items() if name not in tabs}
        placed = {name: appended_layout(layouts[name], len(shown[name])) for name in grow if name in layouts and name in shown}
        data = None
        if self.path.exists():
            self._check_file()
            with self._opening():
                data = self.path.read_bytes()
        try:
            out = self._edit(data, whole, looks, grow, layouts, protect, hidden, remove, placed, first)
        except _Unsupported:
            try:
                out = self._edit(self._normalized(data), whole, looks, grow, layouts, protect, hidden, remove, placed,
                                 first)
            except _Unsupported as e:  # openpyxl's own output: not expected
                raise BookError(f"cannot write {self.path}: its content is not understood ({e}); open it in a "
                                "spreadsheet program and save it as .xlsx, or restore a copy") from None
        self._save(out)

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
    in_flight = 1  # openpyxl is CPU-bound: threads would only take turns

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
        return XlsxBook(self.folder / ref, ref)

    def book(self, role: str) -> XlsxBook:
        """The book for `role`; refused while a stray copy of it lies beside it (`strays`): the
        tool cannot tell which holds what the player typed, and after a resolve it would be late
        to ask, so a host moves one file rather than undoing a round."""
        book = self._book(role)
        strays = self.strays(role)
        if strays:
            files = ", ".join(strays)
            what = (f"{files} {'lies' if len(strays) == 1 else 'lie'} beside {book.ref}, {book_of(role)}, which "
                    "is the only file read" if book.path.exists() else f"{book.ref}, {book_of(role)}, is missing "
                    f"and {files} {'lies' if len(strays) == 1 else 'lie'} in its place")
            whose = role.partition(":")[2]
            held = f"what was typed for {whose}" if whose else f"the latest of {book_of(role)}"
            raise BookError(f"{what}: if {files} holds {held}, save it as {book.ref} (an .xlsx file, replacing the "
                            "old one); otherwise remove it; then run again. Nothing was read or written")
        if not book.path.exists():
            raise BookError(f"no book for {role!r}: {book.path} does not exist")
        return book

    def changed(self, roles: Collection[str], since: object = None) -> tuple[set[str], object]:
        """See `Backend.changed`: a file saved again has another modification time, size or inode
        (our writes replace the file); a missing one counts as changed."""
        marks = {}
        for role in roles:
            try:
                info = self._book(role).path.stat()
                marks[role] = (info.st_mtime_ns, info.st_size, info.st_ino)
            except OSError:
                marks[role] = None
        known = since if isinstance(since, dict) else {}
        return {r for r in roles if marks[r] is None or known.get(r) != marks[r]}, marks

    def strays(self, role: str) -> list[str]:
        """Files beside a role's book whose name is its name copied ("Ann (1).xlsx", "Copy of
        Ann.xlsx", "ann.xlsx", "host (1).xlsx") or saved as another kind of spreadsheet ("Ann.ods",
        "public.ods"); another book of the game is none. Paths relative to the folder."""
        book = self._book(role)
        folder = book.path.parent
        if not folder.is_dir():
            return []
        books = {self._book(r).path.name for r in self._refs} | {book.path.name}
        name = fold(book.path.stem)
        out = []
        for path in sorted(folder.iterdir()):
            if (path.name in books or path.name.startswith((".", "~$")) or path.suffix.lower() not in SPREADSHEETS
                    or name not in copied_from(path.stem) or not path.is_file()):
                continue
            if book.path.exists() and path.samefile(book.path):  # a file system ignoring case
                continue
            out.append(path.relative_to(self.folder).as_posix())
        return out

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
        books = [self.folder / f for f in ("host.xlsx", "public.xlsx", *self.strays("host"), *self.strays("public"))]
        if self.folder.is_dir():
            for sub in sorted(self.folder.iterdir()):
                if sub.is_dir() and sub.name.endswith("s"):  # players/, meadows/: role_file's <kind>s
                    # Copies in other formats too: left there, one would stop the new game as a stray.
                    books += sorted(p for p in sub.iterdir() if p.suffix.lower() in SPREADSHEETS)
        return [p.relative_to(self.folder).as_posix() for p in books
                if p.is_file() and not p.name.startswith(("~$", "."))]  # ~$, .~lock: programs' lock files

    def begin_new(self, key: str) -> bool:
        return False  # a book is first written by the commit (the host's) or after it

    def abandon_new(self) -> str:
        return ""

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
