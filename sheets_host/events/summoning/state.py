"""Summoner's Dream's values: the rules data read from the data tabs (maps, Towers, Familiars,
sales), what a participant owns, what they did in a round, and the event's state.

A map is a grid of tiles in spreadsheet notation: columns A, B, ... left to right, rows 1, 2, ...
top to bottom, so north is up and a cell is named like "C4". A Tower's range is drawn facing north
as offsets from its tile (row offset first, negative is north); it turns with the Tower's facing.

The state is what happened: every round, every participant's `Turn` as played (defaults already
applied: the target drawn, the slots filled). The tabs store only the turns; the rules walk them
again, battles included, so holdings, Treasures and counts never disagree with what was played.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

SLOTS = 22  # "Players must assign their Familiars from Slots 1-22"
STARTING_TREASURES = 50
STARTING_COINS = 200
COINS_PER_ROUND = 100  # "at the beginning of each round (including Round 1...)"
TOWER_LEVELS = 3  # level 1 and "2 available upgrades"
FAMILIAR_LEVELS = 6  # level 1 and "5 available upgrades": level X is bought from round X on
ROUNDS = 6  # "At the end of six rounds": the rounds the `summoning sales` tab sells for
PARTIES = ("A", "B")  # Party A follows Track A, Party B Track B

Cell = tuple[int, int]  # (row, column), 0-based; row 0 is the map's top (north)
Offset = tuple[int, int]  # (rows, columns) from a Tower's tile, drawn facing north


def cell_name(cell: Cell) -> str:
    """A map cell as the sheet names it: column letter, then row number from 1.

    >>> cell_name((0, 0)), cell_name((3, 2)), cell_name((11, 25))
    ('A1', 'C4', 'Z12')
    """
    return f"{chr(ord('A') + cell[1])}{cell[0] + 1}"


class Tile(Enum):
    """A map tile, as the host draws it: one character a cell of the maps tab."""

    ROAD = "R"  # the lighter road the Familiars walk
    ENTRANCE_A = "A"  # the road tile where Track A begins
    ENTRANCE_B = "B"  # the road tile where Track B begins
    TREASURE = "E"  # the cyan Treasure tile ("marked E for e_is_cool"), where both tracks end
    BLESSED_LAND = "L"  # darker green buildable land, on Blessed Land maps
    GROTTO_HEAVEN = "H"  # blue buildable tiles, on Grotto-Heaven maps
    SCENERY = "#"  # neither road nor buildable (trees, rocks, water)

    @property
    def is_road(self) -> bool:
        return self in (Tile.ROAD, Tile.ENTRANCE_A, Tile.ENTRANCE_B)

    @property
    def is_land(self) -> bool:
        return self in (Tile.BLESSED_LAND, Tile.GROTTO_HEAVEN)


class MapKind(Enum):
    BLESSED_LAND = "blessed land"
    GROTTO_HEAVEN = "grotto-heaven"


LAND_OF = {MapKind.BLESSED_LAND: Tile.BLESSED_LAND, MapKind.GROTTO_HEAVEN: Tile.GROTTO_HEAVEN}


class Facing(Enum):
    NORTH = "N"
    EAST = "E"
    SOUTH = "S"
    WEST = "W"

    def turn(self, offset: Offset) -> Offset:
        """A range offset drawn facing north, turned to face this way (clockwise quarter turns).

        >>> [f.turn((-1, 0)) for f in Facing]  # the tile in front
        [(-1, 0), (0, 1), (1, 0), (0, -1)]
        """
        dr, dc = offset
        return {Facing.NORTH: (dr, dc), Facing.EAST: (dc, -dr), Facing.SOUTH: (-dr, -dc),
                Facing.WEST: (-dc, dr)}[self]


class Ground(Enum):
    """Where a Tower may stand: "Gan ... may only be placed on road tiles"; every other kind on land."""

    LAND = "land"
    ROAD = "road"


class Effect(Enum):
    """A Tower's special behaviour (the towers tab's `effect`); every strike deals its damage too."""

    NONE = "none"  # damages every Familiar in range
    SINGLE = "single"  # one target: the Familiar in range nearest E, the lowest slot on its tile first (Geon)
    SLOW = "slow"  # those hit take `amount` more time units a tile, for `duration` time units
    STUN = "stun"  # those hit do not move for `duration` time units
    BURN = "burn"  # those hit take `amount` damage every time unit for the next `duration` time units
    BANE = "bane"  # `amount` more damage to Familiars of the kind named in `against`


class Ability(Enum):
    """A Familiar's ability (the familiars tab's `ability`)."""

    NONE = "none"
    RESIST = "resist"  # `amount` less damage a strike from Towers of kind `against` (blank: from every Tower)
    HEAL = "heal"  # at the end of each time unit, other Familiars adjacent to it regain `amount` health
    FLIES = "flies"  # Towers of kind `against` never touch it (a Pheasant over a Mountain)
    STURDY = "sturdy"  # never slowed nor stunned


@dataclass(frozen=True)
class GameMap:
    """A map: its name, kind, tiles (rows of `Tile`), and each track as cells from its entrance to E."""

    name: str
    kind: MapKind
    tiles: tuple[tuple[Tile, ...], ...]
    tracks: Mapping[str, tuple[Cell, ...]]  # "A", "B" -> entrance ... E

    def tile(self, cell: Cell) -> Tile | None:
        """The tile at `cell`, or None off the map."""
        r, c = cell
        if 0 <= r < len(self.tiles) and 0 <= c < len(self.tiles[r]):
            return self.tiles[r][c]
        return None

    def may_stand(self, ground: Ground, cell: Cell) -> bool:
        """Whether a Tower of `ground` may stand on `cell`: land of the map's kind, or road for Gan;
        never on E nor scenery."""
        tile = self.tile(cell)
        if tile is None:
            return False
        return tile.is_road if ground is Ground.ROAD else tile is LAND_OF[self.kind]

    @cached_property
    def beside_tracks(self) -> dict[Ground, tuple[Cell, ...]]:
        """For each ground, the tiles a Tower may stand on that touch a track (orthogonally or
        diagonally) or lie on it: where a Tower reaches Familiars (computed once a map)."""
        track = {c for cells in self.tracks.values() for c in cells}
        near = {(r + dr, c + dc) for r, c in track for dr in (-1, 0, 1) for dc in (-1, 0, 1)}
        return {g: tuple(sorted(c for c in near if self.may_stand(g, c))) for g in Ground}


@dataclass(frozen=True)
class TowerLevel:
    """A Tower's stats at one level (level 1: as bought; 2 and 3: its upgrades)."""

    price: int  # level 1: the Tower's cost; 2 and 3: the upgrade's price
    damage: int
    interval: int  # time units between strikes (1: every time unit)
    reach: tuple[Offset, ...]  # the tiles in range, drawn facing north
    effect: Effect = Effect.NONE
    amount: int = 0
    duration: int = 0
    against: str | None = None  # bane: the Familiar kind


