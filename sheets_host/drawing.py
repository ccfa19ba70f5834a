"""Drawing plumbing shared by the games' announcement pictures (PNG).

`Canvas` wraps Pillow's ImageDraw so that a game draws in final-image pixels (floats allowed) while
the image is drawn at `scale` times the size and shrunk by box averaging at the end: cheap
anti-aliasing. Boxes are (x0, y0, x1, y1), covering x0 <= x < x1 and y0 <= y < y1, so a box is
x1 - x0 pixels wide whatever the scale. What to draw (pieces, sites, cards, colours, layout) stays
in each game's picture module.

>>> canvas = Canvas(40, 20, (255, 255, 255))
>>> canvas.rect((2, 2, 38, 18), outline=(0, 0, 0))
>>> canvas.text(20, 10, "ok", 10, (0, 0, 0), align="center")
>>> png = canvas.png()
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
>>> Image.open(io.BytesIO(png)).size
(40, 20)
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

SCALE = 2  # twice the size, then shrunk: smooth edges for little cost

Point = tuple[float, float]
Box = tuple[float, float, float, float]


@functools.lru_cache(maxsize=None)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's default font at `size` pixels (its fixed bitmap font where Pillow cannot scale it)."""
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ImportError, OSError):  # Pillow < 10.1 or no FreeType: fixed bitmap font
        return ImageFont.load_default()


