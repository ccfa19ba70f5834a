"""Pyramid Superiority's rules as pure functions over small values (no books, no pandas).

Each function carries the rule text's name for what it does: types beating types, a piece and its
star, rotating a piece, who wins a bid, where the star goes, where a piece may be built, the
pyramid seen from the top, its groups and a scoring round.

>>> piece = Piece((Type.GRASS, Type.FIRE, Type.GRASS, Type.WATER))
>>> piece.majority.value, piece.rotated(1).text()
('grass', 'grass grass / water fire')

Rotating a quarter turn clockwise moves the top-left cell to the top-right, and so on round.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

ROTATION_COST = 5
MULTIPLIERS = {6: 2, 11: 3, 14: 4}  # scoring rounds: round -> multiplier
STAR_WEIGHT = 3  # "a starred cell counts as an additional 2 cells (for a total of 3)"
SIDE = 6  # the pyramid seen from the top is 6x6 cells


class Type(Enum):
    GRASS = "grass"
    FIRE = "fire"
    WATER = "water"

    @property
    def beats(self) -> Type:
        """Fire beats grass, water beats fire, grass beats water."""
        return _BEATS[self]

    def stronger_than(self, other: Type) -> bool:
        """
        >>> Type.GRASS.stronger_than(Type.WATER), Type.GRASS.stronger_than(Type.FIRE)
        (True, False)
        """
        return self.beats is other


_BEATS = {Type.FIRE: Type.GRASS, Type.WATER: Type.FIRE, Type.GRASS: Type.WATER}


class Corner(Enum):
    """A piece's cells, listed in reading order (the order of the default star)."""

    TOP_LEFT = "top-left"
    TOP_RIGHT = "top-right"
    BOTTOM_LEFT = "bottom-left"
    BOTTOM_RIGHT = "bottom-right"

    @property
    def index(self) -> int:
        return _INDEX[self]

    def turned(self, quarter_turns: int) -> Corner:
        """Where this corner goes when its piece turns clockwise by `quarter_turns` x 90 degrees.

        >>> Corner.TOP_LEFT.turned(1), Corner.BOTTOM_LEFT.turned(3)
        (<Corner.TOP_RIGHT: 'top-right'>, <Corner.BOTTOM_RIGHT: 'bottom-right'>)
        """
        return _TURNED[self][quarter_turns % 4]


CLOCKWISE = (Corner.TOP_LEFT, Corner.TOP_RIGHT, Corner.BOTTOM_RIGHT, Corner.BOTTOM_LEFT)
_INDEX = {c: i for i, c in enumerate(Corner)}  # tables: enum lookups are slow in the simulator
_TURNED = {c: tuple(CLOCKWISE[(CLOCKWISE.index(c) + k) % 4] for k in range(4)) for c in Corner}
CORNERS = tuple(c.value for c in Corner)  # their names, as tabs and submissions spell them


@dataclass(frozen=True)
class Piece:
    """A 2x2 piece: its cells' types in reading order (top-left, top-right, bottom-left,
    bottom-right), and the starred corner once the star is placed."""

    cells: tuple[Type, Type, Type, Type]
    star: Corner | None = None

    @property
    def majority(self) -> Type:
        return Counter(self.cells).most_common(1)[0][0]

    def cell(self, corner: Corner) -> Type:
        return self.cells[corner.index]

    def rotated(self, quarter_turns: int) -> Piece:
        """The piece turned clockwise by `quarter_turns` x 90 degrees; the star turns with it."""
        cells: list[Type] = [Type.GRASS] * 4
        for corner in Corner:
            cells[corner.turned(quarter_turns).index] = self.cell(corner)
        return Piece(tuple(cells), self.star.turned(quarter_turns) if self.star else None)

    def starred(self, corner: Corner) -> Piece:
        return Piece(self.cells, corner)

    def first_cell_of(self, kind: Type) -> Corner:
        """The default star: the first cell of a type, in reading order."""
        return next(c for c in Corner if self.cell(c) is kind)

    def text(self) -> str:
        """'grass fire* / grass water': the top row, then the bottom row; * marks the star (said
        wherever a book shows it: `NOTATION`)."""
        names = [t.value + ("*" if self.star is c else "") for c, t in zip(Corner, self.cells)]
        return f"{names[0]} {names[1]} / {names[2]} {names[3]}"


# How `Piece.text` reads, in the game's words: the legend beside every piece so written.
NOTATION = "top row / bottom row; * marks the star"


def is_piece_of(cells: Sequence[Type], majority: Type) -> bool:
    """Two cells of the majority type and one of each other type.

    >>> is_piece_of((Type.FIRE, Type.FIRE, Type.GRASS, Type.WATER), Type.FIRE)
    True
    >>> is_piece_of((Type.FIRE, Type.FIRE, Type.GRASS, Type.GRASS), Type.FIRE)
    False
    """
    return len(cells) == 4 and Counter(cells) == Counter({**{t: 1 for t in Type}, majority: 2})


