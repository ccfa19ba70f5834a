"""What a finished game gives beyond itself, as its own rules decide it: a typed value a season
reads (`Game.result`), never parsed from an announcement's text.

Every rule text reaches outside its game: Tokens of Life, garnets, cosmos and artefacts change
hands, Elimination Candidates are numbered for the Death Matches to come, a Death Match's loser
leaves. A `GameResult` holds each such change as a `Change` (who, what, how many, and why in the
rule text's words), the game's winners, its candidates in pick order, a Death Match's winner and
loser, and the decisions the rules leave to a named player that are still to be made (`Owed`).

>>> ann = Change("Ann", TOKEN, 2, "the sole winner earns two Tokens of Life")
>>> done = GameResult(MAIN_MATCH, ("Ann", "Bo", "Cy"), ("Ann",), (ann,), candidates=("Cy",))
>>> done.earned("Ann", TOKEN), done.earned("Bo", TOKEN)
(2, 0)
>>> GameResult(DEATH_MATCH, ("Ann", "Bo"), ("Ann",), (Change("Bo", ELIMINATION, 1, "lost the Death Match"),),
...            loser="Bo").eliminated
('Bo',)
"""

from __future__ import annotations

from dataclasses import dataclass

MAIN_MATCH, DEATH_MATCH = "Main Match", "Death Match"
MATCHES = (MAIN_MATCH, DEATH_MATCH)

# What a change is of, in the rule texts' words. An artefact is named as its rule text names it.
TOKEN, GARNET, COSMOS = "Token of Life", "garnet", "cosmos"
POWER_OF_LIGHT, POWER_OF_DARK = "Power of Light", "Power of Dark"
ARTEFACTS = (POWER_OF_LIGHT, POWER_OF_DARK)
ELIMINATION, GUEST = "elimination", "guest"
THINGS = (TOKEN, GARNET, COSMOS, *ARTEFACTS, ELIMINATION, GUEST)


@dataclass(frozen=True)
class Change:
    """One change a game made to what a player holds or is: `amount` of `what` (negative: spent,
    used, given up), `why` in the rule text's words ("For every 100 coins you have at the end of
    the match, you will obtain 1 garnet": "312 coins at the end: 1 garnet per 100 coins")."""

    player: str
    what: str
    amount: int
    why: str

    def __post_init__(self) -> None:
        if self.what not in THINGS:
            raise ValueError(f"a change of {self.what!r}: one of {', '.join(THINGS)}")
        if self.amount == 0:
            raise ValueError(f"a change of 0 {self.what} for {self.player}: say nothing instead")


HOST = "the host"  # who decides what the rules leave to no player (Magician's Market's tied candidates)


@dataclass(frozen=True)
class Owed:
    """A decision the rules leave to named players that is still to be made: `players` (together;
    `HOST` where the rules name none) choose `what` among `choices`; until a later issue collects
    it from their books, the host types it into the game's config under `setting`, as today."""

    players: tuple[str, ...]
    what: str  # in the rule text's words: "one more Token of Life", "the Elimination Candidate"
    choices: tuple[str, ...]
    setting: str


@dataclass(frozen=True)
class GameResult:
    """A finished game as a season reads it.

    `players` are those who played for the season (a Pyramid's guests are not among them; their
    part is in `changes` as `GUEST`); `winners` best first; `candidates` the Elimination
    Candidates in pick order (number 1 first); `winner` and `loser` a Death Match's. A decision
    still `owed` leaves out what it would give: the result changes once it is made."""

    match: str
    players: tuple[str, ...]
    winners: tuple[str, ...]
    changes: tuple[Change, ...]
    candidates: tuple[str, ...] = ()
    loser: str | None = None
    owed: tuple[Owed, ...] = ()

    def __post_init__(self) -> None:
        if self.match not in MATCHES:
            raise ValueError(f"a result of a {self.match!r}: one of {', '.join(MATCHES)}")
        if (self.loser is not None) != (self.match == DEATH_MATCH):
            raise ValueError("a Death Match, and only a Death Match, has a loser")
        if self.loser is not None and self.eliminated != (self.loser,):
            raise ValueError(f"a Death Match's loser leaves the season: one change of {ELIMINATION} for {self.loser}")

    def earned(self, player: str, what: str) -> int:
        """The sum of `player`'s changes of `what` in this game."""
        return sum(c.amount for c in self.changes if c.player == player and c.what == what)

    @property
    def eliminated(self) -> tuple[str, ...]:
        """Who leaves the season with this game."""
        return tuple(c.player for c in self.changes if c.what == ELIMINATION and c.amount > 0)
