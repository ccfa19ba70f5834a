"""What an event gives the festival that hosts it.

An event is a small game over the players assigned to it, with its own state, data and submit
tab. It is pure like a `Game`: `resolve` takes the state, every participant's submission and a
seeded generator, and returns the new state with the audit log's lines and its record of what it
did with each part of each submission (`EventRound`). It never sees the
festival's other events; its tabs start with its name (`alchemy turns`), so they never clash with
another's; and its ranking breaks its own ties down to the festival's Gamewide Tiebreak, handed to it.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import pandas as pd

from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaError
from sheets_host.kit.game import Fate, HowTo, Parsed
from sheets_host.kit.layout import Palette
from sheets_host.kit.table import Column, SubmitTab, TabSchema

State = TypeVar("State")
Submission = TypeVar("Submission")


@dataclass(frozen=True)
class Placement:
    """A participant's final place in an event (1 is first; no two share a place) with the score
    and the figures of the event's tie chain that decided it, for the final announcement."""

    player: str
    place: int
    score: Any
    figures: Mapping[str, Any] = field(default_factory=dict)


def place_by(players: Sequence[str], key: Mapping[str, tuple], tiebreak: Sequence[str]) -> list[str]:
    """`players` best first: by `key` (larger is better, compared in order: the score, then each
    figure of the tie chain), then by the Gamewide Tiebreak (earlier in `tiebreak` is better; a
    player missing from it comes after those in it, by name).

    >>> place_by(["Ann", "Bo", "Cy"], {"Ann": (3, 1), "Bo": (5, 0), "Cy": (3, 1)}, ["Cy", "Ann"])
    ['Bo', 'Cy', 'Ann']
    """
    order = {p: i for i, p in enumerate(tiebreak)}
    return sorted(players, key=lambda p: (tuple(-v for v in key[p]), order.get(p, len(order)), p))


@dataclass(frozen=True)
class EventRound(Generic[State]):
    """An event's round resolved: the new state, the host log's lines, and `account`: the event's
    own record of what the round did with each part of each participant's submission (player ->
    `Fate`s, keyed as the event's `parse` keys the parts in `Parsed.parts`; a participant given the
    default: the default's parts, if it has any), made only when asked for (`simulate` never asks)."""

    state: State
    log: list[str]
    account: Callable[[], Mapping[str, Sequence[Fate]]] = field(compare=False, repr=False)


Row = TypeVar("Row")


def rows_by_round(tab: str, records: Sequence[dict], players: Sequence[str], first: int,
                  read: Callable[[dict], Row | None], errors: list[SchemaError]) -> dict[int, dict[str, tuple[Row, int | None]]]:
    """A state tab of one row per participant per round (an event's turns), as round -> participant
    -> (the row as `read` reads it, its sheet row). A row `read` cannot read is left out (it said why
    in `errors`); a participant's second row in a round, rounds not `first`, `first` + 1, ... in
    turn, and a participant without a row in a round are each added to `errors`."""
    rounds: dict[int, dict[str, tuple[Row, int | None]]] = {}
    for r in records:
        value = read(r)
        if value is None:
            continue
        by_player = rounds.setdefault(r["round"], {})
        if r["player"] in by_player:
            errors.append(SchemaError(tab, r.get("_row"), "player", r["player"],
                                      f"a participant without another row in round {r['round']}"))
        by_player[r["player"]] = (value, r.get("_row"))
    numbers = sorted(rounds)
    if numbers != list(range(first, first + len(numbers))):
        errors.append(SchemaError(tab, None, "round", ", ".join(map(str, numbers)),
                                  f"rounds {first}, {first + 1}, {first + 2}... in turn"))
    for number, by_player in rounds.items():
        missing = [p for p in players if p not in by_player]
        if missing:
            errors.append(SchemaError(tab, None, "player", f"round {number}: no row for {', '.join(missing)}",
                                      "one row for every participant every round"))
    return dict(sorted(rounds.items()))


