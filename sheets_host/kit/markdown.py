"""The announcements' Markdown read once, as the lines a sheet shows: no Markdown left in them.

The games write a small subset of Markdown (every game's announcements use only this): `#`, `##`
and `###` headings, a line wholly in bold standing as a heading, `- ` lists, pipe tables (a
`---:` column is right-aligned: numbers), **bold** and `code` within a line, blank lines between
blocks. `lines` turns it into one `Line` a row: the title, headings, text (a list item keeps a
bullet) and a table's header and rows, each table cell its own cell and a number a number. The
`.md` files and Discord keep the Markdown (`announce.py` reads its tables with `table_at`).

>>> for line in lines("## Day 1\\n\\n**Prices**\\n- a **good** day\\n\\n| good | price |\\n|---|---:|\\n| cape | 14 |"):
...     print(line.kind, line.cells)
title ('Day 1',)
heading ('Prices',)
text ('• a good day',)
header ('good', 'price')
row ('cape', 14)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_SEPARATOR = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BOLD_LINE = re.compile(r"^\*\*([^*]+)\*\*$")
_NUMBER = re.compile(r"^-?(0|[1-9]\d*)(\.\d+)?$")  # no leading zero: "07" stays as typed
BULLET = "• "


def cells(line: str) -> tuple[str, ...]:
    """A pipe table row's cells, trimmed.

    >>> cells("| 1 | FIRE I |  |")
    ('1', 'FIRE I', '')
    """
    return tuple(c.strip() for c in line.strip().strip("|").split("|"))


Row = tuple[str, ...]


def table_at(lines: Sequence[str], i: int) -> tuple[Row, tuple[bool, ...], list[Row], int] | None:
    """The pipe table starting at line `i` (its header, which columns are right-aligned, its rows,
    each as wide as the header, and the line after it), or None when none starts there."""
    if not (lines[i].lstrip().startswith("|") and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1].strip())):
        return None
    header, marks = cells(lines[i]), cells(lines[i + 1])
    rows = []
    i += 2
    while i < len(lines) and lines[i].lstrip().startswith("|"):
        row = cells(lines[i])
        rows.append((row + ("",) * (len(header) - len(row)))[:len(header)])
        i += 1
    return header, tuple(m.endswith(":") for m in marks), rows, i


def plain(text: str) -> str:
    """A line's text without its inline Markdown (bold, code).

    >>> plain("**Winners: Ada** with `bid | 3`")
    'Winners: Ada with bid | 3'
    """
    return text.replace("**", "").replace("`", "")


def number(text: str) -> int | float | str:
    """A cell's text as a number when it is one, else the text.

    >>> number("14"), number("-2.50"), number("3 → 1"), number("07")
    (14, -2.5, '3 → 1', '07')
    """
    if not _NUMBER.match(text):
        return text
    return float(text) if "." in text else int(text)


@dataclass(frozen=True)
class Line:
    """One row of an announcement: `kind` is "title" (its first heading), "heading", "text",
    "header" (a table's) or "row" (a table's)."""

    kind: str
    cells: tuple[int | float | str, ...]


def lines(markdown: str) -> list[Line]:
    """The announcement's rows (see the module's docstring); blank lines are dropped."""
    source, out, i = markdown.split("\n"), [], 0
    while i < len(source):
        table = table_at(source, i)
        if table is not None:
            header, _, rows, i = table
            out.append(Line("header", tuple(plain(c) for c in header)))
            out += [Line("row", tuple(number(plain(c)) for c in row)) for row in rows]
            continue
        line = source[i].strip()
        i += 1
        if not line:
            continue
        if heading := _HEADING.match(line):
            level = len(heading[1])
            out.append(Line("title" if level <= 2 and not out else "heading", (plain(heading[2]),)))
        elif bold := _BOLD_LINE.match(line):
            out.append(Line("heading", (plain(bold[1]),)))
        elif line.startswith("- "):
            out.append(Line("text", (BULLET + plain(line[2:].strip()),)))
        else:
            out.append(Line("text", (plain(line),)))
    return out
