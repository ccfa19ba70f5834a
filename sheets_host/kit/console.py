"""The one way a command prints: whatever the text holds, the line is printed, and it fits the
host's terminal.

A player's cell can hold what no terminal encodes (a lone surrogate read from `_xD800_`, an emoji
on an ASCII terminal or a Windows code page), and a message quoting it must not become a traceback,
least of all after a resolve has committed. Each line is encoded for the stream it goes to, anything
that stream cannot hold shown as a backslash escape (`\\ud800`, `\\xe9`).

Every line fits `WIDTH` columns: a longer one is cut at spaces, its further lines indented two
more than it (`wrapped`), and a table's cells wrap within their columns (`table`). A word longer
than the width (a file's path, an address) is never cut, so it can be copied: it stands alone on
its line. Machine output (`--json`) is printed as it is.
"""

from __future__ import annotations

import math
import re
import sys
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import typer

WIDTH = 100  # the columns of the narrowest terminal a host is expected to use


def columns(text: str) -> int:
    """How many terminal columns `text` takes: a wide character (an emoji, a CJK one) two, a
    combining mark none.

    >>> columns("abc"), columns("⏰ due"), columns("e\\u0301")
    (3, 6, 1)
    """
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def wrapped(line: str, width: int = WIDTH) -> list[str]:
    """`line` cut at spaces into lines of at most `width` columns, each after the first indented two
    more than it, or, after a label set off by two spaces or more (`ok    `, `FAIL  `), as far as
    the text after it; a word longer than that stays whole on a line of its own.

    >>> wrapped("  error: the webhook file is missing", 20)
    ['  error: the webhook', '    file is missing']
    >>> wrapped("see /a/very/long/path/to/a/book.xlsx now", 12)
    ['see', '  /a/very/long/path/to/a/book.xlsx', '  now']
    >>> wrapped("ok    the chain is whole from the seed", 20)
    ['ok    the chain is', '      whole from the', '      seed']
    """
    if columns(line) <= width:
        return [line]
    label = re.match(r" *\S+ {2,}", line)
    lead = label.group(0) if label else line[:len(line) - len(line.lstrip(" "))]
    hang = " " * len(lead) if label else lead + "  "
    first, *rest = _filled(line[len(lead):].split(), width - len(lead), width - len(hang))
    return [lead + first, *(hang + part for part in rest)]


def _filled(words: Sequence[str], first: int, rest: int) -> list[str]:
    """Words put on lines, as many as fit: `first` columns on the first line, `rest` on the others."""
    lines, current = [], ""
    for word in words:
        if current and columns(current) + 1 + columns(word) > (rest if lines else first):
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    return lines + [current]


def fitted(text: str, width: int = WIDTH) -> str:
    """Every line of `text` fitted to `width` columns (`wrapped`)."""
    return "\n".join(part for line in text.split("\n") for part in wrapped(line, width))


def printable(text: str, stream: object) -> str:
    """`text` as `stream` can encode it, the rest backslash-escaped.

    >>> import io
    >>> printable("label '\\ud800' café", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    "label '\\\\ud800' caf\\\\xe9"
    """
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding, "replace")


def echo(text: object = "", *, err: bool = False, fg: str | None = None, wrap: bool = True) -> None:
    """Print one message (a line break added), fitted to the terminal unless not `wrap` (machine
    output: JSON), on stderr when `err`, in colour `fg` on a terminal."""
    stream = sys.stderr if err else sys.stdout
    text = fitted(str(text)) if wrap else str(text)
    typer.secho(printable(text, stream), err=err, fg=fg)


def table(rows: Sequence[Mapping[str, object]] | Any, indent: str = "", width: int = WIDTH) -> list[str]:
    """`rows` (or a pandas frame's, without its index) as a table's lines, a column for each key,
    numbers (and their header) to the right: at most `width` columns wide. When it is wider, the
    header's words and the text cells of the widest columns wrap within their column, each row as
    many lines as its tallest cell; no cell is cut short.

    >>> print("\\n".join(table([{"command": "new", "requests": 12}, {"command": "resolve", "requests": 3}])))
    command  requests
    new            12
    resolve         3
    >>> print("\\n".join(table([{"player": "Ada", "counts": "bids 3, 4 and 5 on the open lot", "problems": 0}], width=30)))
    player  counts        problems
    Ada     bids 3, 4            0
            and 5 on the
            open lot
    """
    if hasattr(rows, "to_dict"):  # a frame: pandas is not imported here, for a light start-up
        names, rows = list(rows.columns), rows.to_dict("records")
    else:
        names = list(dict.fromkeys(k for r in rows for k in r))
    cells = [[_cell(r.get(c)) for c in names] for r in rows]
    numeric = [all(_is_number(r.get(c)) or _cell(r.get(c)) == "" for r in rows) for c in names]
    natural = [max([columns(names[i])] + [columns(row[i]) for row in cells]) for i in range(len(names))]
    # Narrowest without cutting a word: a column is as wide as its longest word (a number whole).
    least = [max([_longest_word(names[i])] + [columns(row[i]) if numeric[i] else _longest_word(row[i])
                                             for row in cells]) for i in range(len(names))]
    widths = list(natural)
    room = width - columns(indent) - 2 * (len(names) - 1)
    while sum(widths) > room:
        slack = [w - m for w, m in zip(widths, least)]
        if max(slack, default=0) <= 0:
            break
        widths[slack.index(max(slack))] -= 1
    lines = []
    for values in [names, *cells]:
        parts = [_cell_lines(v, w) for v, w in zip(values, widths)]
        for k in range(max(len(p) for p in parts)):
            row = [(p[k] if k < len(p) else "") for p in parts]
            padded = [_pad(v, w, right=n) for v, w, n in zip(row, widths, numeric)]
            lines.append((indent + "  ".join(padded)).rstrip())
    return lines


def _cell(value: object) -> str:
    if value is None or isinstance(value, float) and math.isnan(value):  # a frame's missing value
        return ""
    return str(value)


def _is_number(value: object) -> bool:
    """An int or a float, numpy's included (their names say so: numpy is not imported here)."""
    return not isinstance(value, bool) and (isinstance(value, (int, float))
                                            or type(value).__name__.startswith(("int", "float")))


def _longest_word(text: str) -> int:
    return max((columns(w) for w in text.split()), default=0)


def _cell_lines(text: str, width: int) -> list[str]:
    return _filled(text.split(), width, width) if columns(text) > width else [text]


def _pad(text: str, width: int, right: bool) -> str:
    gap = " " * max(0, width - columns(text))
    return gap + text if right else text + gap
