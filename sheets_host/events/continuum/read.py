"""Elemental Continuum's submit tabs read into a `ContinuumSubmission`.

Round 1: the `board` tab, the 8x8 Surface as a grid (ranks 8 to 1 down its first column, files A to
H across), each cell holding a ward's label, and the `wards` tab giving each label its element and
points (`board.board_problems` checks the whole). Rounds 2 to 6: the `continuum` tab, one bolt a row
(a cell and an element), two a round. Only what is invalid is dropped, with a message naming it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from sheets_host.kit import cells
from sheets_host.kit.cells import Problem, RowRef, SubmitRow
from sheets_host.kit.game import Parsed
from sheets_host.kit.table import Column, SubmitTab, TabSchema
from .board import board_problems, grid_rows
from .state import (BOLTS_PER_ROUND, CELLS, CELLS_SPAN, ELEMENTS, FILES, POINTS, RANKS, Bolt, ContinuumState,
                    ContinuumSubmission, Element)

BOARD = SubmitTab(TabSchema("board", (
    Column("rank", doc="the board's rank (8 at the top, 1 at the bottom): fixed"),
    *(Column(f, doc=f"file {f}: the label of the ward on this cell (as in your wards tab), or neutral")
      for f in FILES),
), "Your 8x8 board (round 1): each cell holds a ward's label, or neutral."), labels=tuple(reversed(RANKS)))
WARDS = SubmitTab(TabSchema("wards", (
    Column("ward", doc="the label you typed on its 5 cells of the board tab"),
    Column("element", doc="fire, water, wind or earth: 3 wards each"),
    Column("points", doc="2, 4 or 6: four wards each"),
), "Your 12 wards (round 1): a label, an element and points each."))
BOLTS = SubmitTab(TabSchema("continuum", (
    Column("cell", doc="a cell of the Surface, A1 to H8"),
    Column("element", doc="the bolt's element: fire, water, wind or earth"),
), "Your two bolts this round: a cell and an element each; they strike every other board."))
ELEMENT_NAMES = tuple(e.value for e in ELEMENTS)


def parse(state: ContinuumState, player: str, rows: Sequence[SubmitRow]) -> Parsed[ContinuumSubmission]:
    if state.rounds_played == 0:
        return _parse_board(player, [r for r in rows if r.tab == BOARD.name], [r for r in rows if r.tab == WARDS.name])
    return _parse_bolts([r for r in rows if r.tab == BOLTS.name])


def _parse_board(player: str, grid: Sequence[SubmitRow], ward_rows: Sequence[SubmitRow]) -> Parsed[ContinuumSubmission]:
    problems: list[Problem] = []
    wards: dict[str, tuple[Element | None, int | None]] = {}
    names: dict[str, str] = {}  # folded label -> as typed in the wards tab
    read: list[SubmitRow] = []  # the rows the board is read from
    for row in ward_rows:
        label = cells.text(row.get("ward"))
        if not label:
            problems.append(row.problem("ward", "the cell is empty: the label you typed on the board; row dropped"))
            continue
        if cells.clip(label) != label:  # the board's messages name labels: a pasted essay is none
            problems.append(row.problem("ward", f"{cells.quote(label)} is longer than a label (40 characters at "
                                                "most); row dropped"))
            continue
        if cells.fold(label) in names:
            problems.append(row.problem("ward", f"{cells.quote(label)} is listed already; row dropped"))
            continue
        element = row.read("element", lambda v: Element(cells.as_choice(v, ELEMENT_NAMES + ("neutral",), "an element")),
                           problems, "the ward has no element")
        points = row.read("points", lambda v: int(cells.as_choice(cells.text(v).removesuffix(".0"),
                                                                  [str(p) for p in POINTS], "points")),
                          problems, "the ward has no points")
        names[cells.fold(label)] = label
        wards[label] = (element, points)
        read.append(row)
    labels: dict[str, str | None] = {}
    formulas: set[str] = set()  # cells holding a formula: named as such, not as blank
    ranked: dict[str, SubmitRow] = {}  # rank -> the row read for it
    for row in grid:
        rank = cells.text(row.get("rank"))
        if rank not in RANKS:
            problems.append(row.problem("rank", f"{cells.quote(row.get('rank'))} is not a rank (1 to 8): the first "
                                                "column is fixed; row not read"))
            continue
        if rank in ranked:  # one row a rank: a second would overwrite some cells of the first
            problems.append(row.problem("rank", f"rank {rank} is in row {ranked[rank].row} already; row not read"))
            continue
        ranked[rank] = row
        read.append(row)
        for f in FILES:
            raw = row.get(f)
            if cells.is_blank(raw):
                continue
            if cells.text(raw).startswith("="):
                problems.append(row.problem(f, f"{cells.quote(raw)} is a formula; type the value itself (a ward's "
                                               "label, or neutral)"))
                formulas.add(f + rank)
                continue
            # A label of the wards tab as its duplicates are found (any case, spacing, width); anything
            # else (neutral, an unknown label: quoted shortened) is read by the board.
            typed = cells.text(raw)
            labels[f + rank] = names.get(cells.fold(typed), cells.clip(typed))
    if not grid and not ward_rows:
        return Parsed(None, (), "nothing: a board will be drawn for you")
    board, messages = board_problems({c: labels.get(c) for c in CELLS}, wards)
    problems += [Problem(player, m, tab=BOARD.name) for m in _not_blank(messages, formulas)]
    if board is None:
        # The board is one whole: each row read for it is dropped with it.
        named = {(p.tab, p.row) for p in problems}
        problems += [row.problem(None, DROPPED) for row in read if row.ref not in named]
        return Parsed(None, tuple(problems), "nothing valid: a board will be drawn for you")
    return Parsed(ContinuumSubmission(board=board), tuple(problems), "your board of 12 wards and 4 neutral cells",
                  {BOARD_PART: tuple(row.ref for row in read)})


DROPPED = "dropped with your board, which is not valid: a board will be drawn for you"  # each row read for it

# The parts of a submission as `parse` keys them and the resolver's fates name them.
BOARD_PART = "board"


def bolt_part(index: int) -> str:
    return f"bolt {index + 1}"


_BLANK = re.compile(r"^cells? ((?:[A-H][1-8] ?)+) (?:is|are) blank: (.*)$")


def _not_blank(messages: Sequence[str], formulas: set[str]) -> list[str]:
    """The board's messages without calling a cell holding a formula blank (its own problem names it).

    >>> _not_blank(["cells A1 B1 are blank: type", "ward F1 has 4 cells"], {"A1"})
    ['cell B1 is blank: type', 'ward F1 has 4 cells']
    """
    out = []
    for message in messages:
        blank = _BLANK.match(message)
        if blank and formulas:
            left = [c for c in blank.group(1).split() if c not in formulas]
            if not left:
                continue
            message = (f"cell {left[0]} is blank: " if len(left) == 1 else f"cells {' '.join(left)} are blank: ") \
                + blank.group(2)
        out.append(message)
    return out


def _parse_bolts(rows: Sequence[SubmitRow]) -> Parsed[ContinuumSubmission]:
    problems: list[Problem] = []
    bolts: list[Bolt] = []
    parts: dict[str, tuple[RowRef, ...]] = {}
    for row in rows:
        if len(bolts) == BOLTS_PER_ROUND:
            problems.append(row.problem(None, f"{BOLTS_PER_ROUND} bolts a round: this row is not fired"))
            continue
        cell = row.read("cell", lambda v: cells.as_choice(v, CELLS, "a cell", allowed=CELLS_SPAN), problems,
                        "bolt not fired")
        element = row.read("element", lambda v: Element(cells.as_choice(v, ELEMENT_NAMES, "an element")), problems,
                           "bolt not fired")
        if cell and element:
            parts[bolt_part(len(bolts))] = (row.ref,)
            bolts.append(Bolt(cell, element))
    if not bolts:
        return Parsed(None, tuple(problems), "nothing: no bolt fired")
    return Parsed(ContinuumSubmission(bolts=tuple(bolts)), tuple(problems),
                  "bolts " + ", ".join(f"{b.element.value} at {b.cell}" for b in bolts), parts)


def submit_rows(s: ContinuumSubmission) -> list[dict]:
    if s.board is not None:
        grid = [{"tab": BOARD.name, "rank": rank, **dict(zip(FILES, labels))}
                for rank, labels in zip(BOARD.labels, grid_rows(s.board))]
        return grid + [{"tab": WARDS.name, "ward": w.label, "element": w.element.value, "points": w.points}
                       for w in s.board.wards if w.element is not Element.NEUTRAL]
    return [{"tab": BOLTS.name, "cell": b.cell, "element": b.element.value} for b in s.bolts]


def submit_tabs(state: ContinuumState) -> tuple[SubmitTab, ...]:
    return (BOARD, WARDS) if state.rounds_played == 0 else (BOLTS,)


def submit_choices(state: ContinuumState, tab: str) -> Mapping[str, list[str]]:
    if tab == WARDS.name:
        return {"element": list(ELEMENT_NAMES), "points": [str(p) for p in POINTS]}
    if tab == BOLTS.name:
        return {"cell": list(CELLS), "element": list(ELEMENT_NAMES)}
    return {}
