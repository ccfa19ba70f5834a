"""`sheets-host season demo FOLDER`: a whole short season played by bots through real books, from
`season new` to its last game, every handover made by `season step` (`steps.step`) alone.

The cast is eight bots (docs/season.md, "The season demo", says why eight): the plan is the
Academy (eight players), Wind Guide Me (exactly seven: one left after the Academy's Death Match),
Magician's Market (six: its three Elimination Candidates leave three) and Pyramid Superiority
(those three in the Blue Meadow, the three eliminated last in the Red, three spectator bots in the
Green), each Main Match followed by the Death Matches (Spirit Chain) its candidates' picks make,
the last one the season's final. Every game of the tool is played.

The loop: a step; a game open is played to its end by bots (`engine.play.play_out`); each open ask
(a decision, a Death Match pick) is answered by its bot in the ask tab of their own book, as a
person types: a seeded choice among the ask's choices, sometimes untidy, sometimes first a choice
the season refuses, sometimes never (the deadline's default is then used: the demo clock moves
past the deadline when nobody will type more). A decision the rules leave to the host (a tie the
game cannot break) is typed into the game's config by the demo's bot host, as `engine.play`'s
bot host types the rankings of events hosted by hand. The same seed plays the same season.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sheets_host.backends import Backend
from sheets_host.engine.given import give_decision
from sheets_host.engine.host import open_session, parse_time
from sheets_host.engine.play import bot_names, play_out, untidy
from sheets_host.kit.errors import SchemaErrors, SheetsHostError
from sheets_host.kit.result import HOST, MAIN_MATCH
from . import commands, steps
from .asking import CHOICE, ask_layout, tab_of
from .record import SeasonVerified, load_season_record, verify_season, write_season_record
from .state import Planned, Season
from .week import ASKED, Ask, owed_of, week

START = datetime(2026, 11, 23, 18, 0, tzinfo=timezone.utc)  # the demo clock's first moment
CAST = 8
PLAN = ("academy-of-witchcraft-arts", "wind-guide-me", "magicians-market", "pyramid-superiority")
# Short games, so that a whole season plays in about a minute (Pyramid Superiority's fifteen days
# are its rule text's: no setting shortens them).
SHORT = {"academy-of-witchcraft-arts": {"rounds": "1"}, "wind-guide-me": {"rounds": "2"},
         "magicians-market": {"days": "2"}, "pyramid-superiority": {}}
DUEL = {"max cycles": "1", "time controls": "no"}  # Spirit Chain: one summoning, no clock to run
# How a bot answers an ask: (share of asks, what it does).
SILENT, REFUSED_FIRST, ANSWERS = "silent", "refused first", "answers"
WAYS = ((0.2, SILENT), (0.2, REFUSED_FIRST), (0.6, ANSWERS))
STEPS = 400  # a season of ten games takes about a hundred; more is a demo that no longer moves on


class DemoClock:
    """The demo's time: it moves on an hour a step, and past a deadline when nobody will answer."""

    def __init__(self, start: datetime = START):
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def move(self, to: datetime) -> None:
        self.now = max(self.now, to)


@dataclass
class DemoReport:
    season: Season
    record: Path
    verified: SeasonVerified

    @property
    def passed(self) -> bool:
        return all(c.ok for c in self.verified.checks)


def green() -> tuple[str, ...]:
    """Pyramid Superiority's Green Meadow: three spectator bots, not of the cast."""
    return tuple(bot_names(CAST + 3)[CAST:])


