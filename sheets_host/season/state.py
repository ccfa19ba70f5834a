"""A season as a value: its cast, settings, games and ledger; everything else is derived from them.

Who is still in, who was eliminated in which game, what each player holds, the previous Main
Match's winner and the Elimination Candidates owed a Death Match are all read off the ledger and
the games' settled results, never kept a second time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from sheets_host.kit.result import ARTEFACTS, DEATH_MATCH, ELIMINATION, GARNET, MAIN_MATCH, Change, GameResult, Owed
from .ledger import Entry, balance

# "what becomes of an eliminated player's garnets"
GARNETS_REMOVED, GARNETS_TO_WINNER = "removed", "to the winner"
# "how long a Token of Life protects"
TOKEN_NEXT_PICKS, TOKEN_SEASON = "next death match picks", "the season"
# "when nobody decides by the deadline": the season draws among the choices, or waits for the host
PICKS_DRAWN, PICKS_BY_HOST = "drawn", "the host decides"


@dataclass(frozen=True)
class SeasonSettings:
    starting_garnets: int = 0
    tiebreak: tuple[str, ...] = ()  # the whole cast, best first
    eliminated_garnets: str = GARNETS_REMOVED
    garnets_public: bool = False
    token_lasts: str = TOKEN_NEXT_PICKS
    decision_hours: float = 24.0
    picks_default: str = PICKS_DRAWN
    twice_picked: bool = False  # one player may be picked for two Death Matches
    death_match: Mapping[str, str] = field(default_factory=dict)  # the host's settings for each Death Match made


@dataclass(frozen=True)
class Settlement:
    """A game's result as the season last settled it: what later games are made from."""

    at: str  # when
    over: bool  # False: settled while not over (its rows withdrawn)
    winners: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()
    loser: str | None = None
    owed_decisions: tuple[Owed, ...] = ()  # each decision still owed

    @property
    def owed(self) -> tuple[str, ...]:
        """Each decision still owed, in words."""
        return tuple(f"{' and '.join(o.players)}: {o.what} (config '{o.setting}')" for o in self.owed_decisions)


@dataclass(frozen=True)
class SeasonGame:
    """A game of the season: its number, which game, where its books are, who plays, and what it
    was given from the season (setting -> value as given), made from the ledger's rows 1 to
    `made_after` (the rows written before it: a season's record checks what it was given from them)."""

    number: str
    game: str
    match: str
    where: str
    backend: str
    players: tuple[str, ...]
    seed: int
    made: str
    given: Mapping[str, str] = field(default_factory=dict)
    settlement: Settlement | None = None
    own: Mapping[str, str] = field(default_factory=dict)  # the host's own settings for it (`--set`)
    made_after: int = 0


@dataclass(frozen=True)
class Planned:
    """A Main Match the host has planned: which game, where its books go ("" for the season's own
    place for it), and what `season next` would be told (players, meadows, the host's settings)."""

    game: str
    where: str = ""
    players: tuple[str, ...] = ()
    red: tuple[str, ...] = ()
    green: tuple[str, ...] = ()
    own: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Season:
    name: str
    seed: int
    cast: tuple[str, ...]
    settings: SeasonSettings
    games: tuple[SeasonGame, ...] = ()
    entries: tuple[Entry, ...] = ()
    emails: Mapping[str, str] = field(default_factory=dict)
    decisions: tuple = ()  # the `decisions` log (week.Decision), oldest first
    plan: tuple[Planned, ...] = ()  # the Main Matches planned, in order, those made included

    def held(self, player: str, what: str) -> int:
        return balance(self.entries, player, what)

    @cached_property
    def eliminated(self) -> dict[str, str]:
        """Player -> the number of the game that eliminated them, in order of elimination."""
        out: dict[str, str] = {}
        for e in self.entries:
            if e.what == ELIMINATION and self.held(e.player, ELIMINATION) > 0 and e.amount > 0:
                out.setdefault(e.player, e.game)
        return out

    @property
    def still_in(self) -> tuple[str, ...]:
        return tuple(p for p in self.cast if p not in self.eliminated)

    def game(self, number: str) -> SeasonGame:
        return next(g for g in self.games if g.number == number)

    def next_number(self) -> str:
        return str(len(self.games) + 1)

    def last(self, match: str, before: str | None = None) -> SeasonGame | None:
        """The latest game of `match` that is over (before game `before`, if given)."""
        games = self.games if before is None else self.games[:[g.number for g in self.games].index(before)]
        return next((g for g in reversed(games) if g.match == match and g.settlement and g.settlement.over), None)

    def previous_winner(self) -> str | None:
        """The previous Main Match's winner: its sole winner, or the first of its winners in the
        Gamewide Tiebreak (ruling: docs/season.md)."""
        last = self.last(MAIN_MATCH)
        if not last or not last.settlement.winners:
            return None
        winners = last.settlement.winners
        return min(winners, key=lambda p: self.settings.tiebreak.index(p) if p in self.settings.tiebreak else len(self.cast))

    def holders(self, artefact: str) -> tuple[str, ...]:
        assert artefact in ARTEFACTS
        return tuple(p for p in self.still_in if self.held(p, artefact) > 0)

    def garnets(self) -> dict[str, int]:
        return {p: self.held(p, GARNET) for p in self.cast}

    def candidates_owed(self) -> tuple[str, ...]:
        """The last Main Match's Elimination Candidates still in and not yet in a Death Match since."""
        last = self.last(MAIN_MATCH)
        if not last:
            return ()
        after = self.games[[g.number for g in self.games].index(last.number) + 1:]
        played = {p for g in after if g.match == DEATH_MATCH for p in g.players}
        return tuple(p for p in last.settlement.candidates if p in self.still_in and p not in played)

    def with_games(self, games: Sequence[SeasonGame]) -> Season:
        return replace(self, games=tuple(games))

    def with_entries(self, entries: Sequence[Entry]) -> Season:
        return replace(self, entries=tuple(self.entries) + tuple(entries))

    def with_decisions(self, decisions: Sequence) -> Season:
        return replace(self, decisions=tuple(self.decisions) + tuple(decisions))



def result_changes(season: Season, number: str, result: GameResult) -> list[Change]:
    """What game `number`'s result writes to the ledger (`settle`, and a season's record
    recomputed): the changes of the cast's players (a Pyramid's spectators are not of it), then
    what becomes of the eliminated players' garnets, by the season's setting."""
    out = [c for c in result.changes if c.player in season.cast]
    for loser in result.eliminated:
        held = sum(e.amount for e in season.entries if e.player == loser and e.what == GARNET and e.game != number)
        if held <= 0:
            continue
        if season.settings.eliminated_garnets == GARNETS_TO_WINNER and result.winners:
            why = "eliminated: their garnets go to the Death Match's winner (season setting 'garnets of the eliminated')"
            out += [Change(loser, GARNET, -held, why), Change(result.winners[0], GARNET, held, why)]
        else:
            out.append(Change(loser, GARNET, -held, "eliminated: their garnets are removed (season setting "
                                                     "'garnets of the eliminated')"))
    return out