class Event(ABC, Generic[State, Submission]):
    """The interface an event package implements (see the module's docstring)."""

    name: ClassVar[str]  # one word, lower case: its submit tab's name and its tabs' prefix ("alchemy")
    title: ClassVar[str]  # as the rule text names it ("Alchemy")
    max_players: ClassVar[int] = 7
    most_rounds: ClassVar[int | None] = None  # the most festival rounds its data is for (None: any)
    data_tabs: ClassVar[tuple[TabSchema, ...]] = ()  # what the host fills in (templates/<festival>/)
    state_tabs: ClassVar[tuple[TabSchema, ...]] = ()
    submit_tab: ClassVar[TabSchema]
    settings: ClassVar[tuple[Column, ...]] = ()  # the rule text's numbers, with their defaults
    figures: ClassVar[tuple[Column, ...]] = ()  # the ranking's figures a festival's endgame rewards (by hand: typed)

    def first_round(self, participants: int, last_round: int) -> int:
        """The festival round the event starts in, the festival ending with `last_round` (Summoner's
        Dream with 6 starts in round 2; one after `last_round`: the event plays no round)."""
        return 1

    @abstractmethod
    def setup(self, players: Sequence[str], config: Mapping[str, Any], data: Mapping[str, list[dict]],
              rng: random.Random) -> State:
        """The state before the event's first round; `data` already checked by `check_data`."""

    def check_data(self, data: Mapping[str, list[dict]]) -> list[SchemaError]:
        """Problems across the data tabs that a column schema cannot see (a recipe naming no material)."""
        return []

    @abstractmethod
    def load(self, players: Sequence[str], tabs: Mapping[str, list[dict]], config: Mapping[str, Any],
             data: Mapping[str, list[dict]]) -> State:
        """The state from its validated state tabs; raises SchemaErrors for inconsistent content."""

    @abstractmethod
    def dump(self, state: State) -> dict[str, list[dict]]:
        """The state as records per state tab (the inverse of `load`)."""

    @abstractmethod
    def players(self, state: State) -> list[str]: ...

    @abstractmethod
    def parse(self, state: State, player: str, rows: Sequence[SubmitRow]) -> Parsed[Submission]:
        """A participant's submit tabs as a typed submission, dropping only what is invalid (each
        row's `tab` names its tab)."""

    @abstractmethod
    def default(self, state: State, player: str) -> Submission:
        """The rule text's submission for a participant who submitted nothing valid."""

    @abstractmethod
    def resolve(self, state: State, submissions: Mapping[str, Submission | None], round_number: int,
                rng: random.Random) -> EventRound[State]:
        """Festival round `round_number` of the event, every submission at once (None: nothing
        valid, the participant gets `default`): the new state, the log's lines (the host's; they
        may name private things) and what the round did with each part of each submission."""

    @abstractmethod
    def how_to_submit(self, state: State, player: str) -> HowTo:
        """What `player` needs to fill in the event's submit tabs, one idea a line, with examples
        made of this player's real options (the festival heads the block with the event's title)."""

    def submit_tabs(self, state: State, player: str) -> tuple[SubmitTab, ...]:
        """The tabs `player` fills in for the event's next round: its `submit_tab`, unless the event
        has several (Elemental Continuum's board and wards in round 1, its bolts after)."""
        return (SubmitTab(self.submit_tab),)

    def every_submit_tab(self) -> tuple[SubmitTab, ...]:
        """Every tab a participant ever fills in for the event."""
        return (SubmitTab(self.submit_tab),)

    def submit_choices(self, state: State, player: str, tab: str) -> dict[str, list[str]]:
        """Column of submit tab `tab` -> the values `player` may type there (the tab's dropdowns)."""
        return {}

    @abstractmethod
    def submit_rows(self, submission: Submission) -> list[dict]:
        """How a submission is typed into the submit tab (bots type this way); with several tabs,
        each row's "tab" key names its tab."""

    @abstractmethod
    def bots(self) -> dict[str, Any]:
        """Bot name -> function(state, player, rng) -> submission; "random" at least (a random legal
        submission), and the simple strategies `simulate` compares it with."""

    @abstractmethod
    def private_view(self, state: State, player: str) -> dict[str, pd.DataFrame]: ...

    @abstractmethod
    def public_view(self, state: State, over: bool) -> dict[str, pd.DataFrame]:
        """What everyone sees; `over` when the festival has ended (final figures revealed)."""

    @abstractmethod
    def announcement(self, before: State, after: State, over: bool) -> list[str]:
        """Markdown lines for the round's public announcement (public information only); `over`
        when the festival has ended (final figures revealed)."""

    @abstractmethod
    def placements(self, state: State, tiebreak: Sequence[str]) -> list[Placement]:
        """The final ranking, best first, places 1, 2, ...: the event's score and tie chain, then
        the Gamewide Tiebreak `tiebreak` (every player of the festival, best first)."""

    def palettes(self) -> tuple[Palette, ...]:
        """The event's colour rules (`layout.Palette`): a board's elements, a map's tiles."""
        return ()

    def picture(self, state: State) -> bytes | None:
        """A PNG of the event after the round just resolved, for the festival's announcement
        (public information only), if the event has one."""
        return None

    def private_picture(self, state: State, player: str) -> bytes | None:
        """A PNG for `player` alone after the round just resolved (their own board, their
        battles), if the event has one; it holds nothing another participant keeps secret."""
        return None

    def summary(self, state: State) -> dict[str, float]:
        """Numbers about a finished event that `simulate` averages over many festivals."""
        return {}
