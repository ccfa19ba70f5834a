"""Summoner's Dream's private pictures (PNG): a defender's map with its Towers, their ranges and
each invasion's losses.

Each participant's picture after a round is one image: a title, a legend of the colours and marks,
then a panel per map, the map (columns A, B, ... and rows 1, 2, ... as the submit tabs name cells)
on the left and what it shows in words on the right:

- "Your territory": their own map as the maps tab draws it (road, land, scenery, E), their Towers
  (a disc with the kind's name and a notch where it faces), the tiles in range of a Tower outlined
  thicker the more reach them, and what the invasions of it came to: a red count where Familiars
  died, the Treasures stolen on E; beside it each Tower by its unit name with its kills, and each
  invasion as the battles tab tells it;
- "Your invasion of X": X's map with X's Towers as the battle met them (their kinds: an invader
  learns no unit), and the losses of this participant's own invasion only (never another
  invader's); beside it each of their Familiars by name with its fate.

Nothing else is drawn: a defender's picture shows no invader, an invader's shows no other invasion
of that map. Deterministic (the same battles give the same bytes).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from sheets_host.kit.drawing import Canvas, legend_rows, wrap
from .state import Cell, GameMap, Invasion, Stand, SummoningState, Tile, cell_name
from .views import PALETTE, attack_lines, defence_line

BACKGROUND, INK, MUTED = (248, 246, 240), (35, 35, 40), (115, 115, 125)
DEATH, STOLEN, TOWER, REACH = (200, 40, 40), (20, 120, 140), (255, 255, 255), (90, 60, 150)
CELL = 34
WIDTH, MARGIN, AXIS, GAP = 800, 20, 18, 22  # the picture; its margins; the row numbers' column; map to text
TITLE_H, LEGEND_LINE, LABEL, TEXT, LINE = 36, 24, 26, 13, 17
ARROWS = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
FACING = {"N": "north", "E": "east", "S": "south", "W": "west"}

# The legend, in the game's words: (what the swatch shows, its text).
LEGEND = ((Tile.ROAD, "road"), (Tile.BLESSED_LAND, "Blessed Land"), (Tile.GROTTO_HEAVEN, "Grotto-Heaven"),
          (Tile.SCENERY, "scenery"), (Tile.TREASURE, "E: the Treasure (E-2: 2 stolen)"),
          (Tile.ENTRANCE_A, "A, B: where Tracks A and B begin"), ("tower", "a Tower, notched where it faces"),
          ("reach", "in range of a Tower (thicker: more)"), ("death", "Familiars killed there"))


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (0, 2, 4))


def _reach(state: SummoningState, defender: str, stand: Stand, game_map: GameMap) -> list[Cell]:
    """The tiles a Tower reached in the round just resolved (its level then: upgrades come first)."""
    unit = next(u for u in state.holdings[defender].towers if u.name == stand.tower)
    stats = state.catalogue.towers[unit.kind].levels[unit.level - 1]
    r, c = stand.cell
    cells = [stand.cell] + [(r + dr, c + dc) for dr, dc in (stand.facing.turn(o) for o in stats.reach)]
    return [cell for cell in cells if game_map.tile(cell) is not None]


def _kind(unit: str) -> str:
    """A unit's kind: 'Raccoon Dog 2' -> 'Raccoon Dog' (names never end in a number)."""
    return unit.rsplit(" ", 1)[0]


