"""Games played by bots: `simulate` in memory (the benchmark) and `demo` through real books.

The bots are the games' own `bot` functions, the same ones the property tests use.
"""

from __future__ import annotations

import collections
import functools
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sheets_host.backends import Backend
from sheets_host.games import get_game
from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.game import DEFAULT_FIRED, Game, rng_for
from . import commands as engine
from .workers import Batch, runner, split

BOT_NAMES = ("Ada", "Blaise", "Cora", "Dmitri", "Emmy", "Felix", "Grace", "Hedy", "Isaac", "Jun",
             "Kurt", "Lise", "Max", "Noether", "Olga", "Paul", "Quinn", "Rosa", "Srini", "Tess")


def bot_names(count: int) -> list[str]:
    """`count` distinct bot names: the list, then the list again numbered.

    >>> bot_names(3), bot_names(22)[19:]
    (['Ada', 'Blaise', 'Cora'], ['Tess', 'Ada 2', 'Blaise 2'])
    """
    return [BOT_NAMES[i % len(BOT_NAMES)] + (f" {i // len(BOT_NAMES) + 1}" if i >= len(BOT_NAMES) else "")
            for i in range(count)]


def bots(game: Game, players: int | None) -> list[str]:
    """Names for `players` bots (default: as many as the rule text has); refuses a count the game
    does not take rather than play another one."""
    count = players if players is not None else game.default_players or game.max_players
    if not game.min_players <= count <= game.max_players:
        span = (f"{game.min_players}" if game.min_players == game.max_players
                else f"{game.min_players} to {game.max_players}")
        raise SheetsHostError(f"{game.title} takes {span} players; --players asked for {count}")
    return bot_names(count)


def default_settings(game: Game, typed: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The game's template settings, typed, as the engine would read them; `typed` (key -> value,
    keys as the game names them) in place of the template's."""
    import pandas as pd

    data_frames, defaults = engine.template(game)
    frame = engine.reindex(pd.DataFrame([{"key": k, "value": v} for k, v in
                                          {"game": game.name, "seed": 0, **defaults, **(typed or {})}.items()]))
    config = engine.read_config(frame, game)
    data = {s.name: s.records(engine.reindex(data_frames[s.name])) for s in game.data_tabs}
    return {"config": config, "data": data}


def bot_states(game: Game, players: Sequence[str], seed: int, config: Mapping, data: Mapping,
               state: Any = None, strategy: str = "random") -> Iterator[Any]:
    """Every state of a whole game by bots of `strategy` (`Game.bots`), no books: the first
    (`state`, or set up), then one after each round."""
    bot = game.bots()[strategy]
    state = game.setup(players, seed, config, data) if state is None else state
    yield state
    while not game.is_over(state):
        r = game.round(state)
        state = game.host_bot(state, rng_for(seed, r, "host"))
        subs = {p: bot(state, p, rng_for(seed, r, f"bot/{p}")) for p in game.players(state)}
        state = game.resolve(state, subs, rng_for(seed, r, "resolve")).state
        yield state


def play_in_memory(game: Game, players: Sequence[str], seed: int, config: Mapping, data: Mapping,
                   strategy: str = "random") -> Any:
    """One whole game by bots, no books: returns the final state."""
    return collections.deque(bot_states(game, players, seed, config, data, strategy=strategy), maxlen=1)[0]


@dataclass(frozen=True)
class Played:
    """What one finished game tells a report: its summary, its winners, its score spread."""

    summary: Mapping[str, float]
    winners: tuple[str, ...]
    spread: float | None  # the best final score less the worst (None: the game ranks by no score)