def demo(backend: Backend, open_game: commands.OpenGame, seed: int, record: Path,
         place: steps.Place = steps.folder_place, say: Callable[[str], None] = print, clock: DemoClock | None = None,
         force: bool = False, plan: tuple[str, ...] = PLAN, players: int = CAST) -> DemoReport:
    """The season made, played to its end, its record written to `record` and verified. `force`:
    a season already there is replaced, its games' books removed too; `plan` and `players`: the
    Main Matches and the cast's size (a shorter season, for a test)."""
    clock = clock or DemoClock()
    names = bot_names(players)
    if force:
        _discard_games(backend, open_game)
    commands.new_season(backend, "Demo", names, seed, clock=clock, force=force)
    steps.plan(backend, [Planned(g, green=green() if g == "pyramid-superiority" else (), own=SHORT[g]) for g in plan],
               death_matches=DUEL)
    say(f"season 'Demo' for {', '.join(names)} (seed {seed}); the plan: {', '.join(plan)}")
    play_season(backend, open_game, seed, place, say, clock)
    season = commands.read(backend)
    write_season_record(backend, open_game, record, clock=clock)
    verified = verify_season(load_season_record(record))
    failed = sum(not c.ok for c in verified.checks)
    say(f"season record written to {record}; season verify: {len(verified.checks) - failed} check(s) passed, "
        f"{failed} failed")
    return DemoReport(season, record, verified)


def _discard_games(backend: Backend, open_game: commands.OpenGame) -> None:
    """The books of the games of a season already at `backend` (`new --force` removes only the
    season's own): a game left there would be taken for the new season's game of its number."""
    try:
        there = commands.read(backend)
    except (SheetsHostError, SchemaErrors):
        return  # no season there
    for g in there.games:
        game_backend = open_game(g)
        with game_backend.hold("season demo --force"):
            game_backend.discard()


def play_season(backend: Backend, open_game, seed: int, place: steps.Place, say: Callable[[str], None],
                clock: DemoClock) -> None:
    """Steps until the season has nothing more to do, saying what each did."""
    bots = Bots(seed, open_game)
    for _ in range(STEPS):
        clock.move(clock() + timedelta(hours=1))
        report = steps.step(backend, open_game, clock, place)
        _tell(report, say)
        for problem in report.problems:
            if bots.refused(problem):
                say(f"refused: {problem}")
        unexpected = [p for p in report.problems if not bots.refused(p)]
        if unexpected:
            raise SheetsHostError("the season demo stopped: " + "; ".join(unexpected))
        season = commands.read(backend)
        if report.host:
            if not _host_decides(season, open_game, seed, clock, say):
                raise SheetsHostError("the season demo stopped: it waits for the host: " + "; ".join(report.host))
            continue
        playing = next((g for g in season.games if not (g.settlement and g.settlement.over)), None)
        if playing is not None:
            rounds: list[str] = []
            play_out(open_game(playing), playing.seed, say=rounds.append, clock=clock)
            say(f"game {playing.number} ({playing.game}, {', '.join(playing.players)}): played to its end by bots, "
                f"{len(rounds)} round(s)")
            continue
        asks = _asked(season)
        if asks:
            if not bots.answer(season, asks, say):  # nobody will type more: the deadline passes
                clock.move(min(parse_time(d, "decisions") for _, d in asks) + timedelta(minutes=1))
                say(f"the demo clock moves past the deadline: {clock().strftime('%Y-%m-%d %H:%M')} UTC")
            continue
        if not (report.lines or report.made or report.decided):
            return
    raise SheetsHostError(f"the season demo did not end within {STEPS} steps")


def _tell(report: steps.StepReport, out: Callable[[str], None]) -> None:
    """What the step made, asked and decided, a short line each."""
    for d in report.decided:
        out(f"decided (game {d.game}): {d.key} = {d.choice} ({d.note})")
    for line in report.lines:
        out(line)
    for ask in report.asked:
        out(f"asked {' and '.join(ask.players)} (game {ask.game}): {ask.what}; among {', '.join(ask.choices)}")


def _asked(season: Season) -> list[tuple[Ask, str]]:
    """Each ask open now that the season has asked, with its deadline."""
    out = []
    for ask in week(season).asks:
        asked = next((d for d in season.decisions if (d.game, d.key, d.basis, d.how) ==
                      (ask.game, ask.key, ask.basis, ASKED)), None)
        if asked is not None:
            out.append((ask, asked.deadline))
    return out


