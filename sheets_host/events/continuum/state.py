"""Elemental Continuum's values: elements, cells of the 8x8 Surface, wards, boards, bolts, and the
state (every board as set up in round 1 and every bolt fired since; what broke follows from them).

The Surface is in chess notation: files A..H left to right, ranks 1..8 bottom to top, so a cell is
"A1".."H8" and a board reads rank 8 first, top to bottom.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction

FILES = "ABCDEFGH"
RANKS = "12345678"
CELLS = tuple(f + r for r in RANKS for f in FILES)  # A1, B1, ... H8
CELLS_SPAN = "A1 to H8"  # the cells, as a message names them
WARDS_PER_ELEMENT = 3
POINTS = (2, 4, 6)  # each worth four wards
WARDS_PER_POINTS = 4
PENTOMINO = 5
NEUTRAL_CELLS = 4
NEUTRAL_POINTS = 1
BOLTS_PER_ROUND = 2
WARD_BREAKS_AT = 3  # "when 3 or more tiles of a player's ward is broken"


class Element(Enum):
    FIRE = "fire"
    WATER = "water"
    WIND = "wind"
    EARTH = "earth"
    NEUTRAL = "neutral"

    @property
    def beaten_by(self) -> Element | None:
        """The element whose single bolt breaks a tile of this one (Advantage Break); none for neutral.

        >>> Element.FIRE.beaten_by, Element.WIND.beaten_by
        (<Element.WATER: 'water'>, <Element.FIRE: 'fire'>)
        """
        return BEATEN_BY.get(self)


# "Fire defeats wind, wind defeats earth, earth defeats water, and water defeats fire."
BEATEN_BY = {Element.WIND: Element.FIRE, Element.EARTH: Element.WIND, Element.WATER: Element.EARTH,
             Element.FIRE: Element.WATER}
ELEMENTS = (Element.FIRE, Element.WATER, Element.WIND, Element.EARTH)  # the wards' (neutral aside)


def neighbours(cell: str) -> tuple[str, ...]:
    """The cells sharing an edge with `cell`.

    >>> neighbours("A1"), neighbours("D4")
    (('B1', 'A2'), ('C4', 'E4', 'D3', 'D5'))
    """
    f, r = FILES.index(cell[0]), RANKS.index(cell[1])
    out = []
    for df, dr in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= f + df < 8 and 0 <= r + dr < 8:
            out.append(FILES[f + df] + RANKS[r + dr])
    return tuple(out)


@dataclass(frozen=True)
class Ward:
    """A ward: its label (as the player named it), element, points and cells (sorted)."""

    label: str
    element: Element
    points: int
    cells: tuple[str, ...]


@dataclass(frozen=True)
class Board:
    """A participant's board: their 12 wards and the neutral ward (the 4 neutral cells)."""

    wards: tuple[Ward, ...]

    def ward_at(self, cell: str) -> Ward:
        return next(w for w in self.wards if cell in w.cells)


@dataclass(frozen=True)
class Bolt:
    cell: str
    element: Element


@dataclass(frozen=True)
class Strike:
    """One bolt on one board: who fired it, in which round."""

    firer: str
    round: int
    bolt: Bolt


@dataclass(frozen=True)
class TileBreak:
    """A tile broken on `board` in `round` by `strikes` (the bolts that count for it), and how."""

    board: str
    cell: str
    round: int
    kind: str  # "advantage", "singularity", "advantage and singularity", "neutral"
    strikes: tuple[Strike, ...]


@dataclass(frozen=True)
class WardBreak:
    """A ward broken on `board` in `round`: the contributing bolts and each firer's share of points."""

    board: str
    ward: Ward
    round: int
    strikes: tuple[Strike, ...]
    shares: Mapping[str, Fraction]


@dataclass(frozen=True)
class ContinuumSubmission:
    """Round 1: the board (None: none valid, one is drawn); later rounds: the bolts fired."""

    board: Board | None = None
    bolts: tuple[Bolt, ...] = ()


@dataclass(frozen=True)
class ContinuumState:
    participants: tuple[str, ...]
    boards: Mapping[str, Board] = field(default_factory=dict)  # set in round 1
    defaulted: tuple[str, ...] = ()  # whose board was drawn from the seed (silent or invalid in round 1)
    bolts: tuple[tuple[str, int, Bolt], ...] = ()  # (firer, round, bolt), in order fired
    rounds_played: int = 0
    tile_breaks: tuple[TileBreak, ...] = ()
    ward_breaks: tuple[WardBreak, ...] = ()
