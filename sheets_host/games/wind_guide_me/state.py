"""Wind Guide Me's values: the game's words (player, site, position, power, kind), the settings, a
player's submission for a round, and the state.

The state is the seating and every stone ever placed; hands, open sites, artefact use and the round
are all derived from those, so a host editing the `stones` tab cannot make them disagree. What a
player may place now is the state's to say (`stone_refusal`, `light_refusal`, `fake_refusal`,
`fake_sites`): reading a submit tab, the bot and the book's dropdowns all ask it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import TypeAlias

from . import rules
from .rules import Placed, Stone

TITLE = "Wind Guide Me"

Player: TypeAlias = str
Site: TypeAlias = int  # a ritual site's number, 1 to 21 (`seating.SITES`)
Position: TypeAlias = int  # 1 to 5 around a site's circle: 1 at the top, then clockwise
Power: TypeAlias = int  # a wind stone's power, 1 to 7
Board: TypeAlias = dict[Position, Stone]  # the stones standing at one site


class Kind(Enum):
    """What a row of the submit tab (and of the `stones` tab) places."""

    STONE = "stone"  # an ordinary wind stone from the hand
    FAKE = "fake"  # Power of Dark's fake stone

    @classmethod
    def of(cls, stone: Stone) -> Kind:
        return cls.FAKE if stone.fake else cls.STONE


@dataclass(frozen=True)
class Settings:
    rounds: int
    per_round: int
    collapse_over: int
    missed_penalty: float
    hand: tuple[Power, ...]
    light_holders: frozenset[Player]
    dark_holders: frozenset[Player]
    elimination_candidate: Player | None


@dataclass(frozen=True)
class Placement:
    """One row of a submission: a stone from the hand (`from_hand`) placed with `power`."""

    site: Site
    position: Position
    from_hand: Power
    power: Power


@dataclass(frozen=True)
class WindSubmission:
    """A player's submission for one round; `missed` when nothing valid was submitted."""

    stones: tuple[Placement, ...] = ()
    fake: Placement | None = None
    missed: bool = False

    def parts(self) -> list[tuple[str, Placement]]:
        """Each part of the submission, keyed as the parser and the round name it: a stone by its
        site (one stone a site), then the fake stone."""
        return [(f"stone at site {s.site}", s) for s in self.stones] + ([(FAKE_PART, self.fake)] if self.fake else [])


FAKE_PART = "fake stone"
MISSED_PART = "missed round"  # the part of the default: nothing placed, the penalty


