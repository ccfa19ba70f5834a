"""A picture (PNG) of every Elemental Continuum board, for the round's public announcement.

One 8x8 board per participant in chess notation (files A..H left to right under the board, ranks
8..1 top to bottom beside it), its owner's name above it with the count of tiles broken, the boards
in rows of at most 4 (balanced: 7 boards are 4 + 3), under a title and a legend. Only what is
public is drawn, and only what `public_boards` takes from the state reaches the drawing:

- a tile still standing is blank, the same whatever ward it belongs to (a board is secret);
- a tile broken by bolts is marked with a cross: dark while its ward stands, on the ward's colour
  once the ward breaks;
- a broken ward is revealed: its cells in its element's colour (the rule text's: fire red, water
  blue, wind green, earth yellow, neutral grey), outlined, its points in a disc in one cell (a tile
  of it that no bolt broke, which broke with its ward, has no cross).

Each participant also gets a private picture of their own board alone (`draw_own_board`): the
same, with their wards still standing in paler colours, outlined, with their points.

Who fired, bolts that broke nothing and the wards' labels are never drawn. Deterministic (the same
public information gives the same bytes); 7 boards make a 1446 x 870 px picture, drawn in
about 70 ms.

>>> from .state import Board, Ward
>>> state = ContinuumState(("Ann", "Bo"), {"Ann": Board(()), "Bo": Board(())}, rounds_played=1)
>>> draw_boards(state)[:8] == b"\\x89PNG\\r\\n\\x1a\\n", draw_boards(ContinuumState(("Ann", "Bo"))) is None
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from sheets_host.kit.drawing import Canvas, fit, legend_rows
from .state import CELLS, FILES, RANKS, ContinuumState, Element
from .views import COLOURS


@dataclass(frozen=True)
class RevealedWard:
    element: Element
    points: int
    cells: tuple[str, ...]


@dataclass(frozen=True)
class BoardView:
    """What everyone may see of a board: its owner, the tiles broken by bolts (which cells), and
    the wards broken down (element, points, cells)."""

    owner: str
    struck: frozenset[str]
    revealed: tuple[RevealedWard, ...]
    standing: tuple[RevealedWard, ...] = ()  # the owner's picture only: their wards still standing

    @property
    def broken(self) -> int:
        """Tiles broken: by bolts, or with their ward."""
        return len(self.struck | {c for w in self.revealed for c in w.cells})


def public_boards(state: ContinuumState) -> list[BoardView]:
    """Every participant's board as the public sees it, in seating order (tile and ward breaks only:
    never the boards themselves nor the strikes)."""
    return [BoardView(p, frozenset(t.cell for t in state.tile_breaks if t.board == p),
                      tuple(RevealedWard(w.ward.element, w.ward.points, tuple(w.ward.cells))
                            for w in state.ward_breaks if w.board == p))
            for p in state.participants]


def own_board(state: ContinuumState, player: str) -> BoardView:
    """`player`'s board as they alone see it: the public view, and their wards still standing."""
    view = next(v for v in public_boards(state) if v.owner == player)
    broken = {w.ward for w in state.ward_breaks if w.board == player}
    return BoardView(player, view.struck, view.revealed,
                     tuple(RevealedWard(w.element, w.points, tuple(w.cells))
                           for w in state.boards[player].wards if w not in broken))


# --- look ---------------------------------------------------------------------------------

BACKGROUND, INK, MUTED = (248, 246, 240), (35, 35, 40), (115, 115, 125)
BLANK, GRID = (232, 228, 218), (200, 194, 182)  # a standing tile, and the lines between tiles
STRUCK, STRUCK_CROSS = (62, 62, 72), (236, 236, 236)  # a tile broken by bolts, its ward standing
BADGE = (255, 255, 255)

CELL = 38  # a tile's side
BOARD = 8 * CELL
RANK_W = 20  # the rank numbers' column, left of a board
NAME_H = 30  # the owner's line, above a board
FILES_H = 24  # the file letters' line, under a board
GAP_X, GAP_Y = 34, 22  # between panels
PANEL_W = RANK_W + BOARD + GAP_X
PANEL_H = NAME_H + BOARD + FILES_H + GAP_Y
MARGIN = 24
PER_ROW = 4
MIN_WIDTH = 760  # one or two boards: room for the title and legend
TITLE_H = 46
LEGEND_LINE = 28


def _shade(rgb: tuple[int, int, int], by: float) -> tuple[int, int, int]:
    return tuple(round(v * by) for v in rgb)