class Bots:
    """The cast's (and the spectators') answers to the asks, each a seeded way of answering."""

    def __init__(self, seed: int, open_game):
        self.seed, self.open_game = seed, open_game
        self.typed: dict[tuple[str, str, str, str], str] = {}  # (game, key, basis, player) -> what was typed
        self.invalid: set[tuple[str, str]] = set()  # (player, tab) typed a choice the season refuses

    def rng(self, ask: Ask, player: str) -> random.Random:
        return random.Random(f"sheets-host season demo/{self.seed}/{ask.game}/{ask.key}/{ask.basis}/{player}")

    def way(self, ask: Ask, player: str) -> str:
        draw, total = self.rng(ask, player).random(), 0.0
        for share, way in WAYS:
            total += share
            if draw < total:
                return way
        return ANSWERS

    def answer(self, season: Season, asks, out: Callable[[str], None]) -> bool:
        """Each bot types what it types next into its ask tab; whether anyone typed."""
        self.invalid.clear()
        typed_any = False
        for ask, _ in asks:
            for player in ask.players:
                typed = self._next(season, ask, player)
                if typed is None:
                    continue
                self._type(season, ask, player, typed)
                typed_any = True
                out(f"{player} types {typed!r} into the {tab_of(ask)} tab of game {ask.game}")
        return typed_any

    def _next(self, season: Season, ask: Ask, player: str) -> str | None:
        key = (ask.game, ask.key, ask.basis, player)
        way, before = self.way(ask, player), self.typed.get(key)
        if way == SILENT or (before is not None and before != "refused"):
            return None
        rng = self.rng(ask, player)
        if way == REFUSED_FIRST and before is None:
            wrong = [p for p in (*season.cast, *season.game(ask.game).players) if p not in ask.choices]
            self.typed[key] = "refused"
            self.invalid.add((player, tab_of(ask)))
            return rng.choice(sorted(set(wrong))) if wrong else "nobody"
        self.typed[key] = "answered"
        return str(untidy(rng.choice(ask.choices), rng))

    def _type(self, season: Season, ask: Ask, player: str, typed: str) -> None:
        """Typed into the choice cell of the player's ask tab, its dropdown and shading kept."""
        game_backend = self.open_game(season.game(ask.game))
        open_session(game_backend)  # it learns where the game's books are (on Google, from its host book)
        book = game_backend.book(f"player:{player}")
        frame = book.read([tab_of(ask)])[tab_of(ask)].copy()
        frame.loc[frame.index[0], CHOICE] = typed
        book.write({tab_of(ask): frame}, layouts={tab_of(ask): ask_layout(frame, ask, True)})

    def refused(self, problem: str) -> bool:
        """Whether a step's problem is the refusal of a choice a bot typed wrong on purpose."""
        return any(f"{player}'s {tab}: " in problem and "is not one of the choices" in problem
                   for player, tab in self.invalid)


def _host_decides(season: Season, open_game, seed: int, clock: DemoClock, out: Callable[[str], None]) -> bool:
    """The demo's bot host types the first decision the rules leave to the host into the game's
    config (a seeded choice), and the game's last round is resolved again, as a host would; the
    next step settles it (a tie winner given may owe the next decision to that player)."""
    main = season.last(MAIN_MATCH)
    for owed in owed_of(main):
        if owed.players != (HOST,):
            continue
        rng = random.Random(f"sheets-host season demo/{seed}/host/{main.number}/{owed.setting}")
        backend = open_game(main)
        value = (_market_order(open_session(backend, clock).state.now.coins, rng)
                 if owed.setting == "elimination candidates" else rng.choice(owed.choices))
        give_decision(backend, owed.setting, value, "the season demo's bot host", clock)
        out(f"game {main.number} ({main.game}): the bot host decides {owed.what}: {value}")
        return True
    return False


def _market_order(coins, rng: random.Random) -> str:
    """Magician's Market's Elimination Candidates in order when coins tie: each tie's players drawn
    into its places (the host's word in the rule text), number 1 first.

    >>> _market_order({"Ada": 1, "Bo": 5, "Cy": 5, "Di": 5, "Ed": 9}, random.Random(1)).endswith(", Ada")
    True
    """
    from sheets_host.games.magicians_market.rules import elimination_candidates

    numbered, ties = elimination_candidates(coins)
    for tie in ties:
        drawn = rng.sample(list(tie.players), len(tie.places))
        numbered |= dict(zip(drawn, tie.places))
    return ", ".join(sorted(numbered, key=numbered.get))
