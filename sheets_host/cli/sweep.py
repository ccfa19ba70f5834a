"""`sheets-host simulate` and `sheets-host sweep`: bot games in memory, on every core or on a Dask
cluster, for a designer balancing the rules. Light to import (see `sheets_host.cli.main`): the
engine, the pool and Dask are imported in the command bodies."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Optional

import typer

from sheets_host.games import names as game_names
from sheets_host.kit.console import echo, table
from sheets_host.kit.errors import SheetsHostError
from .options import friendly
from .settings import parse_settings

GAME = typer.Argument(..., metavar="GAME", help=f"One of: {', '.join(game_names())}.")
SEED = typer.Option(1, "--seed", help="The first game's seed; the next game's is one more, and so on.")
PLAYERS = typer.Option(None, "--players", help="How many bots (default: as in the rule text).")
WORKERS = typer.Option(None, "--workers", min=1, help="Processes to play on (default: every core); the "
                                                      "report is the same whatever their number.")
CLUSTER = typer.Option(None, "--cluster", metavar="ADDRESS", help="Play on this Dask scheduler (tcp://host:8786) "
                       "instead: needs pip install \"sheets-host[cluster]\" here and on its workers.")
AS_JSON = typer.Option(False, "--json", help="Print the report as JSON (progress goes to stderr).")


class Progress:
    """Games played so far, on stderr: one line kept up to date on a terminal, else a line a tenth."""

    def __init__(self, what: str) -> None:
        self.what, self.start, self.said = what, time.monotonic(), -1
        self.live = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        tenth = done * 10 // total
        if not self.live and tenth == self.said:
            return
        self.said = tenth
        line = f"{self.what}: {done:,} of {total:,} games ({done * 100 // total}%), {time.monotonic() - self.start:.0f} s"
        if self.live:
            sys.stderr.write("\r" + line + ("\n" if done == total else ""))
            sys.stderr.flush()
        else:
            echo(line, err=True)


def _workers(workers: int | None) -> int:
    return workers or os.cpu_count() or 1


@friendly
def simulate(game: str = GAME, games: int = typer.Option(1000, "--games", min=1), seed: int = SEED,
             players: Optional[int] = PLAYERS, workers: Optional[int] = WORKERS, cluster: Optional[str] = CLUSTER,
             as_json: bool = AS_JSON):
    """Play N whole games in memory with bots: outcome statistics and throughput (the benchmark).

    The bots make random legal submissions, as in demo and the property tests. A game whose bots
    have other strategies (the Academy's greedy alchemists) plays N games with each, and the
    statistics are shown side by side, so a dominant recipe or a useless machine shows up. The
    games are split by seed across processes (--workers) or a Dask cluster (--cluster); the
    statistics are the same whatever the split, only the time differs.

    Example: sheets-host simulate wind-guide-me --games 1000 --seed 1
    """
    from sheets_host.engine import play

    try:
        reports = play.simulations(game, games, seed, players, workers=_workers(workers), cluster=cluster)
    except KeyboardInterrupt:
        raise SheetsHostError("simulate stopped (Ctrl-C)") from None
    if as_json:
        data = [r.as_dict() for r in reports]
        echo(json.dumps(data[0] if len(data) == 1 else {"game": reports[0].game, "by_bots": data}, indent=2),
             wrap=False)
        return
    for report in reports:
        data = report.as_dict()
        echo(f"{report.game}, {report.bots} bots: {report.games} games in {data['seconds']} s "
             f"({data['games_per_second']} games/s, {data['games_per_minute']} games/min)")
    keys = list(dict.fromkeys(k for r in reports for k in r.averages))
    rows = [{"average": key, **{r.bots: r.averages.get(key) for r in reports}} for key in keys]
    rows += [{"average": "score spread", **{r.bots: r.spread for r in reports}}] if reports[0].spread is not None else []
    echo("\n".join(table(rows, "  ")))
    for report in reports:
        echo(f"  wins by seat ({report.bots} bots): " + ", ".join(f"{k} {v}" for k, v in report.wins.items()))


def _swept(game: str, items: list[str]) -> dict[str, list[str]]:
    """`--set "key=a,b,c"` items as setting -> values (`|` between them instead, where a value
    holds a comma: "garnets=Ada: 5, Cora: 2|Ada: 0"); the keys checked as `new --set` checks them."""
    typed = parse_settings(game, items)
    if not typed:
        raise SheetsHostError(f"sweep needs at least one --set \"key=a,b,c\"; sheets-host games {game} lists the settings")
    return {key: [v.strip() for v in value.split("|" if "|" in value else ",") if v.strip()]
            for key, value in typed.items()}


@friendly
def sweep(game: str = GAME,
          setting: list[str] = typer.Option([], "--set", help="A setting and the values to try, \"key=a,b,c\" "
                                            "(repeatable: every combination is played); values holding a "
                                            "comma: \"key=a, b|c\"."),
          games: int = typer.Option(200, "--games", min=1, help="Games for each combination and bot strategy."),
          seed: int = SEED, players: Optional[int] = PLAYERS, workers: Optional[int] = WORKERS,
          cluster: Optional[str] = CLUSTER,
          out: Path = typer.Option(Path("sweep"), "--out", metavar="DIR", help="Where the table (GAME.csv) and its "
                                   "picture (GAME.png) go."),
          as_json: bool = AS_JSON):
    """Play every combination of the settings given with every bot strategy: a table with a row
    per combination and strategy (each seat's share of the wins, the score spread, how often each
    of the rule text's defaults applied, the game's other figures), written as CSV, and a picture
    of one small chart per statistic across the grid. Every value is checked before any game is
    played. Progress goes to stderr.

    Example: sheets-host sweep magicians-market --set "starting coins=100,150" --set "days=5,7" --games 500
    """
    from sheets_host.engine import sweep as sweeping
    from sheets_host.engine.sweep_chart import picture

    swept = _swept(game, setting)
    try:
        done = sweeping.sweep(game, swept, games, seed, players, _workers(workers), cluster, Progress("sweep"))
    except KeyboardInterrupt:
        raise SheetsHostError("sweep stopped (Ctrl-C): nothing written") from None
    out.mkdir(parents=True, exist_ok=True)
    files = {"csv": out / f"{done.game}.csv", "png": out / f"{done.game}.png"}
    files["csv"].write_text(done.csv())
    files["png"].write_bytes(picture(done))
    if as_json:
        echo(json.dumps({**done.as_dict(), "files": {k: str(v) for k, v in files.items()}}, indent=2), wrap=False)
        return
    cells = len(done.cells)
    echo(f"{done.title}: {cells} rows of {games:,} games ({cells * games:,} games) in {done.seconds:.1f} s")
    echo("\n".join(table([_shown(r, [*done.grid, "bots"]) for r in done.rows()], "  ")))
    echo(f"table: {files['csv']}", wrap=False)  # a path is copied whole, never wrapped
    echo(f"picture: {files['png']}", wrap=False)


def _shown(row: dict, settings: list[str]) -> dict:
    """A row as the terminal shows it: the settings, the bots, the seats most and least often
    winning, the score spread and the defaults (the CSV has every figure)."""
    from sheets_host.engine.sweep import SPREAD, WIN_SHARE
    from sheets_host.kit.game import DEFAULT_FIRED

    shares = {k.removeprefix(WIN_SHARE): v for k, v in row.items() if k.startswith(WIN_SHARE)}
    best, worst = max(shares, key=shares.get), min(shares, key=shares.get)
    return {**{k: row[k] for k in settings}, "most wins": f"{best} {shares[best]:.0%}", "fewest wins": f"{worst} {shares[worst]:.0%}",
            SPREAD: row[SPREAD], **{k: v for k, v in row.items() if k.startswith(DEFAULT_FIRED)}}