@dataclass(frozen=True)
class TowerKind:
    name: str  # "Geon"
    ground: Ground
    levels: tuple[TowerLevel, ...]  # levels[0] is level 1
    description: str = ""

    @property
    def cost(self) -> int:
        return self.levels[0].price


@dataclass(frozen=True)
class FamiliarLevel:
    """A Familiar's stats at one level (level 1: as bought; 2 to 6: its upgrades)."""

    health: int
    pace: int  # time units a tile (1: a tile every time unit)
    ability: Ability = Ability.NONE
    amount: int = 0
    against: str | None = None  # resist, flies: the Tower kind


@dataclass(frozen=True)
class FamiliarKind:
    name: str  # "Fox"
    cost: int  # "Familiars' upgrade costs are the same as their base costs"
    levels: tuple[FamiliarLevel, ...]  # levels[0] is level 1
    description: str = ""


@dataclass(frozen=True)
class Catalogue:
    """The data tabs as the rules read them."""

    maps: Mapping[str, GameMap]
    towers: Mapping[str, TowerKind]
    familiars: Mapping[str, FamiliarKind]
    sales: Mapping[int, tuple[str, ...]]  # round -> the Tower and Familiar kinds on sale


# ---- what a battle takes and gives --------------------------------------------------------------


@dataclass(frozen=True)
class PlacedTower:
    """A Tower on the defender's map: its unit name ("Yi 2"), kind, level, tile and facing."""

    unit: str
    kind: TowerKind
    level: int
    cell: Cell
    facing: Facing = Facing.NORTH

    @property
    def stats(self) -> TowerLevel:
        return self.kind.levels[self.level - 1]


