"""What the game's history adds up to: chips, points, the pyramid, each stage's result.

The state stores only what was dealt and what everyone submitted (`Proposal`, `Construction`);
`account` replays the days in order with the rules, so a host's correction of one bid flows into
everything after it and nothing derived can disagree with the history. A day resolves the
proposal stage of round `day` (days 1 to 14), then the construction stage of round `day - 1`
(days 2 to 15): transfers made in a construction stage therefore arrive after that day's proposal
stage and are usable from the next one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from . import rules
from .rules import MULTIPLIERS, ROTATION_COST, Corner, Piece, Position, Purse, RoundScore, Type

ROUNDS = 14
DAYS = ROUNDS + 1
PLAYER_BONUS = 20  # most chips at the end, players
GUEST_BONUS = 4  # most chips at the end, guests (in their meadow)
PROPOSED_POINTS = 2
STAR_POINTS = 3


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
    meadows: Mapping[Meadow, tuple[str, ...]]  # three names each
    player_chips: int = 50
    guest_chips: int = 20
    garnets: Mapping[str, int] = field(default_factory=dict)  # players' garnets, host-set
    tie_winner: str | None = None  # who wins if all three players tie (the host's record)
    elimination_candidate: str | None = None  # the tie winner's choice, if all three tie

    @property
    def players(self) -> tuple[str, ...]:
        return self.meadows[Meadow.BLUE]

    @property
    def guests(self) -> tuple[str, ...]:
        return self.meadows[Meadow.RED] + self.meadows[Meadow.GREEN]

    def meadow_of(self, name: str) -> Meadow:
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
    guest: str
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


@dataclass(frozen=True)
class ProposalResult:
    round: int
    meadow: Meadow
    bids: Mapping[str, int]  # as counted (a bid over the guest's chips counts 0)
    attempts: Mapping[str, Corner]
    winner: str
    rotation: int  # quarter turns actually made (and paid)
    piece: Piece  # as proposed, with its star


@dataclass(frozen=True)
class ConstructionResult:
    round: int
    bids: Mapping[str, int]  # as counted
    winner: str
    meadow: Meadow  # whose piece the winner took
    rotation: int  # quarter turns actually made (and paid)
    position: Position
    piece: Piece  # as built
    moved: str | None  # why the winner's position was replaced by the default


@dataclass(frozen=True)
class Entry:
    """A line of a participant's private statement: what happened to their chips and garnets."""

    day: int
    what: str
    chips: int = 0
    garnets: int = 0
    purse: Purse = Purse(0)


@dataclass(frozen=True)
class Award:
    """Points someone scored (public: everyone's points are)."""

    day: int
    name: str
    what: str
    points: int


@dataclass(frozen=True)
class Scoring:
    round: int
    multiplier: int
    scores: Mapping[Type, RoundScore]


@dataclass
class Ledger:
    """Everything the history adds up to; built once per state by `account`, then only read."""

    purses: dict[str, Purse]
    days: int = 0  # days replayed
    pyramid: dict[Position, Piece] = field(default_factory=dict)
    placed: dict[Position, int] = field(default_factory=dict)  # position -> round built
    proposed: dict[tuple[int, Meadow], ProposalResult] = field(default_factory=dict)
    built: dict[int, ConstructionResult] = field(default_factory=dict)
    statements: dict[str, list[Entry]] = field(default_factory=dict)
    awards: list[Award] = field(default_factory=list)
    scorings: list[Scoring] = field(default_factory=list)
    log: dict[int, list[str]] = field(default_factory=dict)  # day -> lines for the host's log

    def copy(self) -> Ledger:
        """A ledger to play on from (its values are immutable; only the containers are copied)."""
        return Ledger(dict(self.purses), self.days, dict(self.pyramid), dict(self.placed), dict(self.proposed),
                      dict(self.built), {k: list(v) for k, v in self.statements.items()}, list(self.awards),
                      list(self.scorings), dict(self.log))

    def points(self, name: str) -> int:
        return sum(a.points for a in self.awards if a.name == name)

    def award(self, day: int, name: str, what: str, points: int) -> None:
        if points:
            self.awards.append(Award(day, name, what, points))

    def pay(self, day: int, name: str, amount: int, what: str) -> None:
        before = self.purses[name]
        after = before.pay(amount)
        self.purses[name] = after
        self.note(day, name, what, after.chips - before.chips, after.garnets - before.garnets)
        if after.garnets != before.garnets:  # the host takes them from the player's ORG balance
            self.log[day].append(f"{name} spends {before.garnets - after.garnets} garnets ({what})")

    def receive(self, day: int, name: str, chips: int, what: str) -> None:
        self.purses[name] = Purse(self.purses[name].chips + chips, self.purses[name].garnets)
        self.note(day, name, what, chips)

    def note(self, day: int, name: str, what: str, chips: int = 0, garnets: int = 0) -> None:
        self.statements.setdefault(name, []).append(Entry(day, what, chips, garnets, self.purses[name]))


