"""A picture (PNG) of the pyramid for the public announcement.

Left, the pyramid seen from the top (what scores): 6x6 cells, each piece drawn over the ones
below it, pieces standing on the middle and apex layers with a shadow. Right, the three layers
one by one (base 3x3 pieces, middle 2x2, apex), empty positions outlined with their names, and
under them the pieces on offer for the next construction stage. Cells are filled in their type's
colour with the type's initial (G, F, W) for readers who cannot tell the colours apart; a star is
a gold five-pointed star. Everything shown is public; the output is deterministic.

>>> png = draw_pyramid({}, "Pyramid Superiority: after day 0")
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

from collections.abc import Mapping

from sheets_host.kit.drawing import Canvas
from .colours import BACKGROUND, COLOURS, EMPTY, INK, MUTED, SHADOW, STAR_FILL
from .rules import LAYERS, POSITIONS, SIDE, Corner, Piece, Position, Type
from .state import PyramidState

WIDTH, HEIGHT = 1180, 540
TOP_CELL = 64  # a cell in the view from the top
LAYER_CELL = 36  # a cell in the layer views and the offers
TOP_AT = (24, 116)  # the view from the top's top-left corner
LAYERS_X = 460
LAYERS_Y = 116
GAP = 36


def _piece(canvas: Canvas, piece: Piece, x: float, y: float, cell: float) -> None:
    """A piece with its top-left corner at (x, y)."""
    for corner in Corner:
        r, c = divmod(corner.index, 2)
        cx, cy = x + c * cell, y + r * cell
        kind = piece.cell(corner)
        canvas.rect((cx, cy, cx + cell, cy + cell), fill=COLOURS[kind], outline=BACKGROUND, width=1)
        canvas.text(cx + cell * 0.1, cy + cell * 0.16, kind.value[0].upper(), max(10, round(cell * 0.22)),
                    (255, 255, 255))
        if piece.star is corner:
            canvas.star(cx + cell / 2, cy + cell / 2 + cell * 0.04, cell * 0.33, STAR_FILL, outline=INK)
    canvas.rect((x, y, x + 2 * cell, y + 2 * cell), outline=INK, width=2.5 if cell >= 48 else 2)


def _from_the_top(canvas: Canvas, pyramid: Mapping[Position, Piece]) -> None:
    x0, y0 = TOP_AT
    canvas.text(x0, y0 - 20, "From the top (what scores)", 17, INK)
    canvas.rect((x0, y0, x0 + SIDE * TOP_CELL, y0 + SIDE * TOP_CELL), fill=EMPTY, outline=MUTED, width=1)
    for position in (p for p in POSITIONS if p.layer == 0):  # where the base pieces go
        x, y = x0 + 2 * position.col * TOP_CELL, y0 + 2 * position.row * TOP_CELL
        canvas.dashed((x + 3, y + 3, x + 2 * TOP_CELL - 3, y + 2 * TOP_CELL - 3), MUTED)
    for layer in range(len(LAYERS)):  # lower layers first: upper pieces cover them
        built = [p for p in POSITIONS if p.layer == layer and p in pyramid]
        for position in built:  # the layer's shadows fall on the layers below, not on its own pieces
            top, left = position.origin
            x, y = x0 + left * TOP_CELL - 6 * layer, y0 + top * TOP_CELL - 6 * layer
            canvas.rect((x, y, x + 2 * TOP_CELL, y + 2 * TOP_CELL), fill=SHADOW)
        for position in built:
            top, left = position.origin
            _piece(canvas, pyramid[position], x0 + left * TOP_CELL, y0 + top * TOP_CELL, TOP_CELL)


def _layers(canvas: Canvas, pyramid: Mapping[Position, Piece]) -> None:
    x = LAYERS_X
    for layer, name in enumerate(LAYERS):
        size = 3 - layer
        y = LAYERS_Y + layer * LAYER_CELL  # each layer one cell lower: it is centred on the one below
        canvas.text(x, y - 20, name.title(), 17, INK)
        for position in (p for p in POSITIONS if p.layer == layer):
            px, py = x + 2 * position.col * LAYER_CELL, y + 2 * position.row * LAYER_CELL
            if position in pyramid:
                _piece(canvas, pyramid[position], px, py, LAYER_CELL)
            else:
                box = (px + 2, py + 2, px + 2 * LAYER_CELL - 2, py + 2 * LAYER_CELL - 2)
                canvas.rect(box, fill=EMPTY)
                canvas.dashed(box, MUTED)
                canvas.text(px + LAYER_CELL, py + LAYER_CELL, position.name, 12, MUTED, align="center")
        x += 2 * size * LAYER_CELL + GAP


def _offers(canvas: Canvas, offers: Mapping[str, Piece]) -> None:
    y = LAYERS_Y + 6 * LAYER_CELL + 56
    heading = "On offer for the next construction stage:" if offers else "Nothing left on offer."
    canvas.text(LAYERS_X, y, heading, 17, INK)
    x = LAYERS_X
    for label, piece in offers.items():
        canvas.text(x, y + 28, label, 14, INK)
        _piece(canvas, piece, x, y + 44, LAYER_CELL)
        x += 2 * LAYER_CELL + 120


def _legend(canvas: Canvas) -> None:
    x, y = 24, 66
    for kind in Type:
        canvas.rect((x, y - 9, x + 18, y + 9), fill=COLOURS[kind])
        canvas.text(x + 4, y, kind.value[0].upper(), 11, (255, 255, 255))
        canvas.text(x + 26, y, kind.value, 15, INK)
        x += 100
    canvas.star(x + 9, y + 1, 10, STAR_FILL, outline=INK)
    canvas.text(x + 26, y, "star (counts as 3 cells)", 15, INK)
    canvas.rect((x + 230, y - 9, x + 248, y + 9), fill=SHADOW)
    canvas.text(x + 256, y, "shadow: the piece stands on the middle or the apex", 15, INK)


def draw_pyramid(pyramid: Mapping[Position, Piece], title: str, offers: Mapping[str, Piece] | None = None) -> bytes:
    """The PNG: `pyramid` maps built positions to pieces (as built, with stars); `offers` the
    pieces on offer by label, e.g. {'Red Meadow': piece}."""
    canvas = Canvas(WIDTH, HEIGHT, BACKGROUND)
    canvas.text(24, 30, title, 26, INK)
    _legend(canvas)
    _from_the_top(canvas, pyramid)
    _layers(canvas, pyramid)
    _offers(canvas, offers or {})
    return canvas.png()


def draw_state(state: PyramidState, title: str) -> bytes:
    """The announcement's picture: the pyramid after the day just resolved, and the pieces on offer
    for the next construction stage (none once the game is over)."""
    heading = f"{title}: " + ("final pyramid" if state.over else f"after day {state.days}")
    offers = {} if state.over else {m.title: p for m, p in state.offers().items()}
    return draw_pyramid(state.ledger.pyramid, heading, offers)
