"""A festival's state: the garnets held, the pregame's lists and assignment, each event's own
state, and the rankings of the events hosted by hand.

Engine round 1 is the pregame; engine round n + 1 is the festival's round n. An event the tool
runs has its state from the end of the pregame on; an event hosted by hand has only its ranking,
typed by the host.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sheets_host.kit.table import Column
from .event import Event, Placement
from .pregame import Preference

PREGAME = 1  # the engine round of the pregame


@dataclass(frozen=True)
class HandEvent:
    """An event the tool does not run (yet): its name, its title and the figures its ranking tab
    asks of the host besides the place (those the festival's endgame rewards)."""

    name: str
    title: str
    max_players: int = 7
    figures: tuple[Column, ...] = ()


@dataclass(frozen=True)
class Plan:
    """What is fixed for a game: the events, the settings and the rules data the events are set up from."""

    events: tuple[Event | HandEvent, ...]
    rounds: int
    capacity: int
    by_hand: frozenset[str]  # events hosted by hand
    tiebreak: tuple[str, ...]  # the Gamewide Tiebreak: every player, best first
    choice: str | None  # the sole winner's choice of Elimination Candidate, if still tied
    config: Mapping[str, Any] = field(repr=False)
    data: Mapping[str, list[dict]] = field(repr=False)


@dataclass(frozen=True)
class FestivalState:
    players: tuple[str, ...]
    plan: Plan = field(compare=False, repr=False)
    round: int = PREGAME  # the engine round to resolve next
    garnets: Mapping[str, int] = field(default_factory=dict)  # held now (the host's tab)
    preferences: Mapping[str, Preference] = field(default_factory=dict)  # the lists used, after the pregame
    drawn: tuple[str, ...] = ()  # those whose lists were drawn (silent in the pregame)
    assignment: Mapping[str, tuple[str, ...]] | None = None  # event -> participants, after the pregame
    events: Mapping[str, Any] = field(default_factory=dict)  # event run by the tool -> its state
    rankings: Mapping[str, tuple[Placement, ...] | None] = field(default_factory=dict)  # hosted by hand

    @property
    def festival_round(self) -> int:
        """The festival's round to be resolved next (0: the pregame)."""
        return self.round - PREGAME

    @property
    def over(self) -> bool:
        return self.festival_round > self.plan.rounds

    def plays(self, player: str) -> tuple[str, ...]:
        """The events `player` plays, in festival order (none before the assignment)."""
        return tuple(e for e, members in (self.assignment or {}).items() if player in members)


@dataclass(frozen=True)
class FestivalSubmission:
    """A player's submission: the pregame's list (None: silent, drawn), or each event's."""

    preference: Preference | None = None
    events: Mapping[str, Any] = field(default_factory=dict)  # event -> its submission (None: nothing valid)


def is_run(event: Event | HandEvent, by_hand: frozenset[str]) -> bool:
    """Whether the tool runs `event` (built, and not marked hosted by hand)."""
    return isinstance(event, Event) and event.name not in by_hand
