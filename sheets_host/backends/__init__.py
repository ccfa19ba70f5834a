"""Where books live. A backend hands out `Book`s by role; a book reads and writes whole tabs.

Roles name a book by what it is for: ``host``, ``public``, ``player:<name>`` (and, for games that
need them, other ``kind:<name>`` books such as a meadow's). Everything else is the engine's.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Protocol

import pandas as pd

from sheets_host.kit.cells import column_letter, fit, fold, is_blank
from sheets_host.kit.layout import TabLayout

# The engine's own bookkeeping in every book it delivers to (what it last delivered), kept out of
# the players' way: written hidden, and only by a delivery.
ENGINE_TAB = "sheets-host"


class Book(Protocol):
    """One spreadsheet. `read` and `write` each cost one request on Google Sheets.

    Tab names are matched as people type them (`match_tab`): a tab the host renamed `Submit ` is
    still the `submit` tab, read under its wanted name and written in place.
    """

    ref: str  # a path or spreadsheet URL, for messages

    def read(self, tabs: Sequence[str] | None = None, *, formulas: bool = False) -> dict[str, pd.DataFrame]:
        """The named tabs (all when None) as frames; a tab that does not exist is left out.

        `formulas=True` returns a formula as its text (``'=A1+1'``) instead of its value: used
        for players' books, so a formula is reported and archived as typed.
        """

    def write(self, tabs: Mapping[str, pd.DataFrame], *, append: Mapping[str, pd.DataFrame] = {},
              layouts: Mapping[str, TabLayout] = {}, protect: Mapping[str, bool] = {},
              hidden: Collection[str] = (), shown: Mapping[str, pd.DataFrame] = {},
              remove: Collection[str] = (), first: Sequence[str] = ()) -> None:
        """Replace the whole content of each tab in `tabs` (creating it if needed), other tabs untouched,
        and add the rows of each frame in `append` after the last row of its tab (a tab not there
        yet is created with the frame's header), so a log that only grows costs only its new rows;
        all in one request on Google Sheets.

        Each tab written whole is formatted by its layout in `layouts`, else by `lay_out(frame)`. A
        tab appended to that is in both `layouts` and `shown` is laid out as if written whole: its
        layout is the whole tab's (`lay_out` of what it held, `shown`, with the new rows under it),
        whose fills, heights, number formats and wrapping the new rows take (`appended_layout`), and
        a column it makes wider is widened, never narrowed;
        `protect` locks (True) or unlocks (False) tabs so that only the host can edit them; tabs
        named in `hidden` are created hidden. `shown` gives what tabs of `tabs` held when this command
        read them (or last wrote them): a backend may then send only the rows that changed; of a
        tab appended to, where its new rows stand in its layout. Tabs
        named in `remove` (and not written) are deleted, those not there ignored. The tabs named in
        `first` (those there once written) come first in the book, in that order, the others after
        them in the order they had. Raises BookError (naming the book and what to do)
        when the book cannot be written; the book is then as it was."""

    def check_writable(self) -> None:
        """Raise BookError naming the book and what to do if a write would fail now (a spreadsheet
        program holds it, the file or folder is read-only); checked for every book before a
        command commits anything."""


class Backend(Protocol):
    name: str
    in_flight: int  # books read or written at once once the game is held (`in_flight.each_book`)

    def hold(self, command: str) -> AbstractContextManager[None]:
        """Exclusive hold on the game for one command, so two commands never both commit; raises
        BusyError naming the command (and process, machine, start time) that holds it.

        Offline an OS lock on the game folder, held until the block ends (a second command waits a
        few seconds, then refuses). On Google Sheets a lease in the host book, taken atomically,
        released by the next host write (the commit) or when the block ends; a lease left by a
        command that died expires after a few minutes."""

    def existing(self) -> list[str]:
        """Books already there that `new` would replace (their paths or URLs)."""

    def discard(self) -> None:
        """Remove the books `existing` lists (`new --force`), so no old player book is left behind."""

    def begin_new(self, key: str) -> bool:
        """Before `new` creates a book: take over what an identical `new` (same `key`) made, so that
        running a `new` killed halfway again finishes it; True when that `new` had committed (the
        game is there; only its delivery may be owed). Offline a book is first written by the
        commit: False."""

    def abandon_new(self) -> str:
        """`new` refused before its commit: remove every book it made. What was left, in words for
        the host ("" when nothing)."""

    def book(self, role: str) -> Book:
        """The existing book for `role`; raises BookError when there is none."""

    def changed(self, roles: Collection[str], since: object = None) -> tuple[set[str], object]:
        """Which of `roles`' books changed since `since` (a mark this method returned; None: all of
        them, nothing being known yet), and the mark to pass next time, as of this call: a book read
        after this call and not in the next answer has not changed since it was read.
        A change is anyone's: a player typing, this tool's own writes. On Google Sheets one Drive
        request (its change log, from the token the mark is: Google's own cursor, so no clock is
        compared); offline none (each file's modification time, size and inode)."""

    def create(self, role: str, title: str, readers: Sequence[str] = (), public: bool = False) -> Book:
        """A new, empty book for `role`, shared with `readers` (emails) or with anyone (public)."""

    def refs(self) -> dict[str, str]:
        """role -> reference of every book this backend knows, to record in the host book."""

    def output_dir(self) -> Path:
        """A local folder for announcements and pictures the host posts by hand."""


def match_tab(name: str, existing: Iterable[str]) -> str | None:
    """The existing tab that a wanted tab name refers to: the exact name, else the only one equal
    to it ignoring case, spaces, '_' and '-'; None when there is none.

    >>> match_tab("submit", ["Submit ", "status"]), match_tab("my stones", ["My_Stones"])
    ('Submit ', 'My_Stones')
    >>> match_tab("submit", ["status"]) is None
    True
    """
    names = list(existing)
    if name in names:
        return name
    close = [n for n in names if fold(n) == fold(name)]
    return close[0] if len(close) == 1 else None


def book_of(role: str) -> str:
    """A role's book in words, for messages.

    >>> book_of("player:Ann"), book_of("public"), book_of("meadow:red")
    ("Ann's book", 'the public book', "meadow red's book")
    """
    kind, _, name = role.partition(":")
    if not name:
        return f"the {kind} book"
    return f"{name}'s book" if kind == "player" else f"{kind} {name}'s book"


# Names Windows keeps for devices, whatever the extension (CON.xlsx is the console).
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"{d}{i}" for d in ("COM", "LPT") for i in "0123456789¹²³")}


