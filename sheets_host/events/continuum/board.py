"""Elemental Continuum's boards as pure functions: checking the board a player typed into their grid
and wards tabs, drawing a random valid board (for a player silent or invalid in round 1), and
writing a board back into a grid.

A board: 12 wards (pentominoes: 5 edge-connected cells, any shape, a shape may repeat), 3 of each
element, four worth each of 2, 4 and 6 points, and 4 neutral cells placed any way, together one
ward worth 1 point.

>>> board = random_board(random.Random(7))
>>> board_problems(grid_labels(grid_rows(board)), wards_tab(board)) == (board, [])
True
>>> [ward.label for ward in board.wards][:4], board.wards[-1].label, len(board_cells(board))
(['Fire1', 'Fire2', 'Fire3', 'Water1'], 'neutral', 64)
"""

from __future__ import annotations

import functools

import random
from collections import Counter
from collections.abc import Mapping, Sequence

from sheets_host.kit.cells import quote
from .state import (CELLS, ELEMENTS, FILES, NEUTRAL_CELLS, NEUTRAL_POINTS, PENTOMINO, POINTS, RANKS, WARDS_PER_ELEMENT,
                    WARDS_PER_POINTS, Board, Element, Ward, neighbours)

NEUTRAL_LABEL = "neutral"  # the neutral ward's label, and how a board is written back
# How a grid cell may say "neutral" (any case), unless the wards tab names a ward so: the wards tab
# wins, so a player who calls a fire ward "N" keeps it. A wards-tab label whose element is neutral
# also marks neutral cells (its points are ignored: neutral is always worth 1).
NEUTRAL_SPELLINGS = ("neutral", "n", "-")
WARDS = WARDS_PER_ELEMENT * len(ELEMENTS)
_BLANK_HINT = f"every cell holds a ward's label or '{NEUTRAL_LABEL}'"
_POINTS_HINT = f"need four wards of each of {', '.join(map(str, POINTS[:-1]))} and {POINTS[-1]}"


def _fold(text: str) -> str:
    return text.strip().casefold()


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _components(cells: Sequence[str]) -> list[list[str]]:
    """The edge-connected groups of `cells` (in CELLS order), each in CELLS order.

    >>> _components(["A1", "A2", "C5", "C6", "B6"])
    [['A1', 'A2'], ['C5', 'B6', 'C6']]
    """
    left, groups = set(cells), []
    for start in cells:
        if start not in left:
            continue
        left.discard(start)
        group, todo = [start], [start]
        while todo:
            for n in neighbours(todo.pop()):
                if n in left:
                    left.discard(n)
                    group.append(n)
                    todo.append(n)
        groups.append(sorted(group, key=CELLS.index))
    return groups


# ---- checking a typed board ----------------------------------------------------------------------


