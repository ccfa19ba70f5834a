"""What Pyramid Superiority's history adds up to (the `Ledger`: chips, points, the pyramid, each
stage's result), and `account`, which replays the days into it with the rules.

The state stores only what was dealt and what everyone submitted (`Proposal`, `Construction`);
`account` replays the days in order, so a host's correction of one bid flows into everything after
it and nothing derived can disagree with the history. A day resolves the proposal stage of round
`day` (days 1 to 14), then the construction stage of round `day - 1` (days 2 to 15): transfers made
in a construction stage therefore arrive after that day's proposal stage and are usable from the
next one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from . import rules
from .meadows import (DAYS, GUEST_MEADOWS, ROUNDS, Construction, Day, Guest, Meadow, Name, Player, Proposal, Round,
                      Settings, Transfer)
from .rules import MULTIPLIERS, ROTATION_COST, Corner, Piece, Position, Purse, RoundScore, Type

PLAYER_BONUS = 20  # most chips at the end, players
GUEST_BONUS = 4  # most chips at the end, guests (in their meadow)
PROPOSED_POINTS = 2
STAR_POINTS = 3


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
    dropped: Mapping[Player, tuple[str | None, ...]]  # each player's transfers in order: why dropped (None: sent)


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
    """Everything the history adds up to; built once per state by `account`, then only read."""

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


def account(settings: Settings, types: Mapping[Name, Type], pieces: Mapping[tuple[Round, Guest], Piece],
            proposals: Mapping[tuple[Round, Guest], Proposal],
            constructions: Mapping[tuple[Round, Player], Construction], days: int,
            start: Ledger | None = None) -> Ledger:
    """Replay the first `days` days of the game; or only the days after `start`, a ledger of the
    same history's first days (what resolve does: one day instead of all)."""
    ledger = start.copy() if start else Ledger(
        {**{p: Purse(settings.player_chips, settings.garnets.get(p, 0)) for p in settings.players},
         **{g: Purse(settings.guest_chips) for g in settings.guests}})
    for day in range(ledger.days + 1, days + 1):
        ledger.log[day] = []
        if day <= ROUNDS:
            for meadow in GUEST_MEADOWS:
                _proposal_stage(ledger, day, meadow, settings, types, pieces, proposals)
        if day >= 2:
            _construction_stage(ledger, day, settings, types, constructions)
        if day == DAYS:
            _most_chips(ledger, day, settings)
        ledger.days = day
    return ledger


def _proposal_stage(ledger: Ledger, day: Day, meadow: Meadow, settings: Settings, types, pieces, proposals) -> None:
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
    turns = _turns_paid(ledger, day, winner, subs[winner].rotation, ledger.purses[winner].chips, f"round {r} proposal",
                        "rotation of your proposed piece",
                        f"{meadow.title}: {winner} cannot pay for the rotation: the piece goes as dealt")
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


def _construction_stage(ledger: Ledger, day: Day, settings: Settings, types, constructions) -> None:
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
    turns = _turns_paid(ledger, day, winner, sub.rotation, ledger.purses[winner].total, f"round {r} construction",
                        "rotation", f"{winner} cannot pay for the rotation: the piece is built as proposed")
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
    ledger.award(day, winner, f"round {r}: right to build", r)
    log.append(f"round {r} construction: bids " + ", ".join(f"{p} {b}" for p, b in bids.items())
               + f"; {winner} builds the {sub.meadow.title}'s piece" + (f" turned {90 * turns} degrees" if turns else "")
               + f" at {position.name}: {piece.text()}" + (f" ({moved})" if moved else ""))
    dropped = {p: tuple(_send(ledger, day, r, p, t) for t in subs[p].transfers) for p in players}
    ledger.built[r] = ConstructionResult(r, bids, winner, sub.meadow, turns, position, piece, moved, dropped)
    if r in MULTIPLIERS:
        scores = rules.score_round(rules.groups(rules.top_view(ledger.pyramid)))
        ledger.scorings.append(Scoring(r, MULTIPLIERS[r], scores))
        for p in players:
            ledger.award(day, p, f"scoring round after round {r} (x{MULTIPLIERS[r]})",
                         scores[types[p]].total * MULTIPLIERS[r])
        log.append(f"scoring round after round {r}: " + ", ".join(
            f"{p} {scores[types[p]].total} x {MULTIPLIERS[r]}" for p in players))


def _send(ledger: Ledger, day: Day, r: Round, player: Player, t: Transfer) -> str | None:
    """A player's transfer at the end of round `r`'s construction stage: sent from their chips, or
    why it is dropped (told in their statement)."""
    if r == ROUNDS:
        why = "no transfers in the last construction stage"
    elif t.chips > ledger.purses[player].chips:
        why = f"more than your {ledger.purses[player].chips} chips"
        ledger.log[day].append(f"{player}'s transfer of {t.chips} to {t.guest} dropped: "
                               f"{ledger.purses[player].chips} chips left")
    else:
        ledger.pay(day, player, t.chips, f"sent to {t.guest}")
        ledger.receive(day, t.guest, t.chips, "chips from a player")
        ledger.log[day].append(f"{player} sends {t.chips} chips to {t.guest}")
        return None
    ledger.note(day, player, f"sending {t.chips} to {t.guest} dropped: {why}")
    return why


def _turns_paid(ledger: Ledger, day: Day, winner: Name, rotation: int, holds: int, stage: str, paid_for: str,
                dropped: str) -> int:
    """The quarter turns the stage's winner makes: paid for, or none (and `dropped` logged) when they
    hold less than the rotation costs after their bid."""
    turns = rotation % 4
    if turns and holds < ROTATION_COST:
        ledger.note(day, winner, f"{stage}: rotation dropped, {ROTATION_COST} chips needed")
        ledger.log[day].append(dropped)
        return 0
    if turns:
        ledger.pay(day, winner, ROTATION_COST, f"{stage}: {paid_for}")
    return turns


def _most_chips(ledger: Ledger, day: Day, settings: Settings) -> None:
    """The end: the sole player with the most chips scores 20, the sole guest of a meadow 4."""
    for names, bonus in ((settings.players, PLAYER_BONUS), *((settings.meadows[m], GUEST_BONUS) for m in GUEST_MEADOWS)):
        most = rules.sole_most({n: ledger.purses[n].chips for n in names})
        if most:
            ledger.award(day, most, "most chips at the end", bonus)
            ledger.log[day].append(f"{most} holds the most chips of {', '.join(names)}: +{bonus}")
