"""Reading what a person typed into a cell: trimmed, any case, obvious variants accepted.

Everything a player writes is free text. These functions turn one cell into a typed value or
raise `CellError` with a message that quotes the cell and says what is allowed.

>>> as_int(" 7 ", 1, 21, "a site")
7
>>> as_int("Site #12", 1, 21, "a site")
12
>>> as_int("three", 1, 7, "a power")
3
>>> as_int("  ", 1, 21, "a site")
Traceback (most recent call last):
...
sheets_host.kit.cells.CellError: the cell is empty (a site: 1 to 21)
>>> as_int("=A1+1", 1, 7, "a power")
Traceback (most recent call last):
...
sheets_host.kit.cells.CellError: '=A1+1' is a formula; type the value itself (a power: 1 to 7)
>>> as_choice("  LIGHT ", ["light", "dark"], "an artefact")
'light'
>>> as_choice("drak", ["light", "dark"], "an artefact")
Traceback (most recent call last):
...
sheets_host.kit.cells.CellError: 'drak' is not an artefact (did you mean 'dark'?); allowed: light, dark

A message quotes a cell cut to about 40 characters, so a pasted essay cannot flood it:

>>> as_int("9" * 5000, 1, 21, "a site")
Traceback (most recent call last):
...
sheets_host.kit.cells.CellError: '999999999999999999999999999999999999999…' is out of range (a site: 1 to 21)
"""

from __future__ import annotations

import difflib
import functools
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import TypeVar

from .errors import SheetsHostError

_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_INT_IN_TEXT = re.compile(r"^[^\d+-]*?([+-]?\d+)(?:\.0+)?\s*$")
_MAX_DIGITS = 100  # more significant digits than this is out of any range a cell is read in
_QUOTED = 40  # the most characters of a cell a message quotes


T = TypeVar("T")


class CellError(SheetsHostError):
    """One cell's content is not allowed; the message quotes it and names what is. `expected`, when
    given, is what is allowed as a host tab's message says it ("... is not <expected>")."""

    def __init__(self, message: str, expected: str | None = None):
        super().__init__(message)
        self.expected = expected


def column_letter(index: int) -> str:
    """Spreadsheet column letter of a 0-based column index.

    >>> column_letter(0), column_letter(25), column_letter(26)
    ('A', 'Z', 'AA')
    """
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def whole_characters(text: str) -> str:
    """`text` with no half of a character left: a pair of surrogates (what `_xD83D__xDE00_` reads
    as) becomes the character it makes, and a lone one stays as the text `_xD800_` an .xlsx file
    holds for it, which every book can store (xlsx drops a lone surrogate, UTF-8 refuses it) and
    every message can print.

    >>> whole_characters("W\\ud800 \\ud83d\\ude00")
    'W_xD800_ 😀'
    """
    if not _SURROGATE.search(text):
        return text
    text = _SURROGATE_PAIR.sub(lambda m: m[0].encode("utf-16", "surrogatepass").decode("utf-16"), text)
    return _SURROGATE.sub(lambda m: f"_x{ord(m[0]):04X}_", text)


# The most a cell holds in every program a book may move between: Excel and LibreOffice hold
# 32,767 characters, Google Sheets 50,000. Programs count UTF-16 units (an emoji is two).
CELL_LIMIT = 32_767


def units(text: str) -> int:
    """The length of `text` as spreadsheet programs count it: in UTF-16 units.

    >>> units("abc"), units("Zoë"), units("😀")
    (3, 3, 2)
    """
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def head(text: str, limit: int) -> str:
    """The longest start of `text` of at most `limit` UTF-16 units, no character halved.

    >>> head("ab😀c", 3), head("ab😀c", 4), head("abc", 9)
    ('ab', 'ab😀', 'abc')
    """
    if len(text) <= limit // 2 or units(text) <= limit:
        return text
    if text.isascii():
        return text[:limit]
    kept = text.encode("utf-16-le", "surrogatepass")[:2 * limit].decode("utf-16-le", "surrogatepass")
    return kept[:-1] if kept and kept[-1] != text[len(kept) - 1] else kept  # the cut halved a pair