def role_file(role: str) -> str:
    r"""File stem of a role, safe on every file system and distinct for distinct names.

    Only what some file system refuses is replaced (and then a short hash of the name is added, so
    that `a/b` and `a\b` stay apart); letters of every script are kept.

    >>> role_file("host"), role_file("player:Ann Lee"), role_file("meadow:red")
    ('host', 'players/Ann Lee', 'meadows/red')
    >>> role_file("player:Zoë"), role_file("player:李")
    ('players/Zoë', 'players/李')
    >>> role_file("player:a/b"), role_file("player:a\\b"), role_file("player:con"), role_file("player: .x. ")
    ('players/a_b-c14cdd', 'players/a_b-c62016', 'players/_con-1143da', 'players/x-ae59b9')
    """
    if ":" not in role:
        return role
    kind, name = role.split(":", 1)
    name = unicodedata.normalize("NFC", name)
    # 60 characters of at most 4 bytes, the hash and ".xlsx" fit the usual 255-byte limit.
    safe = re.sub(r'[/\\:*?"<>|\x00-\x1f\x7f]', "_", name)[:60].strip(". ")
    if safe.split(".")[0].rstrip(" ").upper() in _RESERVED:
        safe = "_" + safe
    if safe != name or not safe:
        safe = f"{safe or '_'}-{hashlib.sha256(name.encode()).hexdigest()[:6]}"
    return f"{kind}s/{safe}"


