"""Spirit Chain (Death Match, 2 players): the game as the engine sees it.

Each phase part is one engine round: the Auction, Summoning part 1 (upgrades), Summoning part 2
(slots), then the next cycle's Auction. The state is the cycle and open phase, each Ghost
Lantern (lights, reserve periods), each deck (with the spirits an IMPRISON locked), every
auctioned card with its result, and every summoning's played cards with the lights after it.
What each summoning did to each card is not stored: it follows from the cards played.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

import pandas as pd

from ... import cells
from ...cells import CellError, Problem, SubmitRow
from ...errors import SchemaError, SchemaErrors
from ...game import Game, Outcome, Parsed, Window, rng_for
from ...layout import tint
from ...table import Column, TabSchema
from . import colours, rules
from .cards import LANTERN, Card, CardBook, Element, Rank, is_empty_word, read_cards
from .rules import LOT, SLOTS, Fate, Summoning, Upgrade
from .timing import Choice, TimeControls


class Phase(Enum):
    AUCTION = "auction"
    UPGRADES = "upgrades"
    SLOTS = "slots"

    @property
    def label(self) -> str:
        return {"auction": "Auction", "upgrades": "Summoning part 1 (upgrades)",
                "slots": "Summoning part 2 (slots)"}[self.value]

    @property
    def columns(self) -> tuple[str, ...]:
        """The submit-tab columns this phase reads."""
        return {"auction": tuple(f"bid {k}" for k in range(1, LOT + 1)), "upgrades": ("upgrade",),
                "slots": tuple(f"slot {k}" for k in range(1, SLOTS + 1))}[self.value]


PHASES = tuple(Phase)
NO_WORDS = ("no", "n", "none", "pass", "decline", "no upgrade", "no upgrades", "dont upgrade", "don't upgrade")
YES_WORDS = ("yes", "y", "all", "upgrade", "upgrade all")
STAMP = "submitted at"


@dataclass(frozen=True)
class Rules:
    """The cards and the settings, fixed for a game."""

    cards: CardBook
    max_cycles: int
    opponent: int  # the Death Match Opponent's seat
    clocks: Mapping[Phase, TimeControls]
    reserve: int


@dataclass(frozen=True)
class Lot:
    """An auctioned card. `winner` is a seat; an open lot has no result yet."""

    cycle: int
    number: int
    card: str
    result: str = "open"  # open, won or tie
    winner: int | None = None
    price: int | None = None


@dataclass(frozen=True)
class Played:
    """One side of a summoning: the three slots (card titles, None for empty) and the lights after."""

    cycle: int
    seat: int
    slots: tuple[str | None, ...]
    lights: int


@dataclass(frozen=True)
class Duel:
    players: tuple[str, str]
    cycle: int
    phase: Phase
    lights: tuple[int, int]
    reserve: tuple[int, int]
    decks: tuple[Mapping[str, int], Mapping[str, int]]  # card title -> copies
    locked: tuple[Mapping[str, int], Mapping[str, int]]  # copies locked for this (next) summoning
    lots: tuple[Lot, ...]
    played: tuple[Played, ...]
    rules: Rules = field(compare=False)

    @property
    def round(self) -> int:
        return 3 * (self.cycle - 1) + PHASES.index(self.phase) + 1

    @property
    def over(self) -> bool:
        return self.phase is Phase.AUCTION and self.cycle > 1 and (
            min(self.lights) <= 0 or self.cycle > self.rules.max_cycles)

    def seat(self, player: str) -> int:
        return self.players.index(player)

    def free(self, seat: int) -> Counter:
        """The cards a player may play or upgrade this summoning: the deck less the locked."""
        return Counter(self.decks[seat]) - Counter(self.locked[seat])

    def open_lot(self) -> list[Lot]:
        return [lot for lot in self.lots if lot.result == "open"]

    def last_summoning(self) -> tuple[Played, Played] | None:
        if len(self.played) < 2:
            return None
        a, b = self.played[-2:]
        return (a, b) if a.seat == 0 else (b, a)

    def winner(self) -> tuple[int | None, str]:
        if not self.over:
            return None, ""
        return rules.death_match_winner(self.lights, self.rules.opponent, self.cycle > self.rules.max_cycles)


@dataclass(frozen=True)
class Move:
    """What counts for a player in one phase part, and the reserve periods it costs.

    Auction: five bids. Upgrades: the upgrades, in order (none: 'no'). Slots: three card titles
    (None: empty). A blank submission is the phase's Move with nothing in it.
    """

    phase: Phase
    bids: tuple[int, ...] = ()
    upgrades: tuple[Upgrade, ...] = ()
    slots: tuple[str | None, ...] = ()
    reserve_used: int = 0


def blank(phase: Phase, reserve_used: int = 0) -> Move:
    return Move(phase, bids=(0,) * LOT if phase is Phase.AUCTION else (),
                slots=(None,) * SLOTS if phase is Phase.SLOTS else (), reserve_used=reserve_used)


CARDS_TAB = TabSchema("cards", (
    Column("name"), Column("element", "choice", ("earth", "water", "fire", "wind", "neutral")),
    Column("rank", "choice", ("I", "II", "III", "IV"), optional=True, doc="blank for a Neutral Action"),
    Column("effect", doc="clauses separated by ';': damage N, heal N, shield N, drain N, negate, destroy, "
                         "imprison, kept if failed, none"),
    Column("auction weight", "int", lo=0, doc="how often it appears in auctions; 0 for Rank II-IV spirits"),
    Column("note", optional=True),
), "Every Elemental Spirit and Neutral Action (the shipped set is a sample, marked in 'note').")
DUEL_TAB = TabSchema("duel", (Column("cycle", "int", lo=1),
                              Column("phase open", "choice", tuple(p.value for p in Phase))),
                     "The phase part to resolve next (one row).")
LANTERNS_TAB = TabSchema("lanterns", (
    Column("player", "player"), Column("lights", "int", hi=LANTERN),
    Column("reserve periods", "int", lo=0, doc="reserve time left, in periods")), "Each player's Ghost Lantern.")
DECKS_TAB = TabSchema("decks", (
    Column("player", "player"), Column("card", doc="ELEMENT RANK (e.g. EARTH I) or an action's name"),
    Column("count", "int", lo=1), Column("locked", "int", lo=0, doc="copies IMPRISONed for this summoning"),
), "Every player's cards (private to the player).")
AUCTIONS_TAB = TabSchema("auctions", (
    Column("cycle", "int", lo=1), Column("card no", "int", lo=1, hi=LOT), Column("card"),
    Column("result", "choice", ("open", "won", "tie")), Column("winner", "player", optional=True),
    Column("price", "int", lo=1, optional=True)), "Every auctioned card and who won it for how much.")
SUMMONINGS_TAB = TabSchema("summonings", (
    Column("cycle", "int", lo=1), Column("player", "player"),
    *(Column(f"slot {k}", optional=True) for k in range(1, SLOTS + 1)),
    Column("lights after", "int", hi=LANTERN)), "The cards each player played in each summoning.")
SUBMIT_TAB = TabSchema("submit", (
    Column(STAMP, doc="when you submitted, in UTC, e.g. 2026-11-23 18:00:05; blank: when the host's tool first sees the row"),
    *(Column(c, doc=f"Auction only: the lights you bid on card {k} of the open Auction (0 to {LANTERN}; blank is 0)")
      for k, c in enumerate(Phase.AUCTION.columns, 1)),
    Column("upgrade", doc="Summoning part 1 only: no, yes, or the spirits to make, e.g. EARTH II, "
                          "WIND IV from WIND III + FIRE III"),
    *(Column(c, doc=f"Summoning part 2 only: the card you play in slot {k}, from your deck (ELEMENT RANK such as "
                    "FIRE II, or an action's name); blank or empty: no card")
      for k, c in enumerate(Phase.SLOTS.columns, 1)),
), "One row is one submission, complete in itself: fill the columns of the phase part open now.")


class SpiritChain(Game[Duel, Move]):
    name = "spirit-chain"
    title = "Spirit Chain"
    min_players = max_players = 2
    data_tabs = (CARDS_TAB,)
    state_tabs = (DUEL_TAB, LANTERNS_TAB, DECKS_TAB, AUCTIONS_TAB, SUMMONINGS_TAB)
    submit_tab = SUBMIT_TAB
    settings = (
        Column("death match opponent", "text", optional=True,
               doc="wins a tie at the end; blank: the second player"),
        Column("max cycles", "int", lo=1, doc="after this many summonings the duel ends (more lights wins)"),
        Column("time controls", "bool", doc="yes: windows and reserve time decide what counts; no: the last valid row"),
        Column("auction seconds", "int", lo=1, doc="the Auction's window"),
        Column("upgrade seconds", "int", lo=1, doc="Summoning part 1's window"),
        Column("slots seconds", "int", lo=1, doc="Summoning part 2's window"),
        Column("reserve periods", "int", lo=0, doc="each player's reserve time, in periods"),
        Column("period seconds", "int", lo=1, doc="the length of a reserve period"),
    )
    def how_to_submit(self, state: Duel, player: str) -> list[str]:
        if state.over:
            return ["The duel is over: nothing to submit."]
        seat, phase = state.seat(player), state.phase
        now = f"Cycle {state.cycle}, {phase.label}"
        if not self.must_answer(state, seat):
            why = "no upgrade is available to you" if phase is Phase.UPGRADES else "you have no card to play"
            return [f"{now}: nothing to submit, {why}."]
        timed = state.rules.clocks[phase].window is not None
        lines = [f"{now}: one row is one submission, complete in itself (like one message).",
                 f"'{STAMP}': when you submitted, in UTC, e.g. 2026-11-23 18:00:05; blank means when the host's "
                 "tool first sees the row.",
                 *((f"Window: {self._timing(state)}.",
                    "The latest valid row within the window counts, else the earliest valid one in reserve time.")
                   if timed else ("Time controls are off: your last valid row counts.",))]
        free = state.free(seat)
        if phase is Phase.AUCTION:
            lights = state.lights[seat]
            first = min(3, lights)
            second = min(5, lights - first)
            lines += ["'bid 1' to 'bid 5': the lights you bid on each card (blank is 0); losing bids are refunded.",
                      f"Your bids may total at most your {lights} lights; tied bids win nobody the card.",
                      _fit("Cards: ", [f"{lot.number} {lot.card}" for lot in state.open_lot()]),
                      f"Example: a row with bid 1 = {first}, bid 3 = {second} and the other bids blank.",
                      "Nothing valid: you bid 0 on every card."]
        elif phase is Phase.UPGRADES:
            due = self.upgrades_due(state, seat)
            lines += ["'upgrade': no, yes, or the spirits to make, comma-separated (e.g. FIRE II x2).",
                      "You must answer: with an upgrade available, silence spends your reserve time.",
                      "yes makes every upgrade whose result is forced; a Rank IV needs its two Rank III named.",
                      _fit("Upgrades your cards allow: ", [_upgrade_text(u) for u in due]),
                      f"Example: a row with upgrade = {_upgrade_text(due[0])}."]
        else:
            titles = [t for t, _ in _in_book_order(state, free)]
            example = (titles + ["empty"] * SLOTS)[:SLOTS]
            lines += ["'slot 1' to 'slot 3': a card of your deck each (ELEMENT RANK such as FIRE II, or a name).",
                      "Blank or 'empty' leaves a slot empty; a card in two slots needs two copies.",
                      _fit("Cards you may play: ", [f"{t} x{n}" if n > 1 else t for t, n in _in_book_order(state, free)]),
                      "Example: a row with " + ", ".join(f"slot {k} = {t}" for k, t in enumerate(example, 1)) + ".",
                      "Nothing valid: every slot is empty."]
        return lines

    def submit_choices(self, state: Duel, player: str, tab: str = "submit") -> dict[str, list[str]]:
        if state.over:
            return {}
        seat = state.seat(player)
        if state.phase is Phase.UPGRADES:
            due = self.upgrades_due(state, seat)
            if not due:
                return {}
            _, fours = rules.forced_upgrades(state.rules.cards, state.free(seat))
            words = ["no"] + ([] if fours else ["yes"])  # 'yes' cannot choose a Rank IV's element
            return {"upgrade": list(dict.fromkeys(words + [_upgrade_text(u) for u in due]))}
        if state.phase is Phase.SLOTS:
            titles = [t for t, _ in _in_book_order(state, state.free(seat))]
            return {c: titles + ["empty"] for c in Phase.SLOTS.columns} if titles else {}
        return {}

    def palette(self) -> dict[str, str]:
        """Elements in the picture's card colours, and every spirit (ELEMENT RANK) in its element's."""
        out = {"neutral": tint(colours.COLOURS[None])}
        for element in Element:
            colour = tint(colours.COLOURS[element])
            out[element.value] = colour
            out.update({f"{element.name} {rank.name}": colour for rank in Rank})
        return out

    # ---- settings and state tabs ------------------------------------------------------------

    def _rules(self, config: Mapping[str, Any], data: Mapping[str, list[dict]], players: Sequence[str]) -> Rules:
        opponent = config.get("death match opponent")
        seat = list(players).index(cells.as_choice(opponent, players, "a player")) if opponent else 1
        windows = {Phase.AUCTION: "auction seconds", Phase.UPGRADES: "upgrade seconds", Phase.SLOTS: "slots seconds"}
        period = timedelta(seconds=config["period seconds"])
        clocks = {p: TimeControls(timedelta(seconds=config[key]) if config["time controls"] else None, period)
                  for p, key in windows.items()}
        return Rules(read_cards(data["cards"]), config["max cycles"], seat, clocks, config["reserve periods"])

    def check_config(self, config: Mapping[str, Any], players: Sequence[str]) -> list[str]:
        opponent = config.get("death match opponent")
        if opponent:
            try:
                cells.as_choice(opponent, players, "a player")
            except CellError as e:
                return [f"config 'death match opponent': {e}"]
        return []

    def setup(self, players, seed, config, data) -> Duel:
        r = self._rules(config, data, players)
        lot = r.cards.draw_lot(rng_for(seed, 0, "auction"))
        return Duel(tuple(players), 1, Phase.AUCTION, (LANTERN, LANTERN), (r.reserve, r.reserve), ({}, {}), ({}, {}),
                    tuple(Lot(1, k, c.title) for k, c in enumerate(lot, 1)), (), r)

    def load(self, players, tabs, config, data) -> Duel:
        r = self._rules(config, data, players)
        errors: list[SchemaError] = []

        def card(tab: str, row: dict, column: str) -> str | None:
            if cells.is_blank(row[column]):
                return None
            try:
                return r.cards.read(row[column]).title
            except CellError:
                errors.append(SchemaError(tab, row["_row"], column, row[column],
                                          "a card of the 'cards' tab (ELEMENT RANK such as EARTH I, or a name)"))
                return None

        duel = tabs["duel"]
        if len(duel) != 1:
            raise SchemaErrors([SchemaError("duel", None, None, f"{len(duel)} rows", "one row")])
        cycle, phase = duel[0]["cycle"], Phase(duel[0]["phase open"])
        seats = {p: k for k, p in enumerate(players)}
        lights, reserve = [None, None], [None, None]
        for row in tabs["lanterns"]:
            k = seats[row["player"]]
            if lights[k] is not None:
                errors.append(SchemaError("lanterns", row["_row"], "player", row["player"], "each player once"))
            if row["reserve periods"] > r.reserve:
                errors.append(SchemaError("lanterns", row["_row"], "reserve periods", row["reserve periods"],
                                          f"at most the configured {r.reserve}"))
            lights[k], reserve[k] = row["lights"], row["reserve periods"]
        for p, k in seats.items():
            if lights[k] is None:
                errors.append(SchemaError("lanterns", None, "player", p, "listed (every player needs a row)"))
        decks: tuple[Counter, Counter] = (Counter(), Counter())
        locked: tuple[Counter, Counter] = (Counter(), Counter())
        for row in tabs["decks"]:
            title = card("decks", row, "card")
            if title is None:
                continue
            k = seats[row["player"]]
            if title in decks[k]:
                errors.append(SchemaError("decks", row["_row"], "card", row["card"], f"listed once for {row['player']}"))
            if row["locked"] > row["count"]:
                errors.append(SchemaError("decks", row["_row"], "locked", row["locked"], f"at most the count ({row['count']})"))
            decks[k][title] += row["count"]
            if row["locked"]:
                locked[k][title] += row["locked"]
        lots = []
        for row in tabs["auctions"]:
            title = card("auctions", row, "card")
            winner = seats.get(row["winner"])
            if row["result"] == "won" and (winner is None or row["price"] is None):
                errors.append(SchemaError("auctions", row["_row"], "winner", row["winner"] or "",
                                          "a winner with a price for a card won"))
            if row["result"] != "won" and (winner is not None or row["price"] is not None):
                errors.append(SchemaError("auctions", row["_row"], "winner", row["winner"] or "",
                                          f"blank with a blank price for a card {row['result']}"))
            if row["cycle"] > cycle or (row["result"] == "open") != (row["cycle"] == cycle and phase is Phase.AUCTION):
                errors.append(SchemaError("auctions", row["_row"], "result", row["result"],
                                          f"'open' exactly for the cards of the Auction open now (cycle {cycle})"))
            lots.append(Lot(row["cycle"], row["card no"], title, row["result"], winner, row["price"]))
        played = []
        for row in tabs["summonings"]:
            slots = tuple(card("summonings", row, f"slot {k}") for k in range(1, SLOTS + 1))
            played.append(Played(row["cycle"], seats[row["player"]], slots, row["lights after"]))
        if errors:
            raise SchemaErrors(errors)
        state = Duel(tuple(players), cycle, phase, tuple(lights), tuple(reserve), tuple(+d for d in decks),
                     tuple(+lk for lk in locked), tuple(sorted(lots, key=lambda lot: (lot.cycle, lot.number))),
                     tuple(sorted(played, key=lambda p: (p.cycle, p.seat))), r)
        self._check_history(state, tabs)
        return state

    def _check_history(self, state: Duel, tabs: Mapping[str, list[dict]]) -> None:
        """Auction lots of five, an open Auction while the duel goes on, a summoning per past cycle."""
        errors = []
        by_cycle: dict[int, list[int]] = {}
        for lot in state.lots:
            by_cycle.setdefault(lot.cycle, []).append(lot.number)
        for c, numbers in by_cycle.items():
            if sorted(numbers) != list(range(1, LOT + 1)):
                errors.append(SchemaError("auctions", None, "card no", f"cycle {c}: {sorted(numbers)}",
                                          f"1 to {LOT}, each once, in every cycle"))
        if state.phase is Phase.AUCTION and not state.over and len(state.open_lot()) != LOT:
            errors.append(SchemaError("auctions", None, "result", f"{len(state.open_lot())} open cards",
                                      f"{LOT} open cards for the Auction of cycle {state.cycle}"))
        done = state.cycle - 1  # summonings resolved so far
        seen = Counter((p.cycle, p.seat) for p in state.played)
        for row in tabs["summonings"]:
            if row["cycle"] > done:
                errors.append(SchemaError("summonings", row["_row"], "cycle", row["cycle"],
                                          f"a summoning already played (1 to {done})"))
        for c in range(1, done + 1):
            for seat, player in enumerate(state.players):
                if seen[(c, seat)] != 1:
                    errors.append(SchemaError("summonings", None, "player", f"{player} in cycle {c}",
                                              "one row per player per cycle"))
        if errors:
            raise SchemaErrors(errors)

    def dump(self, state: Duel) -> dict[str, list[dict]]:
        p = state.players
        return {
            "duel": [{"cycle": state.cycle, "phase open": state.phase.value}],
            "lanterns": [{"player": p[k], "lights": state.lights[k], "reserve periods": state.reserve[k]}
                         for k in (0, 1)],
            "decks": [{"player": p[k], "card": t, "count": n, "locked": state.locked[k].get(t, 0)}
                      for k in (0, 1) for t, n in _in_book_order(state, state.decks[k])],
            "auctions": [{"cycle": lot.cycle, "card no": lot.number, "card": lot.card, "result": lot.result,
                          "winner": None if lot.winner is None else p[lot.winner], "price": lot.price}
                         for lot in state.lots],
            "summonings": [{"cycle": s.cycle, "player": p[s.seat],
                            **{f"slot {k}": t for k, t in enumerate(s.slots, 1)}, "lights after": s.lights}
                           for s in state.played],
        }

    def players(self, state: Duel) -> list[str]:
        return list(state.players)

    def round(self, state: Duel) -> int:
        return state.round

    def is_over(self, state: Duel) -> bool:
        return state.over

    # ---- submissions ------------------------------------------------------------------------

    def upgrades_due(self, state: Duel, seat: int) -> list[Upgrade]:
        """The upgrades a player could make now: with any, the player must say yes or no."""
        if state.phase is not Phase.UPGRADES:
            return []
        return rules.available_upgrades(state.rules.cards, state.free(seat))

    def submits(self, state: Duel, player: str) -> bool:
        return self.must_answer(state, state.seat(player))

    def must_answer(self, state: Duel, seat: int) -> bool:
        """Whether the player has a choice to make, so that silence spends reserve time: always in
        the Auction; in part 1 with an available upgrade; in part 2 with a card to play."""
        if state.phase is Phase.UPGRADES:
            return bool(self.upgrades_due(state, seat))
        return state.phase is Phase.AUCTION or bool(+state.free(seat))

    def parse(self, state: Duel, player: str, rows: Sequence[SubmitRow], window: Window = Window()) -> Parsed[Move]:
        seat, phase = state.seat(player), state.phase
        clock = state.rules.clocks[phase]
        problems: list[Problem] = []
        times, moves, numbers = [], [], []
        for row in rows:
            stamp, move = self._read_row(state, seat, row, window, clock.window is not None, problems)
            if move is not None:
                times.append(stamp)
                moves.append(move)
                numbers.append(row.row)
        choice: Choice = clock.choose(times, window.opened, window.frozen, state.reserve[seat],
                                      self.must_answer(state, seat))
        if choice.index is None:
            if rows or choice.periods:
                problems.append(Problem(player, f"no valid submission counts ({choice.when}): the blank "
                                                f"submission is taken ({describe(state, blank(phase))})"))
            if choice.periods:
                move = blank(phase, choice.periods)
                return Parsed(move, tuple(problems), f"the blank submission: {describe(state, move)}")
            return Parsed(None, tuple(problems), "nothing")
        move = replace(moves[choice.index], reserve_used=choice.periods)
        return Parsed(move, tuple(problems), f"row {numbers[choice.index]}, {choice.when}: {describe(state, move)}")

    def stamped_column(self, state: Duel) -> str | None:
        return STAMP if state.rules.clocks[state.phase].window is not None else None

    def settled(self, state: Duel, player: str, rows: Sequence[SubmitRow], window: Window) -> datetime | None:
        seat, clock = state.seat(player), state.rules.clocks[state.phase]
        if clock.window is None or window.opened is None or window.frozen is None:
            return None
        if not self.must_answer(state, seat):
            return window.opened
        moves = (self._read_row(state, seat, row, window, True, []) for row in rows)
        times = [stamp or window.frozen for stamp, move in moves if move is not None]
        return clock.settled(times, window.opened, state.reserve[seat])

    def _read_row(self, state: Duel, seat: int, row: SubmitRow, window: Window, timed: bool,
                  problems: list[Problem]):
        """(time, Move) of one row, or (None, None) when the row is not a valid submission."""
        stamp = None
        if timed and not cells.is_blank(row.get(STAMP)):
            stamp = row.read(STAMP, lambda v: cells.as_time(v, "when you submitted"), problems,
                             "this row does not count")
            if stamp is None:
                return None, None
            at = cells.quote(row.get(STAMP))
            if window.opened and stamp < window.opened:
                problems.append(row.problem(STAMP, f"{at} is before this phase opened "
                                                   f"({window.opened:%Y-%m-%d %H:%M:%S} UTC); this row does not count"))
                return None, None
            if window.frozen and stamp > window.frozen:
                problems.append(row.problem(STAMP, f"{at} is after the submissions were read "
                                                   f"({window.frozen:%Y-%m-%d %H:%M:%S} UTC); this row does not count"))
                return None, None
        phase = state.phase
        for other in PHASES:
            for column in other.columns:
                if other is not phase and not cells.is_blank(row.get(column)):
                    problems.append(row.problem(column, (
                        f"{cells.quote(row.get(column))} is for the {other.label}, but the {phase.label} is open: "
                        f"fill {', '.join(phase.columns)}; this row does not count")))
                    return None, None
        reader = {Phase.AUCTION: self._read_bids, Phase.UPGRADES: self._read_upgrades,
                  Phase.SLOTS: self._read_slots}[phase]
        move = reader(state, seat, row, problems)
        return (stamp, move) if move is not None else (None, None)

    def _read_bids(self, state: Duel, seat: int, row: SubmitRow, problems: list[Problem]) -> Move | None:
        if all(cells.is_blank(row.get(c)) for c in Phase.AUCTION.columns):  # a time alone says nothing
            problems.append(row.problem("bid 1", "no bid is filled: write your bids in 'bid 1' to 'bid 5' "
                                                 "(0 to bid nothing on a card); this row does not count"))
            return None
        bids, lot = [], state.open_lot()
        for column, card in zip(Phase.AUCTION.columns, lot):
            bid = row.read(column, lambda v: 0 if cells.is_blank(v) else cells.as_int(
                v, 0, LANTERN, f"a bid in lights on {card.card}"), problems, "this row does not count")
            if bid is None:
                return None
            bids.append(bid)
        lights = state.lights[seat]
        if sum(bids) > lights:
            problems.append(row.problem(None, f"bids total {sum(bids)}, more than your {lights} lights: this "
                                              "submission is invalid and does not count"))
            return None
        return Move(Phase.AUCTION, bids=tuple(bids))

    def _read_upgrades(self, state: Duel, seat: int, row: SubmitRow, problems: list[Problem]) -> Move | None:
        book, free = state.rules.cards, state.free(seat)
        raw = row.get("upgrade")
        text = cells.text(raw)
        word = text.casefold().replace("’", "'").strip(" .!")  # phones type a curly apostrophe

        def refuse(message: str) -> None:
            problems.append(row.problem("upgrade", f"{message}; this row does not count"))

        due = rules.available_upgrades(book, free)
        if not text:
            refuse("say no, yes, or the spirits to make (e.g. EARTH II, WIND IV from WIND III + FIRE III)")
            return None
        if word in NO_WORDS:
            return Move(Phase.UPGRADES)
        if not due:
            refuse(f"{cells.quote(text)}: no upgrade is available to you (your spirits: {_cards_text(free)})")
            return None
        if word in YES_WORDS:
            made, fours = rules.forced_upgrades(book, free)
            if fours:
                refuse(f"'yes' cannot choose a Rank IV's element: name the upgrades, e.g. "
                       f"{', '.join(_upgrade_text(u) for u in made + fours[:1])}")
                return None
            return Move(Phase.UPGRADES, upgrades=tuple(made))
        work, made = Counter(free), []
        for item in _upgrade_items(text):
            times, named = _times(item)
            target_text, _, partners_text = named.casefold().partition(" from ")
            try:
                target = book.read(target_text, "a spirit to make")
                partners = [book.read(p, "a Rank III spirit") for p in
                            partners_text.replace("&", "+").replace(" and ", "+").split("+") if p.strip()]
            except CellError as e:
                refuse(f"{cells.quote(item)}: {e}")
                return None
            if not times:
                refuse(f"{cells.quote(item)}: make a spirit once or more (e.g. {target.title} x2)")
                return None
            for _ in range(times):
                upgrade = self._upgrade_for(book, target, partners, work)
                if isinstance(upgrade, str):
                    refuse(f"{cells.quote(item)}: {upgrade}")
                    return None
                why = rules.upgrade_problem(book, upgrade, work)
                if why:
                    refuse(f"{cells.quote(item)}: {why}")
                    return None
                work = rules.apply_upgrades(book, work, [upgrade])
                made.append(upgrade)
        return Move(Phase.UPGRADES, upgrades=tuple(made))

    @staticmethod
    def _upgrade_for(book: CardBook, target: Card, partners: list[Card], free: Counter) -> Upgrade | str:
        """The upgrade a player names, or why it cannot be read."""
        if not target.is_spirit or target.rank is Rank.I:
            return f"{target.title} is not made by an upgrade (Rank II, III and IV spirits are)"
        if target.rank is not Rank.IV:
            upgrade = rules.upgrade_to(book, target)
            if partners and {p.title for p in partners} != set(upgrade.sources):
                return f"a {target.title} is made from {len(upgrade.sources)} {upgrade.sources[0]}"
            return upgrade
        if len(partners) > 2:
            return "a Rank IV is made from two Rank III spirits"
        if partners:
            return rules.upgrade_to(book, target, partners)
        options = {u.sources: u for u in rules.available_upgrades(book, free) if u.target == target.title}
        if len(options) == 1:
            return options.popitem()[1]
        if not options:
            return rules.upgrade_problem(book, rules.upgrade_to(book, target), free) or \
                f"no two Rank III spirits free to make {target.title}"
        return (f"name the two Rank III spirits it is made from, e.g. "
                f"{' or '.join(_upgrade_text(u) for u in options.values())}")

    def _read_slots(self, state: Duel, seat: int, row: SubmitRow, problems: list[Problem]) -> Move | None:
        book, free = state.rules.cards, state.free(seat)
        if all(cells.is_blank(row.get(c)) for c in Phase.SLOTS.columns):  # a time alone says nothing
            problems.append(row.problem("slot 1", "no slot is filled: write a card or 'empty' in 'slot 1' to "
                                                  "'slot 3'; this row does not count"))
            return None
        used: Counter = Counter()
        slots = []
        for column in Phase.SLOTS.columns:
            raw = row.get(column)
            if is_empty_word(raw):
                slots.append(None)
                continue
            card = row.read(column, lambda v: book.read(v, "a card"), problems, "this row does not count")
            if card is None:
                return None
            title = card.title
            if used[title] >= free[title]:
                have, locked = state.decks[seat].get(title, 0), state.locked[seat].get(title, 0)
                why = (f"you have no {title}" if not have else
                       f"your {title} is imprisoned this summoning" if used[title] >= have - locked and locked else
                       f"you have {have} {title}, already in another slot")
                problems.append(row.problem(column, f"{why} (you may play: {_cards_text(free)}); "
                                                    "this row does not count"))
                return None
            used[title] += 1
            slots.append(title)
        return Move(Phase.SLOTS, slots=tuple(slots))

    def default(self, state: Duel, player: str) -> Move:
        return blank(state.phase)

    def submit_rows(self, submission: Move) -> list[dict]:
        row: dict[str, object] = {c: None for c in SUBMIT_TAB.header}
        if submission.phase is Phase.AUCTION:
            row.update(zip(Phase.AUCTION.columns, submission.bids))
        elif submission.phase is Phase.UPGRADES:
            row["upgrade"] = ", ".join(_upgrade_text(u) for u in submission.upgrades) or "no"
        else:
            row.update(zip(Phase.SLOTS.columns, (t or "empty" for t in submission.slots)))
        return [row]

    def bot(self, state: Duel, player: str, rng: random.Random) -> Move:
        """A plausible player: bids a share of its lights, makes most upgrades, plays its
        strongest cards in a random order."""
        seat, book = state.seat(player), state.rules.cards
        if state.phase is Phase.AUCTION:
            budget = int(state.lights[seat] * rng.uniform(0.05, 0.3))
            shares = [rng.random() for _ in range(LOT)]
            return Move(Phase.AUCTION, bids=tuple(int(budget * s / sum(shares)) for s in shares))
        if state.phase is Phase.UPGRADES:
            free = state.free(seat)
            if not self.upgrades_due(state, seat) or rng.random() < 0.1:
                return Move(Phase.UPGRADES)
            made, fours = rules.forced_upgrades(book, free)
            while fours:
                made.append(rng.choice(fours))
                more, fours = rules.forced_upgrades(book, rules.apply_upgrades(book, free, made))
                made += more
            return Move(Phase.UPGRADES, upgrades=tuple(made))
        pool = list(state.free(seat).elements())
        rng.shuffle(pool)
        pool.sort(key=lambda t: -(book[t].rank or rng.choice((0, 2))))  # an action now and then
        chosen = pool[:SLOTS] + [None] * max(0, SLOTS - len(pool))
        rng.shuffle(chosen)
        return Move(Phase.SLOTS, slots=tuple(chosen))

    # ---- the phase part ---------------------------------------------------------------------

    def resolve(self, state: Duel, submissions: Mapping[str, Move | None], rng: random.Random) -> Outcome:
        moves = []
        for player in state.players:
            move = submissions.get(player) or self.default(state, player)
            moves.append(move if move.phase is state.phase else self.default(state, player))
        reserve = tuple(max(0, r - m.reserve_used) for r, m in zip(state.reserve, moves))
        log = [f"{p} spends {m.reserve_used} reserve period{'s' if m.reserve_used != 1 else ''} ({r} left)"
               for p, m, r in zip(state.players, moves, reserve) if m.reserve_used]
        state = replace(state, reserve=reserve)
        resolver = {Phase.AUCTION: self._auction, Phase.UPGRADES: self._upgrades, Phase.SLOTS: self._summoning}
        after = resolver[state.phase](state, moves, rng, log)
        return Outcome(self, after, log)

    def _auction(self, state: Duel, moves: list[Move], rng: random.Random, log: list[str]) -> Duel:
        sales = rules.auction([m.bids for m in moves])
        open_lot = state.open_lot()
        decks = [Counter(d) for d in state.decks]
        lights = list(state.lights)
        closed = {}
        for lot, sale in zip(open_lot, sales):
            if sale.winner is None:
                closed[lot.number] = replace(lot, result="tie")
                log.append(f"card {lot.number} {lot.card}: tie, nobody wins it")
                continue
            decks[sale.winner][lot.card] += 1
            lights[sale.winner] -= sale.price
            closed[lot.number] = replace(lot, result="won", winner=sale.winner, price=sale.price)
            log.append(f"card {lot.number} {lot.card}: won by {state.players[sale.winner]} for {sale.price}")
        for p, m in zip(state.players, moves):
            log.append(f"{p} bid {', '.join(map(str, m.bids))}")
        lots = tuple(closed.get(lot.number, lot) if lot.result == "open" else lot for lot in state.lots)
        return replace(state, phase=Phase.UPGRADES, lights=tuple(lights), decks=tuple(decks), lots=lots)

    def _upgrades(self, state: Duel, moves: list[Move], rng: random.Random, log: list[str]) -> Duel:
        book, decks = state.rules.cards, []
        for seat, move in enumerate(moves):
            free = rules.apply_upgrades(book, state.free(seat), move.upgrades)
            decks.append(free + Counter(state.locked[seat]))
            if move.upgrades:
                log.append(f"{state.players[seat]} makes {', '.join(_upgrade_text(u) for u in move.upgrades)}")
        return replace(state, phase=Phase.SLOTS, decks=tuple(decks))

    def _summoning(self, state: Duel, moves: list[Move], rng: random.Random, log: list[str]) -> Duel:
        book = state.rules.cards
        slots = [tuple(book[t] if t else None for t in m.slots) for m in moves]
        s = rules.summon(state.lights, slots)
        log.extend(summoning_lines(state.players, s))
        decks = tuple(+(Counter(state.decks[k]) - Counter(s.leaving[k])) for k in (0, 1))
        locked = tuple(Counter(s.locked[k]) for k in (0, 1))
        played = state.played + tuple(Played(state.cycle, k, moves[k].slots, s.lights[k]) for k in (0, 1))
        after = replace(state, cycle=state.cycle + 1, phase=Phase.AUCTION, lights=s.lights, decks=decks,
                        locked=locked, played=played)
        if not after.over:
            lot = book.draw_lot(rng)
            after = replace(after, lots=after.lots + tuple(Lot(after.cycle, k, c.title) for k, c in enumerate(lot, 1)))
        else:
            w, why = after.winner()
            log.append(f"{state.players[w]} wins the Death Match: {why}")
        return after

    # ---- the end ----------------------------------------------------------------------------

    def standings(self, state: Duel) -> pd.DataFrame:
        w, why = state.winner()
        order = [w, 1 - w] if w is not None else sorted((0, 1), key=lambda k: -state.lights[k])
        rows = []
        for rank, k in enumerate(order, 1):
            if w is None:
                rank = 1 + sum(1 for j in (0, 1) if state.lights[j] > state.lights[k])
            result = "" if w is None else (f"winner: {why}" if k == w else "loses the Death Match")
            rows.append({"rank": rank, "player": state.players[k], "lights": state.lights[k], "result": result})
        return pd.DataFrame(rows, columns=["rank", "player", "lights", "result"])

    def summary(self, state: Duel) -> dict[str, float]:
        w, why = state.winner()
        return {"summonings": float(len(state.played) // 2), "ended at the cycle cap": float("cycle cap" in why),
                "decided by the Death Match Opponent": float("Opponent" in why),
                "winner's lights": float(state.lights[w]), "loser's lights": float(state.lights[1 - w])}

    # ---- views ------------------------------------------------------------------------------

    def _timing(self, state: Duel) -> str:
        clock = state.rules.clocks[state.phase]
        if clock.window is None:
            return "time controls off: your last valid row counts"
        return (f"{clock.window.total_seconds():g} s from the opening, then reserve time "
                f"({clock.period.total_seconds():g} s periods)")

    def _phase_text(self, state: Duel) -> str:
        return "the duel is over" if state.over else f"{state.phase.label}, cycle {state.cycle}"

    def public_view(self, state: Duel) -> dict[str, pd.DataFrame]:
        p = state.players
        w, why = state.winner()
        duel = [("phase open", self._phase_text(state)),
                ("time to submit", "" if state.over else self._timing(state)),
                *((f"{p[k]}: lights", state.lights[k]) for k in (0, 1)),
                ("Death Match Opponent", p[state.rules.opponent]),
                ("result", f"{p[w]} wins the Death Match: {why}" if w is not None else "")]
        book = state.rules.cards
        auctions = pd.DataFrame([{
            "cycle": lot.cycle, "card no": lot.number, "card": lot.card, "name": book[lot.card].name,
            "effect": str(book[lot.card].effect), "result": _lot_text(state, lot)} for lot in state.lots],
            columns=["cycle", "card no", "card", "name", "effect", "result"])
        return {"duel": _pairs(duel), "auctions": auctions, "summonings": self._summonings(state),
                "cards": _card_table(book)}

    def _summonings(self, state: Duel) -> pd.DataFrame:
        a, b = state.players
        columns = ["cycle", "slot", f"{a} played", f"{a}: what happened", f"{b} played", f"{b}: what happened"]
        rows = []
        pairs = [state.played[i:i + 2] for i in range(0, len(state.played), 2)]
        for first, second in pairs:
            one, two = (first, second) if first.seat == 0 else (second, first)
            for k, c in enumerate(_clashes(state, one, two), 1):
                rows.append([one.cycle, k, c.cards[0] and c.cards[0].title, _fate_text(c, 0),
                             c.cards[1] and c.cards[1].title, _fate_text(c, 1)])
            rows.append([one.cycle, "lights after", one.lights, "", two.lights, ""])
        return pd.DataFrame(rows, columns=columns, dtype=object)

    def private_view(self, state: Duel, player: str) -> dict[str, pd.DataFrame]:
        seat, book = state.seat(player), state.rules.cards
        other = state.players[1 - seat]
        free = state.free(seat)
        due = rules.available_upgrades(book, free)
        mine = [("player", player), ("phase open", self._phase_text(state)),
                ("submit now", "" if state.over else self._instructions(state, seat)),
                ("time to submit", "" if state.over else self._timing(state)),
                ("reserve time left", f"{state.reserve[seat]} period{'s' if state.reserve[seat] != 1 else ''} of "
                                      f"{state.rules.clocks[state.phase].period.total_seconds():g} s"),
                ("my lights", state.lights[seat]), (f"{other}'s lights", state.lights[1 - seat]),
                ("upgrades my cards allow (made in Summoning part 1)", ", ".join(_upgrade_text(u) for u in due) or "none"),
                ("imprisoned this summoning", _cards_text(state.locked[seat]))]
        inventory = pd.DataFrame([{
            "card": t, "name": book[t].name, "element": book[t].element.name if book[t].element else "neutral",
            "rank": book[t].rank.name if book[t].rank else "", "effect": str(book[t].effect), "count": n,
            "imprisoned": state.locked[seat].get(t, 0)} for t, n in _in_book_order(state, state.decks[seat])],
            columns=["card", "name", "element", "rank", "effect", "count", "imprisoned"])
        return {"my duel": _pairs(mine), "inventory": inventory}

    def _instructions(self, state: Duel, seat: int) -> str:
        if state.phase is Phase.AUCTION:
            cards = "; ".join(f"bid {lot.number}: {lot.card}" for lot in state.open_lot())
            return f"your bids, at most {state.lights[seat]} lights in all ({cards})"
        if state.phase is Phase.UPGRADES:
            if not self.upgrades_due(state, seat):
                return "nothing: no upgrade is available to you"
            return "'upgrade': no, yes, or the spirits to make (you must say yes or no)"
        if not self.must_answer(state, seat):
            return "nothing: you have no card to play"
        return f"'slot 1' to 'slot 3': cards you may play: {_cards_text(state.free(seat))}"

    def announcement(self, before: Duel, after: Duel) -> str:
        p = after.players
        lines = [f"## {self.title}: cycle {before.cycle}, {before.phase.label} resolved", ""]
        if before.phase is Phase.AUCTION:
            lines += ["| card | | result |", "|---:|---|---|"]
            for lot in after.lots:
                if lot.cycle == before.cycle:
                    lines.append(f"| {lot.number} | {_card_label(after.rules.cards[lot.card])} | {_lot_text(after, lot)} |")
        elif before.phase is Phase.UPGRADES:
            lines.append("Upgrades are private: each player's inventory is in their own book.")
        else:
            one, two = after.last_summoning()
            lines += [f"| slot | {p[0]} | {p[1]} |", "|---:|---|---|"]
            for k, c in enumerate(_clashes(after, one, two), 1):
                lines.append(f"| {k} | {_played_text(c, 0)} | {_played_text(c, 1)} |")
        lines += ["", "Lights: " + ", ".join(f"**{p[k]}** {after.lights[k]}" for k in (0, 1)), ""]
        w, why = after.winner()
        if w is not None:
            lines.append(f"### {p[w]} wins the Death Match: {why}")
        else:
            lines.append(f"**Now open: {self._phase_text(after)}**; {self._timing(after)}.")
            if after.phase is Phase.AUCTION:
                lines.append("Cards: " + ", ".join(f"{lot.number}. {lot.card}" for lot in after.open_lot()))
        return "\n".join(lines) + "\n"

    def picture(self, state: Duel) -> bytes | None:
        """After a summoning: the cards played, what happened to each, and the lights."""
        if state.phase is not Phase.AUCTION or not state.played:
            return None
        from .picture import draw_summoning

        one, two = state.last_summoning()
        return draw_summoning(state.players, _clashes(state, one, two), (one.lights, two.lights),
                              f"{self.title}: summoning of cycle {one.cycle}")


def _clashes(state: Duel, one: Played, two: Played) -> tuple[rules.Clash, ...]:
    book = state.rules.cards
    return tuple(rules.clash(a and book[a], b and book[b]) for a, b in zip(one.slots, two.slots))


def _fate_text(c: rules.Clash, side: int) -> str:
    card, fate = c.cards[side], c.fates[side]
    if card is None:
        return "empty"
    parts = [fate.value]
    if fate is Fate.RESOLVED and c.failed[side]:
        parts.append("failed")
    if c.imprisons[side]:
        parts.append("imprisons the opposing spirit")
    if not card.is_spirit and fate is not Fate.DESTROYED:
        parts.append("used up" if c.leaves_deck(side) else "kept")
    return ", ".join(parts)


def _played_text(c: rules.Clash, side: int) -> str:
    card = c.cards[side]
    return "empty" if card is None else f"{card.title}: {_fate_text(c, side)}"


def summoning_lines(players: Sequence[str], s: Summoning) -> list[str]:
    lines = [f"slot {k}: {players[0]}'s {_played_text(c, 0)}; {players[1]}'s {_played_text(c, 1)}"
             for k, c in enumerate(s.clashes, 1)]
    lines += [f"{players[k]} takes {s.damage[k]} damage and heals {s.healed[k]}: {s.lights[k]} lights"
              for k in (0, 1)]
    return lines


def _lot_text(state: Duel, lot: Lot) -> str:
    if lot.result == "open":
        return "open: bid now"
    if lot.result == "tie":
        return "tied bids: nobody wins it"
    return f"won by {state.players[lot.winner]} for {lot.price}"


def _upgrade_items(text: str) -> list[str]:
    """The upgrades a cell names: separated by commas, semicolons or new lines, or by 'and', '&'
    or '+' where no 'from' follows (there they join a Rank IV's two Rank III spirits).

    >>> _upgrade_items("EARTH II and fire ii; WIND IV from WIND III + FIRE III")
    ['EARTH II', 'fire ii', 'WIND IV from WIND III + FIRE III']
    """
    items = []
    for chunk in re.split(r"[,;\n]", text):
        parts = [chunk] if re.search(r"\sfrom\s", chunk, re.IGNORECASE) else \
            re.split(r"\s+and\s+|[&+]", chunk, flags=re.IGNORECASE)
        items += [p.strip() for p in parts if p.strip()]
    return items


def _times(item: str) -> tuple[int, str]:
    """How many times an upgrade is named ('FIRE II x2', '2x FIRE II', '2 × FIRE II'), and the rest.

    >>> _times("FIRE II x2"), _times("2x Salamander"), _times("Phoenix"), _times("WIND IV from FIRE III")
    ((2, 'FIRE II'), (2, 'Salamander'), (1, 'Phoenix'), (1, 'WIND IV from FIRE III'))
    """
    m = re.fullmatch(r"(\d+)\s*(?:[x×*]\s+|[×*]\s*)(.+)", item, re.IGNORECASE)
    if m:
        return _count(m.group(1)), m.group(2)
    m = re.fullmatch(r"(.+?)(?:\s+[x×*]\s*|\s*[×*]\s*)(\d+)", item, re.IGNORECASE)
    return (_count(m.group(2)), m.group(1)) if m else (1, item)


def _count(digits: str) -> int:
    """A typed count; one past a million stands for any larger one (int() refuses 4,300 digits),
    which runs out of spirits, and is refused, all the same.

    >>> _count("007"), _count("9" * 5000)
    (7, 1000001)
    """
    return int(digits) if len(digits.lstrip("0")) <= 6 else 10**6 + 1


def _card_label(card: Card) -> str:
    """'EARTH I (Pixie): damage 3; shield 4', or 'SMITE: damage 12'."""
    name = f" ({card.name})" if card.name != card.title else ""
    return f"{card.title}{name}: {card.effect}"


def _upgrade_text(u: Upgrade) -> str:
    return f"{u.target} from {' + '.join(u.sources)}" if u.target.endswith(" IV") else u.target


def _in_book_order(state: Duel, deck: Mapping[str, int]) -> list[tuple[str, int]]:
    order = {c.title: i for i, c in enumerate(state.rules.cards.cards)}
    return sorted(((t, n) for t, n in deck.items() if n), key=lambda tn: order[tn[0]])


def _cards_text(deck: Mapping[str, int]) -> str:
    return ", ".join(f"{t} x{n}" if n > 1 else t for t, n in sorted(deck.items()) if n) or "none"


def _fit(prefix: str, items: Sequence[str], width: int = 150) -> str:
    """`prefix` and the items, comma-separated, as many as fit in about `width` characters.

    >>> _fit("Cards: ", ["EARTH I", "FIRE II"]), _fit("", ["EARTH I"] * 40, 30)
    ('Cards: EARTH I, FIRE II.', 'EARTH I, EARTH I and 38 more.')
    """
    shown: list[str] = []
    for item in items:
        left = len(items) - len(shown) - 1
        tail = f" and {left} more" if left else ""
        if shown and len(prefix) + len(", ".join(shown + [item])) + len(tail) + 1 > width:
            return f"{prefix}{', '.join(shown)} and {len(items) - len(shown)} more."
        shown.append(item)
    return f"{prefix}{', '.join(shown) or 'none'}."


def _pairs(rows: Sequence[tuple[str, object]]) -> pd.DataFrame:
    return pd.DataFrame([list(r) for r in rows], columns=["what", "value"], dtype=object)


def _card_table(book: CardBook) -> pd.DataFrame:
    return pd.DataFrame([{"card": c.title, "name": c.name, "element": c.element.name if c.element else "neutral",
                          "rank": c.rank.name if c.rank else "", "effect": str(c.effect),
                          "auction weight": c.weight} for c in book.cards])


def describe(state: Duel, move: Move) -> str:
    if move.phase is Phase.AUCTION:
        text = "bids " + ", ".join(f"{lot.card} {bid}" for lot, bid in zip(state.open_lot(), move.bids))
    elif move.phase is Phase.UPGRADES:
        text = "upgrade: " + ", ".join(_upgrade_text(u) for u in move.upgrades) if move.upgrades else "no upgrade"
    else:
        text = "; ".join(f"slot {k} {t or 'empty'}" for k, t in enumerate(move.slots, 1))
    if move.reserve_used:
        text += f" (costs {move.reserve_used} reserve period{'s' if move.reserve_used != 1 else ''})"
    return text


GAME = SpiritChain()