def fit(text: str, limit: int = CELL_LIMIT) -> str:
    """`text` as a cell can hold it: whole when it fits, else its start and how much was cut, so a
    reader sees that the cell is not all there (every cell the tool writes goes through here).

    >>> fit("x" * 40)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'
    >>> fit("x" * 40_000)[-28:], len(fit("x" * 40_000))
    ('xxxx… (7,258 characters cut)', 32766)
    """
    if len(text) <= limit // 2 or units(text) <= limit:
        return text
    # The marker's length depends on the count it gives: the count of the longest marker first.
    room = limit - units(f"… ({len(text):,} characters cut)")
    kept = head(text, room)
    return f"{kept}… ({len(text) - len(kept):,} characters cut)"


def is_blank(raw: object) -> bool:
    """True for an empty cell: None, NaN, or only spaces.

    >>> is_blank(None), is_blank("  "), is_blank(float("nan")), is_blank(0)
    (True, True, True, False)
    """
    kind = type(raw)  # the common kinds first: every cell of every tab read and written asks
    if kind is str:
        return not raw or raw.isspace()
    if kind is int:
        return False
    return raw is None or (isinstance(raw, float) and math.isnan(raw)) or (
        isinstance(raw, str) and not raw.strip())


def text(raw: object) -> str:
    """The cell as trimmed text with inner runs of spaces folded; whole floats lose their '.0'.

    >>> text("  Wind   Guide "), text(3.0), text(None)
    ('Wind Guide', '3', '')
    """
    if type(raw) is str:  # the common kind first (a blank one comes out "")
        return " ".join(raw.split())
    if is_blank(raw):
        return ""
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, int) and raw.bit_length() > 14_000:  # str() refuses ints past 4,300 digits
        raw = Decimal(raw)
    return " ".join(str(raw).split())


def clip(raw: object) -> str:
    """The cell's text cut to about 40 characters, as a message shows it.

    >>> clip("  Wind   Guide "), clip("x" * 50)
    ('Wind Guide', 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…')
    """
    t = text(raw)
    return t if len(t) <= _QUOTED else t[:_QUOTED - 1] + "…"


def quote(raw: object) -> str:
    """The cell as a message quotes it: its clipped text in quotes, what no terminal could print
    (half a character, as a host tab read from `_xD800_` holds) as a Python escape, so every message
    quotes a cell through here.

    >>> print(quote(" it's "), quote(10**5000 - 1), quote("W\\ud800"))
    "it's" '999999999999999999999999999999999999999…' 'W\\ud800'
    """
    return repr(clip(raw))


_FOLDED = re.compile(r"[\s_\-.'’]+")


FOLD_CACHED = 256  # characters: names and choices are kept folded; a pasted page is folded each time


def fold(value: str) -> str:
    """A name as compared with another: any case, without spaces, dashes, dots or apostrophes,
    and as phones and pasting bring it: full-width letters, non-breaking spaces (NFKC), invisible
    format characters.

    >>> fold("Submitted_At") == fold("submitted at") == fold("ＳＵＢＭＩＴＴＥＤ\u00a0at") == fold("submit\u200bted at")
    True
    """
    return _folded(value) if len(value) <= FOLD_CACHED else _fold(value)


@functools.lru_cache(maxsize=1 << 16)  # the same few names are folded again and again, every row read
def _folded(value: str) -> str:
    return _fold(value)


def _fold(value: str) -> str:
    if not value.isascii():
        value = unicodedata.normalize("NFKC", value)
        # Each distinct character looked up once: a pasted page costs what its alphabet does.
        value = value.translate({ord(ch): None for ch in set(value) if unicodedata.category(ch) == "Cf"})
    return _FOLDED.sub("", value.casefold())


def _formula_check(raw: object, allowed: str) -> None:
    if isinstance(raw, str) and raw.strip().startswith("="):
        raise CellError(f"{quote(raw)} is a formula; type the value itself ({allowed})")


