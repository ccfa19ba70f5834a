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

import functools
import io
import math
from collections.abc import Mapping

from PIL import Image, ImageDraw, ImageFont

from .rules import LAYERS, POSITIONS, SIDE, Corner, Piece, Position, Type

SCALE = 2  # drawn at twice the size, then shrunk: cheap anti-aliasing
WIDTH, HEIGHT = 1180, 540
TOP_CELL = 64  # a cell in the view from the top
LAYER_CELL = 36  # a cell in the layer views and the offers
TOP_AT = (24, 116)  # the view from the top's top-left corner
LAYERS_X = 460
LAYERS_Y = 116
GAP = 36

BACKGROUND = (250, 249, 246)
INK = (40, 40, 40)
MUTED = (130, 130, 130)
EMPTY = (236, 234, 228)
SHADOW = (150, 146, 140)
STAR_FILL = (255, 208, 0)
COLOURS = {Type.GRASS: (67, 160, 71), Type.FIRE: (229, 57, 53), Type.WATER: (30, 120, 229)}


@functools.lru_cache(maxsize=None)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size * SCALE)
    except (TypeError, ImportError, OSError):  # Pillow < 10.1 or no FreeType: fixed bitmap font
        return ImageFont.load_default()


class _Pen:
    """ImageDraw in final-image pixels, drawn at SCALE times the size."""

    def __init__(self) -> None:
        self.image = Image.new("RGB", (WIDTH * SCALE, HEIGHT * SCALE), BACKGROUND)
        self.draw = ImageDraw.Draw(self.image)

    def rect(self, x: float, y: float, w: float, h: float, fill=None, outline=None, width: float = 1) -> None:
        self.draw.rectangle([x * SCALE, y * SCALE, (x + w) * SCALE - 1, (y + h) * SCALE - 1], fill=fill,
                            outline=outline, width=round(width * SCALE))

    def dashed(self, x: float, y: float, w: float, h: float, colour, dash: float = 5) -> None:
        for x0, y0, x1, y1 in ((x, y, x + w, y), (x, y + h, x + w, y + h), (x, y, x, y + h), (x + w, y, x + w, y + h)):
            length = math.hypot(x1 - x0, y1 - y0)
            for start in range(0, int(length), int(2 * dash)):
                a, b = start / length, min(start + dash, length) / length
                self.draw.line([((x0 + (x1 - x0) * a) * SCALE, (y0 + (y1 - y0) * a) * SCALE),
                                ((x0 + (x1 - x0) * b) * SCALE, (y0 + (y1 - y0) * b) * SCALE)],
                               fill=colour, width=SCALE)

    def star(self, cx: float, cy: float, r: float) -> None:
        points = []
        for k in range(10):
            radius = r if k % 2 == 0 else r * 0.45
            angle = -math.pi / 2 + k * math.pi / 5
            points.append(((cx + radius * math.cos(angle)) * SCALE, (cy + radius * math.sin(angle)) * SCALE))
        self.draw.polygon(points, fill=STAR_FILL, outline=INK, width=SCALE)

    def text(self, x: float, y: float, text: str, size: int, fill=INK, align: str = "left") -> None:
        """`text` with its ink box centred vertically on y; starting at x, or centred on it."""
        font = _font(size)
        left, top, right, bottom = self.draw.textbbox((0, 0), text, font=font)
        sx = x * SCALE - (right - left) / 2 if align == "center" else x * SCALE
        self.draw.text((sx - left, y * SCALE - (bottom - top) / 2 - top), text, font=font, fill=fill)

    def png(self) -> bytes:
        out = io.BytesIO()
        self.image.reduce(SCALE).save(out, format="PNG")
        return out.getvalue()


def _piece(pen: _Pen, piece: Piece, x: float, y: float, cell: float) -> None:
    """A piece with its top-left corner at (x, y)."""
    for corner in Corner:
        r, c = divmod(corner.index, 2)
        cx, cy = x + c * cell, y + r * cell
        kind = piece.cell(corner)
        pen.rect(cx, cy, cell, cell, fill=COLOURS[kind], outline=BACKGROUND, width=1)
        pen.text(cx + cell * 0.1, cy + cell * 0.16, kind.value[0].upper(), max(10, round(cell * 0.22)),
                 fill=(255, 255, 255))
        if piece.star is corner:
            pen.star(cx + cell / 2, cy + cell / 2 + cell * 0.04, cell * 0.33)
    pen.rect(x, y, 2 * cell, 2 * cell, outline=INK, width=2.5 if cell >= 48 else 2)


