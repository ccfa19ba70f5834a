"""Elemental Continuum's rules as pure functions over the state's values (no pandas, no books).

A round (festival rounds 2-6), for every participant at once: each fires their bolts; every bolt
strikes every other participant's board (never the firer's own) at its cell; tiles break by an
Advantage, Singularity or Neutral Break; at the round's end a ward with 3 or more broken tiles
breaks down, and its points are shared among the firers of the bolts that broke its tiles.

>>> fire = lambda who: Strike(who, 2, Bolt("A1", Element.FIRE))
>>> tile_break(Element.WIND, [fire("uri")])[0], tile_break(Element.FIRE, [fire("uri"), fire("cam")])[0]
('advantage', 'singularity')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction

from sheets_host.festival.event import Placement, place_by
from .state import CELLS, WARD_BREAKS_AT, Board, Bolt, ContinuumState, Element, Strike, TileBreak, Ward, WardBreak

WITH_WARD = "with its ward"  # a tile of a broken ward that no bolt broke: broken by nobody


def ward_at(board: Board, cell: str) -> Ward | None:
    """The ward holding `cell` on `board`, or None (any Board works, even one covering less)."""
    return next((w for w in board.wards if cell in w.cells), None)


# ---- a tile --------------------------------------------------------------------------------------


def tile_break(element: Element, strikes: Sequence[Strike]) -> tuple[str, tuple[Strike, ...]] | None:
    """Whether a tile of `element` breaks under `strikes` (every bolt on it so far, this round's
    included), and how: the kind and the strikes that count. An Advantage Break needs one bolt of
    the element that beats the tile, a Singularity Break two of its own element (each of them
    counts, with every advantage bolt, when both happen); a neutral tile needs three bolts of any
    element (all of them count). Other bolts do nothing.

    >>> s = lambda who, element: Strike(who, 2, Bolt("A1", element))
    >>> tile_break(Element.FIRE, [s("hedger", Element.WATER), s("uri", Element.FIRE), s("cam", Element.FIRE)])[0]
    'advantage and singularity'
    >>> kind, counted = tile_break(Element.FIRE, [s("uri", Element.WATER), s("cam", Element.FIRE)])
    >>> kind, [c.firer for c in counted]  # a lone fire bolt is no Singularity Break
    ('advantage', ['uri'])
    >>> tile_break(Element.FIRE, [s("uri", Element.EARTH), s("cam", Element.FIRE)]) is None
    True
    >>> tile_break(Element.NEUTRAL, [s(p, Element.WIND) for p in ("a", "b", "c", "d")])[0]
    'neutral'
    """
    if element is Element.NEUTRAL:
        return ("neutral", tuple(strikes)) if len(strikes) >= 3 else None
    advantage = tuple(s for s in strikes if s.bolt.element is element.beaten_by)
    own = tuple(s for s in strikes if s.bolt.element is element)
    if len(own) < 2:  # one bolt of its own element alone breaks nothing, so counts for nothing
        own = ()
    if advantage and own:
        # "If tiles break simultaneously from both Advantage Break and Singularity Break, then both count"
        return "advantage and singularity", tuple(s for s in strikes if s in advantage or s in own)
    if advantage:
        return "advantage", advantage
    if own:
        return "singularity", own
    return None


# ---- a ward ---------------------------------------------------------------------------------------


def shares(points: int, strikes: Sequence[Strike]) -> dict[str, Fraction]:
    """Each firer's share of a broken ward's `points`, by percentage of contribution: their
    contributing bolts over all the contributing bolts, times the points (exact).

    >>> s = lambda who: Strike(who, 2, Bolt("A1", Element.WATER))
    >>> {p: str(v) for p, v in shares(6, [s("hedger"), s("uri"), s("hedger"), s("cam"), s("uri"),
    ...                                          s("hedger")]).items()}
    {'hedger': '3', 'uri': '2', 'cam': '1'}
    """
    count = Counter(s.firer for s in strikes)
    total = sum(count.values())
    return {firer: Fraction(points * n, total) for firer, n in count.items()}


def ward_break(board: str, ward: Ward, round_number: int, tile_breaks: Sequence[TileBreak]) -> WardBreak:
    """`ward` of `board` breaking down in `round_number`: the contributing bolts are the counting
    strikes of every tile of it broken so far (a bolt counts once per tile it helped break)."""
    strikes = tuple(s for tb in tile_breaks if tb.board == board and tb.cell in ward.cells for s in tb.strikes)
    return WardBreak(board, ward, round_number, strikes, shares(ward.points, strikes))


# ---- what is broken ------------------------------------------------------------------------------


def broken_wards(state: ContinuumState, player: str) -> dict[Ward, WardBreak]:
    """The wards of `player`'s board broken so far, in the order they broke."""
    return {wb.ward: wb for wb in state.ward_breaks if wb.board == player}


