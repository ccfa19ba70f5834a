"""Pyramid Superiority (Main Match, 3 players and 6 guests, 15 days): the game as the engine sees it,
its settings and tabs, each method delegating to the module that holds it (`state`, `day`,
`tabs`, `read`, `views`, `bots`, `picture`).

Everyone who submits is an engine player: the 3 players (Blue Meadow) and the 6 guests (Red
Meadow: eliminated players; Green Meadow: spectators). One engine round is one day.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import pandas as pd

from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.game import Game, HowTo, Outcome, Parsed, Window, rng_for
from sheets_host.kit.layout import Palette
from sheets_host.kit.result import GameResult
from . import bots, day, read, tabs, views
from .meadows import COSMOS_KEYS
from .state import PyramidState, PyramidSubmission


class PyramidSuperiority(Game[PyramidState, PyramidSubmission | None]):
    name = "pyramid-superiority"
    title = "Pyramid Superiority"
    min_players = max_players = 9
    state_tabs = tabs.STATE_TABS
    frozen_tabs = (tabs.TYPES_TAB.name,)  # announced at the start of the game
    submit_tab = read.SUBMIT_TAB
    settings = tabs.SETTINGS
    # the tie winner and their choice only if the three players tie; each guest meadow's winner's cosmos
    host_decisions = ("tie winner", "elimination candidate", *COSMOS_KEYS.values())
    score = "points"
    round_word = "day"

    def check_config(self, config: Mapping[str, Any], players: Sequence[str]) -> list[str]:
        return tabs.settings(config, players)[1]

    def setup(self, players, seed, config, data) -> PyramidState:
        return day.setup(players, tabs.settings(config, players)[0], rng_for(seed, 0, "setup"))

    def load(self, players, state_tabs, config, data) -> PyramidState:
        return tabs.load(players, state_tabs, config)

    def dump(self, state: PyramidState) -> dict[str, list[dict]]:
        return tabs.dump(state)

    def players(self, state: PyramidState) -> list[str]:
        return list(state.players)

    def round(self, state: PyramidState) -> int:
        return state.day

    def is_over(self, state: PyramidState) -> bool:
        return state.over

    def submits(self, state: PyramidState, player: str) -> bool:
        return state.submits(player)

    def nothing_due(self, state: PyramidState, player: str) -> str:
        return state.nothing_due(player)

    def parse(self, state: PyramidState, player: str, rows: Sequence[SubmitRow],
              window: Window = Window()) -> Parsed[PyramidSubmission]:
        return read.parse(state, player, rows)

    def default(self, state: PyramidState, player: str) -> PyramidSubmission | None:
        return state.default(player)

    def submit_rows(self, submission: PyramidSubmission | None) -> list[dict]:
        return read.submit_rows(submission)

    def bot(self, state: PyramidState, player: str, rng: random.Random) -> PyramidSubmission | None:
        return bots.random_bot(state, player, rng)

    def resolve(self, state: PyramidState, submissions: Mapping[str, PyramidSubmission | None],
                rng: random.Random) -> Outcome[PyramidState]:
        after = day.resolve(state, submissions, rng)
        return Outcome(self, after, list(after.ledger.log[state.day]) + views.host_decisions(after),
                       partial(views.fates, state, after))

    def how_to_submit(self, state: PyramidState, player: str) -> list[HowTo]:
        return [views.how_to_submit(state, player)]

    def submit_choices(self, state: PyramidState, player: str, tab: str = "submit") -> dict[str, list[str]]:
        return views.submit_choices(state, player)

    def palettes(self) -> tuple[Palette, ...]:
        return views.palettes()

    def public_view(self, state: PyramidState) -> dict[str, pd.DataFrame]:
        return views.public_view(state)

    def private_view(self, state: PyramidState, player: str) -> dict[str, pd.DataFrame]:
        return views.private_view(state, player)

    def groups(self, state: PyramidState) -> dict[str, tuple[str, ...]]:
        return views.groups(state)

    def group_view(self, state: PyramidState, role: str) -> dict[str, pd.DataFrame]:
        return views.group_view(state, role)

    def announcement(self, before: PyramidState, after: PyramidState) -> str:
        return views.announcement(self.title, before, after)

    def standings(self, state: PyramidState) -> pd.DataFrame:
        return views.standings(state)

    def summary(self, state: PyramidState) -> dict[str, float]:
        return views.summary(state)

    def result(self, state: PyramidState) -> GameResult | None:
        return views.result(state)

    def picture(self, state: PyramidState) -> bytes:
        from .picture import draw_state  # Pillow only when an announcement is written

        return draw_state(state, self.title)


GAME = PyramidSuperiority()