@dataclass(frozen=True)
class SentFamiliar:
    """A Familiar in a slot of an invasion: its unit name ("Fox 3"), kind and level."""

    slot: int
    unit: str
    kind: FamiliarKind
    level: int

    @property
    def stats(self) -> FamiliarLevel:
        return self.kind.levels[self.level - 1]


@dataclass(frozen=True)
class Fate:
    """What became of one Familiar in a battle: it reached E (stealing a Treasure), or was killed
    by Tower `killer` on `cell`, at time unit `time`."""

    slot: int
    unit: str
    party: str
    reached: bool
    cell: Cell
    time: int
    killer: str | None = None  # the Tower unit credited with the kill


# ---- a participant's holdings and rounds ---------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """A Tower or Familiar a participant owns: "Yi 2" is their second Yi."""

    kind: str
    number: int
    level: int = 1

    @property
    def name(self) -> str:
        return f"{self.kind} {self.number}"


@dataclass(frozen=True)
class Stand:
    """A Tower placed on the map: which unit, where, facing which way."""

    tower: str
    cell: Cell
    facing: Facing = Facing.NORTH


Order = tuple[str, str]  # ("buy", a kind) or ("upgrade", a unit), in the order typed


@dataclass(frozen=True)
class SummoningSubmission:
    """A participant's round as typed and kept by `read.parse`: the orders (what the rules allow of
    them), the map, the stands, the slots and parties, the target; None: not typed, the default applies."""

    orders: tuple[Order, ...] = ()
    map: str | None = None
    stands: tuple[Stand, ...] | None = None
    slots: Mapping[int, str] | None = None
    parties: Mapping[str, tuple[int, int]] | None = None
    target: str | None = None


@dataclass(frozen=True)
class Turn:
    """A participant's round as played (defaults applied): purchases (kind names, in order),
    upgrades (unit names, each one level), the map and Towers, the slots and parties, the target."""

    buys: tuple[str, ...] = ()
    upgrades: tuple[str, ...] = ()
    map: str = ""
    stands: tuple[Stand, ...] = ()
    slots: Mapping[int, str] = field(default_factory=dict)  # slot -> Familiar unit
    parties: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # "A" -> (first slot, last slot)
    target: str = ""


@dataclass(frozen=True)
class Invasion:
    """One invasion of a round: its Familiars' fates on the defender's map."""

    round: int
    invader: str
    defender: str
    map: str
    fates: tuple[Fate, ...]

    @property
    def stolen(self) -> int:
        return sum(f.reached for f in self.fates)


@dataclass(frozen=True)
class Holdings:
    """What a participant owns between rounds, and the counts the tie chain reads."""

    coins: int = STARTING_COINS
    treasures: int = STARTING_TREASURES
    towers: tuple[Unit, ...] = ()
    familiars: tuple[Unit, ...] = ()
    sent: int = 0  # Familiars sent, cumulative (tiebreak 1)
    kills: int = 0  # Familiars killed by their Towers, cumulative (tiebreak 2)
    built: int = 0  # Towers placed on their map, cumulative (tiebreak 3)
    spent_on_towers: int = 0  # coins, cumulative (for `simulate`)
    spent_on_familiars: int = 0
    invaded: tuple[str, ...] = ()  # whose territories they have invaded, in order


@dataclass(frozen=True)
class SummoningState:
    participants: tuple[str, ...]
    catalogue: Catalogue
    first_round: int = 1  # 1 with 7 participants, 2 with 6 (`tabs.first_round`)
    last_round: int = ROUNDS  # the festival's last: the event ends with it
    offers: Mapping[int, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)  # round -> player -> 4 maps
    rounds_played: int = 0
    holdings: Mapping[str, Holdings] = field(default_factory=dict)
    turns: tuple[Mapping[str, Turn], ...] = ()  # one a round played, by participant
    invasions: tuple[Invasion, ...] = ()  # every invasion, in order

    @property
    def round(self) -> int:
        """The festival round to be played next."""
        return self.first_round + self.rounds_played