def broken_tiles(state: ContinuumState, player: str) -> dict[str, TileBreak | str]:
    """The broken tiles of `player`'s board, cell -> its TileBreak, or WITH_WARD for a tile no bolt
    broke whose ward broke down (every tile of a broken ward is broken). In the order of CELLS."""
    out: dict[str, TileBreak | str] = {tb.cell: tb for tb in state.tile_breaks if tb.board == player}
    for ward in broken_wards(state, player):
        for cell in ward.cells:
            out.setdefault(cell, WITH_WARD)
    return {cell: out[cell] for cell in CELLS if cell in out}


def broken_cells(state: ContinuumState, player: str) -> frozenset[str]:
    """The cells of `player`'s board whose tile is broken, by bolts or with its ward."""
    return frozenset(broken_tiles(state, player))


def ward_broken(state: ContinuumState, player: str, ward: Ward) -> bool:
    return ward in broken_wards(state, player)


def bolt_effect(state: ContinuumState, player: str, round_number: int, bolt: Bolt) -> str:
    """What a bolt `player` fired in `round_number` has done so far: the tiles in whose break it
    counts and the wards it helped break (a bolt waiting on a tile for a Singularity or Neutral
    Break may count later). Not how a tile broke: with the bolt's element, that would tell the
    tile's element, which its owner keeps secret until the ward breaks.

    >>> from .state import Board, Ward
    >>> fire = Board((Ward("F", Element.FIRE, 6, ("A1", "A2", "A3", "A4", "A5")),))
    >>> s = strike_round(ContinuumState(("P", "Q", "R"), {"P": fire, "Q": fire}), {"R": [Bolt("A1", Element.WATER)]}, 2)
    >>> bolt_effect(s, "R", 2, Bolt("A1", Element.WATER)), bolt_effect(s, "P", 2, Bolt("A2", Element.FIRE))
    ("broke P's A1, Q's A1", 'no tile broken by it so far')
    """
    strike = Strike(player, round_number, bolt)
    broke = [f"{tb.board}'s {tb.cell}" for tb in state.tile_breaks if strike in tb.strikes]
    wards = [f"{wb.board}'s {wb.ward.element.value} ward worth {wb.ward.points}" for wb in state.ward_breaks
             if strike in wb.strikes]
    if not broke:
        return "no tile broken by it so far"
    return "broke " + ", ".join(broke) + ("; helped break " + ", ".join(wards) if wards else "")


# ---- a round --------------------------------------------------------------------------------------


def strikes_on(bolts: Sequence[tuple[str, int, Bolt]], board: str, cell: str) -> tuple[Strike, ...]:
    """The strikes on `cell` of `board` among `bolts` (firer, round, bolt): every bolt at that cell
    but the board owner's own."""
    return tuple(Strike(firer, r, bolt) for firer, r, bolt in bolts if bolt.cell == cell and firer != board)