def written_header(frame: pd.DataFrame) -> list[str]:
    """A tab's header as written: a blank header cell is read back named by its column letter
    (`frame_from_rows`).

    >>> written_header(pd.DataFrame(columns=["day", "(B)", "(D)"]))
    ['day', '', '(D)']
    """
    return ["" if str(c) == f"({column_letter(i)})" else str(c) for i, c in enumerate(frame.columns)]


def frame_from_rows(rows: Sequence[Sequence[object]]) -> pd.DataFrame:
    """A tab's rows (header first) as a frame whose index is the sheet row number.

    Wholly blank rows are dropped (their numbers are skipped), so messages keep naming the row the
    person sees. Header cells are trimmed; a blank header cell above data is named by its column
    letter in brackets, so nothing typed is dropped (a header typed over or moved down a row is
    found by the engine among the rows).

    >>> frame_from_rows([["site", " power "], [3, "5"], [None, ""], ["4", None]])
      site power
    2    3     5
    4    4  None
    >>> list(frame_from_rows([["My title"], ["kind", None, "site"], ["stone", "x", 3]]).columns)
    ['My title', '(B)', '(C)']
    """
    if not rows:
        return pd.DataFrame()
    rows = [[None if is_blank(c) else c for c in r] for r in rows]  # each cell asked once
    width = 0
    for row in rows:
        width = next((i + 1 for i in range(len(row) - 1, width - 1, -1) if row[i] is not None), width)
    header = [(" ".join(str(_plain(h)).split()) if h is not None else f"({column_letter(i)})")
              for i, h in enumerate(rows[0][:width] + [None] * (width - len(rows[0])))]
    body, index = [], []
    for number, row in enumerate(rows[1:], start=2):
        cells = row[:width] + [None] * (width - len(row))
        if any(c is not None for c in cells):
            body.append(cells)
            index.append(number)
    return pd.DataFrame(body, columns=header, index=index, dtype=object)


def rows_from_frame(frame: pd.DataFrame) -> list[list[object]]:
    """Header + rows of plain Python values (None for blanks), ready for any backend: a text
    longer than every program's cell holds is cut, saying so (`cells.fit`), wherever it came from
    (a player's row in `my submissions`, a message quoting it), so no typed input stops a write.

    >>> rows_from_frame(pd.DataFrame([[3.0, 2**60, float("nan")]], columns=["a", "b", 7]))
    [['a', 'b', '7'], [3, '1152921504606846976', None]]
    >>> rows_from_frame(pd.DataFrame([["x" * 40_000]], columns=["typed"]))[1][0][-25:]
    'x… (7,258 characters cut)'
    """
    rows: list[list[object]] = [[fit(str(_plain(c))) for c in frame.columns]]
    # The values in one step rather than a column at a time: itertuples is slow on wide frames.
    rows += [[_plain(v) for v in row] for row in frame.to_numpy(dtype=object).tolist()]
    return rows


def _plain(value: object) -> object:
    if type(value) is str:  # the common kind first: every cell written comes here
        return fit(value)
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalar -> Python
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        # A spreadsheet keeps 15 digits of a number, and str() refuses an int past 4,300: its
        # digits as text, through Decimal, which has no such limit.
        value = str(Decimal(value))
    return fit(value) if isinstance(value, str) else value


def appended_layout(layout: TabLayout, before: int) -> TabLayout:
    """The look of rows appended under a tab's `before` body rows, from `layout`, the whole tab's
    as it would be written whole: its fills and heights moved up so that the first appended row is
    row 1, as the first row under the header (row 0, which an append leaves alone).

    >>> tab = TabLayout((), fills={(0, 0): "D9E2F3", (3, 1): "F8D7DA"}, heights={1: 40.0, 4: 27.75})
    >>> rows = appended_layout(tab, 2)
    >>> rows.fills, rows.heights
    ({(1, 1): 'F8D7DA'}, {2: 27.75})
    """
    return replace(layout, input_rows=0, fills={(r - before, c): v for (r, c), v in layout.fills.items() if r > before},
                   heights={r - before: h for r, h in layout.heights.items() if r > before})
