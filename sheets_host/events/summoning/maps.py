"""Summoner's Dream's drawings read into typed values: maps drawn one character a tile, each track
followed from its entrance along the road to E, and Tower ranges drawn facing north.

A drawing is a run of consecutive rows of its tab, all naming it, numbered 1, 2, ... from the top;
its cells are the columns A, B, ... (so a map's cell C4 is column C of its row 4, north up).

>>> tiles = grid("A R # L",
...              "L R R E",
...              "L L L L")
>>> [cell_name(c) for c in derive_track(tiles, "A")]
['A1', 'B1', 'B2', 'C2', 'D2']
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence

from sheets_host.kit import cells
from sheets_host.kit.errors import SchemaError
from .state import LAND_OF, PARTIES, Cell, GameMap, Offset, Tile, cell_name

MAPS, TRACKS, RANGES = "summoning maps", "summoning tracks", "summoning ranges"
MAP_COLUMNS = tuple("ABCDEFGHIJKLMNOP")  # a map is at most 16 tiles wide
RANGE_COLUMNS = tuple("ABCDEFGHI")  # a range drawing at most 9
TILE_HINT = ("a tile: R (road), A or B (a track's entrance), E (Treasure), L (Blessed Land), "
             "H (Grotto-Heaven) or # (scenery)")
RANGE_HINT = "a range tile: T (the Tower's own tile), x (in range), or . or blank (not in range)"
STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))  # north, east, south, west: a Familiar never steps diagonally
KIND_OF = {tile: kind for kind, tile in LAND_OF.items()}
TILES = {t.value: t for t in Tile}
Tiles = tuple[tuple[Tile, ...], ...]


class TrackError(ValueError):
    """A track cannot be followed from the drawing: at `cell` the road leads on to `ways` (none:
    it ends; two or more: it forks, each way reaching E; `lost`: every way ends before E)."""

    def __init__(self, party: str, cell: Cell, ways: Sequence[Cell], lost: bool = False):
        self.party, self.cell, self.ways, self.lost = party, cell, tuple(ways), lost
        at, named = cell_name(cell), _and([cell_name(w) for w in ways])
        how = (f"forks at {at} to {named}" if ways and not lost else
               f"at {at} leads only to {named}, which end before E" if ways else f"ends at {at}")
        super().__init__(f"Track {party}'s road {how}")


def grid(*lines: str) -> Tiles:
    """Tiles from drawn lines, one character a tile (spaces ignored): how tests and examples draw.

    >>> grid("AR", "LE")[1]
    (<Tile.BLESSED_LAND: 'L'>, <Tile.TREASURE: 'E'>)
    """
    return tuple(tuple(Tile(ch) for ch in line.replace(" ", "")) for line in lines)


def _at(tiles: Tiles, cell: Cell) -> Tile | None:
    r, c = cell
    return tiles[r][c] if 0 <= r < len(tiles) and 0 <= c < len(tiles[r]) else None


def _walkable(tile: Tile | None) -> bool:
    return tile is not None and (tile.is_road or tile is Tile.TREASURE)


def _next_to(tiles: Tiles, cell: Cell, passed: Iterable[Cell]) -> list[Cell]:
    """The road or E tiles north, east, south and west of `cell` not in `passed`."""
    near = [(cell[0] + dr, cell[1] + dc) for dr, dc in STEPS]
    return [n for n in near if _walkable(_at(tiles, n)) and n not in passed]


def _reaches_e(tiles: Tiles, start: Cell, passed: set[Cell]) -> bool:
    """Whether E can be reached from `start` along road tiles not in `passed`."""
    seen, todo = {start}, deque([start])
    while todo:
        cell = todo.popleft()
        if _at(tiles, cell) is Tile.TREASURE:
            return True
        for n in _next_to(tiles, cell, seen | passed):
            seen.add(n)
            todo.append(n)
    return False


def derive_track(tiles: Tiles, party: str) -> tuple[Cell, ...]:
    """Track `party` ("A" or "B") followed from its entrance to E: each step to the one road tile (or
    E) next to the last that the track has not passed. Where several are, the ways that can no
    longer reach E are left out, so a track passes where the other track joins it; if several
    still reach E the road forks, and TrackError says where (the host lists such a track).

    >>> merged = grid("A R R R L",
    ...               "L L L R L",
    ...               "B R R R E")
    >>> [cell_name(c) for c in derive_track(merged, "B")]
    ['A3', 'B3', 'C3', 'D3', 'E3']
    >>> derive_track(grid("A R R", "R L R", "R R E"), "A")
    Traceback (most recent call last):
    ...
    sheets_host.events.summoning.maps.TrackError: Track A's road forks at A1 to B1 and A2
    >>> derive_track(grid("A R L", "L L E"), "A")
    Traceback (most recent call last):
    ...
    sheets_host.events.summoning.maps.TrackError: Track A's road ends at B1
    """
    entrance = Tile(party)
    track = [next((r, c) for r, row in enumerate(tiles) for c, t in enumerate(row) if t is entrance)]
    passed = set(track)
    while _at(tiles, track[-1]) is not Tile.TREASURE:
        ways = _next_to(tiles, track[-1], passed)
        if len(ways) > 1:
            onward = [w for w in ways if _reaches_e(tiles, w, passed)]
            if len(onward) != 1:
                raise TrackError(party, track[-1], onward or ways, lost=not onward)
            ways = onward
        if not ways:
            raise TrackError(party, track[-1], ())
        track.append(ways[0])
        passed.add(ways[0])
    return tuple(track)


def _and(items: Sequence[str]) -> str:
    return " and ".join(items) if len(items) < 3 else ", ".join(items[:-1]) + " and " + items[-1]


def _names(cells_: Sequence[Cell], most: int = 8) -> str:
    """Cells named for a message, the first `most` of them."""
    names = [cell_name(c) for c in cells_]
    return " ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def _char(raw: object) -> str:
    """A drawn cell's character: any case, spaces ignored."""
    return "".join(cells.text(raw).split()).upper()