def as_int(raw: object, lo: int, hi: int, what: str) -> int:
    """A whole number from lo to hi; accepts '3', 3.0, 'site 3', '#3' and number words."""
    allowed = f"{what}: {lo} to {hi}"
    _formula_check(raw, allowed)
    if is_blank(raw):
        raise CellError(f"the cell is empty ({allowed})")
    value: int | None = None
    if isinstance(raw, bool):
        value = None
    elif isinstance(raw, int):
        value = raw
    elif isinstance(raw, float) and raw.is_integer():
        value = int(raw)
    else:
        t = text(raw).casefold()
        if t in _NUMBER_WORDS:
            value = _NUMBER_WORDS[t]
        else:
            m = _INT_IN_TEXT.match(t)
            if m and not re.search(r"\d", t[: m.start(1)]):
                if len(m.group(1).lstrip("+-").lstrip("0")) > _MAX_DIGITS:  # int() refuses 4,300 digits
                    raise CellError(f"{quote(raw)} is out of range ({allowed})")
                value = int(m.group(1))
    if value is None:
        raise CellError(f"{quote(raw)} is not a whole number ({allowed})")
    if not lo <= value <= hi:
        raise CellError(f"{quote(raw)} is out of range ({allowed})")
    return value


# The ways a time may be typed as text. A spreadsheet turns what it reads as a date into a date
# cell, read as its moment whatever its locale shows; text is what it left alone, in any order.
TIME_LIKE = "a UTC time like 2026-11-24 18:00 or 24/11/2026 18:00"
TIME_FORMS = ("a date-time cell, or text: 2026-11-24 18:00 (year first, ISO: seconds, 'T' and 'UTC' allowed), "
              "24.11.2026 18:00 (day first), 24/11/2026 18:00 or 11/24/2026 18:00 (a day over 12 says which), "
              "6:00 pm allowed; UTC")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_ORDERED = re.compile(r"(\d{1,4})([/.-])(\d{1,2})\2(\d{1,4})[ T,]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?"
                      r"(?:\s*([ap])\.?m\.?)?", re.IGNORECASE)


def as_time(raw: object, what: str) -> datetime:
    """A time in UTC (no zone means UTC; an explicit offset is converted): a date-time cell, or
    text as `TIME_FORMS` says. A day and a month both 12 or under, between slashes or dashes,
    could be either (05/11/2026: 5 November or 11 May?) and are refused; dots put the day first.
    A `CellError`'s `expected` says what is allowed, for a host tab's message.

    >>> as_time(" 2026-11-23 18:00:05 UTC ", "a time")
    datetime.datetime(2026, 11, 23, 18, 0, 5, tzinfo=datetime.timezone.utc)
    >>> as_time("2026-11-23T19:00+01:00", "a time").hour
    18
    >>> [f"{as_time(t, 'a time'):%d %b %H:%M}" for t in ("23/11/2026 18:00", "11/23/2026 6:00 pm", "5.11.2026 18:00")]
    ['23 Nov 18:00', '23 Nov 18:00', '05 Nov 18:00']
    >>> as_time("05/11/2026 18:00", "when you submitted")
    Traceback (most recent call last):
    ...
    sheets_host.kit.cells.CellError: '05/11/2026 18:00' could be 5 November or 11 May (when you submitted: type the year first, 2026-11-05 18:00)
    """
    refusal = CellError(f"{quote(raw)} is not a time ({what}: {TIME_LIKE})", f"a UTC time: {TIME_FORMS}")
    _formula_check(raw, f"{what}: {TIME_LIKE}")
    value = raw if isinstance(raw, datetime) else _time_in_text(text(raw), what, refusal)
    try:
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)
    except OverflowError:  # e.g. 0001-01-01 00:00+01:00, which is before year 1 in UTC
        raise refusal from None