def _tower(canvas: Canvas, cx: float, cy: float, unit: str, facing: str, own: bool) -> None:
    """A Tower's disc with as much of its kind's name as fits, over its number on the owner's own
    map (an invader learns kinds only), and a notch on the rim where it faces."""
    canvas.circle(cx, cy, CELL / 2 - 3, fill=TOWER, outline=INK, width=1.5)
    kind, room = _kind(unit), CELL - 9
    size = 9 if canvas.text_size(kind, 9)[0] <= room else 8
    label = next(kind[:n] for n in range(len(kind), 0, -1) if canvas.text_size(kind[:n], size)[0] <= room)
    canvas.text(cx, cy - 4 * own, label, size, INK, align="center")
    if own:
        canvas.text(cx, cy + 6, unit.rsplit(" ", 1)[1], size, INK, align="center")
    dx, dy = ARROWS[facing]
    tip, base, half = CELL / 2 - 0.5, CELL / 2 - 6, 4
    canvas.polygon([(cx + dx * tip, cy + dy * tip), (cx + dx * base - dy * half, cy + dy * base + dx * half),
                    (cx + dx * base + dy * half, cy + dy * base - dx * half)], fill=INK)


def _swatch(canvas: Canvas, x: float, y: float, swatch) -> None:
    box = (x, y - 8, x + 16, y + 8)
    if isinstance(swatch, Tile):
        canvas.rect(box, fill=_rgb(PALETTE[swatch.value]))
        if swatch in (Tile.TREASURE, Tile.ENTRANCE_A):
            canvas.text(x + 8, y, swatch.value, 11, STOLEN if swatch is Tile.TREASURE else MUTED, align="center")
    elif swatch == "tower":
        canvas.circle(x + 8, y, 8, fill=TOWER, outline=INK, width=1.2)
        canvas.polygon([(x + 8, y - 8), (x + 5, y - 4), (x + 11, y - 4)], fill=INK)
    elif swatch == "reach":
        canvas.rect(box, fill=_rgb(PALETTE[Tile.ROAD.value]), outline=REACH, width=2)
    else:
        canvas.circle(x + 8, y, 7, fill=DEATH)
        canvas.text(x + 8, y, "3", 10, (255, 255, 255), align="center")


def _map(canvas: Canvas, x: float, y: float, game_map: GameMap, stands: Sequence[Stand], reach: Counter,
         invasions: Sequence[Invasion], own: bool) -> None:
    """The map with its top-left tile at (x, y), column letters above and row numbers left of it;
    its Towers' units numbered when it is the player's `own`."""
    deaths = Counter(f.cell for inv in invasions for f in inv.fates if not f.reached)
    stolen = sum(inv.stolen for inv in invasions)
    for c in range(max(len(row) for row in game_map.tiles)):
        canvas.text(x + c * CELL + CELL / 2, y - 9, cell_name((0, c))[0], 11, MUTED, align="center")
    for r, row in enumerate(game_map.tiles):
        canvas.text(x - AXIS / 2, y + r * CELL + CELL / 2, str(r + 1), 11, MUTED, align="center")
        for c, tile in enumerate(row):
            x0, y0 = x + c * CELL, y + r * CELL
            canvas.rect((x0, y0, x0 + CELL, y0 + CELL), fill=_rgb(PALETTE[tile.value]), outline=(255, 255, 255))
            if reach[(r, c)]:
                canvas.rect((x0 + 3, y0 + 3, x0 + CELL - 3, y0 + CELL - 3), outline=REACH,
                            width=min(1 + reach[(r, c)], 4))
            if tile in (Tile.ENTRANCE_A, Tile.ENTRANCE_B):
                canvas.text(x0 + CELL / 2, y0 + CELL / 2, tile.value, 15, MUTED, align="center")
            if tile is Tile.TREASURE:
                canvas.text(x0 + CELL / 2, y0 + CELL / 2, f"E-{stolen}" if stolen else "E", 12, STOLEN,
                            align="center")
    for stand in stands:
        r, c = stand.cell
        _tower(canvas, x + c * CELL + CELL / 2, y + r * CELL + CELL / 2, stand.tower, stand.facing.value, own)
    for (r, c), count in sorted(deaths.items()):
        x0, y0 = x + c * CELL, y + r * CELL
        canvas.circle(x0 + CELL - 7, y0 + 7, 7, fill=DEATH)
        canvas.text(x0 + CELL - 7, y0 + 7, str(count), 10, (255, 255, 255), align="center")