def board_problems(labels: Mapping[str, str | None],
                   wards: Mapping[str, tuple[Element | None, int | None]]) -> tuple[Board | None, list[str]]:
    """The board typed into a grid (`labels`: cell -> the label typed there, None when blank) and a
    wards tab (`wards`: label -> element and points), and every problem with it; the board is None
    unless there are no problems. A grid label matches a wards-tab label ignoring case and spaces.

    >>> grid = {c: ("neutral" if c in ("D4", "E4", "D5", "E5") else None) for c in CELLS}
    >>> board, problems = board_problems(grid | {"A1": "f1", "A2": "F1", "C5": "F1", "C6": "F1", "C7": " f1"},
    ...                                  {"F1": (Element.FIRE, 6)})
    >>> board, problems[1:3]
    (None, ['ward F1 is not connected: A1 A2 | C5 C6 C7', '1 ward on the grid (F1); need 12'])
    """
    folded: dict[str, str] = {}
    for label in wards:
        folded.setdefault(_fold(label), label)
    cells_of: dict[str, list[str]] = {label: [] for label in wards}  # in wards-tab order
    neutral: list[str] = []
    blank: list[str] = []
    unknown: dict[str, tuple[str, list[str]]] = {}  # folded label -> as first typed, its cells
    for cell in CELLS:  # so every list of cells comes out in CELLS order
        typed = labels.get(cell)
        text = "" if typed is None else str(typed).strip()
        if not text:
            blank.append(cell)
            continue
        label = text if text in wards else folded.get(_fold(text))
        if label is not None and wards[label][0] is Element.NEUTRAL:
            neutral.append(cell)
        elif label is not None:
            cells_of[label].append(cell)
        elif _fold(text) in NEUTRAL_SPELLINGS:
            neutral.append(cell)
        else:
            unknown.setdefault(_fold(text), (text, []))[1].append(cell)

    problems = []
    if len(blank) == 1:
        problems.append(f"cell {blank[0]} is blank: {_BLANK_HINT}")
    elif blank:
        problems.append(f"cells {' '.join(blank)} are blank: {_BLANK_HINT}")
    for text, cells in unknown.values():
        problems.append(f"label {quote(text)} in {' '.join(cells)} is not in the wards tab")

    placed = [label for label, (element, _) in wards.items() if element is not Element.NEUTRAL and cells_of[label]]
    for label, (element, points) in wards.items():
        cells = cells_of[label]
        if element is Element.NEUTRAL:
            continue
        if not cells:
            problems.append(f"ward {label} is in the wards tab but no cell holds it")
            continue
        if element is None:
            problems.append(f"ward {label} has no element: give it fire, water, wind or earth in the wards tab")
        if points is None:
            problems.append(f"ward {label} has no points: give it 2, 4 or 6 in the wards tab")
        elif points not in POINTS:
            problems.append(f"ward {label} is worth {points} points; a ward is worth 2, 4 or 6")
        if len(cells) != PENTOMINO:
            problems.append(f"ward {label} has {_count(len(cells), 'cell')}: {' '.join(cells)}; "
                            f"a ward has {PENTOMINO}")
        groups = _components(cells)
        if len(groups) > 1:
            problems.append(f"ward {label} is not connected: {' | '.join(' '.join(g) for g in groups)}")

    # The counts are checked over the wards on the grid: the board is what plays.
    if len(placed) != WARDS:
        listed = f" ({', '.join(placed)})" if placed else ""
        problems.append(f"{_count(len(placed), 'ward')} on the grid{listed}; need {WARDS}")
    for element in ELEMENTS:
        of = [label for label in placed if wards[label][0] is element]
        if len(of) != WARDS_PER_ELEMENT:
            has = f"{_count(len(of), 'ward')} ({', '.join(of)})" if of else "no wards"
            problems.append(f"{element.value} has {has}; each element needs {WARDS_PER_ELEMENT}")
    for points in POINTS:
        worth = [label for label in placed if wards[label][1] == points]
        if len(worth) != WARDS_PER_POINTS:
            are = "ward is" if len(worth) == 1 else "wards are"
            listed = f" ({', '.join(worth)})" if worth else ""
            problems.append(f"{len(worth)} {are} worth {points}{listed}; {_POINTS_HINT}")
    if len(neutral) != NEUTRAL_CELLS:
        listed = f": {' '.join(neutral)}" if neutral else ""
        problems.append(f"{_count(len(neutral), 'neutral cell')}{listed}; need {NEUTRAL_CELLS}")

    if problems:
        return None, problems
    return Board(tuple(Ward(label, wards[label][0], int(wards[label][1]), tuple(cells_of[label]))
                       for label in placed)
                 + (Ward(NEUTRAL_LABEL, Element.NEUTRAL, NEUTRAL_POINTS, tuple(neutral)),)), []


# ---- reading and writing grids -------------------------------------------------------------------


def board_cells(board: Board) -> dict[str, Ward]:
    """Each cell's ward, in CELLS order."""
    at = {cell: ward for ward in board.wards for cell in ward.cells}
    return {cell: at[cell] for cell in CELLS if cell in at}


