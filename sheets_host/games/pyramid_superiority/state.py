"""Pyramid Superiority's state: what was dealt and what everyone submitted, and what a participant
may submit today.

Its `ledger` (chips, points, the pyramid, each stage's result) is replayed from the history by
`ledger.account`, so a host's correction flows through everything after it. What a participant may
submit today, and what the resolver will make of it (`PyramidState.outlook`), is asked of the
state: `parse`, the bot and the dropdowns share it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cached_property

from . import rules
from .ledger import Ledger, account
from .meadows import (DAYS, GUEST_MEADOWS, ROUNDS, Construction, Day, Guest, Meadow, Name, Player, Proposal, Round,
                      Settings)
from .rules import ROTATION_COST, Corner, Piece, Position, Type

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


def parts_of(sub: PyramidSubmission) -> list[tuple[str, RowKind, int]]:
    """Each part of a submission, keyed as the parser and the day name it, with the kind of row
    it is typed in and its place among that kind's rows: the bid and the star or piece (typed, or
    the text's default), a position typed, a rotation that turns, each transfer ("send 2")."""
    kinds = [RowKind.BID, RowKind.STAR] if isinstance(sub, Proposal) else [RowKind.BID, RowKind.PIECE]
    kinds += [RowKind.POSITION] if isinstance(sub, Construction) and sub.position else []
    out = [(kind.value, kind, 0) for kind in kinds + ([RowKind.ROTATE] if sub.rotation else [])]
    if isinstance(sub, Construction):
        out += [(f"{RowKind.SEND.value} {i + 1}", RowKind.SEND, i) for i in range(len(sub.transfers))]
    return out


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

    def nothing_due(self, name: Name) -> str:
        """Why the participant has nothing to submit today (`submits` is False)."""
        if self.is_guest(name):
            return f"the proposal stages are over: guests have nothing to submit on day {DAYS}"
        return "day 1 has no construction stage (the first pieces are proposed today): players submit from day 2"

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
