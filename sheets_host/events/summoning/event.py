"""Summoner's Dream as a festival event: its tabs and settings, each method delegating to the
module that holds its rules (`rules`, `battle`, `tabs`, `data`, `read`, `views`, `bots`)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import pandas as pd

from sheets_host.festival.event import Event, EventRound, Placement
from sheets_host.festival.tabs import ROUNDS as FESTIVAL_ROUNDS
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaError
from sheets_host.kit.game import HowTo, Parsed, generators
from sheets_host.kit.layout import Palette
from sheets_host.kit.table import SubmitTab
from . import bots, data, read, rules, tabs, views
from .state import ROUNDS, SummoningState, SummoningSubmission


class SummoningEvent(Event[SummoningState, SummoningSubmission]):
    name = "summoning"
    title = "Summoner's Dream"
    max_players = 7
    most_rounds = ROUNDS  # the `summoning sales` tab's rounds
    data_tabs = data.DATA_TABS
    state_tabs = tabs.STATE_TABS
    submit_tab = read.ORDERS.schema

    def first_round(self, participants: int, last_round: int) -> int:
        return tabs.first_round(participants, last_round)

    def setup(self, players: Sequence[str], config: Mapping[str, Any], data_tabs: Mapping[str, list[dict]],
              rng: random.Random) -> SummoningState:
        return tabs.setup(players, data.catalogue(data_tabs), rng, config[FESTIVAL_ROUNDS.name])

    def check_data(self, data_tabs: Mapping[str, list[dict]]) -> list[SchemaError]:
        return data.check_data(data_tabs)

    def load(self, players: Sequence[str], state_tabs: Mapping[str, list[dict]], config: Mapping[str, Any],
             data_tabs: Mapping[str, list[dict]]) -> SummoningState:
        return tabs.load(players, data.catalogue(data_tabs), state_tabs, config[FESTIVAL_ROUNDS.name])

    def dump(self, state: SummoningState) -> dict[str, list[dict]]:
        return tabs.dump(state)

    def players(self, state: SummoningState) -> list[str]:
        return list(state.participants)

    def submit_tabs(self, state: SummoningState, player: str) -> tuple[SubmitTab, ...]:
        return read.TABS

    def every_submit_tab(self) -> tuple[SubmitTab, ...]:
        return read.TABS

    def parse(self, state: SummoningState, player: str, rows: Sequence[SubmitRow]) -> Parsed[SummoningSubmission]:
        return read.parse(state, player, rows)

    def default(self, state: SummoningState, player: str) -> SummoningSubmission:
        return SummoningSubmission()  # last round's map, Towers and Familiars stand; the target is drawn

    def resolve(self, state: SummoningState, submissions: Mapping[str, SummoningSubmission | None], round_number: int,
                rng: random.Random) -> EventRound[SummoningState]:
        # Each participant's defaults drawn from their own generator: another's orders never shift them.
        draw = generators(rng)
        played = {p: rules.turn_of(state, p, submissions.get(p) or self.default(state, p), draw(p))
                  for p in state.participants}
        after = rules.play_round(state, {p: t.turn for p, t in played.items()})
        return EventRound(after, views.log(after), partial(views.fates, submissions, played))

    def how_to_submit(self, state: SummoningState, player: str) -> HowTo:
        return views.how_to_submit(state, player)

    def submit_choices(self, state: SummoningState, player: str, tab: str) -> dict[str, list[str]]:
        return read.submit_choices(state, player, tab)

    def submit_rows(self, submission: SummoningSubmission) -> list[dict]:
        return read.submit_rows(submission)

    def bots(self) -> dict[str, Any]:
        return {"random": bots.random_bot, "greedy": bots.greedy}

    def private_view(self, state: SummoningState, player: str) -> dict[str, pd.DataFrame]:
        return views.private_view(state, player)

    def public_view(self, state: SummoningState, over: bool) -> dict[str, pd.DataFrame]:
        return views.public_view(state, over)

    def announcement(self, before: SummoningState, after: SummoningState, over: bool) -> list[str]:
        return views.announcement(before, after, over)

    def placements(self, state: SummoningState, tiebreak: Sequence[str]) -> list[Placement]:
        return rules.placements(state, tiebreak)

    def summary(self, state: SummoningState) -> dict[str, float]:
        return views.summary(state)

    def palettes(self) -> tuple[Palette, ...]:
        return views.palettes()

    def private_picture(self, state: SummoningState, player: str) -> bytes | None:
        from .picture import draw_battles  # Pillow only when an announcement is written

        return draw_battles(state, player)
