"""The week between games: the decisions a finished Main Match leaves to its players, then the
Elimination Candidates' Death Match picks, in their pick order.

Everything here is derived from the season (its games' settled results) and its `decisions` rows,
an append-only log like the ledger: each ask as it opened (with its deadline), each answer read
from a player's book (counted or not, the typed text archived), and each ask's outcome (the
players' choice, or the season's default when nobody decided by the deadline). An outcome holds
while what it was asked under (its `basis`: the game's candidates, the choices) holds: a redo that
changes a game's candidates voids its picks, and they are asked again.

>>> from sheets_host.kit.result import MAIN_MATCH
>>> from .state import Settlement, SeasonSettings, SeasonGame, Season
>>> done = Settlement("2026-11-29 18:00", True, ("Ann",), ("Cy", "Bo"))
>>> mm = SeasonGame("1", "magicians-market", MAIN_MATCH, "g1", "xlsx", ("Ann", "Bo", "Cy", "Di"), 1, "t", settlement=done)
>>> season = Season("s", 1, ("Ann", "Bo", "Cy", "Di"), SeasonSettings(tiebreak=("Ann", "Bo", "Cy", "Di")), (mm,))
>>> [(a.key, a.players, a.choices) for a in week(season).asks]
[('pick 1', ('Cy',), ('Ann', 'Di'))]
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from sheets_host.kit.result import HOST, MAIN_MATCH, TOKEN, Owed
from .state import Season, SeasonGame

# What a `decisions` row is: an ask opened, a player's answer (counted or not), an outcome.
ASKED, ANSWERED, NOT_COUNTED, DECIDED, VOID = "asked", "answered", "not counted", "decided", "void"
HOWS = (ASKED, ANSWERED, NOT_COUNTED, DECIDED, VOID)
PICK = "pick"  # an ask's key is a game's config setting, or "pick N" (the Nth candidate's pick)
SEASON_DEFAULT = "the season's default"  # who decided, when nobody did by the deadline (`outcome`)


@dataclass(frozen=True)
class Decision:
    """One row of the `decisions` log. `key` is the game's setting decided (or "pick N"); `player`
    who was asked or who answered (an outcome: the players asked; its `note` says who decided: their
    choice, the host's, or the season's draw); `typed` what they typed, as typed."""

    number: int
    when: str
    game: str
    key: str
    player: str
    how: str
    choice: str = ""
    typed: str = ""
    note: str = ""
    basis: str = ""
    deadline: str = ""


@dataclass(frozen=True)
class Ask:
    """A decision the season asks of `players` now: game `game`'s `key` among `choices`, by
    `deadline`; `what` and `rule` in the rule text's words; `before` the picks made before this
    one, each (candidate, opponent)."""

    game: str
    key: str
    players: tuple[str, ...]
    what: str
    rule: str
    choices: tuple[str, ...]
    basis: str
    before: tuple[tuple[str, str], ...] = ()

    @property
    def is_pick(self) -> bool:
        return self.key.startswith(PICK)

    @property
    def yours(self) -> str:
        """What is decided, as the player asked reads it ("you decide ...")."""
        if self.is_pick:
            return f"your opponent in your Death Match (you are Elimination Candidate {self.key.split()[-1]})"
        return self.what


@dataclass(frozen=True)
class Week:
    """Where the week stands: the asks open now (asked or to ask), the outcomes decided whose game
    does not hold them yet, what waits for the host, and the Death Matches the picks made, in pick
    order (candidate, opponent)."""

    asks: tuple[Ask, ...] = ()
    to_apply: tuple[Decision, ...] = ()
    host: tuple[Ask, ...] = ()  # decisions the rules leave to the host (`season decide`)
    death_matches: tuple[tuple[str, str], ...] = ()
    picking: bool = False  # the last Main Match's picks are not all made
    picks: tuple[tuple[str, str], ...] = ()  # the picks that stand, made so far, in pick order


# The rule texts' words for each decision a result leaves to a player, by game and setting.
RULES = {
    ("magicians-market", "extra token of life"):
        "Magician's Market: \"the player with the most coins may grant one more Token of Life to another player who "
        "is not Elimination Candidate.\"",
    ("wind-guide-me", "elimination candidate"):
        "Wind Guide Me: \"If this score is tied, the winner(s) will determine who becomes the Elimination "
        "Candidate.\"",
    ("academy-of-witchcraft-arts", "candidate choice"):
        "The Academy: \"If this is still a tie and there is a sole winner, the sole winner selects the Elimination "
        "Candidate.\"",
    ("pyramid-superiority", "elimination candidate"):
        "Pyramid Superiority: \"(In case of a tie for all, pseud as the winner will choose the Elimination "
        "Candidate.)\"",
    ("pyramid-superiority", "red meadow cosmos"):
        "Pyramid Superiority: \"they may give 1 cosmos to the finalist of their choice. [...] These extra cosmos "
        "are optional; the winners may elect not to use them.\"",
    ("pyramid-superiority", "green meadow cosmos"):
        "Pyramid Superiority: \"they may give 1 cosmos to the finalist of their choice. [...] These extra cosmos "
        "are optional; the winners may elect not to use them.\"",
}
PICK_RULE = ("The season (as on The Genius): each Elimination Candidate, in pick order, picks an opponent for the "
             "Death Match, never a player protected by a Token of Life; the picked player is the Death Match "
             "Opponent, who wins Spirit Chain's tie.")


def digest(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, default=str, ensure_ascii=False).encode()).hexdigest()[:12]


def deadline(opened: str, hours: float) -> str:
    from sheets_host.engine.host import parse_time, stamp
    return stamp(parse_time(opened, "decisions") + timedelta(hours=hours))


def drawn(season: Season, ask: Ask) -> str:
    """The season's default choice for an ask nobody decided: drawn from the season's seed and the
    ask alone (never from anyone's answer), so it is the same however often it is drawn."""
    return random.Random(f"sheets-host season/{season.seed}/game {ask.game}/{ask.key}/{ask.basis}").choice(
        sorted(ask.choices))


def outcome(season: Season, ask: Ask, answers: Sequence[Decision], past_deadline: bool) -> tuple[str, str] | None:
    """(choice, who decided) once `ask` is decided: every player answered the same; at the deadline,
    the choice most of those who answered named (a tie drawn among them), or the season's default
    when nobody answered; None while it waits."""
    latest = {a.player: a.choice for a in answers if a.how == ANSWERED}
    named = [latest[p] for p in ask.players if p in latest]
    if len(named) == len(ask.players) and len(set(named)) == 1:
        return named[0], " and ".join(ask.players)
    if not past_deadline:
        return None
    if not named:
        return drawn(season, ask), SEASON_DEFAULT
    counts = {c: named.count(c) for c in named}
    most = sorted(c for c, n in counts.items() if n == max(counts.values()))
    choice = random.Random(f"sheets-host season/{season.seed}/game {ask.game}/{ask.key}/{ask.basis}/most").choice(most)
    return choice, f"most of {' and '.join(ask.players)} (by the deadline)"


def owed_of(game: SeasonGame) -> tuple[Owed, ...]:
    return game.settlement.owed_decisions if game.settlement and game.settlement.over else ()


def week(season: Season) -> Week:
    """The week after the last Main Match, as the season and its `decisions` rows stand."""
    main = season.last(MAIN_MATCH)
    if main is None:
        return Week()
    rows = [d for d in season.decisions if d.game == main.number]
    outcomes = {(d.key, d.basis): d for d in rows if d.how == DECIDED}
    voided = {d.basis for d in rows if d.how == VOID}
    asks, to_apply, host = [], [], []
    for owed in owed_of(main):
        ask = Ask(main.number, owed.setting, owed.players, owed.what, RULES.get((main.game, owed.setting), owed.what),
                  owed.choices, digest(main.number, owed.setting, owed.players, owed.choices))
        done = outcomes.get((ask.key, ask.basis))
        if done:
            to_apply.append(done)
        elif owed.players == (HOST,):
            host.append(ask)
        else:
            asks.append(ask)
    if asks or to_apply or host:
        return Week(tuple(asks), tuple(to_apply), tuple(host), picking=True)
    return _picks(season, main, rows, outcomes, voided)


def host_words(ask: Ask) -> str:
    """What a decision the rules leave to the host asks of them, and how to answer it."""
    return (f"game {ask.game}: {ask.what}, among {', '.join(ask.choices)}: sheets-host season decide SEASON "
            f"{ask.game} '{ask.key}' CHOICE")


def _picks(season: Season, main: SeasonGame, rows: Sequence[Decision], outcomes: dict, voided: set[str]) -> Week:
    """The candidates' picks, one after another in pick order, each seeing those before it."""
    candidates = main.settlement.candidates
    after = season.games[[g.number for g in season.games].index(main.number) + 1:]
    if any(g.match == MAIN_MATCH for g in after):
        return Week()
    made: list[tuple[str, str]] = []
    for k, candidate in enumerate(candidates, 1):
        key = f"{PICK} {k}"
        again = sum(1 for d in rows if d.key == key and d.how == VOID)
        basis = digest(main.number, candidates, k, again)
        done = outcomes.get((key, basis))
        if done and basis not in voided:
            made.append((candidate, done.choice))
            continue
        if candidate not in season.candidates_owed():
            continue  # eliminated since, or given a Death Match by hand
        choices = eligible(season, candidates, made)
        ask = Ask(main.number, key, (candidate,), f"the Death Match Opponent of Elimination Candidate {k}", PICK_RULE,
                  choices, basis, tuple(made))
        return Week((ask,), picking=True, picks=tuple(made))
    return Week(death_matches=tuple(made), picks=tuple(made))


def eligible(season: Season, candidates: Sequence[str], made: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """Who a candidate may pick: a player still in, not an Elimination Candidate (each plays their
    own Death Match), holding no Token of Life, and not picked already unless the season allows one
    player in two Death Matches. Ruling (docs/season.md): when that leaves nobody, the protection
    gives way before the rule that each is picked once, and then both."""
    picked = {o for _, o in made}
    pool = [p for p in season.still_in if p not in candidates]
    twice = season.settings.twice_picked
    for tiers in ((True, not twice), (False, not twice), (False, False)):
        protect, once = tiers
        out = tuple(p for p in pool if not (protect and season.held(p, TOKEN) > 0) and not (once and p in picked))
        if out:
            return out
    return ()


def pending_death_match(season: Season, wk: Week) -> tuple[str, str] | None:
    """The next Death Match the picks made that is not yet a game: the first in pick order whose
    candidate is still owed one."""
    owed = season.candidates_owed()
    return next(((c, o) for c, o in wk.death_matches if c in owed), None)


def asked_of(season: Season, player: str) -> list[tuple[Ask, str, Decision | None]]:
    """What the season asks of `player` now, each with its deadline (once asked) and their last
    answer read (None: nothing typed yet), counted or not."""
    out = []
    for ask in week(season).asks:
        if player in ask.players:
            rows = [d for d in season.decisions if (d.game, d.key, d.basis) == (ask.game, ask.key, ask.basis)]
            asked = next((d for d in rows if d.how == ASKED), None)
            last = next((d for d in reversed(rows) if d.player == player and d.how in (ANSWERED, NOT_COUNTED)), None)
            if asked is not None:
                out.append((ask, asked.deadline, last))
    return out
