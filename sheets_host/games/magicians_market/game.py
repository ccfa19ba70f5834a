"""Magician's Market (Main Match, 15 players, 7 days) as the engine sees it: its settings and tabs,
each method delegating to the module that holds its rules (`state`, `tabs`, `read`, `views`, `bots`).
"""

from __future__ import annotations

import random
from functools import partial
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.game import Game, HowTo, Outcome, Parsed, Window
from sheets_host.kit.result import GameResult
from . import bots, read, tabs, views
from .market import MarketSubmission, Player
from .state import MarketState


class MagiciansMarket(Game[MarketState, MarketSubmission]):
    name = "magicians-market"
    title = "Magician's Market"
    min_players, max_players = 4, 20
    default_players = 15  # as in the rule text
    data_tabs = tabs.DATA_TABS
    state_tabs = tabs.STATE_TABS
    submit_tab = read.SUBMIT_TAB
    settings = tabs.SETTINGS
    host_decisions = ("extra token of life", "elimination candidates")  # at the end
    score = "coins"
    round_word = "day"

    def how_to_submit(self, state: MarketState, player: Player) -> list[HowTo]:
        return [views.how_to_submit(state, player)]

    def submit_choices(self, state: MarketState, player: Player, tab: str = "submit") -> dict[str, list[str]]:
        return views.submit_choices(state, player)

    def check_config(self, config: Mapping[str, Any], players: Sequence[Player]) -> list[str]:
        return tabs.check_config(config, players)

    def setup(self, players: Sequence[Player], seed: int, config: Mapping[str, Any],
              data: Mapping[str, list[dict]]) -> MarketState:
        return MarketState(tuple(players), (), tabs.read_settings(config, data, players))

    def load(self, players: Sequence[Player], state_tabs: Mapping[str, list[dict]], config: Mapping[str, Any],
             data: Mapping[str, list[dict]]) -> MarketState:
        return tabs.load(players, state_tabs, config, data)

    def dump(self, state: MarketState) -> dict[str, list[dict]]:
        return tabs.dump(state)

    def players(self, state: MarketState) -> list[Player]:
        return list(state.players)

    def round(self, state: MarketState) -> int:
        return state.round

    def is_over(self, state: MarketState) -> bool:
        return state.over

    def parse(self, state: MarketState, player: Player, rows: Sequence[SubmitRow],
              window: Window = Window()) -> Parsed[MarketSubmission]:
        return read.parse(state, player, rows)

    def default(self, state: MarketState, player: Player) -> MarketSubmission:
        return MarketSubmission()  # no goods, no price changes, no bid

    def submit_rows(self, submission: MarketSubmission) -> list[dict]:
        return read.submit_rows(submission)

    def bot(self, state: MarketState, player: Player, rng: random.Random) -> MarketSubmission:
        return bots.random_bot(state, player, rng)

    def resolve(self, state: MarketState, submissions: Mapping[Player, MarketSubmission | None],
                rng: random.Random) -> Outcome[MarketState]:
        after, refusals = state.next_day(submissions)
        return Outcome(self, after, views.log(after, refusals), partial(views.fates, after, submissions, refusals))

    def standings(self, state: MarketState) -> pd.DataFrame:
        return views.standings(state)

    def summary(self, state: MarketState) -> dict[str, float]:
        return views.summary(state)

    def result(self, state: MarketState) -> GameResult | None:
        return views.result(state)

    def public_view(self, state: MarketState) -> dict[str, pd.DataFrame]:
        return views.public_view(state)

    def private_view(self, state: MarketState, player: Player) -> dict[str, pd.DataFrame]:
        return views.private_view(state, player)

    def announcement(self, before: MarketState, after: MarketState) -> str:
        return views.announcement(self.title, before, after)


GAME = MagiciansMarket()
