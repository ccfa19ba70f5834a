"""A picture (PNG) of Wind Guide Me's ritual sites, for the public announcement.

One circle per site in a grid of 7 columns; each site's 5 positions sit on its circle as small
discs, position 1 at the top and then clockwise, 72 degrees apart, each labelled (outside the
circle) with the short name of the player seated there, in that player's colour. A free position
is an empty ring; an occupied one a filled disc, with the stone's power written inside only when
the view says it is public (during the game only occupation is public: `SiteView.stones` then maps
positions to None, and the picture cannot show what it is never given). The caption gives the
site number and its total power when public, or why it failed; a site's final vector is an arrow
from the centre (scaled so the longest vector of all sites reaches the circle); failed sites are
greyed. With `resultants`, a bottom panel draws every player's resultant vector from a common
origin, labelled with name and length, and ranks the players by distance.

The output is deterministic (same views, same bytes), about 1400 px wide. `draw_state` draws a
state: the views it shows the public after a round, and at the end each player's resultant.

>>> view = SiteView(1, ("Ann", "Bo", "Cy", "Di", "Ed"), stones={1: None, 4: None}, total=None)
>>> png = draw_sites([view], "Wind Guide Me - after round 1")
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sheets_host.kit.drawing import Canvas, fit
from . import rounds, rules
from .colours import (AXIS, BACKGROUND, FAILED_BG, FAILED_INK, FAILED_TEXT, FREE_FILL, INK, MUTED, PLAYER_COLOURS,
                      RING, STONE, STONE_TEXT, VECTOR)
from .rules import position_angle
from .state import TITLE, WindState


@dataclass(frozen=True)
class SiteView:
    """What the public may see of one ritual site.

    `seats[k]` is the player at position k+1. `stones` maps each occupied position (1-based) to
    the stone's power, or to None while the power is secret. `total` is the site's total power
    when public (3 or more stones), `failed` a short reason at the end ("over 25", "all equal"),
    `vector` the site's final vector (x, y) at the end of the game.
    """

    number: int
    seats: tuple[str, ...]
    stones: Mapping[int, int | None]
    total: int | None = None
    failed: str | None = None
    vector: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        bad = [p for p in self.stones if not 1 <= p <= len(self.seats)]
        if bad:
            raise ValueError(f"site {self.number}: no position {bad[0]} among 1..{len(self.seats)}")


# --- look ---------------------------------------------------------------------------------

WIDTH = 1400
COLUMNS = 7
CELL_W = WIDTH // COLUMNS
CELL_H = 232
HEADER_H = 104
PANEL_H = 470
RADIUS = 42  # a site's circle
DISC = 12  # a position's disc
LABEL_GAP = 5
SITE_CY = 92  # a site circle's centre, from the top of its cell


def _on_screen(cx: float, cy: float, r: float, angle: float) -> tuple[float, float]:
    return cx + r * math.cos(angle), cy - r * math.sin(angle)


def _players(sites: Sequence[SiteView], resultants: Mapping[str, tuple[float, float]] | None) -> list[str]:
    """Every player, in order of first appearance (seats site by site, then resultants)."""
    seen = dict.fromkeys(name for site in sites for name in site.seats)
    seen.update(dict.fromkeys(resultants or ()))
    return list(seen)


def _short_names(canvas: Canvas, names: Sequence[str], size: int, max_width: float) -> dict[str, str]:
    """A label per name that fits in max_width and tells the names apart."""
    labels = {name: fit(name, max_width, size) for name in names}
    counts: dict[str, int] = {}
    for label in labels.values():
        counts[label] = counts.get(label, 0) + 1
    taken: dict[str, int] = {}
    for name in names:
        label = labels[name]
        if counts[label] > 1:  # two long names cut alike: number them in order
            taken[label] = taken.get(label, 0) + 1
            suffix = str(taken[label])
            room = max_width - canvas.text_size(suffix, size)[0]
            labels[name] = fit(name, room, size).rstrip("…") + "…" + suffix
    return labels


# --- drawing --------------------------------------------------------------------------------

LABEL_SIZE = 13
POWER_SIZE = 14
CAPTION_SIZE = 17
DETAIL_SIZE = 14


def _draw_site(canvas: Canvas, site: SiteView, left: float, top: float, labels: Mapping[str, str],
               colours: Mapping[str, tuple[int, int, int]], vector_scale: float) -> None:
    failed = site.failed is not None
    if failed:
        canvas.rect((left + 3, top + 3, left + CELL_W - 3, top + CELL_H - 3), fill=FAILED_BG)
    cx, cy = left + CELL_W / 2, top + SITE_CY
    n = len(site.seats)
    canvas.circle(cx, cy, RADIUS, outline=FAILED_INK if failed else RING, width=2)

    # seat labels, outside the circle, kept inside the cell
    label_r = RADIUS + DISC + LABEL_GAP
    for k, name in enumerate(site.seats):
        angle = position_angle(k + 1, n)
        text = labels.get(name, name)
        w, h = canvas.text_size(text, LABEL_SIZE)
        c, s = math.cos(angle), math.sin(angle)
        d = label_r + abs(c) * w / 2 + abs(s) * h / 2
        x, y = _on_screen(cx, cy, d, angle)
        x = min(max(x, left + 3 + w / 2), left + CELL_W - 3 - w / 2)
        canvas.text(x, y, text, LABEL_SIZE, FAILED_INK if failed else colours.get(name, INK), align="center")

    # positions: free rings and stones
    for position in range(1, n + 1):
        x, y = _on_screen(cx, cy, RADIUS, position_angle(position, n))
        if position in site.stones:
            canvas.circle(x, y, DISC, fill=FAILED_INK if failed else STONE)
            power = site.stones[position]
            if power is not None:
                canvas.text(x, y, str(power), POWER_SIZE, STONE_TEXT, align="center")
        else:
            canvas.circle(x, y, DISC, fill=FREE_FILL, outline=FAILED_INK if failed else RING, width=1.5)

    if site.vector is not None and not failed and vector_scale > 0:
        vx, vy = site.vector
        canvas.arrow(cx, cy, cx + vx * vector_scale, cy - vy * vector_scale, VECTOR)

    # caption
    canvas.text(cx, top + 176, f"Site {site.number}", CAPTION_SIZE, FAILED_INK if failed else INK,
                align="center")
    if failed:
        detail, ink = f"failed: {site.failed}", FAILED_TEXT
    else:
        placed = len(site.stones)
        detail = f"total {site.total}" if site.total is not None else (
            f"{placed} stone{'' if placed == 1 else 's'}")
        if site.vector is not None:
            detail += f", length {math.hypot(*site.vector):.1f}"
        ink = MUTED
    canvas.text(cx, top + 200, detail, DETAIL_SIZE, ink, align="center")


def _draw_header(canvas: Canvas, title: str, players: Sequence[str],
                 colours: Mapping[str, tuple[int, int, int]], any_vector: bool) -> None:
    canvas.text(24, 30, title, 26, INK)
    # key: free position, stone (power hidden), stone with power, site vector
    x, y = 24, 72
    canvas.circle(x + DISC, y, DISC, fill=FREE_FILL, outline=RING, width=1.5)
    canvas.text(x + 2 * DISC + 8, y, "free position", DETAIL_SIZE, MUTED)
    x += 2 * DISC + 16 + canvas.text_size("free position", DETAIL_SIZE)[0] + 20
    canvas.circle(x + DISC, y, DISC, fill=STONE)
    canvas.text(x + 2 * DISC + 8, y, "stone", DETAIL_SIZE, MUTED)
    x += 2 * DISC + 16 + canvas.text_size("stone", DETAIL_SIZE)[0] + 20
    canvas.circle(x + DISC, y, DISC, fill=STONE)
    canvas.text(x + DISC, y, "4", POWER_SIZE, STONE_TEXT, align="center")
    canvas.text(x + 2 * DISC + 8, y, "stone of power 4", DETAIL_SIZE, MUTED)
    x += 2 * DISC + 16 + canvas.text_size("stone of power 4", DETAIL_SIZE)[0] + 20
    if any_vector:
        canvas.arrow(x, y, x + 30, y, VECTOR)
        canvas.text(x + 38, y, "site vector", DETAIL_SIZE, MUTED)
        x += 38 + canvas.text_size("site vector", DETAIL_SIZE)[0] + 20
    canvas.text(x + 4, y, "position 1 at the top, then clockwise", DETAIL_SIZE, MUTED)
    # players, in their colours, right-aligned on the title line
    right = WIDTH - 24
    for name in reversed(players):
        text = fit(name, 150, 16)
        canvas.text(right, 30, text, 16, colours[name], align="right")
        right -= canvas.text_size(text, 16)[0] + 16


def _draw_resultants(canvas: Canvas, top: float, resultants: Mapping[str, tuple[float, float]],
                     colours: Mapping[str, tuple[int, int, int]], labels: Mapping[str, str]) -> None:
    canvas.line([(24, top), (WIDTH - 24, top)], fill=AXIS, width=1)
    canvas.text(24, top + 26, "Players' resultants (sum of the vectors of the sites where they placed a stone)",
                CAPTION_SIZE, INK)
    cx, cy, radius = 380.0, top + 250, 185.0
    longest = max((math.hypot(*v) for v in resultants.values()), default=0.0)
    scale = radius / longest if longest > 0 else 0.0
    canvas.line([(cx - radius - 20, cy), (cx + radius + 20, cy)], fill=AXIS, width=1)
    canvas.line([(cx, cy - radius - 20), (cx, cy + radius + 20)], fill=AXIS, width=1)
    if longest > 0:
        canvas.circle(cx, cy, radius, outline=AXIS, width=1)
        canvas.text(cx + radius * 0.72 + 4, cy + radius * 0.72 + 10, f"{longest:.2f}", 12, MUTED)
    placed: list[tuple[float, float, float, float]] = []  # label boxes already drawn
    arrows = sorted(resultants.items(), key=lambda item: -math.hypot(*item[1]))
    for name, (vx, vy) in arrows:
        canvas.arrow(cx, cy, cx + vx * scale, cy - vy * scale, colours.get(name, INK), width=3, head=11)
    for name, (vx, vy) in arrows:  # labels after all arrows, longest first, nudged apart
        length = math.hypot(vx, vy)
        text = f"{labels.get(name, name)} {length:.2f}"
        w, h = canvas.text_size(text, LABEL_SIZE)
        ux, uy = (vx / length, -vy / length) if length > 0 else (1.0, 0.0)
        ex, ey = cx + vx * scale, cy - vy * scale
        lx, ly = ex + ux * (8 + w / 2), ey + uy * (8 + h / 2)
        for step in (0, 1, -1, 2, -2, 3, -3, 4, -4):
            y = ly + step * (h + 4)
            box = (lx - w / 2 - 2, y - h / 2 - 2, lx + w / 2 + 2, y + h / 2 + 2)
            if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed):
                break
        placed.append(box)
        canvas.rect(box, fill=BACKGROUND)
        canvas.text(lx, y, text, LABEL_SIZE, colours.get(name, INK), align="center")
    # ranking
    x, y = 760.0, top + 80
    canvas.text(x, y, "Distance from (0, 0)", CAPTION_SIZE, INK)
    ranked = sorted(resultants.items(), key=lambda item: -math.hypot(*item[1]))
    for rank, (name, (vx, vy)) in enumerate(ranked, start=1):
        y += 40
        canvas.circle(x + 8, y, 7, fill=colours.get(name, INK))
        canvas.text(x + 26, y, f"{rank}.", 18, INK)
        canvas.text(x + 56, y, fit(name, 330, 18), 18, colours.get(name, INK))
        canvas.text(x + 480, y, f"{math.hypot(vx, vy):.2f}", 18, INK, align="right")
        canvas.text(x + 500, y, f"({vx:+.2f}, {vy:+.2f})", 14, MUTED)


def draw_sites(sites: Sequence[SiteView], title: str,
               resultants: Mapping[str, tuple[float, float]] | None = None, *,
               players: Sequence[str] | None = None) -> bytes:
    """The sites (and, when given, the players' resultant vectors) as PNG bytes, ~1400 px wide.

    `players` fixes the order of the colour key and the colours (player i gets colour i); by
    default, players in order of first appearance in the sites' seats, then in `resultants`.
    """
    rows = max(1, math.ceil(len(sites) / COLUMNS))
    height = HEADER_H + rows * CELL_H + (PANEL_H if resultants else 0) + 8
    canvas = Canvas(WIDTH, height, BACKGROUND)
    players = list(dict.fromkeys([*(players or ()), *_players(sites, resultants)]))
    colours = {name: PLAYER_COLOURS[i % len(PLAYER_COLOURS)] for i, name in enumerate(players)}
    labels = _short_names(canvas, players, LABEL_SIZE, 54)
    longest = max((math.hypot(*s.vector) for s in sites if s.vector is not None and s.failed is None),
                  default=0.0)
    vector_scale = (RADIUS - 2) / longest if longest > 0 else 0.0
    _draw_header(canvas, title, players, colours, any(s.vector is not None for s in sites))
    for i, site in enumerate(sites):
        row, column = divmod(i, COLUMNS)
        _draw_site(canvas, site, column * CELL_W, HEADER_H + row * CELL_H, labels, colours, vector_scale)
    if resultants:
        _draw_resultants(canvas, HEADER_H + rows * CELL_H, resultants, colours, labels)
    return canvas.png()


def draw_state(state: WindState) -> bytes:
    """The announcement's picture of `state`: what the public may see after the round just
    resolved; at the end every stone's power, the sites' vectors and the players' resultants."""
    over = state.over
    act = rounds.activations(state) if over else {}
    views = []
    for n, seats in enumerate(state.sites, 1):
        board = state.boards[n]
        a = act.get(n)
        views.append(SiteView(n, tuple(seats), {p: (s.power if over else None) for p, s in board.items()},
                              rules.total_power(board) if len(board) >= 3 else None,
                              a.failed if a else None, (a.x, a.y) if a and not a.failed else None))
    resultants = None
    if over:
        resultants = {}
        for player in state.players:
            mine = state.used_sites(player)
            resultants[player] = (sum(act[n].x for n in mine if not act[n].failed),
                                  sum(act[n].y for n in mine if not act[n].failed))
    title = f"{TITLE}: " + ("final" if over else f"after round {state.round - 1}")
    return draw_sites(views, title, resultants)
