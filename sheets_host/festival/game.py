"""A festival as the engine sees it: one game (one host book, one resolve a round, one
announcement) made of events. A festival subclass names its events and its title; everything
here delegates to the modules that hold the rules (`rules`, `tabs`, `read`, `views`, `bots`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.game import Game, HowTo, Outcome, Parsed, Window
from sheets_host.kit.layout import Palette
from sheets_host.kit.result import GameResult
from sheets_host.kit.table import SubmitTab
from . import bots, read, rules, tabs, views
from .event import Event
from .pregame import PREFERENCES
from .state import FestivalState, FestivalSubmission, HandEvent, is_run


class Festival(Game[FestivalState, FestivalSubmission]):
    events: ClassVar[tuple[Event | HandEvent, ...]]
    round_word = "round"
    submit_tab = PREFERENCES.schema
    host_decisions = ("candidate choice",)  # the sole winner's, when the endgame awaits it
    score = "average ranking"

    def __init__(self) -> None:
        self.data_tabs = tuple(tab for e in self.events if isinstance(e, Event) for tab in e.data_tabs)
        self.state_tabs = tabs.state_tabs(self.events)
        self.settings = tabs.SETTINGS + tuple(c for e in self.events if isinstance(e, Event) for c in e.settings)

    def round_name(self, number: int) -> str:
        return views.round_name(number)

    def palettes(self) -> tuple[Palette, ...]:
        return tuple(p for e in self.events if isinstance(e, Event) for p in e.palettes())

    def check_config(self, config: Mapping[str, Any], players: Sequence[str]) -> list[str]:
        return tabs.check_config(self.events, config, players)

    def setup(self, players: Sequence[str], seed: int, config: Mapping[str, Any],
              data: Mapping[str, list[dict]]) -> FestivalState:
        plan = tabs.plan(self.events, players, config, data)
        tabs.check_data(self.events, plan.by_hand, data)
        return FestivalState(tuple(players), plan, garnets=tabs.garnets_given(config, players),
                             rankings={e.name: None for e in self.events if not is_run(e, plan.by_hand)})

    def load(self, players: Sequence[str], state_tabs: Mapping[str, list[dict]], config: Mapping[str, Any],
             data: Mapping[str, list[dict]]) -> FestivalState:
        return tabs.load(self.events, players, state_tabs, config, data)

    def dump(self, state: FestivalState) -> dict[str, list[dict]]:
        return tabs.dump(self.events, state)

    def players(self, state: FestivalState) -> list[str]:
        return list(state.players)

    def round(self, state: FestivalState) -> int:
        return state.round

    def is_over(self, state: FestivalState) -> bool:
        return state.over

    def submit_tabs(self, state: FestivalState, player: str) -> tuple[SubmitTab, ...]:
        return views.submit_tabs(state, player)

    def every_submit_tab(self) -> tuple[SubmitTab, ...]:
        return (PREFERENCES, *(tab for e in self.events if isinstance(e, Event) for tab in e.every_submit_tab()))

    @property
    def several_submit_tabs(self) -> bool:
        return True  # the pregame's tab, then the events': rows always name theirs

    def submits(self, state: FestivalState, player: str) -> bool:
        return bool(self.submit_tabs(state, player))

    def nothing_due(self, state: FestivalState, player: str) -> str:
        return views.nothing_due(state, player)

    def parse(self, state: FestivalState, player: str, rows: Sequence[SubmitRow],
              window: Window = Window()) -> Parsed[FestivalSubmission]:
        return read.parse(state, player, rows)

    def how_to_submit(self, state: FestivalState, player: str) -> list[HowTo]:
        return views.how_to_submit(state, player)

    def submit_choices(self, state: FestivalState, player: str, tab: str = "submit") -> dict[str, list[str]]:
        return views.submit_choices(state, player, tab)

    def default(self, state: FestivalState, player: str) -> FestivalSubmission:
        return FestivalSubmission()  # the pregame: the list drawn; a round: each event's own default

    def resolve(self, state: FestivalState, submissions: Mapping[str, FestivalSubmission | None],
                rng: random.Random) -> Outcome[FestivalState]:
        if state.assignment is None:
            after, log = rules.pregame(state, submissions, rng)
            return Outcome(self, after, log, partial(views.pregame_fates, after))
        after, log, played = rules.festival_round(state, submissions, rng)
        return Outcome(self, after, log, partial(views.round_fates, after, submissions, played))

    def public_view(self, state: FestivalState) -> dict[str, pd.DataFrame]:
        return views.public_view(state)

    def private_view(self, state: FestivalState, player: str) -> dict[str, pd.DataFrame]:
        return views.private_view(state, player)

    def bot(self, state: FestivalState, player: str, rng: random.Random) -> FestivalSubmission:
        return bots.bot(state, player, rng)

    def bots(self) -> dict[str, Callable[[FestivalState, str, random.Random], FestivalSubmission]]:
        return {s: partial(bots.bot, strategy=s) for s in bots.strategies(e for e in self.events if isinstance(e, Event))}

    def host_todo(self, state: FestivalState) -> list[str]:
        if state.festival_round == 0 and not any(state.garnets.values()) and cells.is_blank(state.plan.config.get(tabs.GARNETS.name)):
            return ["every player holds 0 garnets: type what each holds into the host tab 'garnets' first, if any"]
        todo = rules.rankings_todo(state) if state.festival_round == state.plan.rounds else None
        return [todo] if todo else []

    def host_bot(self, state: FestivalState, rng: random.Random) -> FestivalState:
        """Before the last round, a random ranking for each event hosted by hand still without one."""
        if state.festival_round != state.plan.rounds:
            return state
        typed = {e.name: rules.hand_ranking(state, e, rng) for e in self.events
                 if e.title in rules.missing_rankings(state)}
        return replace(state, rankings={**state.rankings, **typed}) if typed else state

    def submit_rows(self, submission: FestivalSubmission) -> list[dict]:
        return read.submit_rows(self.events, submission)

    def standings(self, state: FestivalState) -> pd.DataFrame:
        return views.standings(state)

    def announcement(self, before: FestivalState, after: FestivalState) -> str:
        return views.announcement(before, after, self.title)

    def summary(self, state: FestivalState) -> dict[str, float]:
        return views.summary(state)

    def result(self, state: FestivalState) -> GameResult | None:
        return views.result(state)

    def picture(self, state: FestivalState) -> bytes | None:
        """The pictures of the events the tool runs that played the round just resolved and have
        one, top to bottom in festival order in one PNG; None when none has."""
        from sheets_host.kit.drawing import stack  # Pillow only when an announcement is written

        return stack([png for e in self._just_played(state) if (png := e.picture(state.events[e.name]))])

    @staticmethod
    def _just_played(state: FestivalState) -> list[Event]:
        """The events the tool runs that played the round just resolved."""
        before = replace(state, round=state.round - 1)  # as the round just resolved began
        return [e for e in rules.run_events(state) if e.name in state.events and rules.playing(before, e)]

    def private_pictures(self, state: FestivalState) -> dict[str, bytes]:
        """Each player's private pictures of the events they played the round just resolved in, one
        under the other: what only they may see (their own board, their battles)."""
        from sheets_host.kit.drawing import stack

        events = self._just_played(state)
        out = {}
        for player in state.players:
            png = stack([png for e in events if player in e.players(state.events[e.name])
                         and (png := e.private_picture(state.events[e.name], player))])
            if png:
                out[player] = png
        return out

