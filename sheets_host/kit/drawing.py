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
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

SCALE = 2  # twice the size, then shrunk: smooth edges for little cost

Point = tuple[float, float]
Box = tuple[float, float, float, float]


# DejaVu Sans, shipped with the package (its licence beside it): Pillow's own font has ASCII only,
# and pictures show player names ("Zoë", "Søren", "Łukasz") and signs ("×", "→").
FONT = Path(__file__).parents[1] / "fonts" / "DejaVuSans.ttf"


@functools.lru_cache(maxsize=None)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans at `size` pixels (Pillow's fixed bitmap font where Pillow has no FreeType)."""
    try:
        return ImageFont.truetype(str(FONT), size)
    except (ImportError, OSError):  # Pillow built without FreeType
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
    """PNG pictures one under the other, left-aligned, as one PNG (None for none; one as is). A
    narrower picture is widened in its own background, the colour of its top-right pixel, so the
    stack shows no white gap beside it.

    >>> a, b = Canvas(30, 10, (0, 0, 0)).png(), Canvas(20, 15, (9, 9, 9)).png()
    >>> both = Image.open(io.BytesIO(stack([a, b])))
    >>> both.size, both.getpixel((29, 24)), stack([a]) == a, stack([])
    ((30, 25), (9, 9, 9), True, None)
    """
    if len(pngs) < 2:
        return pngs[0] if pngs else None
    images = [Image.open(io.BytesIO(png)).convert("RGB") for png in pngs]
    out = Image.new("RGB", (max(i.width for i in images), sum(i.height for i in images)))
    y = 0
    for image in images:
        out.paste(image.getpixel((image.width - 1, 0)), (image.width, y, out.width, y + image.height))
        out.paste(image, (0, y))
        y += image.height
    buffer = io.BytesIO()
    out.save(buffer, format="PNG")
    return buffer.getvalue()


def legend_rows(items: Sequence[tuple[object, str]], width: float,
                size: int = 14) -> list[list[tuple[object, str, float]]]:
    """A legend's items (a swatch, then its text in `size`-pixel type) flowed into lines of at most
    `width` pixels: each line's (swatch, text, item width), the item width holding a 16-pixel
    swatch, the text and the space before the next item.

    >>> [[text for _, text, _ in line] for line in legend_rows([(1, "road"), (2, "land"), (3, "scenery")], 160)]
    [['road', 'land'], ['scenery']]
    """
    rows: list[list[tuple[object, str, float]]] = [[]]
    used = 0.0
    for swatch, text in items:
        w = 22 + _width(text, size) + 18
        if rows[-1] and used + w > width:
            rows.append([])
            used = 0.0
        rows[-1].append((swatch, text, w))
        used += w
    return rows


# Tables: Discord shows no Markdown pipe tables, so an announcement's tables are drawn. Sizes in px.
TEXT, WHITE, HEADER, HEADER_RULE, SHADE, GRID = (51,) * 3, (255,) * 3, (52, 58, 64), (98, 104, 112), \
    (243, 245, 247), (214, 218, 223)
SIZE, LINE, TITLE_SIZE, TITLE_LINE = 15, 18, 19, 24  # type and line heights: a one-line row is 26
PAD_X, PAD_Y, MARGIN, GAP = 8, 4, 10, 10
MIN_COLUMN, MAX_LINES, MAX_CHARS = 48, 8, 1000  # squeezed column; most a cell shows ("…" where cut)
NUMBER = re.compile(r"[+\-−]?(\d[\d,]*(\.\d*)?|\.\d+)%?")  # 12, -3, 4.50, 1,200, 50%


def _clean(value: object) -> str:
    """A cell's text: str(value), '' for None, outer blanks stripped, line breaks as '\\n', tabs as
    spaces, other control characters and lone surrogates dropped (they would draw as boxes)."""
    text = "" if value is None else str(value)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    text = text[:MAX_CHARS] + "…" if len(text) > MAX_CHARS else text
    text = "".join(c for c in text if c == "\n" or unicodedata.category(c) not in ("Cc", "Cs"))
    if not isinstance(font(SIZE), ImageFont.FreeTypeFont):  # Pillow's bitmap font has Latin-1 only
        text = text.encode("latin-1", "replace").decode("latin-1")
    return text.strip()


@functools.lru_cache(maxsize=4096)
def _width(text: str, size: int = SIZE) -> float:
    """`text`'s advance width in final pixels, measured at the drawing scale: what is drawn."""
    return font(size * SCALE).getlength(text) / SCALE


def _cut(text: str, width: float, size: int = SIZE) -> str:
    """The longest start of `text` that with '…' after it fits `width` (just '…' if none does)."""
    low, high = 0, len(text)
    while low < high:  # binary search: a 100,000-letter name costs 17 measures
        mid = (low + high + 1) // 2
        low, high = (mid, high) if _width(text[:mid].rstrip() + "…", size) <= width else (low, mid - 1)
    return text[:low].rstrip() + "…"


def fit(text: str, width: float, size: int = SIZE) -> str:
    """`text` if it fits `width` pixels in `size`-pixel type, else cut short with '…' (`_cut`).

    >>> fit("Bo", 100), fit("Bartholomew Fitzgerald", 60)
    ('Bo', 'Barth…')
    """
    return text if _width(text, size) <= width else _cut(text, width, size)


def wrap(text: str, width: float, size: int = SIZE) -> list[str]:
    """`text` in lines at most `width` wide: broken at its line breaks, then at spaces; a word too
    long for a line is cut with '…', and past MAX_LINES lines the last kept one ends with '…'."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            joined = f"{line} {word}" if line else word
            if _width(joined, size) <= width:
                line = joined
                continue
            if line:
                lines.append(line)
            line = word if _width(word, size) <= width else _cut(word, width, size)
        lines.append(line)
        if len(lines) > MAX_LINES:
            return lines[:MAX_LINES - 1] + [_cut(lines[MAX_LINES - 1], width, size)]
    return lines


def _cap(widths: Sequence[int], room: float) -> float:
    """The largest cap such that the widths, each cut down to it, fit in `room` (inf: all fit)."""
    left = len(widths)
    for need in sorted(widths):
        if need * left > room:
            return room // left
        room, left = room - need, left - 1
    return math.inf


def _columns(natural: Sequence[int], right: Sequence[bool], room: int) -> list[int]:
    """Column widths fitting `room`: as wide as their widest cells if all fit; else the text columns
    under a shared cap keep their width and the wider ones get the cap (a long note wraps, not the
    names), then numbers too if needed; never below MIN_COLUMN (so too many columns overflow)."""
    widths = list(natural)
    if sum(widths) > room:
        fixed = sum(w for w, r in zip(widths, right) if r)
        cap = max(MIN_COLUMN, _cap([w for w, r in zip(widths, right) if not r], room - fixed))
        widths = [w if r else min(w, cap) for w, r in zip(widths, right)]
    if sum(widths) > room:
        widths = [min(w, max(MIN_COLUMN, _cap(widths, room))) for w in widths]
    return [int(w) for w in widths]


def _write(canvas: Canvas, x: float, y: float, text: str, size: int, fill, right: bool = False,
           bold: bool = False) -> None:
    """One line of `text` from x (ending at x if `right`), its capitals centred on y: lines of a
    size share their baseline's offset whatever their letters (no jumping digits)."""
    face = font(size * canvas.scale)
    _, top, _, bottom = canvas.draw.textbbox((0, 0), "H", font=face)
    stroke = {"stroke_width": 1, "stroke_fill": fill} if bold and isinstance(face, ImageFont.FreeTypeFont) else {}
    x -= _width(text, size) if right else 0
    canvas.draw.text((x * canvas.scale, y * canvas.scale - (top + bottom) / 2), text, font=face, fill=fill,
                     **stroke)


def table(title: str | None, header: Sequence[str], rows: Sequence[Sequence[object]],
          right: Sequence[bool] | None = None, max_width: int = 1600) -> bytes:
    """A table as a PNG (Discord shows no Markdown tables): an optional title in larger bold type, a
    dark header row, then the rows (cells `str()` of the values, None empty) shaded every other one
    in a thin grid. Columns are as wide as their widest cells; past `max_width` px the widest text
    columns narrow and their cells wrap, rows growing taller (`_columns`, `wrap`). `right[i]`
    right-aligns column i, by default if its non-empty cells all look like numbers ("12", "-3", "4.50").

    >>> small = table("Scores", ["Player", "Points"], [["Ann", 12], ["Bo", None]])
    >>> taller = table("Scores", ["Player", "Points"], [["Ann", 12], ["Bo", None], ["Cy", -3]])
    >>> (w, h), (w2, h2) = (Image.open(io.BytesIO(png)).size for png in (small, taller))
    >>> small[:8] == b"\\x89PNG\\r\\n\\x1a\\n", w2 == w, h2 - h
    (True, True, 26)
    """
    grid = [[_clean(cell) for cell in row] for row in [header, *rows]]
    n = max(map(len, grid))
    grid = [cells + [""] * (n - len(cells)) for cells in grid]
    auto = [any(r[i] for r in grid[1:]) and all(NUMBER.fullmatch(r[i]) for r in grid[1:] if r[i]) for i in range(n)]
    right = [bool(right[i]) if right is not None and i < len(right) else auto[i] for i in range(n)]
    room = max_width - 2 * MARGIN
    natural = [2 * PAD_X + math.ceil(max([8.0, *(_width(line) for r in grid for line in r[i].split("\n"))]))
               for i in range(n)]
    widths = _columns(natural, right, room)
    lines = [[wrap(cell, w - 2 * PAD_X) for cell, w in zip(r, widths)] for r in grid]
    heights = [2 * PAD_Y + LINE * max([1, *map(len, cells)]) for cells in lines] if n else []
    titled = wrap(_clean(title), room, TITLE_SIZE) if _clean(title) else []
    title_width = min(room, math.ceil(max([0.0, *(_width(line, TITLE_SIZE) + 1 for line in titled)])))
    top = MARGIN + (len(titled) * TITLE_LINE + GAP if titled else 0)
    xs = [MARGIN + sum(widths[:i]) for i in range(n + 1)]
    canvas = Canvas(2 * MARGIN + max(xs[-1] - MARGIN, title_width), top + sum(heights) + MARGIN, WHITE)
    for k, line in enumerate(titled):
        _write(canvas, MARGIN, MARGIN + (k + 0.5) * TITLE_LINE, line, TITLE_SIZE, TEXT, bold=True)
    y = top
    for r, (cells, height) in enumerate(zip(lines, heights)):
        fill = HEADER if r == 0 else SHADE if r % 2 == 0 else None
        if fill:
            canvas.rect((xs[0], y, xs[-1], y + height), fill=fill)
        for i in range(1, n):  # column rules
            canvas.rect((xs[i], y, xs[i] + 1, y + height), fill=HEADER_RULE if r == 0 else GRID)
        if r > 1:  # row rule
            canvas.rect((xs[0], y, xs[-1], y + 1), fill=GRID)
        for i, cell in enumerate(cells):
            for k, line in enumerate(cell):
                x = xs[i + 1] - PAD_X if right[i] else xs[i] + PAD_X
                _write(canvas, x, y + PAD_Y + (k + 0.5) * LINE, line, SIZE, WHITE if r == 0 else TEXT, right[i])
        y += height
    if n:
        canvas.rect((xs[0], top, xs[-1], y), outline=GRID)
    return canvas.png()


def tables(blocks: Sequence[tuple[str | None, Sequence[str], Sequence[Sequence[object]]]]) -> bytes | None:
    """Several tables (title, header, rows) drawn one under another with a gap, as one PNG (None for
    none): an announcement with several tables posts one picture.

    >>> one, two = tables([("A", ["x"], [[1]])]), tables([("A", ["x"], [[1]]), ("B", ["y"], [[2], [3]])])
    >>> one[:8] == b"\\x89PNG\\r\\n\\x1a\\n", [Image.open(io.BytesIO(p)).height for p in (one, two)], tables([])
    (True, [106, 248], None)
    """
    if not blocks:
        return None
    spacer = Canvas(1, GAP, WHITE).png()  # on top of each table's margins
    return stack([png for block in blocks for png in (spacer, table(*block))][1:])
