"""What every game gives the engine: its tabs, setup, parsing, a pure resolver, views and bots.

A game is three small things, as in OpenSpiel: the `Game` (rules and data, no mutable state), its
`State` (a plain value the game defines), and views of that state (`public_view`,
`private_view`) that strip what a reader may not see. `resolve` applies every player's
submission together, as simultaneous moves, using only the random generator it is handed. A game's
folder keeps them in separate files (`docs/architecture.md`, "A game's folder"): the `Game` subclass
in `game.py` is settings and one-line delegations.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any, ClassVar, Generic, TypeVar

import pandas as pd

from .cells import Problem, RowRef, SubmitRow
from .layout import Palette
from .result import MAIN_MATCH, GameResult
from .table import Column, SubmitTab, TabSchema

State = TypeVar("State")
Submission = TypeVar("Submission")


def rng_for(seed: int, round_number: int, purpose: str) -> random.Random:
    """The random generator for one purpose in one round: the same seed gives the same game.

    Seeding from a string is stable across runs and machines (it is hashed with SHA-512).

    >>> rng_for(7, 1, "resolve").random() == rng_for(7, 1, "resolve").random()
    True
    >>> rng_for(7, 1, "resolve").random() == rng_for(7, 2, "resolve").random()
    False
    """
    return random.Random(f"sheets-host/{seed}/{round_number}/{purpose}")


def generators(rng: random.Random) -> Callable[[str], random.Random]:
    """One generator per purpose (an event's name, a player's), from one draw of `rng`: what one
    purpose draws never depends on which others are asked for, in what order, or how much they
    draw. Whatever is drawn for each player comes from their own (`docs/architecture.md`), so
    another player's submission never shifts it.

    >>> draw = generators(random.Random(1))
    >>> draw("Ann").random() == generators(random.Random(1))("Ann").random() != draw("Bo").random()
    True
    """
    base = rng.getrandbits(64)
    return lambda purpose: random.Random(f"{base}/{purpose}")


@dataclass(frozen=True)
class Window:
    """When the round opened and when its submissions were read (the freeze), in UTC; for games
    whose rules depend on when a submission was made (time controls)."""

    opened: datetime | None = None
    frozen: datetime | None = None


@dataclass(frozen=True)
class Example:
    """Rows exactly as a player types them into a submit tab, under that tab's `header` (a value
    "" is a blank cell): the status tab shows them as real cells, and the instruction tests parse
    them. `note` says what the example shows when a block has several ("with Power of Light")."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""
    tab: str | None = None  # the tab they go into, named where a player has several

    @classmethod
    def of(cls, header: Sequence[str], typed: Sequence[Mapping[str, object]], note: str = "",
           tab: str | None = None) -> Example:
        """An example of rows as a game's `submit_rows` gives them (a value None or left out is blank).

        >>> Example.of(["action", "item", "quantity"], [{"action": "buy", "item": "gold", "quantity": 2}]).rows
        (('buy', 'gold', '2'),)
        """
        return cls(tuple(header), tuple(tuple("" if r.get(c) is None else str(r[c]) for c in header) for r in typed),
                   note, tab)

    def typed(self) -> list[dict[str, str]]:
        """Each row as the parser gets it: column -> value, blanks left out.

        >>> Example(("action", "good", "to"), (("bid", "", "Flavio"),)).typed()
        [{'action': 'bid', 'to': 'Flavio'}]
        """
        return [{k: v for k, v in zip(self.header, row) if v != ""} for row in self.rows]


@dataclass(frozen=True)
class HowTo:
    """How to submit, as the status tab shows it: short `lines`, one idea a row, then `examples`;
    `default` is what the rule text gives a player who submits nothing valid ("you bid 0"), said
    both here and where the status says nothing was typed; `title` heads a festival event's block."""

    lines: tuple[str, ...]
    examples: tuple[Example, ...] = ()
    default: str = ""
    title: str = ""

    def words(self) -> str:
        """Everything the block says, as one text (what a reader of the status tab reads)."""
        rows = [" ".join(v for v in row if v) for e in self.examples for row in (e.header, *e.rows)]
        notes = [f"{e.tab or ''} {e.note}" for e in self.examples]
        return "\n".join([self.title, *self.lines, *notes, *rows, self.default])


