"""Pyramid Superiority's values: the meadows and the settings, what a guest and a player submit,
what the history adds up to (the `Ledger`), and the state.

The state is what was dealt and what everyone submitted; its `ledger` (chips, points, the pyramid,
each stage's result) is replayed from them by the rules (`day.account`), so a host's correction
flows through everything after it. What a participant may submit today, and what the resolver
will make of it (`PyramidState.outlook`), is asked of the state: `parse`, the bot and the
dropdowns share it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from . import rules
from .rules import ROTATION_COST, Corner, Piece, Position, Purse, RoundScore, Type

Name = str  # a participant: a player or a guest
Player = str  # a participant of the Blue Meadow
Guest = str  # a participant of the Red or Green Meadow
Round = int  # 1 to 14: its proposal stage on day `round`, its construction stage the day after
Day = int  # 1 to 15: one engine round

ROUNDS = 14
DAYS = ROUNDS + 1


class Meadow(Enum):
    BLUE = "blue"  # the players
    RED = "red"  # guests: eliminated players
    GREEN = "green"  # guests: spectators

    @property
    def title(self) -> str:
        return f"{self.value.title()} Meadow"


GUEST_MEADOWS = (Meadow.RED, Meadow.GREEN)


@dataclass(frozen=True)
class Settings:
    meadows: Mapping[Meadow, tuple[Name, ...]]  # three names each
    player_chips: int = 50
    guest_chips: int = 20
    garnets: Mapping[Player, int] = field(default_factory=dict)  # players' garnets, host-set
    tie_winner: Player | None = None  # who wins if all three players tie (the host's record)
    elimination_candidate: Player | None = None  # the tie winner's choice, if all three tie

    @property
    def players(self) -> tuple[Player, ...]:
        return self.meadows[Meadow.BLUE]

    @property
    def guests(self) -> tuple[Guest, ...]:
        return self.meadows[Meadow.RED] + self.meadows[Meadow.GREEN]

    def meadow_of(self, name: Name) -> Meadow:
        return next(m for m, names in self.meadows.items() if name in names)


@dataclass(frozen=True)
class Proposal:
    """A guest's proposal-stage submission: a bid, a star attempt on the piece as proposed, and a
    clockwise rotation in quarter turns (paid only if this guest's piece is proposed)."""

    bid: int
    star: Corner
    rotation: int = 0


@dataclass(frozen=True)
class Transfer:
    guest: Guest
    chips: int


@dataclass(frozen=True)
class Construction:
    """A player's construction-stage submission: a bid, which meadow's piece, a clockwise rotation
    (paid only by the winner), a position (None: the default) and chips sent to guests."""

    bid: int = 0
    meadow: Meadow = Meadow.RED
    rotation: int = 0
    position: Position | None = None
    transfers: tuple[Transfer, ...] = ()


PyramidSubmission = Proposal | Construction  # a guest's proposal or a player's construction


class RowKind(Enum):
    """What a row of the submit tab is (its `what` column)."""

    BID = "bid"
    STAR = "star"
    ROTATE = "rotate"
    PIECE = "piece"
    POSITION = "position"
    SEND = "send"


GUEST_ROWS = (RowKind.BID, RowKind.STAR, RowKind.ROTATE)  # the proposal stage's
PLAYER_ROWS = (RowKind.BID, RowKind.PIECE, RowKind.ROTATE, RowKind.POSITION, RowKind.SEND)  # the construction stage's


# ---- what the history adds up to -------------------------------------------------------------


@dataclass(frozen=True)
class ProposalResult:
    round: Round
    meadow: Meadow
    bids: Mapping[Guest, int]  # as counted (a bid over the guest's chips counts 0)
    attempts: Mapping[Guest, Corner]
    winner: Guest
    rotation: int  # quarter turns actually made (and paid)
    piece: Piece  # as proposed, with its star


@dataclass(frozen=True)
class ConstructionResult:
    round: Round
    bids: Mapping[Player, int]  # as counted
    winner: Player
    meadow: Meadow  # whose piece the winner took
    rotation: int  # quarter turns actually made (and paid)
    position: Position
    piece: Piece  # as built
    moved: str | None  # why the winner's position was replaced by the default


@dataclass(frozen=True)
class Entry:
    """A line of a participant's private statement: what happened to their chips and garnets."""

    day: Day
    what: str
    chips: int = 0
    garnets: int = 0
    purse: Purse = Purse(0)


@dataclass(frozen=True)
class Award:
    """Points someone scored (public: everyone's points are)."""

    day: Day
    name: Name
    what: str
    points: int


@dataclass(frozen=True)
class Scoring:
    round: Round
    multiplier: int
    scores: Mapping[Type, RoundScore]


@dataclass
class Ledger:
    """Everything the history adds up to; built once per state by `day.account`, then only read."""

    purses: dict[Name, Purse]
    days: int = 0  # days replayed
    pyramid: dict[Position, Piece] = field(default_factory=dict)
    placed: dict[Position, Round] = field(default_factory=dict)  # position -> round built
    proposed: dict[tuple[Round, Meadow], ProposalResult] = field(default_factory=dict)
    built: dict[Round, ConstructionResult] = field(default_factory=dict)
    statements: dict[Name, list[Entry]] = field(default_factory=dict)
    awards: list[Award] = field(default_factory=list)
    scorings: list[Scoring] = field(default_factory=list)
    log: dict[Day, list[str]] = field(default_factory=dict)  # day -> lines for the host's log

    def copy(self) -> Ledger:
        """A ledger to play on from (its values are immutable; only the containers are copied)."""
        return Ledger(dict(self.purses), self.days, dict(self.pyramid), dict(self.placed), dict(self.proposed),
                      dict(self.built), {k: list(v) for k, v in self.statements.items()}, list(self.awards),
                      list(self.scorings), dict(self.log))

    def points(self, name: Name) -> int:
        return sum(a.points for a in self.awards if a.name == name)

    def award(self, day: Day, name: Name, what: str, points: int) -> None:
        if points:
            self.awards.append(Award(day, name, what, points))

    def pay(self, day: Day, name: Name, amount: int, what: str) -> None:
        before = self.purses[name]
        after = before.pay(amount)
        self.purses[name] = after
        self.note(day, name, what, after.chips - before.chips, after.garnets - before.garnets)
        if after.garnets != before.garnets:  # the host takes them from the player's ORG balance
            self.log[day].append(f"{name} spends {before.garnets - after.garnets} garnets ({what})")

    def receive(self, day: Day, name: Name, chips: int, what: str) -> None:
        self.purses[name] = Purse(self.purses[name].chips + chips, self.purses[name].garnets)
        self.note(day, name, what, chips)

    def note(self, day: Day, name: Name, what: str, chips: int = 0, garnets: int = 0) -> None:
        self.statements.setdefault(name, []).append(Entry(day, what, chips, garnets, self.purses[name]))


# ---- the state ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outlook:
    """What the resolver will make of a submission, as far as it is known before the deadline
    (nothing changes a participant's chips or the pyramid between the submission and the stage)."""

    bid: int  # as counted
    holds: int  # chips (and garnets, for a player) before the bid
    rotation_paid: bool  # whether a rotation could be paid after the bid, if this bidder wins
    position_why: str | None = None  # why the position cannot be built on now
    default: Position | None = None  # the default position now
    transfers: tuple[str | None, ...] = ()  # per transfer, why it will be dropped (None: it is sent)


@dataclass(frozen=True)
class PyramidState:
    players: tuple[Name, ...]  # everyone who submits, as given to `new`
    settings: Settings
    types: Mapping[Name, Type]
    pieces: Mapping[tuple[Round, Guest], Piece]  # (round, guest) -> the piece dealt
    proposals: Mapping[tuple[Round, Guest], Proposal]
    constructions: Mapping[tuple[Round, Player], Construction]

    @cached_property
    def days(self) -> int:
        """Days resolved: day d adds round d's proposals (d <= 14) and round d-1's constructions."""
        last_proposal = max((r for r, _ in self.proposals), default=0)
        last_construction = max((r for r, _ in self.constructions), default=0)
        return max(last_proposal, last_construction + 1 if last_construction else 0)

    @property
    def day(self) -> Day:
        """The day to resolve next."""
        return self.days + 1

    @property
    def over(self) -> bool:
        return self.days >= DAYS

    @cached_property
    def ledger(self) -> Ledger:
        # day.py builds this module's values (it imports them at its top): imported here, once the
        # module is loaded, so the import goes one way.
        from .day import account

        return account(self.settings, self.types, self.pieces, self.proposals, self.constructions, self.days)

    def is_guest(self, name: Name) -> bool:
        return name in self.settings.guests

    def offers(self) -> dict[Meadow, Piece]:
        """The pieces the players choose from today: round (day - 1)'s proposals."""
        r = self.day - 1
        return {m: self.ledger.proposed[(r, m)].piece for m in GUEST_MEADOWS if (r, m) in self.ledger.proposed}

    # ---- what a participant may submit today, and what will count ------------------------------

    def submits(self, name: Name) -> bool:
        """Guests propose on days 1-14, players build on days 2-15."""
        return self.day <= ROUNDS if self.is_guest(name) else self.day > 1

    def row_kinds(self, name: Name) -> tuple[RowKind, ...]:
        """The rows of the participant's stage: a guest proposes, a player builds."""
        return GUEST_ROWS if self.is_guest(name) else PLAYER_ROWS

    def default(self, name: Name) -> PyramidSubmission | None:
        """The text's submission for a participant who submits nothing valid (None: their stage
        is not played today)."""
        if not self.submits(name):
            return None
        return Proposal(0, self.default_star(name, 0)) if self.is_guest(name) else Construction()

    def default_star(self, guest: Guest, turns: int) -> Corner:
        """The first cell of the guest's type in their own piece (as they would propose it)."""
        return self.pieces[(self.day, guest)].rotated(turns).first_cell_of(self.types[guest])

    def holds(self, name: Name) -> int:
        """What the participant bids and pays with: chips, and a player's garnets once the chips run out."""
        purse = self.ledger.purses[name]
        return purse.chips if self.is_guest(name) else purse.total

    def counted_bid(self, name: Name, bid: int) -> int:
        return rules.bid_counted(bid, self.holds(name))

    def rotation_paid(self, name: Name, bid: int) -> bool:
        """Whether a rotation could be paid after this bid, should the participant win."""
        return self.holds(name) - self.counted_bid(name, bid) >= ROTATION_COST

    def chips_left(self, name: Name, bid: int) -> int:
        """The chips left after this bid: what transfers can send (garnets cannot be sent)."""
        chips = self.ledger.purses[name].chips
        return chips - min(chips, self.counted_bid(name, bid))

    @property
    def transfers_open(self) -> bool:
        """Whether players may send chips today: not in the last construction stage."""
        return self.day < DAYS

    def outlook(self, name: Name, sub: PyramidSubmission) -> Outlook:
        """What the resolver will make of `sub`: the bid as counted, whether a rotation is paid,
        why the position is replaced by the default, which transfers are dropped."""
        bid, holds, paid = self.counted_bid(name, sub.bid), self.holds(name), self.rotation_paid(name, sub.bid)
        if isinstance(sub, Proposal):
            return Outlook(bid, holds, paid)
        pyramid = self.ledger.pyramid
        left, fates = self.chips_left(name, sub.bid), []
        for t in sub.transfers:
            if not self.transfers_open:
                fates.append("no transfers in the last construction stage")
            elif t.chips > left:
                fates.append(f"you would have {left} chips left after your bid, and garnets cannot be sent")
            else:
                fates.append(None)
                left -= t.chips
        return Outlook(bid, holds, paid, sub.position and rules.why_not_here(pyramid, sub.position),
                       rules.default_position(pyramid), tuple(fates))
