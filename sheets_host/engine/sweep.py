"""`sweep`: every combination of some settings, each simulated with every bot strategy, as one
table (a row per combination and strategy) for a designer balancing the rules.

Every value is checked before any game is played; then every combination's and strategy's batches
go to the same workers (`workers.runner`), so a grid uses every core however small each cell.
"""

from __future__ import annotations

import csv
import io
import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sheets_host.games import get_game
from sheets_host.kit.errors import SchemaErrors, SheetsHostError
from sheets_host.kit.game import DEFAULT_FIRED, Game
from .play import SimulationReport, bots, play_batch, report, settings_for
from .workers import Batch, Progress, runner, split

SPREAD = "score spread"
WIN_SHARE = "win share "  # then a seat: the share of games that seat won (ties: each winner counts)


@dataclass(frozen=True)
class Cell:
    """One combination of the settings swept, played by one strategy's bots."""

    settings: tuple[tuple[str, str], ...]
    report: SimulationReport

    def row(self) -> dict[str, object]:
        """The table's row: the settings, the bots, the games, each seat's win share, the score
        spread, how often each default applied (a game on average), then the game's other figures."""
        r = self.report
        return {**dict(self.settings), "bots": r.bots, "games": r.games,
                **{f"{WIN_SHARE}{seat}": round(n / r.games, 3) for seat, n in r.wins.items()},
                SPREAD: r.spread,
                **{k: v for k, v in r.averages.items() if k.startswith(DEFAULT_FIRED)},
                **{k: v for k, v in r.averages.items() if not k.startswith(DEFAULT_FIRED)}}


@dataclass
class Sweep:
    game: str
    title: str
    grid: dict[str, list[str]]  # each setting swept: its values, as typed
    games: int  # a cell's
    seed: int
    players: tuple[str, ...]
    cells: list[Cell]
    seconds: float

    def rows(self) -> list[dict[str, object]]:
        return [c.row() for c in self.cells]

    def csv(self) -> str:
        rows = self.rows()
        header = list(dict.fromkeys(k for r in rows for k in r))
        out = io.StringIO()
        writer = csv.DictWriter(out, header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()

    def as_dict(self) -> dict:
        return {"game": self.game, "settings": self.grid, "games": self.games, "seed": self.seed,
                "players": list(self.players), "seconds": round(self.seconds, 3),
                "games_per_minute": round(len(self.cells) * self.games / self.seconds * 60) if self.seconds else None,
                "rows": [{"settings": dict(c.settings), "bots": c.report.bots, "games": c.report.games,
                          "wins_by_seat": c.report.wins, "score_spread": c.report.spread,
                          "defaults": c.report.defaults, "averages": c.report.averages} for c in self.cells]}


def grid(game: Game, swept: Mapping[str, Sequence[str]], players: Sequence[str]) -> list[tuple[tuple[str, str], ...]]:
    """Every combination of the values of `swept` (setting -> values, keys as the game names
    them), each checked as `new` would check it, before any game is played: a value a setting
    refuses, or a combination the game refuses, is an error naming them and what is allowed."""
    columns = {c.name: c for c in game.settings}
    for key, values in swept.items():
        if key not in columns:
            raise SheetsHostError(f"--set {key!r}: not one of {game.title}'s settings, which are "
                                  f"{', '.join(columns)}")
        if not values:
            raise SheetsHostError(f"--set {key!r}: no value to sweep; write --set \"{key}=a,b,c\"")
        for value in values:
            try:
                columns[key].parse(value)
            except ValueError:
                raise SheetsHostError(f"--set {key}={value}: {value!r} is refused; {key} is "
                                      f"{columns[key].expected()}") from None
    combinations = [tuple(zip(swept, values)) for values in itertools.product(*swept.values())]
    for combination in combinations:
        said = ", ".join(f"{k}={v}" for k, v in combination)
        try:
            config = settings_for(game.name, combination)["config"]
        except SchemaErrors as e:
            raise SheetsHostError(f"the settings {said} are refused: {e}") from None
        problems = game.check_config(config, players)
        if problems:
            raise SheetsHostError(f"the settings {said} are refused: {'; '.join(problems)}")
    return combinations


def sweep(game_name: str, swept: Mapping[str, Sequence[str]], games: int, seed: int, players: int | None = None,
          workers: int = 1, cluster: str | None = None, progress: Progress | None = None,
          timer: Callable[[], float] = time.perf_counter) -> Sweep:
    """Every combination of `swept`'s values, `games` games each (seeds `seed`, `seed` + 1, ...,
    the same for every combination) with each of the game's bot strategies."""
    game = get_game(game_name)
    names = tuple(bots(game, players))
    combinations = grid(game, swept, names)
    cells = [(c, s) for c in combinations for s in game.bots()]
    runs = split(seed, games, workers)
    batches = [Batch(game.name, names, s, a, b, c) for c, s in cells for a, b in runs]
    start = timer()
    with runner(workers, cluster) as run:
        played = run(play_batch, batches, progress)
    seconds = timer() - start
    made = []
    for i, (combination, strategy) in enumerate(cells):
        games_played = [p for batch in played[i * len(runs):(i + 1) * len(runs)] for p in batch]
        made.append(Cell(combination, report(game.name, names, strategy, games_played, seconds)))
    return Sweep(game.name, game.title, {k: list(v) for k, v in swept.items()}, games, seed, names, made, seconds)