def account(settings: Settings, types: Mapping[str, Type], pieces: Mapping[tuple[int, str], Piece],
            proposals: Mapping[tuple[int, str], Proposal],
            constructions: Mapping[tuple[int, str], Construction], days: int, start: Ledger | None = None) -> Ledger:
    """Replay the first `days` days of the game; or only the days after `start`, a ledger of the
    same history's first days (what resolve does: one day instead of all)."""
    ledger = start.copy() if start else Ledger(
        {**{p: Purse(settings.player_chips, settings.garnets.get(p, 0)) for p in settings.players},
         **{g: Purse(settings.guest_chips) for g in settings.guests}})
    for day in range(ledger.days + 1, days + 1):
        ledger.log[day] = []
        if day <= ROUNDS:
            for meadow in GUEST_MEADOWS:
                _propose(ledger, day, meadow, settings, types, pieces, proposals)
        if day >= 2:
            _construct(ledger, day, settings, types, constructions)
        if day == DAYS:
            _end(ledger, day, settings)
        ledger.days = day
    return ledger


def _propose(ledger: Ledger, day: int, meadow: Meadow, settings: Settings, types, pieces, proposals) -> None:
    r, log = day, ledger.log[day]
    guests = settings.meadows[meadow]
    subs = {g: proposals[(r, g)] for g in guests}
    bids = {}
    for g in guests:
        bids[g] = rules.bid_counted(subs[g].bid, ledger.purses[g].chips)
        if bids[g] != subs[g].bid:
            ledger.note(day, g, f"round {r} proposal: bid of {subs[g].bid} is more than your chips: counts as 0")
            log.append(f"{meadow.title}: {g} bid {subs[g].bid} with {ledger.purses[g].chips} chips: counts as 0")
    previous = ledger.proposed.get((r - 1, meadow))
    winner = rules.bid_winner(bids, types, types[previous.winner] if previous else Type.GRASS)
    for g in guests:
        if bids[g]:
            ledger.pay(day, g, bids[g], f"round {r} proposal: bid")
    turns = subs[winner].rotation % 4
    if turns and ledger.purses[winner].chips < ROTATION_COST:
        ledger.note(day, winner, f"round {r} proposal: rotation dropped, {ROTATION_COST} chips needed")
        log.append(f"{meadow.title}: {winner} cannot pay for the rotation: the piece goes as dealt")
        turns = 0
    elif turns:
        ledger.pay(day, winner, ROTATION_COST, f"round {r} proposal: rotation of your proposed piece")
    attempts = {g: subs[g].star for g in guests}
    star = rules.star_corner(attempts.values())
    piece = pieces[(r, winner)].rotated(turns).starred(star)
    ledger.proposed[(r, meadow)] = ProposalResult(r, meadow, bids, attempts, winner, turns, piece)
    ledger.award(day, winner, f"round {r}: piece proposed", PROPOSED_POINTS)
    starred_type = piece.cell(star)
    for g in guests:
        if types[g] is starred_type:
            ledger.award(day, g, f"round {r}: star on a {starred_type.value} cell", STAR_POINTS)
    log.append(f"{meadow.title}, round {r}: bids " + ", ".join(f"{g} {b}" for g, b in bids.items())
               + f"; {winner}'s piece proposed" + (f" turned {90 * turns} degrees" if turns else "")
               + "; star attempts " + ", ".join(f"{g} {c.value}" for g, c in attempts.items())
               + f"; star on {star.value}: {piece.text()}")


