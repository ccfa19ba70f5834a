"""Wind Guide Me (Main Match, 7 players, 7 rounds) as the engine sees it: its tabs and settings,
each method delegating to the module that holds its rules (`state`, `rules`, `tabs`, `read`,
`views`, `bots`, `picture`, `seating`)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import pandas as pd

from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.game import Game, HowTo, Outcome, Parsed, Window, rng_for
from sheets_host.kit.result import GameResult
from . import bots, read, rounds, tabs, views
from .seating import seat_sites
from .state import TITLE, WindState, WindSubmission


class WindGuideMe(Game[WindState, WindSubmission]):
    name = "wind-guide-me"
    title = TITLE
    min_players = max_players = 7
    data_tabs = tabs.DATA_TABS
    state_tabs = tabs.STATE_TABS
    frozen_tabs = tabs.FROZEN_TABS
    submit_tab = read.SUBMIT_TAB
    settings = tabs.SETTINGS
    host_decisions = ("elimination candidate",)  # the winners' choice at the end
    score = "score"
    round_word = "round"

    def setup(self, players: Sequence[str], seed: int, config: Mapping[str, Any],
              data: Mapping[str, list[dict]]) -> WindState:
        sites = seat_sites(players, rng_for(seed, 0, "seating"))
        return WindState(tuple(players), tuple(sites), (), (), tabs.settings(config, data, players))

    def check_config(self, config: Mapping[str, Any], players: Sequence[str]) -> list[str]:
        return tabs.check_config(config, players)

    def load(self, players: Sequence[str], state_tabs: Mapping[str, list[dict]], config: Mapping[str, Any],
             data: Mapping[str, list[dict]]) -> WindState:
        return tabs.load(players, state_tabs, config, data)

    def dump(self, state: WindState) -> dict[str, list[dict]]:
        return tabs.dump(state)

    def players(self, state: WindState) -> list[str]:
        return list(state.players)

    def round(self, state: WindState) -> int:
        return state.round

    def is_over(self, state: WindState) -> bool:
        return state.over

    def parse(self, state: WindState, player: str, rows: Sequence[SubmitRow],
              window: Window = Window()) -> Parsed[WindSubmission]:
        return read.parse(state, player, rows)

    def default(self, state: WindState, player: str) -> WindSubmission:
        return WindSubmission(missed=True)

    def submit_rows(self, submission: WindSubmission) -> list[dict]:
        return read.submit_rows(submission)

    def bot(self, state: WindState, player: str, rng: random.Random) -> WindSubmission:
        return bots.random_bot(state, player, rng)

    def resolve(self, state: WindState, submissions: Mapping[str, WindSubmission | None],
                rng: random.Random) -> Outcome[WindState]:
        after, log = rounds.play_round(state, submissions)
        return Outcome(self, after, log, partial(views.fates, state, after, submissions))

    def scores(self, state: WindState) -> dict[str, tuple[float, float, float]]:
        return rounds.scores(state)

    def how_to_submit(self, state: WindState, player: str) -> list[HowTo]:
        return [views.how_to_submit(state, player)]

    def submit_choices(self, state: WindState, player: str, tab: str = "submit") -> dict[str, list[str]]:
        return views.submit_choices(state, player)


    def standings(self, state: WindState) -> pd.DataFrame:
        return views.standings(state)

    def summary(self, state: WindState) -> dict[str, float]:
        return views.summary(state)

    def result(self, state: WindState) -> GameResult | None:
        return views.result(state)

    def public_view(self, state: WindState) -> dict[str, pd.DataFrame]:
        return views.public_view(state)

    def private_view(self, state: WindState, player: str) -> dict[str, pd.DataFrame]:
        return views.private_view(state, player)

    def announcement(self, before: WindState, after: WindState) -> str:
        return views.announcement(before, after)

    def picture(self, state: WindState) -> bytes:
        from .picture import draw_state  # Pillow only when an announcement is written

        return draw_state(state)


GAME = WindGuideMe()