def _drawings(tab: str, rows: Sequence[Mapping], key: str, errors: list[SchemaError]) -> list[tuple[str, list]]:
    """The drawings of a tab in order: each its name (as first typed) and its rows. A name is read in
    any case and spacing; a drawing's rows are consecutive and numbered 1, 2, ... (else it is left
    out, with an error)."""
    drawings: list[tuple[str, list]] = []
    begun: dict[str, int | None] = {}  # folded name -> the sheet row its drawing begins on
    current, drawing = None, []
    for r in rows:
        folded = cells.fold(r[key])
        if folded != current or (drawing and r["row"] == 1):  # a new drawing, maybe under a name used already
            current, drawing = folded, []
            if folded in begun:
                errors.append(SchemaError(tab, r.get("_row"), key, r[key], f"a name no other {key} uses (row "
                                          f"{begun[folded]} begins its drawing; a {key}'s rows are consecutive, "
                                          "numbered 1, 2, ...)"))
                continue
            begun[folded] = r.get("_row")
            if "," in r[key]:
                errors.append(SchemaError(tab, r.get("_row"), key, r[key], "a name without a comma"))
                continue
            drawings.append((r[key], drawing))
        drawing.append(r)
    out = []
    for name, drawing in drawings:
        wrong = next(((i, r) for i, r in enumerate(drawing, 1) if r["row"] != i), None)
        if wrong:
            i, r = wrong
            errors.append(SchemaError(tab, r.get("_row"), "row", r["row"], f"{i}, the next row of {name} (a drawing's "
                                                                          "rows are numbered 1, 2, ... from the top)"))
        else:
            out.append((name, drawing))
    return out


# ---- maps ----------------------------------------------------------------------------------------


def read_maps(rows: Sequence[Mapping], track_rows: Sequence[Mapping]) -> tuple[dict[str, GameMap], list[SchemaError]]:
    """The maps drawn in the maps tab (rows read through its schema), their tracks listed in the
    tracks tab or else followed on the drawing; and every problem. A map with a problem is left out."""
    errors: list[SchemaError] = []
    drawn: dict[str, tuple[Tiles | None, list]] = {}
    for name, drawing in _drawings(MAPS, rows, "map", errors):
        drawn[name] = (_tiles(name, drawing, errors), drawing)
    listed = _listed_tracks(track_rows, drawn, errors)
    maps = {}
    for name, (tiles, drawing) in drawn.items():
        if tiles is None:
            continue
        tracks = {}
        for party in PARTIES:
            if (name, party) in listed:
                tracks[party] = listed[name, party]
                continue
            try:
                tracks[party] = derive_track(tiles, party)
            except TrackError as e:
                errors.append(_track_error(name, drawing, e))
        if all(tracks.get(p) for p in PARTIES):
            land = next(t for row in tiles for t in row if t.is_land)
            maps[name] = GameMap(name, KIND_OF[land], tiles, tracks)
    return maps, errors


def _track_error(name: str, drawing: list, e: TrackError) -> SchemaError:
    r, c = e.cell
    where = f"{name} Track {e.party} at {cell_name(e.cell)}"
    ways = _and([cell_name(w) for w in e.ways])
    if not e.ways:
        expected = "a road that leads on to E: no road or E tile next to it that the track has not passed; draw it on"
    elif e.lost:
        expected = f"a road that leads on to E: its ways on ({ways}) end before E; draw one on"
    else:
        expected = (f"a road with one way on to E: it forks to {ways}; list the track's cells in '{TRACKS}' "
                    "to say which way it goes")
    return SchemaError(MAPS, drawing[r].get("_row"), MAP_COLUMNS[c], where, expected)