def _from_the_top(pen: _Pen, pyramid: Mapping[Position, Piece]) -> None:
    x0, y0 = TOP_AT
    pen.text(x0, y0 - 20, "From the top (what scores)", 17)
    pen.rect(x0, y0, SIDE * TOP_CELL, SIDE * TOP_CELL, fill=EMPTY, outline=MUTED, width=1)
    for position in (p for p in POSITIONS if p.layer == 0):  # where the base pieces go
        pen.dashed(x0 + 2 * position.col * TOP_CELL + 3, y0 + 2 * position.row * TOP_CELL + 3,
                   2 * TOP_CELL - 6, 2 * TOP_CELL - 6, MUTED)
    for layer in range(len(LAYERS)):  # lower layers first: upper pieces cover them
        built = [p for p in POSITIONS if p.layer == layer and p in pyramid]
        for position in built:  # the layer's shadows fall on the layers below, not on its own pieces
            top, left = position.origin
            pen.rect(x0 + left * TOP_CELL - 6 * layer, y0 + top * TOP_CELL - 6 * layer, 2 * TOP_CELL, 2 * TOP_CELL,
                     fill=SHADOW)
        for position in built:
            top, left = position.origin
            _piece(pen, pyramid[position], x0 + left * TOP_CELL, y0 + top * TOP_CELL, TOP_CELL)


def _layers(pen: _Pen, pyramid: Mapping[Position, Piece]) -> None:
    x = LAYERS_X
    for layer, name in enumerate(LAYERS):
        size = 3 - layer
        y = LAYERS_Y + layer * LAYER_CELL  # each layer one cell lower: it is centred on the one below
        pen.text(x, y - 20, name.title(), 17)
        for position in (p for p in POSITIONS if p.layer == layer):
            px, py = x + 2 * position.col * LAYER_CELL, y + 2 * position.row * LAYER_CELL
            if position in pyramid:
                _piece(pen, pyramid[position], px, py, LAYER_CELL)
            else:
                pen.rect(px + 2, py + 2, 2 * LAYER_CELL - 4, 2 * LAYER_CELL - 4, fill=EMPTY)
                pen.dashed(px + 2, py + 2, 2 * LAYER_CELL - 4, 2 * LAYER_CELL - 4, MUTED)
                pen.text(px + LAYER_CELL, py + LAYER_CELL, position.name, 12, MUTED, align="center")
        x += 2 * size * LAYER_CELL + GAP


def _offers(pen: _Pen, offers: Mapping[str, Piece]) -> None:
    y = LAYERS_Y + 6 * LAYER_CELL + 56
    pen.text(LAYERS_X, y, "On offer for the next construction stage:" if offers else "Nothing left on offer.", 17)
    x = LAYERS_X
    for label, piece in offers.items():
        pen.text(x, y + 28, label, 14)
        _piece(pen, piece, x, y + 44, LAYER_CELL)
        x += 2 * LAYER_CELL + 120


def _legend(pen: _Pen) -> None:
    x, y = 24, 66
    for kind in Type:
        pen.rect(x, y - 9, 18, 18, fill=COLOURS[kind])
        pen.text(x + 4, y, kind.value[0].upper(), 11, fill=(255, 255, 255))
        pen.text(x + 26, y, kind.value, 15)
        x += 100
    pen.star(x + 9, y + 1, 10)
    pen.text(x + 26, y, "star (counts as 3 cells)", 15)
    pen.rect(x + 230, y - 9, 18, 18, fill=SHADOW)
    pen.text(x + 256, y, "shadow: the piece stands on the middle or the apex", 15)


def draw_pyramid(pyramid: Mapping[Position, Piece], title: str, offers: Mapping[str, Piece] | None = None) -> bytes:
    """The PNG: `pyramid` maps built positions to pieces (as built, with stars); `offers` the
    pieces on offer by label, e.g. {'Red Meadow': piece}."""
    pen = _Pen()
    pen.text(24, 30, title, 26)
    _legend(pen)
    _from_the_top(pen, pyramid)
    _layers(pen, pyramid)
    _offers(pen, offers or {})
    return pen.png()