def _territory_lines(state: SummoningState, player: str, stands: Sequence[Stand],
                     invasions: Sequence[Invasion]) -> list[str]:
    levels = {u.name: u.level for u in state.holdings[player].towers}
    kills = Counter(f.killer for inv in invasions for f in inv.fates if f.killer)
    lines = [f"{s.tower} (level {levels[s.tower]}) at {cell_name(s.cell)}, facing {FACING[s.facing.value]}: "
             f"killed {kills[s.tower]}" for s in stands] or ["No Towers stood on your map."]
    return lines + ([defence_line(i) for i in invasions] or ["Nobody invaded your map."])


def panels(state: SummoningState, player: str, number: int) -> list[tuple[str, str, list[Invasion], list[str]]]:
    """(title, whose map, the invasions drawn on it, the lines beside it) for each of the player's
    maps, their own first."""
    turns = state.turns[-1]
    mine = [i for i in state.invasions if i.round == number and i.defender == player]
    out = [(f"Your territory: {turns[player].map}", player, mine,
            _territory_lines(state, player, turns[player].stands, mine))]
    for i in (i for i in state.invasions if i.round == number and i.invader == player):
        kinds = sorted({_kind(s.tower) for s in turns[i.defender].stands})
        out.append((f"Your invasion of {i.defender}: {i.map}", i.defender, [i],
                    [f"Their Towers: {', '.join(kinds) or 'none'}", *(attack_lines(i) or ["You sent no Familiars."])]))
    return out


def draw_battles(state: SummoningState, player: str) -> bytes | None:
    """`player`'s private picture of the round just resolved, or None before the first."""
    if not state.turns or player not in state.turns[-1]:
        return None
    number = state.first_round + state.rounds_played - 1
    turns = state.turns[-1]
    legend = legend_rows(LEGEND, WIDTH - 2 * MARGIN, TEXT)
    laid = []  # (title, map, stands, reach, invasions, own map, wrapped lines, text's left, panel height)
    for title, defender, invasions, lines in panels(state, player, number):
        game_map = state.catalogue.maps[turns[defender].map]
        stands = turns[defender].stands
        reach = Counter(c for s in stands for c in _reach(state, defender, s, game_map))
        left = MARGIN + AXIS + max(len(row) for row in game_map.tiles) * CELL + GAP
        wrapped = [w for line in lines for w in wrap(line, WIDTH - MARGIN - left, TEXT)]
        height = LABEL + max(len(game_map.tiles) * CELL + 14, len(wrapped) * LINE)
        laid.append((title, game_map, stands, reach, invasions, defender == player, wrapped, left, height))
    top = MARGIN + TITLE_H + len(legend) * LEGEND_LINE + 8
    canvas = Canvas(WIDTH, top + sum(p[-1] + 16 for p in laid) + MARGIN - 16, BACKGROUND)
    canvas.text(MARGIN, MARGIN + 12, f"Your battles, Summoner's Dream round {number}", 20, INK)
    for k, line in enumerate(legend):
        x, y = MARGIN, MARGIN + TITLE_H + k * LEGEND_LINE + LEGEND_LINE / 2
        for swatch, text, w in line:
            _swatch(canvas, x, y, swatch)
            canvas.text(x + 22, y, text, TEXT, MUTED)
            x += w
    y = top
    for title, game_map, stands, reach, invasions, own, wrapped, left, height in laid:
        canvas.text(MARGIN, y + 9, title, 17, INK)
        _map(canvas, MARGIN + AXIS, y + LABEL + 14, game_map, stands, reach, invasions, own)
        for k, line in enumerate(wrapped):
            canvas.text(left, y + LABEL + 14 + k * LINE + LINE / 2, line, TEXT, INK)
        y += height + 16
    return canvas.png()