@dataclass(frozen=True)
class Parsed(Generic[Submission]):
    """A parsed submit tab: what will count (None when nothing valid) and the messages.

    `parts` names each part of the submission (a key the game's resolver names it by in its
    `Fate`s: "bid", "gift 2") with the rows it was read from, so that what the resolver did with a
    part is told against the rows the player typed. A row the parser kept belongs to a part."""

    submission: Submission | None
    problems: tuple[Problem, ...] = ()
    kept: str = ""  # one line saying what will count as read, shown before the round is resolved
    parts: Mapping[str, tuple[RowRef, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Fate:
    """What the resolver did with one part of a player's submission: its own record, from which
    every "counted", "not counted" and "what counted" a player reads after the round is written
    (never from a second reading of what they typed).

    >>> Fate("bid", "bid 18 on Flavio", "you held 10 coins after the magicians shopped").told()
    'not counted: bid 18 on Flavio (you held 10 coins after the magicians shopped)'
    """

    part: str  # as the parser keys it in `Parsed.parts`
    what: str  # the part as the player reads it: "bid 18 on Flavio"
    refused: str = ""  # why it did not count; blank: it counted

    @property
    def counted(self) -> bool:
        return not self.refused

    def told(self) -> str:
        return f"counted: {self.what}" if self.counted else f"not counted: {self.what} ({self.refused})"


@dataclass
class Outcome(Generic[State]):
    """A resolved round: the new state, the audit log lines, and views computed on demand.

    Views are properties so the simulator, which never writes books, does not pay for them.
    """

    game: "Game"
    state: State
    log: list[str] = field(default_factory=list)
    # The resolver's record of each player's submission, part by part, made only when asked for.
    account: Callable[[], Mapping[str, Sequence[Fate]]] | None = field(default=None, repr=False)

    @cached_property
    def fates(self) -> dict[str, tuple[Fate, ...]]:
        """Player -> what the resolver did with each part of their submission (the default's,
        for a player without a valid one)."""
        return {p: tuple(f) for p, f in (self.account() if self.account else {}).items()}

    @cached_property
    def public(self) -> dict[str, pd.DataFrame]:
        return self.game.public_view(self.state)

    @cached_property
    def private(self) -> dict[str, dict[str, pd.DataFrame]]:
        return {p: self.game.private_view(self.state, p) for p in self.game.players(self.state)}


DEFAULT_FIRED = "default: "  # a summary's key for how often one of the rule text's defaults applied


def defaults_fired(counts: Mapping[str, float]) -> dict[str, float]:
    """A summary's counts of the rule text's defaults applied in a game, rule -> times, keyed so
    that `simulate` and `sweep` tell them from the game's other figures (every game's, this one way).

    >>> defaults_fired({"missed round": 2})
    {'default: missed round': 2.0}
    """
    return {f"{DEFAULT_FIRED}{rule}": float(n) for rule, n in counts.items()}


class Game(ABC, Generic[State, Submission]):
    """The interface a game package implements; nothing game-specific lives outside it."""

    name: ClassVar[str]  # the command-line name, e.g. "wind-guide-me"
    title: ClassVar[str]
    round_word: ClassVar[str] = "round"  # what the rule text calls a round ("day" in some games)
    match_type: ClassVar[str] = MAIN_MATCH  # the rule text's "Match Type": MM, or DM (a Death Match)
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int | None] = None  # as many as the rule text has; None: max_players
    data_tabs: ClassVar[tuple[TabSchema, ...]] = ()  # rules data the host fills in (templates/<name>/)
    state_tabs: ClassVar[tuple[TabSchema, ...]] = ()  # the state, host-editable, validated on read
    submit_tab: ClassVar[TabSchema]  # the columns of a player's submit tab (a game with one; see submit_tabs)
    frozen_tabs: ClassVar[tuple[str, ...]] = ()  # state tabs the host may edit only before round 1
    settings: ClassVar[tuple[Column, ...]] = ()  # game config keys; defaults in templates/<name>/config.csv
    # Settings the rules leave to the host and read only when they call for them (a tie's choice at
    # the end): typed at any time. Every other setting is fixed once round 1 is resolved (`history`).
    host_decisions: ClassVar[tuple[str, ...]] = ()
    # The standings column players are ranked by (higher or lower), whose spread `simulate` reports.
    score: ClassVar[str | None] = None

    def round_name(self, number: int) -> str:
        """Round `number` as players read it: "day 3"; a festival's first round is its pregame."""
        return f"{self.round_word} {number}"

    @abstractmethod
    def setup(self, players: Sequence[str], seed: int, config: Mapping[str, Any],
              data: Mapping[str, list[dict]]) -> State:
        """The state before round 1."""

    @abstractmethod
    def load(self, players: Sequence[str], tabs: Mapping[str, list[dict]], config: Mapping[str, Any],
             data: Mapping[str, list[dict]]) -> State:
        """The state from its validated tabs; raises SchemaErrors for inconsistent content."""

    @abstractmethod
    def dump(self, state: State) -> dict[str, list[dict]]:
        """The state as records per state tab (the inverse of `load`)."""

    @abstractmethod
    def players(self, state: State) -> list[str]:
        """Everyone who submits, in seating order."""

    @abstractmethod
    def round(self, state: State) -> int:
        """The round to be resolved next (1-based)."""

    @abstractmethod
    def is_over(self, state: State) -> bool: ...

    def submit_tabs(self, state: State, player: str) -> tuple[SubmitTab, ...]:
        """The tabs `player` types the submission for the round to be resolved next into, in the
        order the book shows them: the one `submit` tab, unless the game has several (a festival:
        one per event the player is in, a grid for a board)."""
        return (SubmitTab(self.submit_tab),)

    def every_submit_tab(self) -> tuple[SubmitTab, ...]:
        """Every submit tab any player has in any round: the archive keeps all their columns."""
        return (SubmitTab(self.submit_tab),)

    @property
    def several_submit_tabs(self) -> bool:
        """Whether rows, the archive and messages name a submit tab: not in a game with one, so
        its books read as they always have."""
        return len(self.every_submit_tab()) > 1

    def tab_key(self, name: str) -> str | None:
        """How rows of submit tab `name` are marked in the archive and in messages (None: not)."""
        return name if self.several_submit_tabs else None

    @abstractmethod
    def parse(self, state: State, player: str, rows: Sequence[SubmitRow], window: Window = Window()) -> Parsed[Submission]:
        """A player's submission as typed, dropping only what is invalid: the rows of all their
        submit tabs, each row's `tab` saying which (None in a game with one submit tab)."""

    @abstractmethod
    def how_to_submit(self, state: State, player: str) -> list[HowTo]:
        """What `player` needs to fill in their submit tabs this round, one idea a line, with this
        game's settings and examples made of this player's real options (their status tab shows
        it): one block, or one per event of a festival; none when they have nothing to submit."""

    def submit_choices(self, state: State, player: str, tab: str = "submit") -> dict[str, list[str]]:
        """Column of submit tab `tab` -> the values `player` may type there this round (their remaining stones,
        the sites they may use, the goods, the other players...): the tab's dropdowns. A dropdown
        helps; the parser still decides, so free text stays allowed."""
        return {}

    def palettes(self) -> tuple[Palette, ...]:
        """The game's colour rules (`layout.Palette`): what it colours (elements, meadows, piece
        types, in `layout.tint` of its pictures' colours), in which columns of which tabs alone."""
        return ()

    def submits(self, state: State, player: str) -> bool:
        """Whether `player` has anything to submit in the round to be resolved next (in some games
        a participant sits a round out)."""
        return True

    def nothing_due(self, state: State, player: str) -> str:
        """Why `player` has nothing to submit in the round to be resolved next (`submits` is
        False), in the game's words: their status tab and `check` say it of whatever they type
        then, which will not count. Empty: the game says no more than that nothing is due."""
        return ""

    @abstractmethod
    def default(self, state: State, player: str) -> Submission:
        """The rule text's submission for a player who submitted nothing valid."""

    @abstractmethod
    def resolve(self, state: State, submissions: Mapping[str, Submission | None],
                rng: random.Random) -> Outcome[State]:
        """Apply every submission together; None means the player submitted nothing valid."""

    @abstractmethod
    def public_view(self, state: State) -> dict[str, pd.DataFrame]: ...

    @abstractmethod
    def private_view(self, state: State, player: str) -> dict[str, pd.DataFrame]: ...

    @abstractmethod
    def bot(self, state: State, player: str, rng: random.Random) -> Submission:
        """A random legal submission (used by demo, simulate and the property tests)."""

    def bots(self) -> dict[str, Callable[[State, str, random.Random], Submission]]:
        """Strategy name -> bot, "random" first: `simulate` compares them (a festival's events
        have greedy bots as well)."""
        return {"random": self.bot}

    def stamped_column(self, state: State) -> str | None:
        """The submit column in which a row's time goes, which `watch` fills with the moment it
        first sees a row left without one (a game with time controls); None: the game has none."""
        return None

    def settled(self, state: State, player: str, rows: Sequence[SubmitRow], window: Window) -> datetime | None:
        """From when nothing `player` may still type changes what counts for them, under the
        game's time controls (`window.frozen`: now); None: the round's deadline decides."""
        return None

    def boundaries(self, state: State, player: str, opened: datetime) -> list[datetime]:
        """The moments, in a round opened at `opened`, at which what `player` types changes what it
        counts for under the game's time controls (a window's end, a reserve period's): `watch`
        reads the submit tabs at each, so that a row typed before one is stamped no later."""
        return []

    def soonest_boundary(self, state: State) -> timedelta | None:
        """The least time from a round's opening to its first boundary, for any round to come (None:
        no round has any): from a close on, `watch` keeps room for a poll then."""
        return None

    def host_todo(self, state: State) -> list[str]:
        """What the host still has to type before the round to be resolved next can be resolved
        (a festival's rankings of events hosted by hand); `check` prints it."""
        return []

    def host_bot(self, state: State, rng: random.Random) -> State:
        """The state once a bot host has typed what the rule text leaves to the host before the
        round to be resolved next (a festival's ranking of an event hosted by hand); `demo`
        writes what changed into the host book, as a host would."""
        return state

    @abstractmethod
    def submit_rows(self, submission: Submission) -> list[dict]:
        """How a submission is typed into the submit tab (bots type this way); in a game with
        several submit tabs each row's "tab" key names its tab."""

    @abstractmethod
    def standings(self, state: State) -> pd.DataFrame:
        """Final (or current) standings, best first."""

    @abstractmethod
    def announcement(self, before: State, after: State) -> str:
        """Discord-ready Markdown for the round just resolved (public information only)."""

    def groups(self, state: State) -> dict[str, tuple[str, ...]]:
        """Books shared by a group of players, 'kind:name' -> members (e.g. a meadow's guests)."""
        return {}

    def group_view(self, state: State, role: str) -> dict[str, pd.DataFrame]:
        """What the members of group `role` see together."""
        return {}

    def picture(self, state: State) -> bytes | None:
        """A PNG for the announcement (public information only), if the game has one."""
        return None

    def private_pictures(self, state: State) -> dict[str, bytes]:
        """Player -> a PNG for them alone after the round just resolved (their private
        information only), for the games that draw one; the host sends each to its player."""
        return {}

    def result(self, state: State) -> GameResult | None:
        """What the finished game gives beyond itself, as its rules decide it (`kit/result.py`):
        what a season settles into its ledger. None while the game is not over."""
        return None

    def summary(self, state: State) -> dict[str, float]:
        """Numbers about a finished game that `simulate` averages over many games; how often each
        of the rule text's defaults applied among them, keyed by `defaults_fired`."""
        return {}

    def check_config(self, config: Mapping[str, Any], players: Sequence[str]) -> list[str]:
        """Problems with game settings that a column schema cannot see (cross-field rules)."""
        return []