@dataclass(frozen=True)
class WindState:
    players: tuple[Player, ...]
    sites: tuple[tuple[Player, ...], ...]  # site n is sites[n-1]; seat k is position k+1
    placed: tuple[Placed, ...]
    missed: tuple[tuple[int, Player], ...]  # (round, player)
    settings: Settings = field(compare=False)

    @cached_property
    def round(self) -> int:
        """Every round, every player either placed a real stone or missed: so the next round is
        one past the last recorded."""
        rounds = [p.stone.round for p in self.placed if not p.stone.fake] + [r for r, _ in self.missed]
        return max(rounds, default=0) + 1

    @property
    def over(self) -> bool:
        return self.round > self.settings.rounds

    @cached_property
    def boards(self) -> dict[Site, Board]:
        boards: dict[Site, Board] = {n: {} for n in range(1, len(self.sites) + 1)}
        for p in self.placed:
            if not p.gone:
                boards[p.site][p.position] = p.stone
        return boards

    def hand(self, player: Player) -> Counter:
        used = Counter(p.stone.from_hand for p in self.placed if p.stone.player == player and not p.stone.fake)
        return Counter(self.settings.hand) - used

    def seated_sites(self, player: Player) -> list[Site]:
        return [n for n, seats in enumerate(self.sites, 1) if player in seats]

    def used_sites(self, player: Player) -> set[Site]:
        """The sites where `player` placed a real stone (a fake uses up no site)."""
        return {p.site for p in self.placed if p.stone.player == player and not p.stone.fake}

    def open_sites(self, player: Player) -> list[Site]:
        used = self.used_sites(player)
        return [n for n in self.seated_sites(player) if n not in used]

    def light_used(self, player: Player) -> int | None:
        """The round in which `player` used Power of Light (a stone placed re-weighted); None: not yet."""
        return next((p.stone.round for p in self.placed if p.stone.player == player and not p.stone.fake
                     and p.stone.power != p.stone.from_hand), None)

    def dark_used(self, player: Player) -> int | None:
        """The round in which `player` used Power of Dark (a fake stone placed); None: not yet."""
        return next((p.stone.round for p in self.placed if p.stone.player == player and p.stone.fake), None)

    def light_ready(self, player: Player) -> bool:
        return player in self.settings.light_holders and self.light_used(player) is None

    def dark_ready(self, player: Player) -> bool:
        return player in self.settings.dark_holders and self.dark_used(player) is None

    def missed_rounds(self, player: Player) -> int:
        return sum(1 for _, p in self.missed if p == player)

    # ---- what a player may place this round -------------------------------------------------

    def stone_refusal(self, player: Player, site: Site, power: Power,
                      earlier: Sequence[Placement] = ()) -> tuple[str, str] | None:
        """Why `player` cannot place a real stone of `power` at `site` after this round's `earlier`
        stones: (the submit column at fault, why); None when they can."""
        seated, open_sites = self.seated_sites(player), self.open_sites(player)
        hand = self.hand(player) - Counter(p.from_hand for p in earlier)
        if site not in seated:
            return "site", f"you do not sit at site {site}; your open sites: {numbers_text(open_sites)}"
        if site not in open_sites:
            return "site", f"you already placed a stone at site {site}; your open sites: {numbers_text(open_sites)}"
        if any(p.site == site for p in earlier):
            return "site", f"site {site} is already used by another row"
        if hand[power] <= 0:
            return "stone", f"you have no stone of power {power} left; your stones: {hand_text(hand)}"
        if len(earlier) >= self.settings.per_round:
            return "stone", f"only {self.settings.per_round} stones a round"
        return None

    def light_refusal(self, player: Player, stone: Power, power: Power, used: bool = False,
                      kind: Kind = Kind.STONE) -> str | None:
        """Why Power of Light cannot turn `player`'s `stone` into one of `power` (None when it can);
        `used`: this round's submission already used it on another stone."""
        return (("fake stones cannot take Power of Light" if kind is Kind.FAKE else None)
                or ("you do not hold Power of Light" if player not in self.settings.light_holders else None)
                or ("you have already used Power of Light" if not self.light_ready(player) else None)
                or ("Power of Light is used on one stone only" if used else None)
                or rules.light(stone, power))

    def fake_refusal(self, player: Player, site: Site, placed: bool = False) -> str | None:
        """Why `player` cannot place Power of Dark's fake stone at `site` (None when they can);
        `placed`: this round's submission already holds one."""
        seated = self.seated_sites(player)
        return (("you do not hold Power of Dark" if player not in self.settings.dark_holders else None)
                or ("you have already used Power of Dark" if not self.dark_ready(player) else None)
                or ("one fake stone only" if placed else None)
                or (f"you do not sit at site {site}; your sites: {numbers_text(seated)}" if site not in seated
                    else None))

    def fake_sites(self, player: Player, taken: Collection[Site]) -> list[Site]:
        """The sites `player` sits at where a fake may go when this round's real stones go to the
        sites `taken`: a fake goes "in addition to" them, so never to one of theirs."""
        return [n for n in self.seated_sites(player) if n not in taken]


def numbers_text(numbers: Sequence[int]) -> str:
    """
    >>> numbers_text([3, 7]), numbers_text([])
    ('3, 7', 'none')
    """
    return ", ".join(map(str, numbers)) or "none"


def hand_text(hand: Counter) -> str:
    """
    >>> hand_text(Counter({4: 1, 1: 2})), hand_text(Counter())
    ('1 1 4', 'none')
    """
    return " ".join(str(p) for p in sorted(hand.elements())) or "none"
