"""What the instruction tests read of a game's how to submit: its words, and its examples as the
rows a player types (the status tab shows them as cells; the tests parse them)."""

from __future__ import annotations

from collections.abc import Sequence

from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.game import HowTo


def words(blocks: Sequence[HowTo]) -> str:
    """Everything the blocks say, one text."""
    return "\n".join(b.words() for b in blocks)


def lines(blocks: Sequence[HowTo]) -> list[str]:
    """The lines of the blocks, then what counts when nothing valid is typed."""
    return [line for b in blocks for line in (*b.lines, *([b.default] if b.default else []))]


def example_rows(blocks: Sequence[HowTo]) -> list[list[str | None]]:
    """Every example row as typed, in its tab's column order (None: a blank cell)."""
    return [[v or None for v in row] for b in blocks for e in b.examples for row in e.rows]


def submit_rows(player: str, blocks: Sequence[HowTo]) -> list[SubmitRow]:
    """Every example row as the parser gets it, each naming its tab when the example does."""
    rows, number = [], {}
    for b in blocks:
        for e in b.examples:
            for typed in e.typed():
                number[e.tab] = number.get(e.tab, 1) + 1
                rows.append(SubmitRow(player, number[e.tab], e.header, typed, tab=e.tab))
    return rows