def grid_rows(board: Board) -> list[list[str]]:
    """The board as a grid tab shows it: 8 rows, rank 8 first, each the labels of files A..H."""
    at = board_cells(board)
    return [[at[f + r].label for f in FILES] for r in reversed(RANKS)]


def grid_labels(rows: Sequence[Sequence[str | None]]) -> dict[str, str | None]:
    """The inverse of grid_rows: cell -> label, from rows read rank 8 first (short rows: blank)."""
    return {f + r: (row[i] if i < len(row) else None)
            for r, row in zip(reversed(RANKS), rows) for i, f in enumerate(FILES)}


def wards_tab(board: Board) -> dict[str, tuple[Element, int]]:
    """The board's wards tab: label -> element and points (the neutral ward left out: its cells
    say 'neutral')."""
    return {w.label: (w.element, w.points) for w in board.wards if w.element is not Element.NEUTRAL}


# ---- drawing a random board ----------------------------------------------------------------------
# Bitboards: bit 8 * rank + file, so bit i is CELLS[i] and the lowest clear bit is the first empty
# cell in CELLS order.

_FULL = (1 << 64) - 1


@functools.cache  # asked once a cell when the placements are built at import
def fixed_polyominoes(size: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every polyomino of `size` cells up to translation (rotations and reflections distinct), as
    (rank, file) offsets from its first cell in CELLS order, which is (0, 0).

    >>> len(fixed_polyominoes(4)), len(fixed_polyominoes(5))
    (19, 63)
    """
    shapes = {((0, 0),)}
    for _ in range(size - 1):
        grown = set()
        for shape in shapes:
            for r, f in shape:
                for dr, df in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    if (r + dr, f + df) not in shape:
                        cells = sorted(shape + ((r + dr, f + df),))
                        r0, f0 = cells[0]
                        grown.add(tuple((a - r0, b - f0) for a, b in cells))
        shapes = grown
    return tuple(sorted(shapes))


def _placements(size: int) -> list[list[int]]:
    """For each cell, the masks of every fixed polyomino of `size` whose first cell it is."""
    out: list[list[int]] = [[] for _ in CELLS]
    for i in range(len(CELLS)):
        r, f = divmod(i, 8)
        for shape in fixed_polyominoes(size):
            if all(0 <= r + a < 8 and 0 <= f + b < 8 for a, b in shape):
                out[i].append(sum(1 << (8 * (r + a) + f + b) for a, b in shape))
    return out


_PENTOMINOES_AT = _placements(PENTOMINO)
_TETROMINOES = [m for masks in _placements(NEUTRAL_CELLS) for m in masks]
_NOT_A = _FULL & ~sum(1 << 8 * r for r in range(8))  # a shift left must not wrap from H to A
_NOT_H = _FULL & ~sum(1 << 8 * r + 7 for r in range(8))
NODES_PER_ATTEMPT = 200  # a tiling is found in a few dozen nodes when it is found at all
MAX_ATTEMPTS = 100  # about 1.05 attempts on average, so this is never reached in practice
# The fallback, so the draw always ends: a tiling around a neutral 2x2 centre, rank 8 first.
FALLBACK = ("kkkkllll", "ggkhljjj", "gfhhiiij", "gfh..iij", "gfh..eee", "ffadddce", "aaaddcce", "abbbbbcc")


def _regions_fit(filled: int) -> bool:
    """Whether every region of empty cells could hold whole pentominoes (a multiple of 5 cells)."""
    empty = _FULL & ~filled
    while empty:
        region = empty & -empty
        while True:
            grown = (region | (region << 1 & _NOT_A) | (region >> 1 & _NOT_H) | (region << 8 & _FULL)
                     | region >> 8) & empty
            if grown == region:
                break
            region = grown
        if region.bit_count() % PENTOMINO:
            return False
        empty &= ~region
    return True


def _tile(filled: int, rng: random.Random) -> list[int] | None:
    """Pentominoes filling every empty cell, or None if the node budget runs out first. Always
    covering the first empty cell (with a piece whose first cell it is) visits each tiling once."""
    placed: list[int] = []
    budget = [NODES_PER_ATTEMPT]

    def fill(filled: int) -> bool:
        if filled == _FULL:
            return True
        budget[0] -= 1
        if budget[0] < 0 or not _regions_fit(filled):  # a pocket pentominoes cannot fill: a dead end
            return False
        first = ((filled + 1) & ~filled).bit_length() - 1
        options = [m for m in _PENTOMINOES_AT[first] if not m & filled]
        rng.shuffle(options)
        for mask in options:
            placed.append(mask)
            if fill(filled | mask):
                return True
            placed.pop()
            if budget[0] < 0:
                return False
        return False

    return placed if fill(filled) else None


def _cells(mask: int) -> tuple[str, ...]:
    return tuple(cell for i, cell in enumerate(CELLS) if mask >> i & 1)


def random_tiling(rng: random.Random, max_attempts: int = MAX_ATTEMPTS
                  ) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...], int]:
    """The 4 neutral cells, the 12 pentominoes (each in CELLS order, ordered by first cell) and how
    many attempts it took. The neutral cells are a tetromino half the time, else 4 cells drawn
    anywhere (kept when the rest splits into regions of whole pentominoes); a tiling not found
    within NODES_PER_ATTEMPT draws new neutral cells; after max_attempts, FALLBACK.

    >>> neutral, pieces, attempts = random_tiling(random.Random(1), max_attempts=0)
    >>> neutral, pieces[0], attempts
    (('D4', 'E4', 'D5', 'E5'), ('A1', 'A2', 'B2', 'C2', 'C3'), 0)
    """
    for attempt in range(1, max_attempts + 1):
        if rng.random() < 0.5:
            neutral = rng.choice(_TETROMINOES)
        else:
            neutral = sum(1 << i for i in rng.sample(range(len(CELLS)), NEUTRAL_CELLS))
            if not _regions_fit(neutral):
                continue  # counted as an attempt, so a run of bad draws is bounded too
        pieces = _tile(neutral, rng)
        if pieces is not None:
            return _cells(neutral), tuple(sorted(map(_cells, pieces), key=lambda p: CELLS.index(p[0]))), attempt
    grid = {f + r: ch for r, row in zip(reversed(RANKS), FALLBACK) for f, ch in zip(FILES, row)}
    neutral_cells = tuple(c for c in CELLS if grid[c] == ".")
    by_letter: dict[str, list[str]] = {}
    for cell in CELLS:
        if grid[cell] != ".":
            by_letter.setdefault(grid[cell], []).append(cell)
    return neutral_cells, tuple(sorted((tuple(p) for p in by_letter.values()), key=lambda p: CELLS.index(p[0]))), 0


def random_board(rng: random.Random) -> Board:
    """A random valid board: a random tiling, elements (3 of each) and points (four of each of 2, 4,
    6) shuffled over its pentominoes, labelled by element and numbered in CELLS order of their first
    cells ("Fire1" .. "Earth3"); wards in label order, the neutral ward last.

    >>> board = random_board(random.Random(3))
    >>> Counter(w.element for w in board.wards) == Counter({**{e: 3 for e in ELEMENTS}, Element.NEUTRAL: 1})
    True
    """
    neutral, pieces, _ = random_tiling(rng)
    elements = [e for e in ELEMENTS for _ in range(WARDS_PER_ELEMENT)]
    points = [p for p in POINTS for _ in range(WARDS_PER_POINTS)]
    rng.shuffle(elements)
    rng.shuffle(points)
    numbered: Counter[Element] = Counter()
    wards = []
    for cells, element, worth in zip(pieces, elements, points):
        numbered[element] += 1
        wards.append(Ward(f"{element.value.capitalize()}{numbered[element]}", element, worth, cells))
    order = {e: i for i, e in enumerate(ELEMENTS)}
    wards.sort(key=lambda w: (order[w.element], w.label))
    return Board(tuple(wards) + (Ward(NEUTRAL_LABEL, Element.NEUTRAL, NEUTRAL_POINTS, neutral),))
