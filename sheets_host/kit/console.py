"""The one way a command prints: whatever the text holds, the line is printed.

A player's cell can hold what no terminal encodes (a lone surrogate read from `_xD800_`, an emoji
on an ASCII terminal or a Windows code page), and a message quoting it must not become a traceback,
least of all after a resolve has committed. Each line is encoded for the stream it goes to, anything
that stream cannot hold shown as a backslash escape (`\\ud800`, `\\xe9`).
"""

from __future__ import annotations

import sys

import typer


def printable(text: str, stream: object) -> str:
    """`text` as `stream` can encode it, the rest backslash-escaped.

    >>> import io
    >>> printable("label '\\ud800' café", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    "label '\\\\ud800' caf\\\\xe9"
    """
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding, "replace")


def echo(text: object = "", *, err: bool = False, fg: str | None = None) -> None:
    """Print one message (a line break added), on stderr when `err`, in colour `fg` on a terminal."""
    stream = sys.stderr if err else sys.stdout
    typer.secho(printable(str(text), stream), err=err, fg=fg)