def _time_in_text(t: str, what: str, refusal: CellError) -> datetime:
    if ":" not in t:  # a date alone is not a moment
        raise refusal
    t = re.sub(r"\s*(utc|gmt)$", "", t, flags=re.IGNORECASE)
    try:
        return datetime.fromisoformat(t)
    except ValueError:
        pass
    m = _ORDERED.fullmatch(t)
    if m is None or (len(m[1]) == 4) == (len(m[4]) == 4):  # the year first or last, never both or neither
        raise refusal
    first, second, last = int(m[1]), int(m[3]), int(m[4])
    if len(m[1]) == 4:
        year, month, day = first, second, last
    elif m[2] == "." or first > 12 >= second or first == second:
        year, month, day = last, second, first
    elif second > 12 >= first:
        year, month, day = last, first, second
    elif first > 12:
        raise refusal
    else:
        either = f"{first} {_MONTHS[second - 1]} or {second} {_MONTHS[first - 1]}"
        iso = f"{last:04d}-{second:02d}-{first:02d} {int(m[5]):02d}:{m[6]}"
        raise CellError(f"{quote(t)} could be {either} ({what}: type the year first, {iso})",
                        f"a date whose day and month can be told apart ({either}?); type the year first, {iso}; "
                        f"accepted: {TIME_FORMS}")
    hour = int(m[5])
    if m[9]:  # 6:00 pm
        if not 1 <= hour <= 12:
            raise refusal
        hour = hour % 12 + (12 if m[9].lower() == "p" else 0)
    try:
        return datetime(year, month, day, hour, int(m[6]), int(m[7] or 0), int((m[8] or "0").ljust(6, "0")))
    except ValueError:  # no such day or time of day
        raise refusal from None


def as_choice(raw: object, choices: Iterable[str], what: str, aliases: Mapping[str, str] | None = None,
              allowed: str | None = None) -> str:
    """One of `choices`, matched ignoring case, spaces and punctuation, or by a unique prefix.

    `aliases` maps other names people use to a choice; they match the same way but only the
    choices are listed as allowed. `allowed` says them shortly where a list would be long
    ("A1 to H8" for the 64 cells of a board).

    >>> as_choice("I9", [f + r for r in "12" for f in "AB"], "a cell", allowed="A1 to B2")
    Traceback (most recent call last):
    ...
    sheets_host.kit.cells.CellError: 'I9' is not a cell; allowed: A1 to B2

    >>> corners = ["top-left", "top-right"]
    >>> as_choice("Upper Left", corners, "a corner", {"upper left": "top-left", "tl": "top-left"})
    'top-left'
    >>> as_choice("up", corners, "a corner", {"upper left": "top-left", "upper right": "top-right"})
    Traceback (most recent call last):
    ...
    sheets_host.kit.cells.CellError: 'up' is not a corner; allowed: top-left, top-right
    """
    options = list(choices)
    if isinstance(raw, str) and raw in options:  # typed exactly: the common case, and kept quick
        return raw
    allowed = allowed or ", ".join(options) or "nothing (none are listed)"
    _formula_check(raw, f"{what}; allowed: {allowed}")
    if is_blank(raw):
        raise CellError(f"the cell is empty ({what}; allowed: {allowed})")
    t = text(raw)
    folded = fold(t)
    by_fold = {fold(a): o for a, o in (aliases or {}).items()} | {fold(o): o for o in options}
    if folded in by_fold:
        return by_fold[folded]
    if len(folded) >= 2:
        starts = {o for f, o in by_fold.items() if f.startswith(folded)}
        if len(starts) == 1:
            return starts.pop()
    # A text over 7/3 of the longest choice is never 0.6 alike (difflib's ratio): not compared, so
    # a pasted essay costs nothing.
    close = (difflib.get_close_matches(folded, list(by_fold), n=1, cutoff=0.6)
             if 3 * len(folded) <= 7 * max(map(len, by_fold), default=0) else [])
    hint = f" (did you mean {by_fold[close[0]]!r}?)" if close else ""
    raise CellError(f"{quote(t)} is not {what}{hint}; allowed: {allowed}")


@dataclass(frozen=True)
class Problem:
    """A message for a player about one cell or row of their submission (or the whole of it)."""

    player: str
    message: str
    row: int | None = None
    column: str | None = None
    letter: str | None = None
    tab: str | None = None  # named when the player has several submit tabs

    def where(self) -> str:
        parts = [f"tab {self.tab!r}"] if self.tab else []
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.column is not None:
            parts.append(f"column {self.column!r}" + (f" ({self.letter})" if self.letter else ""))
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.where()
        return f"{self.player}: {where}: {self.message}" if where else f"{self.player}: {self.message}"


RowRef = tuple[str | None, int]  # a submit row: its tab (None: the game's one submit tab) and sheet row


