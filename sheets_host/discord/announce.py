"""A round's announcement as Discord shows it: messages of at most 2,000 characters, pictures attached.

The games write their announcements in Markdown with pipe tables (the `.md` files keep that text;
the public book shows it as rows, `markdown.lines`). Discord renders bold, lists and code blocks but
no pipe table, and refuses a message over 2,000 characters, so for Discord:

- a table narrow enough to read on a phone becomes a code block with its columns lined up; a wider
  one is drawn in the round's tables picture and the text says so;
- every announcement has a picture: the game's own, the tables picture, and once the game is over
  the final standings; a round with none of them gets the standings as they are;
- nothing a player or host typed can ping anyone or break the formatting: every `@` is followed
  by an invisible space (no `@everyone`, `@here` or `<@id>` works), and each player name holding
  Markdown is escaped where it appears (in a code block its backticks become look-alikes);
- the text is split at line boundaries into numbered messages (a code block cut in two is closed
  and reopened), at most 10 pictures a message, each under Discord's 10 MiB;
- a player's private pictures (`private_messages`) make messages of their own, for that player's
  channel alone, neutralised the same way;
- the round's commitments (its root, the roots it replaces) make messages of their own
  (`root_messages`), which `post` never edits nor deletes, and so does each player's receipt of
  their own commitment and the root (`receipt_messages`), for their channel alone.

>>> [m.content for m in messages("## Day 1\\n\\n| good | price |\\n|---|---:|\\n| cape | 14 |", [], ["Ada"])]
['## Day 1\\n\\n```\\ngood  price\\ncape     14\\n```']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sheets_host.kit import layout
from sheets_host.kit.markdown import table_at

LIMIT = 2000  # characters a Discord message holds
FILES = 10  # attachments a message holds
FILE_BYTES = 10 * 1024 * 1024  # an attachment's largest size for a webhook without boosts
CODE_WIDTH = 60  # widest code block line: it reads on a phone held sideways, and on any desktop
CODE_ROWS = 25  # a longer table is a picture
FENCE = "```"
_ZWSP = "\u200b"  # an invisible space: "@\u200beveryone" pings nobody
_MARKDOWN = re.compile(r"([\\*_~`|<>\[\]()#:-])")
_INLINE = re.compile(r"([\\*_~`|\[\]<>#])")  # what Discord renders inside a line, or at its start


@dataclass(frozen=True)
class Attachment:
    name: str
    data: bytes


@dataclass(frozen=True)
class Message:
    content: str
    files: tuple[Attachment, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"content": self.content, "files": [f.name for f in self.files]}


@dataclass(frozen=True)
class Table:
    """A pipe table of the announcement: the heading it stands under, its header, rows and which
    columns are numbers (right-aligned in the Markdown)."""

    title: str | None
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    right: tuple[bool, ...]

    def code_block(self) -> list[str] | None:
        """The table as a code block with its columns lined up, or None when too wide or long."""
        columns = list(zip(self.header, *self.rows))
        widths = [max(len(c) for c in column) for column in columns]
        if len(self.rows) > CODE_ROWS or sum(widths) + 2 * (len(widths) - 1) > CODE_WIDTH:
            return None
        def line(cells: Sequence[str]) -> str:
            return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, self.right)).rstrip()
        return [FENCE, line(self.header), *map(line, self.rows), FENCE]


def tables_out(markdown: str) -> tuple[list[str], list[Table]]:
    """The lines with each pipe table replaced (a code block, or a line pointing at the picture),
    and the tables that go into the picture."""
    lines, out, pictured, title = markdown.split("\n"), [], [], None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            title = line.lstrip("#").strip()
        if (found := table_at(lines, i)) is not None:
            header, right, rows, i = found
            table = Table(title, header, tuple(rows), right)
            block = table.code_block()
            if block is None:
                pictured.append(table)
                block = [f"*{title or 'The table'}: in the picture below.*"]
            out += block
            continue
        out.append(line)
        i += 1
    return out, pictured


def neutralise(text: str, names: Sequence[str]) -> str:
    """No mention pings and no player name breaks the formatting (see the module's docstring).

    >>> neutralise("@everyone: **a_b*c** won", ["a_b*c"])
    '@\\u200beveryone: **a\\\\_b\\\\*c** won'
    """
    marked = sorted({n for n in names if _MARKDOWN.search(n)}, key=len, reverse=True)
    pattern = re.compile("|".join(map(re.escape, marked))) if marked else None
    parts = re.split(r"(```.*?```)", text, flags=re.S)  # odd parts are code blocks
    for k, part in enumerate(parts):
        if pattern is not None:
            in_code = k % 2 == 1
            parts[k] = pattern.sub((lambda m: m.group(0).replace("`", "ˋ")) if in_code
                                   else (lambda m: _MARKDOWN.sub(r"\\\1", m.group(0))), part)
    return "".join(parts).replace("@", "@" + _ZWSP)


def as_typed(text: str) -> str:
    """What a player typed, shown as typed inside a line: on one line (its line breaks as spaces,
    so none starts a heading, a quote or a code block) and no Markdown renders in it (a mention
    is neutralised with the whole message).

    >>> as_typed("**x**"), as_typed("a\\n# b")
    ('\\\\*\\\\*x\\\\*\\\\*', 'a \\\\# b')
    """
    return _INLINE.sub(r"\\\1", " ".join(text.split()))


def split(text: str, limit: int = LIMIT) -> list[str]:
    """`text` in pieces of at most `limit` characters, cut at line ends (a longer line at a space,
    else anywhere); a code block cut in two is closed at the end of one piece and reopened.

    >>> split("one\\ntwo\\nthree", 16)
    ['one\\ntwo', 'three']
    """
    pieces, current, fenced = [], [], False
    size = 0

    def close() -> None:
        nonlocal current, size
        if fenced and current and current[-1] == FENCE:
            current.pop()  # a fence opening at the very end opens the next piece instead
        elif fenced:
            current.append(FENCE)
        if current:
            pieces.append("\n".join(current))
            current = [FENCE] if fenced else []
            size = len(FENCE) + 1 if fenced else 0

    room = limit - len(FENCE) - 1  # a cut code block's closing fence must fit
    for line in _short_lines(text.split("\n"), room - len(FENCE) - 1):
        if size + len(line) > room and current:
            close()
        current.append(line)
        size += len(line) + 1
        if line.startswith(FENCE):
            fenced = not fenced
    close()
    # a piece holding only a reopened fence and its closing one says nothing
    return [p for p in pieces if any(c.strip() and c != FENCE for c in p.split("\n"))]


def _short_lines(lines: Sequence[str], width: int) -> list[str]:
    width, out = max(1, width), []
    for line in lines:
        while len(line) > width:
            cut = line.rfind(" ", 0, width)
            cut = cut if cut > 0 else width
            out.append(line[:cut])
            line = line[cut:].lstrip(" ")
        out.append(line)
    return out


def messages(markdown: str, pictures: Sequence[Attachment], names: Sequence[str],
             table_picture: Callable[[Sequence[Table]], bytes] | None = None) -> list[Message]:
    """The Discord messages of one announcement: numbered "(1/3)" when several, the pictures on
    the last ones (at most FILES a message). `table_picture(tables)` draws the wide tables (PNG);
    without it they are left out (the doctest's case: none is wide)."""
    return _messages(*tables_out(markdown), pictures, names, table_picture)


def _messages(lines: list[str], pictured: Sequence[Table], pictures: Sequence[Attachment], names: Sequence[str],
              table_picture: Callable[[Sequence[Table]], bytes] | None) -> list[Message]:
    files = list(pictures)
    if pictured and table_picture is not None:
        files.append(Attachment("tables.png", table_picture(pictured)))
    big = [f for f in files if len(f.data) >= FILE_BYTES]
    files = [f for f in files if len(f.data) < FILE_BYTES]
    lines += [f"*{f.name} is too large for Discord ({len(f.data) / 2 ** 20:.1f} MiB): ask the host for it.*"
              for f in big]
    text = neutralise("\n".join(lines).strip("\n"), names)
    pieces = split(text, LIMIT - len("**(99/99)**\n")) or [""]
    while len(files) > FILES * len(pieces):
        pieces.append("")
    batches = [files[k:k + FILES] for k in range(0, len(files), FILES)]
    batches = [[]] * (len(pieces) - len(batches)) + batches  # the pictures under the text
    if len(pieces) > 1:
        pieces = [f"**({k}/{len(pieces)})**\n{p}".rstrip("\n") for k, p in enumerate(pieces, 1)]
    return [Message(p, tuple(b)) for p, b in zip(pieces, batches)]


def round_messages(game: Any, before: Any, after: Any, number: int, text: str | None = None) -> list[Message]:
    """Round `number`'s announcement for Discord, from the states before and after it (as the host
    book keeps them, so any machine posts the same): `text`, the announcement as published (the
    game's with its commitments; the game's alone when not given), the game's picture, the wide
    tables, and the standings when the game is over or the round has no other picture."""
    from sheets_host.kit import drawing  # Pillow only when posting

    lines, pictured = tables_out(game.announcement(before, after) if text is None else text)
    files = [Attachment(f"round-{number:02d}.png", png)] if (png := game.picture(after)) else []
    over = game.is_over(after)
    if over or not (files or pictured):
        standings = game.standings(after)
        rows = [list(row) for row in zip(*(layout.shown(list(standings[c])) for c in standings.columns))]
        files.append(Attachment("standings.png", drawing.table(
            "Final standings" if over else "Standings", [str(c) for c in standings.columns], rows)))

    def draw(tables: Sequence[Table]) -> bytes:
        return drawing.tables([(t.title, t.header, t.rows) for t in tables])

    return _messages(lines, pictured, files, game.players(after), draw)


def private_messages(game: Any, after: Any, number: int) -> dict[str, list[Message]]:
    """Round `number`'s private pictures for Discord, from the state after it: player -> the
    messages for that player alone (a line naming the game, the round and them, and their
    pictures), for each player the game drew one for."""
    names, heading = game.players(after), f"{game.title}, {game.round_name(number)}"
    return {player: _messages([f"**{heading}**: your private picture, {player}."], [],
                              [Attachment(f"round-{number:02d}-private.png", png)], names, None)
            for player, png in game.private_pictures(after).items()}


def root_messages(game: Any, after: Any, number: int, lines: str) -> list[Message]:
    """Round `number`'s commitments (`commitments.announcement_lines`: its root, the roots it
    replaces and why) as messages of their own, headed by the game and the round."""
    if not lines:
        return []
    heading, *rest = lines.split("\n")
    return _messages([f"{heading}: {game.title}, {game.round_name(number)}", *rest], [], [], game.players(after), None)


def receipt_messages(game: Any, number: int, player: str, commitment: str, rows: Sequence[dict], root: str,
                     replaced: Sequence[str] = ()) -> list[Message]:
    """A player's receipt for round `number`, for their channel alone: their submission's
    `commitment`, the `rows` it commits to (`commitment.counted_rows`'s form) in plain words, the
    round's `root` and the roots of the receipts it `replaced` (a redo)."""
    def row(r: dict) -> str:
        where = f"{r['tab']} row {r['row']}" if r.get("tab") else f"row {r['row']}"
        return f"- {as_typed(where)}: " + "; ".join(f"{as_typed(k)} {as_typed(v)}" for k, v in r["cells"].items())
    lines = [f"\U0001f50f **{game.title}, {game.round_name(number)}**: your commitment, {as_typed(player)}. "
             "Keep this message.",
             f"Your submission's commitment: `{commitment}`",
             "It commits to the rows read from your submit tab (counted or not):", *(map(row, rows) if rows else ["- none: no row was read"]),
             f"Round root: `{root}` (it holds every player's commitment; the public channel has it too).",
             *(f"It replaces your receipt for the root `{old}` (the host resolved the round again)." for old in replaced),
             "To check it: copy this round's committed text from your book's `my commitments` tab, then "
             "`printf '%s' 'THE TEXT' | sha256sum` gives the commitment above. After the game, "
             "`sheets-host verify RECORD --root ROOT` shows whether the host's record holds it."]
    return _messages(lines, [], [], (), None)