class Canvas:
    """A picture `width` x `height` pixels on `background`, drawn at `scale` times the size.

    Coordinates, widths and type sizes are in final-image pixels; colours anything ImageDraw takes.
    """

    def __init__(self, width: int, height: int, background, scale: int = SCALE) -> None:
        self.scale = scale
        self.image = Image.new("RGB", (width * scale, height * scale), background)
        self.draw = ImageDraw.Draw(self.image)

    def _at(self, points: Sequence[Point]) -> list[Point]:
        return [(x * self.scale, y * self.scale) for x, y in points]

    def _width(self, width: float) -> int:
        return round(width * self.scale)

    def rect(self, box: Box, fill=None, outline=None, width: float = 1, radius: float = 0) -> None:
        """A rectangle, its outline drawn inside the box; corners rounded with `radius`."""
        x0, y0, x1, y1 = box
        corners = [x0 * self.scale, y0 * self.scale, x1 * self.scale - 1, y1 * self.scale - 1]
        if radius:
            self.draw.rounded_rectangle(corners, radius=radius * self.scale, fill=fill, outline=outline,
                                        width=self._width(width))
        else:
            self.draw.rectangle(corners, fill=fill, outline=outline, width=self._width(width))

    def circle(self, x: float, y: float, r: float, fill=None, outline=None, width: float = 1) -> None:
        (x0, y0), (x1, y1) = self._at([(x - r, y - r), (x + r, y + r)])
        self.draw.ellipse([x0, y0, x1, y1], fill=fill, outline=outline, width=self._width(width))

    def line(self, points: Sequence[Point], fill, width: float = 1) -> None:
        self.draw.line(self._at(points), fill=fill, width=self._width(width))

    def polygon(self, points: Sequence[Point], fill=None, outline=None, width: float = 1) -> None:
        self.draw.polygon(self._at(points), fill=fill, outline=outline, width=self._width(width))

    def dashed_line(self, start: Point, end: Point, fill, width: float = 1, dash: float = 5) -> None:
        """A straight line of `dash`-long strokes and gaps, starting with a stroke at `start`."""
        (x0, y0), (x1, y1) = start, end
        length = math.hypot(x1 - x0, y1 - y0)
        for at in range(0, int(length), int(2 * dash)):
            a, b = at / length, min(at + dash, length) / length
            self.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a), (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)],
                      fill, width)

    def dashed(self, box: Box, fill, width: float = 1, dash: float = 5) -> None:
        """A dashed rectangle outline along the box's edges."""
        x0, y0, x1, y1 = box
        # every edge from its top or left end, so that the dashes of opposite edges line up
        edges = ((x0, y0), (x1, y0)), ((x0, y1), (x1, y1)), ((x0, y0), (x0, y1)), ((x1, y0), (x1, y1))
        for start, end in edges:
            self.dashed_line(start, end, fill, width, dash)

    def star(self, x: float, y: float, r: float, fill, outline=None, width: float = 1) -> None:
        """A five-pointed star centred on (x, y), a point up, its points `r` from the centre."""
        points = []
        for k in range(10):
            radius = r if k % 2 == 0 else r * 0.45
            angle = -math.pi / 2 + k * math.pi / 5
            points.append((x + radius * math.cos(angle), y + radius * math.sin(angle)))
        self.polygon(points, fill=fill, outline=outline, width=width)

    def arrow(self, x0: float, y0: float, x1: float, y1: float, fill, width: float = 2.5,
              head: float = 9.0) -> None:
        """A line from (x0, y0) with a triangular head at (x1, y1); a dot when they coincide."""
        length = math.hypot(x1 - x0, y1 - y0)
        if length < 1e-9:
            self.circle(x0, y0, width, fill=fill)
            return
        ux, uy = (x1 - x0) / length, (y1 - y0) / length
        head = min(head, length * 0.6)
        bx, by = x1 - ux * head, y1 - uy * head
        self.line([(x0, y0), (bx + ux, by + uy)], fill=fill, width=width)  # into the head: no gap at its base
        half = head * 0.5
        self.polygon([(x1, y1), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)],
                     fill=fill)

    def text_size(self, text: str, size: int) -> tuple[float, float]:
        """The width and height of `text`'s ink in `size`-pixel type."""
        left, top, right, bottom = self.draw.textbbox((0, 0), text, font=font(size * self.scale))
        return (right - left) / self.scale, (bottom - top) / self.scale

    def text(self, x: float, y: float, text: str, size: int, fill, align: str = "left", *,
             anchor: str | None = None) -> None:
        """Draws `text` in `size`-pixel type with its ink box centred vertically on y and starting
        at x (align 'left'), centred on x ('center') or ending at x ('right'): a digit sits in the
        middle of a disc whatever its shape. With a Pillow `anchor` ('la', 'mm', ...) the text is
        placed by the font's metrics instead and `align` does not apply: lines share a baseline."""
        face = font(size * self.scale)
        if anchor is not None:
            self.draw.text((x * self.scale, y * self.scale), text, font=face, fill=fill, anchor=anchor)
            return
        left, top, right, bottom = self.draw.textbbox((0, 0), text, font=face)
        w, h = right - left, bottom - top
        sx = {"left": x * self.scale, "center": x * self.scale - w / 2, "right": x * self.scale - w}[align]
        self.draw.text((sx - left, y * self.scale - h / 2 - top), text, font=face, fill=fill)

    def png(self) -> bytes:
        """The picture at its final size, as PNG bytes (the same drawing gives the same bytes)."""
        out = io.BytesIO()
        self.image.reduce(self.scale).save(out, format="PNG")  # box average: no ringing
        return out.getvalue()


def stack(pngs: Sequence[bytes]) -> bytes | None:
    """PNG pictures one under the other, left-aligned on white, as one PNG (None for none; one as is).

    >>> a, b = Canvas(30, 10, (0, 0, 0)).png(), Canvas(20, 15, (0, 0, 0)).png()
    >>> Image.open(io.BytesIO(stack([a, b]))).size, stack([a]) == a, stack([])
    ((30, 25), True, None)
    """
    if len(pngs) < 2:
        return pngs[0] if pngs else None
    images = [Image.open(io.BytesIO(png)).convert("RGB") for png in pngs]
    out = Image.new("RGB", (max(i.width for i in images), sum(i.height for i in images)), (255, 255, 255))
    y = 0
    for image in images:
        out.paste(image, (0, y))
        y += image.height
    buffer = io.BytesIO()
    out.save(buffer, format="PNG")
    return buffer.getvalue()
