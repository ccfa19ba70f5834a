"""Where books live. A backend hands out `Book`s by role; a book reads and writes whole tabs.

Roles name a book by what it is for: ``host``, ``public``, ``player:<name>`` (and, for games that
need them, other ``kind:<name>`` books such as a meadow's). Everything else is the engine's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

import pandas as pd

from ..cells import is_blank


class Book(Protocol):
    """One spreadsheet. `read` and `write` each cost one request on Google Sheets."""

    ref: str  # a path or spreadsheet URL, for messages

    def read(self, tabs: Sequence[str] | None = None, *, formulas: bool = False) -> dict[str, pd.DataFrame]:
        """The named tabs (all when None) as frames; a tab that does not exist is left out.

        `formulas=True` returns a formula as its text (``'=A1+1'``) instead of its value: used
        for players' books, so a formula is reported and archived as typed.
        """

    def write(self, tabs: Mapping[str, pd.DataFrame], *, protect: Mapping[str, bool] = {}) -> None:
        """Replace the whole content of each named tab (creating it if needed), other tabs untouched;
        `protect` locks (True) or unlocks (False) tabs so that only the host can edit them."""


class Backend(Protocol):
    name: str

    def book(self, role: str) -> Book:
        """The existing book for `role`; raises BookError when there is none."""

    def create(self, role: str, title: str, readers: Sequence[str] = (), public: bool = False) -> Book:
        """A new, empty book for `role`, shared with `readers` (emails) or with anyone (public)."""

    def refs(self) -> dict[str, str]:
        """role -> reference of every book this backend knows, to record in the host book."""

    def output_dir(self) -> Path:
        """A local folder for announcements and pictures the host posts by hand."""


def role_file(role: str) -> str:
    """File stem of a role, safe on every file system.

    >>> role_file("host"), role_file("player:Ann Lee"), role_file("meadow:red")
    ('host', 'players/Ann Lee', 'meadows/red')
    """
    if ":" not in role:
        return role
    kind, name = role.split(":", 1)
    return f"{kind}s/{re.sub(r'[^A-Za-z0-9 _.-]', '_', name).strip() or '_'}"


def frame_from_rows(rows: Sequence[Sequence[object]]) -> pd.DataFrame:
    """A tab's rows (header first) as a frame whose index is the sheet row number.

    Wholly blank rows are dropped (their numbers are skipped), so messages keep naming the row the
    person sees. Header cells are trimmed.

    >>> frame_from_rows([["site", " power "], [3, "5"], [None, ""], ["4", None]])
      site power
    2    3     5
    4    4  None
    """
    if not rows:
        return pd.DataFrame()
    width = max(len(r) for r in rows)
    header = [(" ".join(str(h).split()) if not is_blank(h) else "") for h in rows[0]] + [""] * (width - len(rows[0]))
    while header and header[-1] == "":
        header.pop()
    width = len(header)
    body, index = [], []
    for number, row in enumerate(rows[1:], start=2):
        cells = list(row[:width]) + [None] * (width - len(row))
        cells = [None if is_blank(c) else c for c in cells]
        if any(c is not None for c in cells):
            body.append(cells)
            index.append(number)
    return pd.DataFrame(body, columns=header, index=index, dtype=object)


def rows_from_frame(frame: pd.DataFrame) -> list[list[object]]:
    """Header + rows of plain Python values (None for blanks), ready for any backend."""
    rows: list[list[object]] = [[str(c) for c in frame.columns]]
    for row in frame.itertuples(index=False, name=None):
        rows.append([_plain(v) for v in row])
    return rows


def _plain(value: object) -> object:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalar -> Python
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def open_backend(kind: str, where: str, **options) -> Backend:
    """The backend of `kind` ('xlsx' or 'gsheets') for a game at `where`."""
    if kind == "xlsx":
        from .xlsx import XlsxBackend

        return XlsxBackend(Path(where))
    if kind == "gsheets":
        from .gsheets import GoogleBackend

        return GoogleBackend.from_where(where, **options)
    from ..errors import BookError

    raise BookError(f"unknown backend {kind!r}; allowed: xlsx, gsheets")