@functools.lru_cache(maxsize=32)
def settings_for(game_name: str, typed: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """The config and data a batch plays with: read once per setting in a process (a worker forked
    after this process read them has them already)."""
    return default_settings(get_game(game_name), dict(typed))


def play_batch(batch: Batch) -> list[Played]:
    """Every game of `batch`, in seed order (module-level: a worker process imports it by name)."""
    game = get_game(batch.game)
    settings = settings_for(batch.game, batch.settings)
    out = []
    for seed in range(batch.first, batch.last):
        state = play_in_memory(game, batch.players, seed, settings["config"], settings["data"], batch.strategy)
        standings = game.standings(state)
        scores = standings[game.score].astype(float) if game.score else None
        out.append(Played(game.summary(state), tuple(standings[standings["rank"] == 1]["player"]),
                          None if scores is None else float(scores.max() - scores.min())))
    return out


@dataclass
class SimulationReport:
    game: str
    games: int
    seconds: float
    averages: dict[str, float]
    wins: dict[str, int]
    bots: str = "random"
    spread: float | None = None  # the average of each game's best final score less its worst

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    @property
    def defaults(self) -> dict[str, float]:
        """How often each of the rule text's defaults applied, a game on average, by rule."""
        return {k.removeprefix(DEFAULT_FIRED): v for k, v in self.averages.items() if k.startswith(DEFAULT_FIRED)}

    def as_dict(self) -> dict:
        return {"game": self.game, "games": self.games, "seconds": round(self.seconds, 3),
                "games_per_second": round(self.games_per_second, 1),
                "games_per_minute": round(self.games_per_second * 60), "bots": self.bots,
                "averages": self.averages, "wins_by_seat": self.wins, "score_spread": self.spread}


def report(game: str, players: Sequence[str], strategy: str, played: Sequence[Played],
           seconds: float) -> SimulationReport:
    """The report of games `played`, in seed order: averages of their summaries, wins by seat."""
    wins = {n: 0 for n in players}
    for p in played:
        for name in p.winners:
            wins[name] += 1
    keys = sorted({k for p in played for k in p.summary})
    averages = {k: round(statistics.fmean(p.summary[k] for p in played if k in p.summary), 3) for k in keys}
    spreads = [p.spread for p in played if p.spread is not None]
    return SimulationReport(game, len(played), seconds, averages, wins, strategy,
                            round(statistics.fmean(spreads), 3) if spreads else None)


def simulations(game_name: str, games: int, seed: int, players: int | None = None,
                strategies: Sequence[str] | None = None, workers: int = 1, cluster: str | None = None,
                timer: Callable[[], float] = time.perf_counter) -> list[SimulationReport]:
    """`games` whole games by bots of each of `strategies` (default: every one of `Game.bots`),
    seeds `seed`, `seed` + 1, ...: one report a strategy, the same whatever `workers` or
    `cluster` (only the seconds differ)."""
    game = get_game(game_name)
    strategies = list(game.bots()) if strategies is None else list(strategies)
    for strategy in strategies:
        if strategy not in game.bots():
            raise SheetsHostError(f"{game.title} has no {strategy!r} bots; allowed: {', '.join(game.bots())}")
    names = tuple(bots(game, players))
    settings_for(game.name, ())  # read here once: workers forked from this process have it already
    reports = []
    with runner(workers, cluster) as run:
        for strategy in strategies:
            batches = [Batch(game.name, names, strategy, a, b) for a, b in split(seed, games, workers)]
            start = timer()
            played = [p for batch in run(play_batch, batches) for p in batch]
            reports.append(report(game.name, names, strategy, played, timer() - start))
    return reports


def simulate(game_name: str, games: int, seed: int, players: int | None = None,
             timer: Callable[[], float] = time.perf_counter, strategy: str = "random",
             workers: int = 1) -> SimulationReport:
    """`games` whole games by bots of `strategy` (`Game.bots`), seeds `seed`, `seed` + 1, ..."""
    return simulations(game_name, games, seed, players, [strategy], workers, timer=timer)[0]


def bots_submit(backend: Backend, session: engine.Session, seed: int, messy: bool = True) -> None:
    """Each bot types its submission into its own submit tabs, sometimes with human untidiness."""
    from .delivery import submit_frames, submit_tab

    game, state = session.game, session.state
    r = game.round(state)
    for player in game.players(state):
        rng = rng_for(seed, r, f"bot/{player}")
        rows = game.submit_rows(game.bot(state, player, rng))
        if messy:
            rows = [{k: v if k == "tab" else untidy(v, rng) for k, v in row.items()} for row in rows]
        tabs = {tab.name: tab for tab in game.submit_tabs(state, player)}
        # Typing keeps the tabs' dropdowns, shading and key: as the engine delivered them.
        written = {name: submit_tab(game, state, player, tabs[name], typed)
                   for name, typed in submit_frames(game, state, player, rows).items()}
        backend.book(f"player:{player}").write({name: f for name, (f, _) in written.items()},
                                               layouts={name: layout for name, (_, layout) in written.items()})


def host_types(backend: Backend, session: engine.Session, seed: int) -> bool:
    """A bot host types what the game leaves to the host this round (`Game.host_bot`) into the
    host book's state tabs, as a person would; whether anything was typed."""
    from .commit import type_state

    game, state = session.game, session.state
    return type_state(session, game.host_bot(state, rng_for(seed, game.round(state), "host")))


def untidy(value: object, rng) -> object:
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
    names = bots(game, players)
    engine.new_game(backend, game.name, names, seed, clock=clock, force=force)
    say(f"{game.title}: new game for {', '.join(names)} (seed {seed})")
    return play_out(backend, seed, say, clock)


def play_out(backend: Backend, seed: int, say: Callable[[str], None] = print,
             clock: engine.Clock = engine.now_utc) -> engine.ResolveReport:
    """A game already made, played to its end by bots through its books: each round the bot host
    types what the game leaves to the host, the bots submit, then check and resolve."""
    while True:
        session = engine.open_session(backend, clock)
        if host_types(backend, session, seed):
            session = engine.open_session(backend, clock)
            say("the host typed what the game leaves to the host (a random ranking of each event hosted by hand)")
        bots_submit(backend, session, seed)
        checked = engine.check(backend, clock)
        problems = sum(len(r.parsed.problems) for r in checked.readings.values())
        report = engine.resolve(backend, early=True, clock=clock)
        say(f"{report.name}: resolved ({problems} problem(s) found by check)")
        if report.over:
            return report


@dataclass
class BenchReport:
    """Seconds per round: `resolve` in this process (everything imported, caches warm), and, when
    measured, `sheets-host resolve` of the same round in a fresh process (start-up included):
    wall seconds and the child's CPU seconds (user + system; None where the OS does not say)."""

    game: str
    players: int
    resolve_seconds: list[float]
    fresh_wall_seconds: list[float] = field(default_factory=list)
    fresh_cpu_seconds: list[float | None] = field(default_factory=list)

    def as_dict(self) -> dict:
        data = {"game": self.game, "players": self.players, "rounds": len(self.resolve_seconds),
                "mean_resolve_seconds": _mean(self.resolve_seconds),
                "max_resolve_seconds": _max(self.resolve_seconds),
                "resolve_seconds": [round(s, 3) for s in self.resolve_seconds]}
        if self.fresh_wall_seconds:
            cpu = [c for c in self.fresh_cpu_seconds if c is not None]
            data["end_to_end"] = {
                "command": "sheets-host resolve FOLDER --early, in a fresh process, on a copy of the round's books",
                "mean_wall_seconds": _mean(self.fresh_wall_seconds),
                "max_wall_seconds": _max(self.fresh_wall_seconds),
                "mean_cpu_seconds": _mean(cpu) if cpu else None,
                "max_cpu_seconds": _max(cpu) if cpu else None,
                "wall_seconds": [round(s, 3) for s in self.fresh_wall_seconds],
                "cpu_seconds": [None if c is None else round(c, 3) for c in self.fresh_cpu_seconds]}
        return data


def _mean(values: Sequence[float]) -> float:
    return round(statistics.fmean(values), 3)


def _max(values: Sequence[float]) -> float:
    return round(max(values), 3)


def _children_cpu() -> float | None:
    """CPU seconds (user + system) of every child process this one has waited for."""
    try:
        import resource
    except ImportError:  # not on this OS
        return None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def resolve_in_fresh_process(folder: Path) -> tuple[float, float | None]:
    """Wall and CPU seconds of `sheets-host resolve FOLDER --early` run as a new process."""
    command = [sys.executable, "-m", "sheets_host.cli.main", "resolve", str(folder), "--early"]
    cpu_before, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    wall, cpu_after = time.perf_counter() - start, _children_cpu()
    if done.returncode != 0:
        raise SheetsHostError(f"sheets-host resolve {folder} failed (exit {done.returncode}): "
                              f"{(done.stderr or done.stdout).strip()}")
    return wall, (None if cpu_before is None or cpu_after is None else cpu_after - cpu_before)


def bench(game_name: str, folder, seed: int = 1, players: int | None = None,
          timer: Callable[[], float] = time.perf_counter, end_to_end: bool = False,
          rounds: int | None = None) -> BenchReport:
    """Time every `resolve` of a bot game on offline books (submissions typed beforehand).

    With `end_to_end`, each round is also resolved by `sheets-host resolve` in a fresh process,
    on a fresh copy of the books as they are before the round's resolve, so both resolve the same
    round; the copy is removed afterwards. `rounds`: stop after that many (default: the whole game).
    """
    from sheets_host.backends.xlsx.backend import XlsxBackend

    game = get_game(game_name)
    folder = Path(folder)
    backend = XlsxBackend(folder / "game")
    names = bots(game, players)
    engine.new_game(backend, game.name, names, seed)
    report = BenchReport(game.name, len(names), [])
    while True:
        host_types(backend, engine.open_session(backend), seed)
        bots_submit(backend, engine.open_session(backend), seed)
        if end_to_end:
            copy = folder / "fresh"
            shutil.copytree(folder / "game", copy)
            try:
                wall, cpu = resolve_in_fresh_process(copy)
            finally:
                shutil.rmtree(copy, ignore_errors=True)
            report.fresh_wall_seconds.append(wall)
            report.fresh_cpu_seconds.append(cpu)
        start = timer()
        resolved = engine.resolve(backend, early=True)
        report.resolve_seconds.append(timer() - start)
        if resolved.over or len(report.resolve_seconds) == rounds:
            return report