def _pale(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    return tuple(round(c + (255 - c) * 0.55) for c in rgb)


def _ink_on(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """Dark or white, whichever reads on `rgb`."""
    r, g, b = rgb
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (255, 255, 255)


def _columns(boards: int) -> int:
    """Boards per row: at most PER_ROW, the rows balanced (5 -> 3 + 2, 7 -> 4 + 3)."""
    rows = max(1, math.ceil(boards / PER_ROW))
    return max(1, math.ceil(boards / rows))


LEGEND = (("blank", "standing (secret)"), ("struck", "broken tile"),
          *((e, e.value) for e in COLOURS), ("badge", "broken ward: element, points"))


def _cross(canvas: Canvas, x: float, y: float, size: float, fill, width: float) -> None:
    inset = size * 0.24
    canvas.line([(x + inset, y + inset), (x + size - inset, y + size - inset)], fill, width)
    canvas.line([(x + size - inset, y + inset), (x + inset, y + size - inset)], fill, width)


def _swatch(canvas: Canvas, x: float, y: float, swatch: str | Element) -> None:
    box = (x, y - 8, x + 16, y + 8)
    if swatch == "blank":
        canvas.rect(box, fill=BLANK, outline=GRID)
    elif swatch == "struck":
        canvas.rect(box, fill=STRUCK)
        _cross(canvas, x, y - 8, 16, STRUCK_CROSS, 1.6)
    elif swatch == "badge":
        canvas.circle(x + 8, y, 8, fill=BADGE, outline=INK, width=1)
        canvas.text(x + 8, y, "6", 11, INK, align="center")
    else:
        canvas.rect(box, fill=COLOURS[swatch])


def _origin(cell: str, x0: float, y0: float) -> tuple[float, float]:
    """The top-left corner of `cell` on a board whose top-left corner is (x0, y0): rank 8 on top."""
    return x0 + FILES.index(cell[0]) * CELL, y0 + (7 - RANKS.index(cell[1])) * CELL


def _badge_cell(ward: RevealedWard, struck: frozenset[str]) -> str:
    """Where a broken ward's points go: its cell nearest the ward's middle, one without a cross if any."""
    spots = [((FILES.index(c[0]), RANKS.index(c[1])), c) for c in ward.cells]
    mx = sum(f for (f, _), _ in spots) / len(spots)
    my = sum(r for (_, r), _ in spots) / len(spots)
    return min(ward.cells, key=lambda c: (c in struck, (FILES.index(c[0]) - mx) ** 2 + (RANKS.index(c[1]) - my) ** 2,
                                          CELLS.index(c)))


def _draw_board(canvas: Canvas, view: BoardView, x: float, y: float) -> None:
    """One panel, its top-left corner at (x, y): the name line, the board, its labels."""
    bx, by = x + RANK_W, y + NAME_H
    count = view.broken
    note = f"{count} tile{'s' * (count != 1)} broken" if count else "nothing broken"
    note_w = canvas.text_size(note, 14)[0]
    canvas.text(bx, y + NAME_H / 2 - 2, fit(view.owner, BOARD - note_w - 14, 19), 19, INK)
    canvas.text(bx + BOARD, y + NAME_H / 2 - 2, note, 14, MUTED, align="right")

    colour = {c: COLOURS[w.element] for w in view.revealed for c in w.cells}
    canvas.rect((bx, by, bx + BOARD, by + BOARD), fill=BLANK)
    for ward in view.standing:  # paler than a broken ward: still the owner's secret
        for cell in ward.cells:
            cx, cy = _origin(cell, bx, by)
            canvas.rect((cx, cy, cx + CELL, cy + CELL), fill=_pale(COLOURS[ward.element]))
    for cell in CELLS:
        cx, cy = _origin(cell, bx, by)
        if cell in colour:
            canvas.rect((cx, cy, cx + CELL, cy + CELL), fill=colour[cell])
        elif cell in view.struck:
            canvas.rect((cx, cy, cx + CELL, cy + CELL), fill=STRUCK)
    for k in range(1, 8):  # the lines between tiles
        canvas.line([(bx + k * CELL, by), (bx + k * CELL, by + BOARD)], GRID, 1)
        canvas.line([(bx, by + k * CELL), (bx + BOARD, by + k * CELL)], GRID, 1)
    for cell in sorted(view.struck, key=CELLS.index):
        cx, cy = _origin(cell, bx, by)
        ink = _shade(colour[cell], 0.45) if cell in colour else STRUCK_CROSS
        _cross(canvas, cx, cy, CELL, ink, 3)
    for ward in (*view.revealed, *view.standing):  # outlined, its points in a disc
        cells = set(ward.cells)
        for cell in ward.cells:
            cx, cy = _origin(cell, bx, by)
            f, r = FILES.index(cell[0]), RANKS.index(cell[1])
            edges = ((f - 1, r, [(cx, cy), (cx, cy + CELL)]), (f + 1, r, [(cx + CELL, cy), (cx + CELL, cy + CELL)]),
                     (f, r + 1, [(cx, cy), (cx + CELL, cy)]), (f, r - 1, [(cx, cy + CELL), (cx + CELL, cy + CELL)]))
            for nf, nr, line in edges:
                if not (0 <= nf < 8 and 0 <= nr < 8 and FILES[nf] + RANKS[nr] in cells):
                    canvas.line(line, INK, 2.5)
        cx, cy = _origin(_badge_cell(ward, view.struck), bx, by)
        canvas.circle(cx + CELL / 2, cy + CELL / 2, 11, fill=BADGE, outline=INK, width=1.5)
        canvas.text(cx + CELL / 2, cy + CELL / 2, str(ward.points), 15, INK, align="center")
    canvas.rect((bx, by, bx + BOARD, by + BOARD), outline=INK, width=2)
    for k, rank in enumerate(reversed(RANKS)):
        canvas.text(x + RANK_W / 2 - 2, by + k * CELL + CELL / 2, rank, 15, MUTED, align="center")
    for k, file in enumerate(FILES):
        canvas.text(bx + k * CELL + CELL / 2, by + BOARD + FILES_H / 2 + 1, file, 15, MUTED, align="center")


@dataclass(frozen=True)
class Layout:
    """Where things go for a number of boards: the picture's size, the legend's lines, and each
    board's top-left corner (the grid itself, right of the ranks and under the name)."""

    width: int
    height: int
    legend: list[list[tuple[str | Element, str, float]]]
    boards: list[tuple[float, float]]


def layout(count: int) -> Layout:
    columns = _columns(count)
    rows = math.ceil(count / columns)
    width = max(MIN_WIDTH, 2 * MARGIN + columns * PANEL_W - GAP_X)
    legend = legend_rows(LEGEND, width - 2 * MARGIN)
    top = MARGIN + TITLE_H + len(legend) * LEGEND_LINE + 10
    boards = []
    for i in range(count):
        row, column = divmod(i, columns)
        in_row = min(columns, count - row * columns)
        left = (width - (in_row * PANEL_W - GAP_X)) // 2  # every row centred
        boards.append((left + column * PANEL_W + RANK_W, top + row * PANEL_H + NAME_H))
    return Layout(width, top + rows * PANEL_H - GAP_Y + MARGIN, legend, boards)


def cell_box(board: tuple[float, float], cell: str) -> tuple[float, float, float, float]:
    """The box of `cell` on the board whose grid's top-left corner is `board`."""
    x, y = _origin(cell, *board)
    return x, y, x + CELL, y + CELL


def draw(views: Sequence[BoardView], title: str) -> bytes:
    """The boards of `views`, in rows under `title` and the legend, as PNG bytes."""
    at = layout(len(views))
    canvas = Canvas(at.width, at.height, BACKGROUND)
    canvas.text(MARGIN, MARGIN + 14, title, 26, INK)
    for k, line in enumerate(at.legend):
        x, y = MARGIN, MARGIN + TITLE_H + k * LEGEND_LINE + LEGEND_LINE / 2
        for swatch, text, w in line:
            _swatch(canvas, x, y, swatch)
            canvas.text(x + 22, y, text, 14, MUTED)
            x += w
    for view, (bx, by) in zip(views, at.boards):
        _draw_board(canvas, view, bx - RANK_W, by - NAME_H)
    return canvas.png()


def draw_boards(state: ContinuumState) -> bytes | None:
    """The picture after a round, once the boards are set (round 1 on); None before."""
    if state.rounds_played < 1 or not state.participants:
        return None
    return draw(public_boards(state), f"Elemental Continuum, round {state.rounds_played}")


def draw_own_board(state: ContinuumState, player: str) -> bytes | None:
    """`player`'s private picture: their whole board, wards still standing pale, what broke as the
    public sees it."""
    if state.rounds_played < 1 or player not in state.boards:
        return None
    return draw([own_board(state, player)], f"Your board, Elemental Continuum round {state.rounds_played}")
