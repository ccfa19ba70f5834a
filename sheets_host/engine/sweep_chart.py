"""The picture of a sweep: one small chart per statistic across the grid, a designer's overview.

Each chart has a group per combination of the settings swept (left to right, as the table's rows),
a bar per bot strategy in the group. The winners' share by seat is drawn as a dot per seat, with
a dashed line at an even share: a seat the rules favour stands above it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sheets_host.kit.drawing import Canvas, fit
from .sweep import WIN_SHARE, Sweep

WIDTH, PANEL_W, PANEL_H, COLUMNS, TOP = 960, 312, 176, 3, 64
BACKGROUND, INK, FAINT, GRID = (255, 255, 255), (33, 33, 33), (120, 120, 120), (225, 225, 225)
# One colour a strategy, in `Game.bots` order: distinct for colour-blind readers (Okabe and Ito).
SERIES = [(0, 114, 178), (230, 159, 0), (0, 158, 115), (204, 121, 167), (86, 180, 233), (213, 94, 0)]


def statistics(sweep: Sweep) -> list[str]:
    """What is charted, in the table's order: the winners' share, the score spread, the defaults,
    the game's other figures (each one the table has)."""
    keys = list(dict.fromkeys(k for r in sweep.rows() for k in r))
    seats = [k for k in keys if k.startswith(WIN_SHARE)]
    rest = [k for k in keys if k not in sweep.grid and k not in ("bots", "games") and k not in seats]
    return (["winners' share by seat"] if seats else []) + rest


def picture(sweep: Sweep) -> bytes:
    stats = statistics(sweep)
    strategies = list(dict.fromkeys(c.report.bots for c in sweep.cells))
    combinations = list(dict.fromkeys(c.settings for c in sweep.cells))
    rows = -(-len(stats) // COLUMNS)
    canvas = Canvas(WIDTH, TOP + rows * PANEL_H + 8, BACKGROUND)
    swept = ", ".join(f"{k} ({', '.join(v)})" for k, v in sweep.grid.items())
    canvas.text(12, 16, fit(f"{sweep.title}: {swept}", WIDTH - 24, 15), 15, INK)
    canvas.text(12, 38, fit(f"{sweep.games:,} games a bar (seeds {sweep.seed} on), {len(sweep.players)} players, "
                            f"each figure a game's average; under each group: {' · '.join(sweep.grid)}",
                            WIDTH - 24, 11), 11, FAINT)
    x = 12.0
    for i, strategy in enumerate(strategies):  # the legend
        canvas.rect((x, 50, x + 10, 60), fill=SERIES[i % len(SERIES)])
        canvas.text(x + 14, 55, f"{strategy} bots", 11, INK)
        x += 24 + canvas.text_size(f"{strategy} bots", 11)[0]
    rows_of = {(c.settings, c.report.bots): row for c, row in zip(sweep.cells, sweep.rows())}
    for n, stat in enumerate(stats):
        left, top = 12 + (n % COLUMNS) * PANEL_W, TOP + (n // COLUMNS) * PANEL_H
        values = [[_values(rows_of[(c, s)], stat) for s in strategies] for c in combinations]
        _panel(canvas, (left, top, left + PANEL_W - 16, top + PANEL_H - 10), stat, values, combinations,
               _even(values) if stat.startswith("winners'") else None)
    return canvas.png()


def _even(shares: Sequence[Sequence[list[float]]]) -> float:
    """An even share of the wins: their mean over the seats (a game may have several winners)."""
    every = [v for group in shares for series in group for v in series]
    return sum(every) / len(every)


def _label(combination: tuple[tuple[str, str], ...]) -> str:
    return " · ".join(v for _, v in combination)


def _values(row: dict[str, object], stat: str) -> list[float]:
    if stat.startswith("winners'"):
        return [float(v) for k, v in row.items() if k.startswith(WIN_SHARE)]
    value = row.get(stat)
    return [] if value is None else [float(value)]


def _panel(canvas: Canvas, box, title: str, values: Sequence[Sequence[list[float]]],
           combinations: Sequence, even: float | None) -> None:
    """A chart in `box`: a group per combination, a bar (or dots, for several values) per series."""
    x0, y0, x1, y1 = box
    canvas.text(x0, y0 + 8, fit(title, x1 - x0, 12), 12, INK)
    every = [v for group in values for series in group for v in series] + ([even] if even else [])
    lo, hi = min([0.0, *every]), max([0.0, *every])
    hi = hi if hi > lo else lo + 1
    top, bottom, left = y0 + 24, y1 - 18, x0 + 40

    def y(v: float) -> float:
        return bottom - (v - lo) / (hi - lo) * (bottom - top)

    for v in (lo, hi, 0.0) if lo < 0 else (lo, hi):
        canvas.line([(left, y(v)), (x1, y(v))], GRID)
        canvas.text(left - 4, y(v), _number(v), 10, FAINT, align="right")
    if even:
        canvas.dashed_line((left, y(even)), (x1, y(even)), FAINT, 1, 3)
    group_w = (x1 - left) / max(len(values), 1)
    for g, group in enumerate(values):
        gx = left + g * group_w
        bar_w = min(22.0, (group_w - 8) / max(len(group), 1))
        start = gx + (group_w - bar_w * len(group)) / 2
        for s, series in enumerate(group):
            colour, bx = SERIES[s % len(SERIES)], start + s * bar_w
            if len(series) == 1 and not even:
                canvas.rect((bx + 1, min(y(series[0]), y(0.0)), bx + bar_w - 1, max(y(series[0]), y(0.0)) + 1),
                            fill=colour)
                canvas.text(bx + bar_w / 2, min(y(series[0]), y(0.0)) - 6, _number(series[0]), 8, FAINT,
                            align="center")
            for v in series if even else ():
                canvas.circle(bx + bar_w / 2, y(v), 2.6, fill=colour)
        canvas.text(gx + group_w / 2, bottom + 9, fit(_label(combinations[g]), group_w - 2, 10), 10, INK,
                    align="center")


def _number(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 or v == int(v) else f"{v:.2g}"

