"""Alchemy as a festival event: its settings and tabs, each method delegating to the module that
holds its rules (`rules`, `tabs`, `read`, `views`, `bots`)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import pandas as pd

from sheets_host.festival.event import Event, EventRound, Placement
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaError
from sheets_host.kit.game import HowTo, Parsed
from . import bots, read, rules, tabs, views
from .state import AlchemyState, AlchemySubmission


class AlchemyEvent(Event[AlchemyState, AlchemySubmission]):
    name = "alchemy"
    title = "Alchemy"
    max_players = 7
    data_tabs = tabs.DATA_TABS
    state_tabs = tabs.STATE_TABS
    submit_tab = read.SUBMIT_TAB
    settings = tabs.SETTINGS
    figures = tabs.FIGURES

    def setup(self, players: Sequence[str], config: Mapping[str, Any], data: Mapping[str, list[dict]],
              rng: random.Random) -> AlchemyState:
        return AlchemyState(tabs.alchemy(config, data), tuple(players))

    def check_data(self, data: Mapping[str, list[dict]]) -> list[SchemaError]:
        return tabs.check_data(data)

    def load(self, players: Sequence[str], state_tabs: Mapping[str, list[dict]], config: Mapping[str, Any],
             data: Mapping[str, list[dict]]) -> AlchemyState:
        return tabs.load(tabs.alchemy(config, data), players, state_tabs)

    def dump(self, state: AlchemyState) -> dict[str, list[dict]]:
        return tabs.dump(state)

    def players(self, state: AlchemyState) -> list[str]:
        return list(state.participants)

    def parse(self, state: AlchemyState, player: str, rows: Sequence[SubmitRow]) -> Parsed[AlchemySubmission]:
        return read.parse(state, player, rows)

    def default(self, state: AlchemyState, player: str) -> AlchemySubmission:
        return AlchemySubmission()  # nothing happens for the participant that round

    def resolve(self, state: AlchemyState, submissions: Mapping[str, AlchemySubmission | None], round_number: int,
                rng: random.Random) -> EventRound[AlchemyState]:
        after = rules.resolve(state, submissions, round_number, rng)
        return EventRound(after, views.log(after), partial(views.fates, after, submissions))

    def how_to_submit(self, state: AlchemyState, player: str) -> HowTo:
        return views.how_to_submit(state, player)

    def submit_choices(self, state: AlchemyState, player: str, tab: str = read.SUBMIT_TAB.name) -> dict[str, list[str]]:
        return views.submit_choices(state, player)

    def submit_rows(self, submission: AlchemySubmission) -> list[dict]:
        return read.submit_rows(submission)

    def bots(self) -> dict[str, Any]:
        return {"random": bots.random_bot, "greedy": bots.greedy}

    def private_view(self, state: AlchemyState, player: str) -> dict[str, pd.DataFrame]:
        return views.private_view(state, player)

    def public_view(self, state: AlchemyState, over: bool) -> dict[str, pd.DataFrame]:
        return views.public_view(state, over)

    def announcement(self, before: AlchemyState, after: AlchemyState, over: bool) -> list[str]:
        return views.announcement(before, after, over)

    def placements(self, state: AlchemyState, tiebreak: Sequence[str]) -> list[Placement]:
        return rules.placements(state, tiebreak)

    def summary(self, state: AlchemyState) -> dict[str, float]:
        return views.summary(state)