def _tiles(name: str, drawing: list, errors: list[SchemaError]) -> Tiles | None:
    """A map's tiles, or None after adding its problems: a character that is no tile, a blank tile,
    rows of different widths, not one E, not one entrance of each track on the edge, land of both
    kinds or none."""
    before = len(errors)
    raws = [[r.get(letter) for letter in MAP_COLUMNS] for r in drawing]
    ends = [max((c + 1 for c, raw in enumerate(row) if not cells.is_blank(raw)), default=0) for row in raws]
    width = max(ends)
    grid_: list[tuple[Tile, ...]] = []
    for i, (r, row, end) in enumerate(zip(drawing, raws, ends)):
        if end < width:
            how = f"ends at column {MAP_COLUMNS[end - 1]}" if end else "is empty"
            errors.append(SchemaError(MAPS, r.get("_row"), MAP_COLUMNS[end], "", f"a tile ({name} row {i + 1} {how} "
                                      f"but its widest row at {MAP_COLUMNS[width - 1]}: draw every row to the same "
                                      "width)"))
        line = []
        for c, raw in enumerate(row[:end]):
            if cells.is_blank(raw):
                errors.append(SchemaError(MAPS, r.get("_row"), MAP_COLUMNS[c], "",
                                          f"a tile ({name} {cell_name((i, c))} is blank: draw every tile)"))
            elif _char(raw) not in TILES:
                errors.append(SchemaError(MAPS, r.get("_row"), MAP_COLUMNS[c], cells.text(raw), TILE_HINT))
            else:
                line.append(TILES[_char(raw)])
        grid_.append(tuple(line))
    if len(errors) > before:
        return None
    tiles = tuple(grid_)
    where = {t: [(r, c) for r, row in enumerate(tiles) for c, x in enumerate(row) if x is t] for t in Tile}
    first = drawing[0].get("_row")

    def count(cells_: list[Cell], what: str) -> str:
        return f"{what} (it has {len(cells_)}: {_names(cells_)})" if cells_ else f"{what} (it has none)"

    if len(where[Tile.TREASURE]) != 1:
        errors.append(SchemaError(MAPS, first, "map", name, count(where[Tile.TREASURE],
                                                                  "a map with one Treasure tile E")))
    for party in PARTIES:
        at = where[Tile(party)]
        if len(at) != 1:
            errors.append(SchemaError(MAPS, first, "map", name, count(
                at, f"a map with one {party} tile, the road tile on its edge where Track {party} begins")))
        elif 0 < at[0][0] < len(tiles) - 1 and 0 < at[0][1] < width - 1:
            r, c = at[0]
            errors.append(SchemaError(MAPS, drawing[r].get("_row"), MAP_COLUMNS[c], party, f"where Track {party} "
                                      f"begins: {name} {cell_name(at[0])} is inside the map; an entrance is on its "
                                      "edge"))
    lands = sorted((where[t] for t in KIND_OF), key=len)
    if lands[0]:
        few, many = lands
        errors.append(SchemaError(MAPS, first, "map", name, "a map of one kind: its buildable tiles are all L (Blessed "
                                  f"Land) or all H (Grotto-Heaven); {_tile_of(tiles, few[0])} at {_names(few)}, "
                                  f"{_tile_of(tiles, many[0])} at {len(many)} other tiles"))
    elif not lands[1]:
        errors.append(SchemaError(MAPS, first, "map", name, "a map with buildable tiles: L (Blessed Land) or H "
                                                            "(Grotto-Heaven), where Towers stand"))
    return tiles if len(errors) == before else None


def _tile_of(tiles: Tiles, cell: Cell) -> str:
    return tiles[cell[0]][cell[1]].value


# ---- listed tracks -------------------------------------------------------------------------------


def _listed_tracks(rows: Sequence[Mapping], drawn: Mapping[str, tuple[Tiles | None, list]],
                   errors: list[SchemaError]) -> dict[tuple[str, str], tuple[Cell, ...] | None]:
    """The tracks listed in the tracks tab, by map and track; None for one that cannot be read (its
    problem is added) or whose map is badly drawn (the map's problems say why)."""
    out: dict[tuple[str, str], tuple[Cell, ...] | None] = {}
    rows_of: dict[tuple[str, str], int | None] = {}
    for r in rows:
        try:
            name = cells.as_choice(r["map"], list(drawn), "a map")
        except cells.CellError as e:
            errors.append(SchemaError(TRACKS, r.get("_row"), "map", r["map"], f"a map of the maps tab ({e})"))
            continue
        key = (name, r["track"])
        if key in rows_of:
            errors.append(SchemaError(TRACKS, r.get("_row"), "track", r["track"],
                                      f"a track of {name} not listed already (row {rows_of[key]} lists it)"))
            continue
        rows_of[key] = r.get("_row")
        tiles = drawn[name][0]
        out[key] = None if tiles is None else _read_track(name, tiles, r, errors)
    return out