def _construct(ledger: Ledger, day: int, settings: Settings, types, constructions) -> None:
    r, log = day - 1, ledger.log[day]
    players = settings.players
    subs = {p: constructions[(r, p)] for p in players}
    bids = {}
    for p in players:
        bids[p] = rules.bid_counted(subs[p].bid, ledger.purses[p].total)
        if bids[p] != subs[p].bid:
            ledger.note(day, p, f"round {r} construction: bid of {subs[p].bid} is more than your chips "
                                "and garnets: counts as 0")
            log.append(f"{p} bid {subs[p].bid} with {ledger.purses[p].total} chips and garnets: counts as 0")
    previous = ledger.built.get(r - 1)
    winner = rules.bid_winner(bids, types, types[previous.winner] if previous else Type.GRASS)
    for p in players:
        if bids[p]:
            ledger.pay(day, p, bids[p], f"round {r} construction: bid")
    sub = subs[winner]
    turns = sub.rotation % 4
    if turns and ledger.purses[winner].total < ROTATION_COST:
        ledger.note(day, winner, f"round {r} construction: rotation dropped, {ROTATION_COST} chips needed")
        log.append(f"{winner} cannot pay for the rotation: the piece is built as proposed")
        turns = 0
    elif turns:
        ledger.pay(day, winner, ROTATION_COST, f"round {r} construction: rotation")
    piece = ledger.proposed[(r, sub.meadow)].piece.rotated(turns)
    position, moved = sub.position, None
    if position is not None:
        moved = rules.why_not_here(ledger.pyramid, position)
    if position is None or moved:
        position = rules.default_position(ledger.pyramid)
    if moved:
        moved = f"{moved}: built at {position.name}, the default position, instead"
        ledger.note(day, winner, f"round {r} construction: {moved}")
    ledger.pyramid[position] = piece
    ledger.placed[position] = r
    ledger.built[r] = ConstructionResult(r, bids, winner, sub.meadow, turns, position, piece, moved)
    ledger.award(day, winner, f"round {r}: right to build", r)
    log.append(f"round {r} construction: bids " + ", ".join(f"{p} {b}" for p, b in bids.items())
               + f"; {winner} builds the {sub.meadow.title}'s piece" + (f" turned {90 * turns} degrees" if turns else "")
               + f" at {position.name}: {piece.text()}" + (f" ({moved})" if moved else ""))
    for p in players:
        for t in subs[p].transfers:
            if r == ROUNDS:
                ledger.note(day, p, f"sending {t.chips} to {t.guest} dropped: no transfers in the last construction stage")
            elif t.chips > ledger.purses[p].chips:
                ledger.note(day, p, f"sending {t.chips} to {t.guest} dropped: more than your {ledger.purses[p].chips} chips")
                log.append(f"{p}'s transfer of {t.chips} to {t.guest} dropped: {ledger.purses[p].chips} chips left")
            else:
                ledger.pay(day, p, t.chips, f"sent to {t.guest}")
                ledger.receive(day, t.guest, t.chips, "chips from a player")
                log.append(f"{p} sends {t.chips} chips to {t.guest}")
    if r in MULTIPLIERS:
        scores = rules.score_round(rules.groups(rules.top_view(ledger.pyramid)))
        ledger.scorings.append(Scoring(r, MULTIPLIERS[r], scores))
        for p in players:
            ledger.award(day, p, f"scoring round after round {r} (x{MULTIPLIERS[r]})",
                         scores[types[p]].total * MULTIPLIERS[r])
        log.append(f"scoring round after round {r}: " + ", ".join(
            f"{p} {scores[types[p]].total} x {MULTIPLIERS[r]}" for p in players))


def _end(ledger: Ledger, day: int, settings: Settings) -> None:
    for names, bonus in ((settings.players, PLAYER_BONUS), *((settings.meadows[m], GUEST_BONUS) for m in GUEST_MEADOWS)):
        most = rules.sole_most({n: ledger.purses[n].chips for n in names})
        if most:
            ledger.award(day, most, "most chips at the end", bonus)
            ledger.log[day].append(f"{most} holds the most chips of {', '.join(names)}: +{bonus}")