def deal_piece(majority: Type, shuffle) -> Piece:
    """A piece with `majority` as its majority type, arranged by `shuffle` (e.g. rng.shuffle)."""
    cells = [majority, *Type]
    shuffle(cells)
    return Piece(tuple(cells))


# ---- bids ------------------------------------------------------------------------------------


def bid_counted(bid: int, purse: int) -> int:
    """A bid above what the bidder holds is invalid and counts as 0."""
    return bid if bid <= purse else 0


def bid_winner(bids: Mapping[str, int], types: Mapping[str, Type], previous: Type) -> str:
    """The highest bidder; two tied: the stronger type; three tied: the type stronger than the
    previous winner of the same contest (`previous`: grass before round 1)."""
    top = max(bids.values())
    tied = [name for name, bid in bids.items() if bid == top]
    if len(tied) == 1:
        return tied[0]
    if len(tied) == 2:
        a, b = tied
        return a if types[a].stronger_than(types[b]) else b
    return next(name for name in tied if types[name].stronger_than(previous))


def star_corner(attempts: Iterable[Corner]) -> Corner:
    """Where the star goes: a cell at least two guests tried; otherwise the one cell nobody tried.

    >>> star_corner([Corner.TOP_LEFT, Corner.BOTTOM_LEFT, Corner.BOTTOM_RIGHT])
    <Corner.TOP_RIGHT: 'top-right'>
    """
    counts = Counter(attempts)
    corner, n = counts.most_common(1)[0]
    if n >= 2:
        return corner
    return next(c for c in Corner if c not in counts)


@dataclass(frozen=True)
class Purse:
    """What a participant can pay with: chips, then (players only) garnets, one chip each."""

    chips: int
    garnets: int = 0

    @property
    def total(self) -> int:
        return self.chips + self.garnets

    def pay(self, amount: int) -> Purse:
        """Pay `amount`: chips first, garnets only once the chips are exhausted.

        >>> Purse(3, 10).pay(5)
        Purse(chips=0, garnets=8)
        """
        from_chips = min(self.chips, amount)
        assert amount - from_chips <= self.garnets, "pay only what the purse holds"
        return Purse(self.chips - from_chips, self.garnets - (amount - from_chips))


# ---- the pyramid -----------------------------------------------------------------------------

LAYERS = ("base", "middle", "apex")


@dataclass(frozen=True, order=True)
class Position:
    """A piece position: layer 0 (base, 3x3), 1 (middle, 2x2) or 2 (apex), row and column."""

    layer: int
    row: int
    col: int

    @property
    def name(self) -> str:
        """'base 1' to 'base 9' and 'middle 1' to 'middle 4' in reading order, then 'apex'."""
        if self.layer == 2:
            return "apex"
        return f"{LAYERS[self.layer]} {self.row * (3 - self.layer) + self.col + 1}"

    @property
    def origin(self) -> tuple[int, int]:
        """The top-left cell it covers seen from the top: each upper piece is centred on the 4
        below it, so a layer is shifted by one cell down and right."""
        return 2 * self.row + self.layer, 2 * self.col + self.layer

    @property
    def supports(self) -> tuple[Position, ...]:
        """The 4 pieces it stands on (none for the base)."""
        if self.layer == 0:
            return ()
        return tuple(Position(self.layer - 1, self.row + dr, self.col + dc) for dr in (0, 1) for dc in (0, 1))

    def touches(self, other: Position) -> bool:
        """Shares an edge (not just a corner) on the same layer."""
        return self.layer == other.layer and abs(self.row - other.row) + abs(self.col - other.col) == 1


POSITIONS = tuple(Position(layer, r, c) for layer in range(3) for r in range(3 - layer) for c in range(3 - layer))
BY_NAME = {p.name: p for p in POSITIONS}


def why_not_here(pyramid: Mapping[Position, Piece], position: Position) -> str | None:
    """Why a piece cannot be built at `position` now (None when it can)."""
    if position in pyramid:
        return f"{position.name} is already built"
    if position.layer == 0:
        base = [p for p in pyramid if p.layer == 0]
        if base and not any(position.touches(p) for p in base):
            return f"{position.name} shares no edge with a base piece (a later base piece must)"
        return None
    missing = [p.name for p in position.supports if p not in pyramid]
    if missing:
        return f"{position.name} needs {', '.join(p.name for p in position.supports)} below it; " \
               f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} empty"
    return None


def buildable(pyramid: Mapping[Position, Piece]) -> list[Position]:
    return [p for p in POSITIONS if why_not_here(pyramid, p) is None]


def default_position(pyramid: Mapping[Position, Piece]) -> Position:
    """The first empty position of the lowest layer, in reading order, where a piece may go.

    While the base has room one of its positions is always buildable, so "lowest layer" and
    "lowest layer with a buildable position" agree; 14 positions take the 14 rounds' pieces.
    """
    return buildable(pyramid)[0]


