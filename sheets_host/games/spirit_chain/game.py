"""Spirit Chain (Death Match, 2 players): the game as the engine sees it, its settings and tabs,
each method delegating to the module that holds it (`state`, `tabs`, `read`, `phases`, `views`,
`bots`, `picture`).

Each phase part is one engine round: the Auction, Summoning part 1 (upgrades), Summoning part 2
(slots), then the next cycle's Auction.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import pandas as pd

from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.game import Game, HowTo, Outcome, Parsed, Window, rng_for
from sheets_host.kit.layout import Palette
from sheets_host.kit.result import DEATH_MATCH, GameResult
from . import bots, phases, read, rules, tabs, views
from .state import SpiritChainState, SpiritChainSubmission, blank


class SpiritChain(Game[SpiritChainState, SpiritChainSubmission]):
    name = "spirit-chain"
    title = "Spirit Chain"
    match_type = DEATH_MATCH
    min_players = max_players = rules.PLAYERS
    data_tabs = tabs.DATA_TABS
    state_tabs = tabs.STATE_TABS
    submit_tab = read.SUBMIT_TAB
    settings = tabs.SETTINGS
    host_decisions = ("death match opponent",)  # wins a tie at the end
    score = "lights"

    def check_config(self, config: Mapping[str, Any], players: Sequence[str]) -> list[str]:
        return tabs.check_config(config, players)

    def setup(self, players: Sequence[str], seed: int, config: Mapping[str, Any],
              data: Mapping[str, list[dict]]) -> SpiritChainState:
        return phases.start(players, tabs.duel_rules(config, data, players), rng_for(seed, 0, "auction"))

    def load(self, players: Sequence[str], state_tabs: Mapping[str, list[dict]], config: Mapping[str, Any],
             data: Mapping[str, list[dict]]) -> SpiritChainState:
        return tabs.load(tabs.duel_rules(config, data, players), players, state_tabs)

    def dump(self, state: SpiritChainState) -> dict[str, list[dict]]:
        return tabs.dump(state)

    def players(self, state: SpiritChainState) -> list[str]:
        return list(state.players)

    def round(self, state: SpiritChainState) -> int:
        return state.round

    def is_over(self, state: SpiritChainState) -> bool:
        return state.over

    def submits(self, state: SpiritChainState, player: str) -> bool:
        return state.must_answer(state.seat(player))

    def nothing_due(self, state: SpiritChainState, player: str) -> str:
        return views.nothing_due(state)

    def parse(self, state: SpiritChainState, player: str, rows: Sequence[SubmitRow],
              window: Window = Window()) -> Parsed[SpiritChainSubmission]:
        return read.parse(state, player, rows, window)

    def stamped_column(self, state: SpiritChainState) -> str | None:
        return read.stamped_column(state)

    def settled(self, state: SpiritChainState, player: str, rows: Sequence[SubmitRow],
                window: Window) -> datetime | None:
        return read.settled(state, player, rows, window)

    def boundaries(self, state: SpiritChainState, player: str, opened: datetime) -> list[datetime]:
        return read.boundaries(state, player, opened)

    def soonest_boundary(self, state: SpiritChainState) -> timedelta | None:
        return read.soonest_boundary(state)

    def default(self, state: SpiritChainState, player: str) -> SpiritChainSubmission:
        return blank(state.phase)

    def submit_rows(self, submission: SpiritChainSubmission) -> list[dict]:
        return read.submit_rows(submission)

    def bot(self, state: SpiritChainState, player: str, rng: random.Random) -> SpiritChainSubmission:
        return bots.random_bot(state, player, rng)

    def resolve(self, state: SpiritChainState, submissions: Mapping[str, SpiritChainSubmission | None],
                rng: random.Random) -> Outcome[SpiritChainState]:
        after, log, moves = phases.resolve(state, submissions, rng)
        return Outcome(self, after, log, partial(views.fates, state, after, moves))

    def how_to_submit(self, state: SpiritChainState, player: str) -> list[HowTo]:
        return [views.how_to_submit(state, player)]

    def submit_choices(self, state: SpiritChainState, player: str, tab: str = "submit") -> dict[str, list[str]]:
        return views.submit_choices(state, player)

    def palettes(self) -> tuple[Palette, ...]:
        return views.palettes()

    def public_view(self, state: SpiritChainState) -> dict[str, pd.DataFrame]:
        return views.public_view(state)

    def private_view(self, state: SpiritChainState, player: str) -> dict[str, pd.DataFrame]:
        return views.private_view(state, player)

    def announcement(self, before: SpiritChainState, after: SpiritChainState) -> str:
        return views.announcement(self.title, before, after)

    def picture(self, state: SpiritChainState) -> bytes | None:
        from .picture import draw_state  # Pillow only when a picture is drawn

        return draw_state(state, self.title)

    def standings(self, state: SpiritChainState) -> pd.DataFrame:
        return views.standings(state)

    def summary(self, state: SpiritChainState) -> dict[str, float]:
        return views.summary(state)

    def result(self, state: SpiritChainState) -> GameResult | None:
        return views.result(state)


GAME = SpiritChain()