def strike_round(state: ContinuumState, bolts: Mapping[str, Sequence[Bolt]], round_number: int) -> ContinuumState:
    """The state after festival round `round_number`: every participant's `bolts` (in seating
    order; a participant missing fires none) strike every other board at once, tiles break, then
    wards with 3 or more broken tiles break down. `rounds_played` becomes `round_number`."""
    fired = tuple((p, round_number, b) for p in state.participants for b in bolts.get(p, ()))
    # a tile still unbroken was unbroken when every earlier bolt hit it, so they all accumulated
    earlier = tuple(b for b in state.bolts if b[1] < round_number)
    at: dict[str, list[tuple[str, int, Bolt]]] = {}  # each cell's bolts, in order: looked up once a board
    for b in earlier + fired:
        at.setdefault(b[2].cell, []).append(b)
    tile_breaks, ward_breaks = list(state.tile_breaks), list(state.ward_breaks)
    for owner in state.participants:
        board = state.boards.get(owner)
        if board is None:
            continue
        down = broken_tiles(state, owner)  # as the round starts: bolts are simultaneous
        hit = {b.cell for firer, _, b in fired if firer != owner and b.cell not in down}
        for cell in (c for c in CELLS if c in hit):
            ward = ward_at(board, cell)
            broke = ward and tile_break(ward.element, strikes_on(at[cell], owner, cell))
            if broke:
                tile_breaks.append(TileBreak(owner, cell, round_number, *broke))
        gone = broken_wards(state, owner)
        cracked = {tb.cell for tb in tile_breaks if tb.board == owner}
        for ward in board.wards:
            # "When 3 or more tiles of a player's ward is broken, the entire ward breaks down"
            if ward not in gone and len(cracked.intersection(ward.cells)) >= WARD_BREAKS_AT:
                ward_breaks.append(ward_break(owner, ward, round_number, tile_breaks))
    return replace(state, bolts=state.bolts + fired, rounds_played=round_number, tile_breaks=tuple(tile_breaks),
                   ward_breaks=tuple(ward_breaks))


# ---- the end ---------------------------------------------------------------------------------------


def standing_points(state: ContinuumState, player: str) -> int:
    """The points of the wards still unbroken on `player`'s board, the neutral ward included."""
    board = state.boards.get(player)
    gone = broken_wards(state, player)
    return sum(w.points for w in board.wards if w not in gone) if board else 0


def contributions(state: ContinuumState, player: str) -> Fraction:
    """The points `player` earned from breaking wards: their shares of every ward broken."""
    return sum((wb.shares.get(player, Fraction(0)) for wb in state.ward_breaks), Fraction(0))


def score(state: ContinuumState, player: str) -> Fraction:
    """"The sum of points of all remaining wards on your board + the sum of points earned from
    breaking wards (contributions)"."""
    return standing_points(state, player) + contributions(state, player)


def unbroken_tiles(state: ContinuumState, player: str) -> int:
    """The tiles of `player`'s board not broken (a tile of a broken ward is broken)."""
    board = state.boards.get(player)
    if board is None:
        return 0
    cells = {c for w in board.wards for c in w.cells}
    return len(cells - set(broken_tiles(state, player)))


def tiles_broken_by(state: ContinuumState, player: str) -> int:
    """The tiles `player` broke: those, on any board, in whose break one of their strikes counts."""
    return sum(any(s.firer == player for s in tb.strikes) for tb in state.tile_breaks)


def tie_chain(state: ContinuumState, player: str) -> tuple[Fraction, int, int]:
    """The score, then the addendum's tiebreaks: unbroken tiles on your board, tiles you broke."""
    return score(state, player), unbroken_tiles(state, player), tiles_broken_by(state, player)


def placements(state: ContinuumState, tiebreak: Sequence[str]) -> list[Placement]:
    """By score; ties by unbroken tiles, then tiles broken, then the Gamewide Tiebreak."""
    key = {p: tie_chain(state, p) for p in state.participants}
    order = place_by(state.participants, key, tiebreak)
    return [Placement(p, place, key[p][0], {"unbroken tiles": key[p][1], "tiles broken": key[p][2]})
            for place, p in enumerate(order, 1)]