@dataclass(frozen=True)
class SubmitRow:
    """One non-blank row of a submit tab, with its sheet row number and the tab's header; `tab`
    names the tab when the game has several (None: the game's one `submit` tab)."""

    player: str
    row: int
    header: Sequence[str]
    values: dict[str, object]
    tab: str | None = None

    def problem(self, column: str | None, message: str) -> Problem:
        letter = column_letter(list(self.header).index(column)) if column in self.header else None
        return Problem(self.player, message, self.row, column, letter, self.tab)

    def get(self, column: str) -> object:
        return self.values.get(column)

    @property
    def ref(self) -> RowRef:
        return self.tab, self.row

    def read(self, column: str, parse: Callable[[object], T], problems: list[Problem],
             dropped: str = "row dropped") -> T | None:
        """The cell of `column` read by `parse` (e.g. lambda v: as_int(v, 1, 5, "a position")); on a
        CellError the problem is added, naming the row and column and saying what happens
        (`dropped`), and None returned.

        >>> row = SubmitRow("Ada", 3, ["kind", "site"], {"kind": "stone", "site": "nine"})
        >>> problems = []
        >>> row.read("kind", lambda v: as_choice(v, ["stone", "fake"], "a kind"), problems)
        'stone'
        >>> row.read("site", lambda v: as_int(v, 1, 5, "a site"), problems) is None
        True
        >>> print(*problems)
        Ada: row 3, column 'site' (B): 'nine' is out of range (a site: 1 to 5); row dropped
        """
        try:
            return parse(self.get(column))
        except CellError as e:
            problems.append(self.problem(column, f"{e}; {dropped}"))
            return None


def typed_cells(row: SubmitRow) -> list[tuple[str, str]]:
    """A row's non-blank cells as text, by column: what two readings of it compare (any spacing)."""
    return sorted((k, text(v)) for k, v in row.values.items() if not is_blank(v))


def lines_of(prefix: str, items: Sequence[str], width: int = 200) -> list[str]:
    """`prefix` and the items comma-separated, ending with a full stop, over as many lines as keep
    each within `width` characters (an instruction a status cell shows whole, however many items).

    >>> lines_of("Prices: ", ["quartz 5", "gold 40", "sea salt 2"], width=22)
    ['Prices: quartz 5,', 'gold 40, sea salt 2.']
    >>> lines_of("Machines: ", [])
    ['Machines: none.']
    """
    lines, line = [], prefix
    for i, item in enumerate(items or ["none"]):
        piece = item + ("," if i < len(items) - 1 else ".")
        if line not in (prefix, "") and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = ""
        line += piece if line in (prefix, "") else " " + piece
    return lines + [line]


def named_counts(raw: object, names: Sequence[str], what: str, thing: str) -> tuple[dict[str, int], list[str]]:
    """Counts typed as 'Ada: 5, Cora: 2' (a setting's garnets): name -> count, each name one of
    `names` (`what` says whose), and the problems, each naming what is allowed.

    >>> named_counts("ada: 5, Cora:2", ["Ada", "Cora"], "a player", "garnets")
    ({'Ada': 5, 'Cora': 2}, [])
    >>> named_counts("Ada: 5, Ada: 1, Bo", ["Ada"], "a player", "garnets")[1][0]
    'Ada is named twice (write each player once)'
    """
    counts: dict[str, int] = {}
    problems = []
    for part in ("" if is_blank(raw) else text(raw)).split(","):
        if not part.strip():
            continue
        name, _, count = part.partition(":")
        try:
            player = as_choice(name, names, what)
            if player in counts:  # which of two counts the host meant is not ours to guess
                problems.append(f"{player} is named twice (write each player once)")
            counts[player] = as_int(count, 0, 10_000, f"{player}'s {thing}")
        except CellError as e:
            problems.append(f"{e} (write e.g. 'Ada: 5, Cora: 2')")
    return counts, problems


def counts_text(counts: Mapping[str, int]) -> str:
    """The inverse of `named_counts`, every name said, 0 too (so that a blank never stands for all).

    >>> counts_text({"Ada": 5, "Bo": 0, "Cora": 2})
    'Ada: 5, Bo: 0, Cora: 2'
    """
    return ", ".join(f"{p}: {n}" for p, n in counts.items())