@dataclass(frozen=True)
class Cell:
    """A cell seen from the top."""

    type: Type
    starred: bool = False

    @property
    def weight(self) -> int:
        return STAR_WEIGHT if self.starred else 1


def top_view(pyramid: Mapping[Position, Piece]) -> list[list[Cell | None]]:
    """The 6x6 cells seen from the top: each cell shows the highest piece covering it."""
    grid: list[list[Cell | None]] = [[None] * SIDE for _ in range(SIDE)]
    for position in sorted(pyramid):  # lower layers first: upper pieces cover them
        piece = pyramid[position]
        top, left = position.origin
        for corner in Corner:
            r, c = divmod(corner.index, 2)
            grid[top + r][left + c] = Cell(piece.cell(corner), piece.star is corner)
    return grid


@dataclass(frozen=True)
class Group:
    """Connected cells of one type seen from the top; `size` counts a star as 3 cells."""

    type: Type
    size: int
    cells: tuple[tuple[int, int], ...]


def groups(grid: Sequence[Sequence[Cell | None]]) -> list[Group]:
    """Groups of orthogonally connected cells of one type, across layers as seen from the top."""
    seen: set[tuple[int, int]] = set()
    out = []
    for r in range(len(grid)):
        for c in range(len(grid[r])):
            if grid[r][c] is None or (r, c) in seen:
                continue
            kind, stack, members = grid[r][c].type, [(r, c)], []
            seen.add((r, c))
            while stack:
                y, x = stack.pop()
                members.append((y, x))
                for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= ny < len(grid) and 0 <= nx < len(grid[ny]) and (ny, nx) not in seen \
                            and grid[ny][nx] is not None and grid[ny][nx].type is kind:
                        seen.add((ny, nx))
                        stack.append((ny, nx))
            out.append(Group(kind, sum(grid[y][x].weight for y, x in members), tuple(sorted(members))))
    return out


def overall_rates(sizes: Sequence[int]) -> list[int]:
    """Extra points per cell for each group: the largest group overall 2, the second-largest 1;
    a tie takes the lower reward (two tied for largest: 1 each; three or more tied for largest,
    or two or more tied for second: nothing).

    >>> overall_rates([7, 3, 6, 6]), overall_rates([5, 5, 2]), overall_rates([4, 4, 4]), overall_rates([9, 2])
    ([2, 0, 0, 0], [1, 1, 0], [0, 0, 0], [2, 1])
    """
    rates = [0] * len(sizes)
    if not sizes:
        return rates
    largest = max(sizes)
    first = [i for i, s in enumerate(sizes) if s == largest]
    if len(first) == 2:
        for i in first:
            rates[i] = 1
    elif len(first) == 1:
        rates[first[0]] = 2
        rest = [s for s in sizes if s != largest]
        if rest:
            second = [i for i, s in enumerate(sizes) if s == max(rest)]
            if len(second) == 1:
                rates[second[0]] = 1
    return rates


@dataclass(frozen=True)
class RoundScore:
    """One type's score in a scoring round, before the multiplier."""

    cells: int  # 1 point per cell of the type (a star counts 3)
    largest: int  # 1 more per cell of the type's largest group (one group only)
    overall: int  # the largest / second-largest group overall bonus

    @property
    def total(self) -> int:
        return self.cells + self.largest + self.overall


def score_round(all_groups: Sequence[Group]) -> dict[Type, RoundScore]:
    """Every type's score in a scoring round, from the groups seen from the top."""
    rates = overall_rates([g.size for g in all_groups])
    out = {}
    for kind in Type:
        mine = [(g, rate) for g, rate in zip(all_groups, rates) if g.type is kind]
        out[kind] = RoundScore(sum(g.size for g, _ in mine), max((g.size for g, _ in mine), default=0),
                               sum(g.size * rate for g, rate in mine))
    return out


# ---- the end ---------------------------------------------------------------------------------


def sole_most(values: Mapping[str, int]) -> str | None:
    """The one holding strictly the most, or None when several tie for it."""
    top = max(values.values())
    holders = [k for k, v in values.items() if v == top]
    return holders[0] if len(holders) == 1 else None


def best(points: Mapping[str, int], types: Mapping[str, Type]) -> str | None:
    """The winner: most points; two tied: the stronger type; more tied: None (the host settles)."""
    return _settle(points, types, max, lambda a, b: types[a].stronger_than(types[b]))


def worst(points: Mapping[str, int], types: Mapping[str, Type]) -> str | None:
    """The loser: least points; two tied: the weaker type; more tied: None (the host settles)."""
    return _settle(points, types, min, lambda a, b: types[b].stronger_than(types[a]))


def _settle(points, types, pick, first_wins) -> str | None:
    target = pick(points.values())
    tied = [p for p, v in points.items() if v == target]
    if len(tied) == 1:
        return tied[0]
    if len(tied) == 2:
        a, b = tied
        return a if first_wins(a, b) else b
    return None
