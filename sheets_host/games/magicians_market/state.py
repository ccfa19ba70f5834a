"""Magician's Market's state: what happened, and what it comes to.

The state is each day's submissions (generation, extra good, gifts, bid) and the magicians'
purchases. Goods, coins, prices, what magicians carry and where they performed are derived from
those by walking the days (`day.walk`), so a host's correction cannot make them disagree, and an
edit of the tastes changes the days to come, never the past. The values it is made of, and the
legality a player's market decides, are in `market.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from .day import play_day, walk
from .market import Day, DayResult, Market, MarketSubmission, Player, Refusal, Settings, opening_market


@dataclass(frozen=True)
class MarketState:
    players: tuple[Player, ...]
    days: tuple[Day, ...]
    settings: Settings = field(compare=False)

    @cached_property
    def walked(self) -> tuple[tuple[DayResult, ...], list[tuple[int, Refusal]]]:
        """Every day walked from the opening market, with what broke a rule on the way."""
        return walk(self.players, self.settings, self.days)

    @property
    def history(self) -> tuple[DayResult, ...]:
        return self.walked[0]

    @property
    def now(self) -> Market:
        return self.history[-1].end if self.history else opening_market(self.players, self.settings)

    @property
    def round(self) -> int:
        return len(self.days) + 1

    @property
    def over(self) -> bool:
        return len(self.days) >= self.settings.days

    def next_day(self, submissions: Mapping[Player, MarketSubmission | None]) -> tuple[MarketState, list[Refusal]]:
        """The state once the day to play is played, and the parts of submissions the rules refused.
        A player without a submission submitted `MarketSubmission()`: no goods, no price changes, no bid."""
        s, number = self.settings, self.round
        orders = {p: submissions.get(p) or MarketSubmission() for p in self.players}
        yesterday = self.history[-1].sales if self.history else ()
        result, refusals = play_day(s, self.now, number, orders, yesterday)
        day = Day(number, tuple((p, result.orders[p]) for p in self.players), result.sales)
        after = MarketState(self.players, self.days + (day,), s)
        after.__dict__["walked"] = (self.history + (result,), [])  # the day just walked: no need to walk again
        return after, refusals