def _read_track(name: str, tiles: Tiles, r: Mapping, errors: list[SchemaError]) -> tuple[Cell, ...] | None:
    """A listed track's cells, or None after adding its first problem: a token that names no cell,
    a first tile that is not its entrance, a step that is not to the next tile north, east, south
    or west, a tile off the road or passed already, anything after E, an end that is not E."""
    party = r["track"]
    treasure = next((r_, c) for r_, row in enumerate(tiles) for c, t in enumerate(row) if t is Tile.TREASURE)
    span = f"{cell_name((0, 0))} to {cell_name((len(tiles) - 1, len(tiles[0]) - 1))}"
    track: list[Cell] = []
    for token in re.split(r"[\s,]+", cells.text(r["cells"])):
        m = re.fullmatch(r"([A-Z])(\d{1,3})", token.upper())
        cell = treasure if token.upper() == "E" else (int(m.group(2)) - 1, ord(m.group(1)) - ord("A")) if m else None
        tile = None if cell is None else _at(tiles, cell)
        if tile is None:
            problem = f"a cell of {name}: {span}, or E for its Treasure tile"
        elif not track and tile is not Tile(party):
            problem = f"Track {party}'s entrance, where the track begins: {name}'s {party} tile"
        elif track and _at(tiles, track[-1]) is Tile.TREASURE:
            problem = f"part of the track: it ends on reaching E at {cell_name(treasure)}"
        elif not _walkable(tile):
            problem = f"a road tile: {name} {cell_name(cell)} is {tile.value}; a track runs on R tiles to E"
        elif cell in track:
            problem = f"a tile the track has not passed (it is its tile {track.index(cell) + 1} too)"
        elif track and abs(cell[0] - track[-1][0]) + abs(cell[1] - track[-1][1]) != 1:
            problem = (f"next to {cell_name(track[-1])}, the tile before it: each step is to the tile north, east, "
                       "south or west")
        else:
            track.append(cell)
            continue
        errors.append(SchemaError(TRACKS, r.get("_row"), "cells", token, problem))
        return None
    if _at(tiles, track[-1]) is not Tile.TREASURE:
        errors.append(SchemaError(TRACKS, r.get("_row"), "cells", cell_name(track[-1]),
                                  f"E, the last tile: a track ends on the Treasure tile ({cell_name(treasure)})"))
        return None
    return tuple(track)


# ---- ranges --------------------------------------------------------------------------------------


def read_ranges(rows: Sequence[Mapping]) -> tuple[dict[str, tuple[Offset, ...]], list[SchemaError]]:
    """The ranges drawn in the ranges tab, by name: the tiles marked x as (rows, columns) from T,
    sorted (T itself left out: a Tower always reaches its own tile); and every problem.

    >>> rows = [{"_row": 2, "range": "fan", "row": 1, "A": "x", "B": "x", "C": "x"},
    ...         {"_row": 3, "range": "fan", "row": 2, "A": ".", "B": "T"}]
    >>> read_ranges(rows)
    ({'fan': ((-1, -1), (-1, 0), (-1, 1))}, [])
    >>> print(*read_ranges(rows[:1])[1])
    tab 'summoning ranges', row 2, column 'range': 'fan' is not a range with one T, the Tower's own tile (it has none)
    """
    errors: list[SchemaError] = []
    ranges = {}
    for name, drawing in _drawings(RANGES, rows, "range", errors):
        before = len(errors)
        marked: dict[str, list[Cell]] = {"T": [], "X": []}
        for i, r in enumerate(drawing):
            for c, letter in enumerate(RANGE_COLUMNS):
                char = _char(r.get(letter))
                if char in marked:
                    marked[char].append((i, c))
                elif char not in ("", "."):
                    errors.append(SchemaError(RANGES, r.get("_row"), letter, cells.text(r.get(letter)), RANGE_HINT))
        towers = marked["T"]
        if len(towers) != 1:
            has = f"{len(towers)}: {_names(towers)}" if towers else "none"
            errors.append(SchemaError(RANGES, drawing[0].get("_row"), "range", name,
                                      f"a range with one T, the Tower's own tile (it has {has})"))
        if len(errors) == before:
            (tr, tc), = towers
            ranges[name] = tuple(sorted((r - tr, c - tc) for r, c in marked["X"]))
    return ranges, errors
