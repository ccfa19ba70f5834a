"""Offline books: one .xlsx file per book in a folder (host.xlsx, public.xlsx, players/<name>.xlsx).

Strings are always stored as text: openpyxl would otherwise turn a player's ``=...`` into a
formula. Files are replaced atomically, so a crash mid-write leaves the old file whole.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import openpyxl
import pandas as pd
from openpyxl.cell.cell import TYPE_STRING

from ..errors import BookError
from . import frame_from_rows, role_file, rows_from_frame


class XlsxBook:
    def __init__(self, path: Path, ref: str):
        self.path = path
        self.ref = ref  # relative to the game folder, so the folder can move

    def _load(self, read_only: bool):
        try:
            return openpyxl.load_workbook(self.path, read_only=read_only, data_only=False)
        except FileNotFoundError:
            raise BookError(f"no book at {self.path}") from None
        except Exception as e:  # a corrupt or non-xlsx file
            raise BookError(f"cannot read {self.path}: {e}") from None

    def tabs(self) -> list[str]:
        wb = self._load(read_only=True)
        try:
            return list(wb.sheetnames)
        finally:
            wb.close()

    def read(self, tabs: Sequence[str] | None = None, *, formulas: bool = False) -> dict[str, pd.DataFrame]:
        # A formula cell comes back as its text either way: offline files hold no values
        # computed by us, so the text is the only honest reading.
        wb = self._load(read_only=True)
        try:
            names = wb.sheetnames if tabs is None else [t for t in tabs if t in wb.sheetnames]
            return {n: frame_from_rows([list(r) for r in wb[n].iter_rows(values_only=True)]) for n in names}
        finally:
            wb.close()

    def write(self, tabs: Mapping[str, pd.DataFrame], *, protect: Mapping[str, bool] = {}) -> None:
        if self.path.exists():
            wb = self._load(read_only=False)
        else:
            wb = openpyxl.Workbook()
            wb.remove(wb.active)
        for name, frame in tabs.items():
            if name in wb.sheetnames:
                index = wb.sheetnames.index(name)
                wb.remove(wb[name])
                ws = wb.create_sheet(name, index)
            else:
                ws = wb.create_sheet(name)
            for row in rows_from_frame(frame):
                ws.append(row)
            for row in ws.iter_rows():
                for cell in row:
                    if isinstance(cell.value, str):
                        cell.data_type = TYPE_STRING
        for name, locked in protect.items():
            if name in wb.sheetnames:
                wb[name].protection.sheet = locked
        if not wb.sheetnames:
            wb.create_sheet("info")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".xlsx.tmp")
        os.close(fd)
        try:
            wb.save(tmp)
            os.replace(tmp, self.path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)


class XlsxBackend:
    name = "xlsx"

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def _book(self, role: str) -> XlsxBook:
        ref = f"{role_file(role)}.xlsx"
        return XlsxBook(self.folder / ref, ref)

    def book(self, role: str) -> XlsxBook:
        book = self._book(role)
        if not book.path.exists():
            raise BookError(f"no book for {role!r}: {book.path} does not exist")
        return book

    def create(self, role: str, title: str, readers: Sequence[str] = (), public: bool = False) -> XlsxBook:
        book = self._book(role)
        if book.path.exists():
            book.path.unlink()
        return book

    def refs(self) -> dict[str, str]:
        return {}

    def output_dir(self) -> Path:
        return self.folder / "announcements"
