"""Elemental Continuum as a festival event: its tabs and settings, each method delegating to the
module that holds its rules (`rules`, `board`, `tabs`, `read`, `views`, `bots`)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import pandas as pd

from sheets_host.festival.event import Event, EventRound, Placement
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.game import HowTo, Parsed, generators
from sheets_host.kit.layout import Palette
from sheets_host.kit.table import SubmitTab
from . import bots, read, rules, tabs, views
from .board import random_board
from .state import ContinuumState, ContinuumSubmission


class ContinuumEvent(Event[ContinuumState, ContinuumSubmission]):
    name = "continuum"
    title = "Elemental Continuum"
    max_players = 7
    state_tabs = tabs.STATE_TABS
    submit_tab = read.BOLTS.schema

    def setup(self, players: Sequence[str], config: Mapping[str, Any], data: Mapping[str, list[dict]],
              rng: random.Random) -> ContinuumState:
        return ContinuumState(tuple(players))

    def load(self, players: Sequence[str], state_tabs: Mapping[str, list[dict]], config: Mapping[str, Any],
             data: Mapping[str, list[dict]]) -> ContinuumState:
        return tabs.load(players, state_tabs)

    def dump(self, state: ContinuumState) -> dict[str, list[dict]]:
        return tabs.dump(state)

    def players(self, state: ContinuumState) -> list[str]:
        return list(state.participants)

    def submit_tabs(self, state: ContinuumState, player: str) -> tuple[SubmitTab, ...]:
        return read.submit_tabs(state)

    def every_submit_tab(self) -> tuple[SubmitTab, ...]:
        return (read.BOARD, read.WARDS, read.BOLTS)

    def parse(self, state: ContinuumState, player: str, rows: Sequence[SubmitRow]) -> Parsed[ContinuumSubmission]:
        return read.parse(state, player, rows)

    def default(self, state: ContinuumState, player: str) -> ContinuumSubmission:
        return ContinuumSubmission()  # round 1: a board drawn from the seed; later: no bolt fired

    def resolve(self, state: ContinuumState, submissions: Mapping[str, ContinuumSubmission | None], round_number: int,
                rng: random.Random) -> EventRound[ContinuumState]:
        typed = {p: submissions.get(p) or self.default(state, p) for p in state.participants}
        if state.rounds_played == 0:
            # Each missing board drawn from its owner's own generator: another's board never shifts it.
            draw = generators(rng)
            boards = {p: typed[p].board or random_board(draw(p)) for p in state.participants}
            drawn = tuple(p for p in state.participants if typed[p].board is None)
            after = replace(state, boards=boards, defaulted=drawn, rounds_played=1)
        else:
            after = rules.strike_round(state, {p: typed[p].bolts for p in state.participants}, round_number)
        return EventRound(after, views.log(after), partial(views.fates, after))

    def how_to_submit(self, state: ContinuumState, player: str) -> HowTo:
        return views.how_to_submit(state, player)

    def submit_choices(self, state: ContinuumState, player: str, tab: str) -> dict[str, list[str]]:
        return dict(read.submit_choices(state, tab))

    def submit_rows(self, submission: ContinuumSubmission) -> list[dict]:
        return read.submit_rows(submission)

    def bots(self) -> dict[str, Any]:
        return {"random": bots.random_bot}

    def private_view(self, state: ContinuumState, player: str) -> dict[str, pd.DataFrame]:
        return views.private_view(state, player)

    def public_view(self, state: ContinuumState, over: bool) -> dict[str, pd.DataFrame]:
        return views.public_view(state, over)

    def announcement(self, before: ContinuumState, after: ContinuumState, over: bool) -> list[str]:
        return views.announcement(before, after, over)

    def placements(self, state: ContinuumState, tiebreak: Sequence[str]) -> list[Placement]:
        return rules.placements(state, tiebreak)

    def summary(self, state: ContinuumState) -> dict[str, float]:
        return views.summary(state)

    def palettes(self) -> tuple[Palette, ...]:
        return views.palettes()

    def picture(self, state: ContinuumState) -> bytes | None:
        from .picture import draw_boards  # Pillow only when an announcement is written

        return draw_boards(state)

    def private_picture(self, state: ContinuumState, player: str) -> bytes | None:
        from .picture import draw_own_board

        return draw_own_board(state, player)
