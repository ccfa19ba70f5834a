"""Wind Guide Me's rules as pure functions over small values and the state (no books, no pandas).

Each function carries the rule text's name for what it does: placing wind stones at a ritual
site, fake stones disappearing, a site's activation (collapse or vector), a player's score;
the round played on the whole state is `rounds.py`.

>>> seats = ("Ann", "Bo", "Cy", "Di", "Ed")
>>> placed = place_stones(seats, {}, [Request("Ann", 2, 3), Request("Cy", 2, 5)])
>>> {position: stone.player for position, stone in sorted(placed.items())}
{2: 'Cy', 3: 'Ann'}

Cy's seat (3) is first clockwise from position 2, so Cy takes it; Ann's stone moves on to 3.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

POSITIONS = 5
MIN_POWER, MAX_POWER = 1, 7
LIGHT_REACH = 3  # Power of Light: "change the weighting ... by up to 3"
EXACT = 1e-9  # angles closer than this to a position lie "exactly" on it


@dataclass(frozen=True)
class Request:
    """A stone asking for a position at one site this round. `power` is its weight as placed."""

    player: str
    position: int
    power: int
    fake: bool = False
    from_hand: int = 0


@dataclass(frozen=True)
class Stone:
    """A stone standing at a position (or, for a fake that disappeared, the round it went)."""

    player: str
    power: int
    fake: bool = False
    asked: int = 0  # the position its player asked for
    round: int = 0
    from_hand: int = 0  # the stone taken from the player's hand (its power before Light); 0 for a fake


@dataclass(frozen=True)
class Placed:
    """A stone placed at a site; `gone` is the round a fake disappeared in (0 while it stands)."""

    site: int
    position: int
    stone: Stone
    gone: int = 0


def position_angle(position: int, positions: int = POSITIONS) -> float:
    """The angle of a position in radians: position 1 at the top, then clockwise.

    >>> round(math.degrees(position_angle(1))), round(math.degrees(position_angle(2)))
    (90, 18)
    """
    return math.pi / 2 - 2 * math.pi * (position - 1) / positions


def clockwise(start: int, to: int) -> int:
    """Steps clockwise from position `start` to position `to` (0 when they are the same).

    >>> clockwise(4, 1), clockwise(2, 2)
    (2, 0)
    """
    return (to - start) % POSITIONS


def place_stones(seats: Sequence[str], standing: Mapping[int, Stone],
                 requests: Iterable[Request], round_number: int = 0) -> dict[int, Stone]:
    """Place one round's stones at one site; returns every stone standing there afterwards.

    First pass: a stone that alone asks for an empty position takes it; when several ask, the
    one whose player's seat is first clockwise from that position (counting the position itself)
    takes it. Second pass, "after all first submissions checks": every other stone, in order of
    the position it asked for and then that same seat order, takes the first unoccupied position
    clockwise from the one it asked for. A real stone that finds the site full only because of a
    fake stone takes the first fake's position clockwise: the fake yields. A fake that finds no
    room is not placed.
    """
    seat = {player: i + 1 for i, player in enumerate(seats)}
    board = dict(standing)
    by_position: dict[int, list[Request]] = {}
    for request in requests:
        by_position.setdefault(request.position, []).append(request)

    def seat_order(position: int):
        return lambda r: clockwise(position, seat[r.player])

    def stone(request: Request) -> Stone:
        return Stone(request.player, request.power, request.fake, request.position, round_number,
                     request.from_hand)

    later: list[tuple[int, int, Request]] = []
    for position in sorted(by_position):
        contenders = sorted(by_position[position], key=seat_order(position))
        if position not in board:
            board[position] = stone(contenders[0])
            contenders = contenders[1:]
        later += [(position, clockwise(position, seat[r.player]), r) for r in contenders]

    for position, _, request in sorted(later, key=lambda t: (t[0], t[1])):
        ring = [(position - 1 + step) % POSITIONS + 1 for step in range(POSITIONS)]
        free = next((p for p in ring if p not in board), None)
        if free is None and not request.fake:
            free = next(p for p in ring if board[p].fake)  # real stones are at most 5: one fits
        if free is not None:
            board[free] = stone(request)
    return board


def fakes_disappear(board: Mapping[int, Stone]) -> dict[int, Stone]:
    """Power of Dark: a fake disappears once its site holds at least 4 stones (fake included)."""
    if len(board) < 4:
        return dict(board)
    return {p: s for p, s in board.items() if not s.fake}


def without_fakes(board: Mapping[int, Stone]) -> dict[int, Stone]:
    """Every fake gone: at the start of round 7, and before the sites activate."""
    return {p: s for p, s in board.items() if not s.fake}


def total_power(board: Mapping[int, Stone]) -> int:
    return sum(s.power for s in board.values())


@dataclass(frozen=True)
class Activation:
    """A ritual site at the end of the game: failed (with why) or its vector."""

    failed: str | None
    x: float = 0.0
    y: float = 0.0
    length: float = 0.0
    direction: float | None = None  # radians, None when the pull cancels out or the site failed


def collapse(board: Mapping[int, Stone], limit: int) -> str | None:
    """Why a site fails: more than `limit` power, or all five stones of equal power."""
    if total_power(board) > limit:
        return f"{total_power(board)} power is over {limit}"
    powers = {s.power for s in board.values()}
    if len(board) == POSITIONS and len(powers) == 1:
        return f"all five stones have power {powers.pop()}"
    return None


def round_half_up(value: float, places: int = 1) -> float:
    """
    >>> round_half_up(4.25), round_half_up(4.5), round_half_up(2.45)
    (4.3, 4.5, 2.5)
    """
    return float(Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def activate(board: Mapping[int, Stone], limit: int) -> Activation:
    """A site's vector: each stone pulls the angle toward its position by its power; the length
    is the power of the stone the angle points at exactly (1 if that position is empty), else
    the average of the two stones it lies between (rounded half up to one decimal), or 1 if
    either of those positions is empty."""
    reason = collapse(board, limit)
    if reason:
        return Activation(reason)
    x = sum(s.power * math.cos(position_angle(p)) for p, s in board.items())
    y = sum(s.power * math.sin(position_angle(p)) for p, s in board.items())
    if math.hypot(x, y) < EXACT:
        return Activation(None)
    direction = math.atan2(y, x)
    steps = ((math.pi / 2 - direction) % (2 * math.pi)) / (2 * math.pi / POSITIONS)
    nearest = round(steps)
    if abs(steps - nearest) < EXACT:
        on = board.get(nearest % POSITIONS + 1)
        length = float(on.power) if on else 1.0
    else:
        low = math.floor(steps) % POSITIONS + 1
        high = low % POSITIONS + 1
        a, b = board.get(low), board.get(high)
        length = round_half_up((a.power + b.power) / 2) if a and b else 1.0
    return Activation(None, length * math.cos(direction), length * math.sin(direction), length, direction)


def score(vectors: Iterable[tuple[float, float]], penalty: float) -> float:
    """A player's final score: the distance from (0,0) of the sum of their sites' vectors,
    minus penalties for missed rounds."""
    xs, ys = zip(*vectors) if vectors else ((), ())
    return math.hypot(sum(xs), sum(ys)) - penalty


def light(stone: int, power: int) -> str | None:
    """Why Power of Light cannot re-weight `stone` to `power` (None when it can)."""
    if not MIN_POWER <= power <= MAX_POWER:
        return f"the new power must be from {MIN_POWER} to {MAX_POWER}"
    if abs(power - stone) > LIGHT_REACH:
        return f"Power of Light changes a stone's power by up to {LIGHT_REACH} ({stone} can become " \
               f"{max(MIN_POWER, stone - LIGHT_REACH)} to {min(MAX_POWER, stone + LIGHT_REACH)})"
    return None


def top_and_bottom(scores: Mapping[str, float]) -> tuple[list[str], list[str]]:
    """The players tied for the highest and for the lowest score (full precision)."""
    best, worst = max(scores.values()), min(scores.values())
    return ([p for p, s in scores.items() if abs(s - best) < EXACT],
            [p for p, s in scores.items() if abs(s - worst) < EXACT])


def tokens_of_life(winners: Sequence[str]) -> int:
    """Tokens of Life each winner earns: 2 for a sole winner, 1 each when tied, none when more
    than 3 tie (immunity is negated)."""
    if len(winners) == 1:
        return 2
    return 1 if len(winners) <= 3 else 0


