"""Summoner's Dream's private pictures (PNG): a defender's map with its Towers, their ranges and
each invasion's losses.

Each participant's picture after a round has two panels:

- "Your territory": their own map as the maps tab draws it (road, land, scenery, E), their Towers
  (a disc with the kind's first letters and an arrow for its facing), the tiles in range of a Tower
  tinted by how many reach them, and what the invasions of it came to: a red count where
  Familiars died, and the Treasures stolen on E;
- "Your invasion of X": X's map with X's Towers as the battle met them, and the losses of this
  participant's own invasion only (never another invader's).

Nothing else is drawn: a defender's picture shows no invader, an invader's shows no other invasion
of that map. Deterministic (the same battles give the same bytes).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ...drawing import Canvas, stack
from .state import Cell, GameMap, Invasion, Stand, SummoningState, Tile
from .views import PALETTE

BACKGROUND, INK, MUTED = (248, 246, 240), (35, 35, 40), (115, 115, 125)
DEATH, STOLEN, TOWER = (200, 40, 40), (20, 120, 140), (255, 255, 255)
CELL = 34
MARGIN, TITLE_H, LABEL = 20, 40, 18
LEGEND = "outlined: in range; red: Familiars killed there; E-n: Treasures stolen"
ARROWS = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (0, 2, 4))


def _reach(state: SummoningState, defender: str, stand: Stand, game_map: GameMap) -> list[Cell]:
    """The tiles a Tower reached in the round just resolved (its level then: upgrades come first)."""
    unit = next(u for u in state.holdings[defender].towers if u.name == stand.tower)
    stats = state.catalogue.towers[unit.kind].levels[unit.level - 1]
    r, c = stand.cell
    cells = [stand.cell] + [(r + dr, c + dc) for dr, dc in (stand.facing.turn(o) for o in stats.reach)]
    return [cell for cell in cells if game_map.tile(cell) is not None]


def _panel(canvas: Canvas, x: float, y: float, title: str, game_map: GameMap, stands: Sequence[Stand],
           reach: Counter, invasions: Sequence[Invasion]) -> None:
    canvas.text(x, y + LABEL / 2, title, 17, INK)
    y += LABEL + 8
    deaths = Counter(f.cell for inv in invasions for f in inv.fates if not f.reached)
    stolen = sum(inv.stolen for inv in invasions)
    for r, row in enumerate(game_map.tiles):
        for c, tile in enumerate(row):
            x0, y0 = x + c * CELL, y + r * CELL
            canvas.rect((x0, y0, x0 + CELL, y0 + CELL), fill=_rgb(PALETTE[tile.value]), outline=(255, 255, 255))
            if reach[(r, c)]:  # tinted darker the more Towers reach it
                canvas.rect((x0 + 3, y0 + 3, x0 + CELL - 3, y0 + CELL - 3), outline=(90, 60, 150),
                            width=min(1 + reach[(r, c)], 4))
            if tile in (Tile.ENTRANCE_A, Tile.ENTRANCE_B):
                canvas.text(x0 + CELL / 2, y0 + CELL / 2, tile.value, 15, MUTED, align="center")
            if tile is Tile.TREASURE:
                canvas.text(x0 + CELL / 2, y0 + CELL / 2, f"E-{stolen}" if stolen else "E", 13, STOLEN,
                            align="center")
    for stand in stands:
        r, c = stand.cell
        cx, cy = x + c * CELL + CELL / 2, y + r * CELL + CELL / 2
        canvas.circle(cx, cy, CELL / 2 - 4, fill=TOWER, outline=INK, width=1.5)
        canvas.text(cx, cy, stand.tower.split(" ")[0][:3], 10, INK, align="center")
        dx, dy = ARROWS[stand.facing.value]  # a notch on the disc's rim, where it faces
        tip, base, half = CELL / 2 - 0.5, CELL / 2 - 6, 4
        canvas.polygon([(cx + dx * tip, cy + dy * tip), (cx + dx * base - dy * half, cy + dy * base + dx * half),
                        (cx + dx * base + dy * half, cy + dy * base - dx * half)], fill=INK)
    for (r, c), count in sorted(deaths.items()):
        x0, y0 = x + c * CELL, y + r * CELL
        canvas.circle(x0 + CELL - 8, y0 + 8, 7, fill=DEATH)
        canvas.text(x0 + CELL - 8, y0 + 8, str(count), 10, (255, 255, 255), align="center")


def _size(game_map: GameMap) -> tuple[int, int]:
    return max(len(row) for row in game_map.tiles) * CELL, len(game_map.tiles) * CELL + LABEL + 8


def draw_battles(state: SummoningState, player: str) -> bytes | None:
    """`player`'s private picture of the round just resolved, or None before the first."""
    if not state.turns or player not in state.turns[-1]:
        return None
    number = state.first_round + state.rounds_played - 1
    turns = state.turns[-1]
    mine = [i for i in state.invasions if i.round == number and i.defender == player]
    attack = [i for i in state.invasions if i.round == number and i.invader == player]
    panels = [(f"Your territory: {turns[player].map}", player, mine)]
    panels += [(f"Your invasion of {i.defender}: {i.map}", i.defender, [i]) for i in attack]
    pngs = []
    for title, defender, invasions in panels:
        turn = turns[defender]
        game_map = state.catalogue.maps[turn.map]
        reach = Counter(c for s in turn.stands for c in _reach(state, defender, s, game_map))
        w, h = _size(game_map)
        canvas = Canvas(max(w + 2 * MARGIN, 420), h + 2 * MARGIN + TITLE_H + 16, BACKGROUND)
        canvas.text(MARGIN, MARGIN + 12, f"Summoner's Dream, round {number}", 20, INK)
        canvas.text(MARGIN, h + MARGIN + TITLE_H + 10, LEGEND, 12, MUTED)
        _panel(canvas, MARGIN, MARGIN + TITLE_H, title, game_map, turn.stands, reach, invasions)
        pngs.append(canvas.png())
    return stack(pngs)
