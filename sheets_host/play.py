"""Games played by bots: `simulate` in memory (the benchmark) and `demo` through real books.

The bots are the games' own `bot` functions, the same ones the property tests use.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import engine
from .backends import Backend
from .game import Game, rng_for
from .games import get_game

BOT_NAMES = ("Ada", "Blaise", "Cora", "Dmitri", "Emmy", "Felix", "Grace", "Hedy", "Isaac", "Jun",
             "Kurt", "Lise", "Max", "Noether", "Olga", "Paul", "Quinn", "Rosa", "Srini", "Tess")


def bot_names(count: int) -> list[str]:
    return list(BOT_NAMES[:count])


def default_settings(game: Game) -> dict[str, Any]:
    """The game's template settings, typed, as the engine would read them."""
    import pandas as pd

    data_frames, defaults = engine.template(game)
    frame = engine.reindex(pd.DataFrame([{"key": k, "value": v} for k, v in
                                          {"game": game.name, "seed": 0, **defaults}.items()]))
    config = engine.read_config(frame, game)
    data = {s.name: s.records(engine.reindex(data_frames[s.name])) for s in game.data_tabs}
    return {"config": config, "data": data}


def play_in_memory(game: Game, players: Sequence[str], seed: int, config: Mapping, data: Mapping) -> Any:
    """One whole game by bots, no books: returns the final state."""
    state = game.setup(players, seed, config, data)
    while not game.is_over(state):
        r = game.round(state)
        subs = {p: game.bot(state, p, rng_for(seed, r, f"bot/{p}")) for p in game.players(state)}
        state = game.resolve(state, subs, rng_for(seed, r, "resolve")).state
    return state


@dataclass
class SimulationReport:
    game: str
    games: int
    seconds: float
    averages: dict[str, float]
    wins: dict[str, int]

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    def as_dict(self) -> dict:
        return {"game": self.game, "games": self.games, "seconds": round(self.seconds, 3),
                "games_per_second": round(self.games_per_second, 1),
                "games_per_minute": round(self.games_per_second * 60), "averages": self.averages,
                "wins_by_seat": self.wins}


def simulate(game_name: str, games: int, seed: int, players: int | None = None,
             timer: Callable[[], float] = time.perf_counter) -> SimulationReport:
    game = get_game(game_name)
    names = bot_names(players or game.default_players or game.max_players)
    defaults = default_settings(game)
    summaries: list[dict[str, float]] = []
    wins = {n: 0 for n in names}
    start = timer()
    for i in range(games):
        state = play_in_memory(game, names, seed + i, defaults["config"], defaults["data"])
        summaries.append(game.summary(state))
        standings = game.standings(state)
        for name in standings[standings["rank"] == 1]["player"]:
            wins[name] += 1
    seconds = timer() - start
    keys = sorted({k for s in summaries for k in s})
    averages = {k: round(statistics.fmean(s[k] for s in summaries if k in s), 3) for k in keys}
    return SimulationReport(game.name, games, seconds, averages, wins)


def bots_submit(backend: Backend, session: engine.Session, seed: int, messy: bool = True) -> None:
    """Each bot types its submission into its own submit tab, sometimes with human untidiness."""
    import pandas as pd

    game, state = session.game, session.state
    r = game.round(state)
    for player in game.players(state):
        rng = rng_for(seed, r, f"bot/{player}")
        rows = game.submit_rows(game.bot(state, player, rng))
        if messy:
            rows = [{k: _untidy(v, rng) for k, v in row.items()} for row in rows]
        frame = pd.DataFrame(rows, columns=game.submit_tab.header, dtype=object)
        backend.book(f"player:{player}").write({"submit": frame})


def _untidy(value: object, rng) -> object:
    """Stray spaces and odd case, as people type: the engine must read these all the same."""
    if value is None or rng.random() < 0.6:
        return value
    text = str(value)
    return rng.choice([f" {text} ", text.upper(), f"{text}  ", text.title()])


def demo(game_name: str, backend: Backend, seed: int, players: int | None = None,
         say: Callable[[str], None] = print, clock: engine.Clock = engine.now_utc,
         force: bool = False) -> engine.ResolveReport:
    """A whole game by bots through real books: new, then for each round submit, check, resolve."""
    game = get_game(game_name)
    names = bot_names(players or game.default_players or game.max_players)
    engine.new_game(backend, game.name, names, seed, clock=clock, force=force)
    say(f"{game.title}: new game for {', '.join(names)} (seed {seed})")
    while True:
        session = engine.open_session(backend, clock)
        bots_submit(backend, session, seed)
        checked = engine.check(backend, clock)
        problems = sum(len(r.parsed.problems) for r in checked.readings.values())
        report = engine.resolve(backend, early=True, clock=clock)
        say(f"round {report.round}: resolved ({problems} problem(s) found by check)")
        if report.over:
            return report


@dataclass
class BenchReport:
    game: str
    players: int
    resolve_seconds: list[float]

    def as_dict(self) -> dict:
        return {"game": self.game, "players": self.players, "rounds": len(self.resolve_seconds),
                "mean_resolve_seconds": round(statistics.fmean(self.resolve_seconds), 3),
                "max_resolve_seconds": round(max(self.resolve_seconds), 3)}


def bench(game_name: str, folder, seed: int = 1, players: int | None = None,
          timer: Callable[[], float] = time.perf_counter) -> BenchReport:
    """Time every `resolve` of a bot game on offline books (submissions typed beforehand)."""
    from .backends.xlsx import XlsxBackend

    game = get_game(game_name)
    backend = XlsxBackend(folder)
    names = bot_names(players or game.default_players or game.max_players)
    engine.new_game(backend, game.name, names, seed)
    seconds = []
    while True:
        bots_submit(backend, engine.open_session(backend), seed)
        start = timer()
        report = engine.resolve(backend, early=True)
        seconds.append(timer() - start)
        if report.over:
            return BenchReport(game.name, len(names), seconds)
