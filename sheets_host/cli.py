"""The `sheets-host` command. Every error a host can cause is printed as one clear message."""

from __future__ import annotations

import csv
import functools
import json
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from . import engine, play
from .backends import open_backend
from .errors import SheetsHostError
from .games import names as game_names

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Host online reality games whose data lives in spreadsheets (offline .xlsx or Google Sheets).")


class BackendName(str, Enum):
    xlsx = "xlsx"
    gsheets = "gsheets"


class Auth(str, Enum):
    service = "service"
    oauth = "oauth"


BACKEND = typer.Option(None, "--backend", help="xlsx (a folder; the default) or gsheets (a host spreadsheet id or URL).")
CREDENTIALS = typer.Option(None, "--credentials", help="Google: a service-account key file or an OAuth client file.")
AUTH = typer.Option(Auth.service, "--auth", help="Google: 'service' (service account) or 'oauth' (log in as yourself).")


def _friendly(fn):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (SheetsHostError, OSError) as e:  # a file a host can fix (permissions, a full disk)
            typer.secho(f"error: {e}", fg=typer.colors.RED, err=True)
            raise typer.Exit(2) from None

    return run


def _backend(where: str, backend: BackendName | None, credentials: Path | None = None, auth: Auth = Auth.service,
             **options):
    kind = backend.value if backend else ("gsheets" if where.startswith("https://docs.google.com") else "xlsx")
    if kind == "gsheets":
        options.update(credentials=str(credentials) if credentials else None, auth=auth.value)
    return open_backend(kind, where, **options)


def _players(spec: str) -> tuple[list[str], dict[str, str]]:
    players, emails = [], {}
    for item in spec.split(","):
        name, _, email = item.partition("=")
        if name.strip():
            players.append(name.strip())
            if email.strip():
                emails[name.strip()] = email.strip()
    return players, emails


@app.command()
@_friendly
def new(game: str = typer.Argument(..., help=f"One of: {', '.join(game_names())}."),
        where: str = typer.Argument(..., help="xlsx: a folder to create. gsheets: '-' (new spreadsheets; their URLs are printed)."),
        players: str = typer.Option(..., "--players", help="Comma-separated names; with Google, name=email."),
        seed: int = typer.Option(1, "--seed", help="Every random choice of the game derives from it."),
        setting: list[str] = typer.Option([], "--set", help="A game setting, key=value (repeatable)."),
        backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH,
        folder: Optional[str] = typer.Option(None, "--folder", help="Google: a shared-drive folder id for the books."),
        adopt: Optional[Path] = typer.Option(None, "--adopt", help="Google: CSV of role,spreadsheet id to use instead of creating."),
        force: bool = typer.Option(False, "--force", help="Replace a game already there, removing its books.")):
    """Create the books of a new game.

    Example: sheets-host new wind-guide-me games/wgm --players Ann,Bo,Cy,Di,Ed,Fay,Gus --seed 7
    """
    names, emails = _players(players)
    settings = dict(s.split("=", 1) for s in setting if "=" in s)
    options = {}
    if (backend and backend.value == "gsheets"):
        options = {"folder": folder}
        where_arg = ""
    else:
        where_arg = where
    b = _backend(where_arg, backend, credentials, auth, **options)
    if adopt:
        with open(adopt, newline="") as f:
            rows = [row for row in csv.reader(f) if len(row) >= 2]
            if rows and rows[0][0].strip().casefold() == "role":
                rows = rows[1:]  # a header line
            b.adopt({row[0].strip(): row[1].strip() for row in rows})
    session = engine.new_game(b, game, names, seed, emails, settings, force=force)
    typer.echo(f"{session.game.title}: new game for {', '.join(session.players)} (seed {seed}).")
    for role, label in [("host", "host book"), ("public", "public book")] + [
            (f"player:{p}", f"{p}'s book") for p in session.players]:
        book = session.backend.book(role)
        typer.echo(f"{label}: {getattr(book, 'path', book.ref)}")  # a file offline, a URL on Google
    typer.echo("Round 1 is open: players fill in the 'submit' tab of their own book.")


@app.command()
@_friendly
def check(where: str = typer.Argument(..., help="The game: a folder, or the host spreadsheet's id or URL."),
          backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Read every submission, report problems, and tell each player in their own book.

    Changes no game state.

    Example: sheets-host check games/wgm
    """
    report = engine.check(_backend(where, backend, credentials, auth))
    typer.echo(f"round {report.round}")
    typer.echo(report.table().to_string(index=False))
    for reading in report.readings.values():
        for problem in reading.parsed.problems:
            typer.echo(f"  {problem}")


@app.command()
@_friendly
def resolve(where: str = typer.Argument(..., help="The game: a folder, or the host spreadsheet's id or URL."),
            redo: bool = typer.Option(False, "--redo", help="Resolve the last round again from its snapshot and "
                                                            "its archived (maybe corrected) submissions."),
            early: bool = typer.Option(False, "--early", help="Resolve before the round's deadline."),
            allow_empty: bool = typer.Option(False, "--allow-empty", help="Resolve even if nobody submitted."),
            backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Resolve the open round and write every book; refuses a round already resolved.

    Example: sheets-host resolve games/wgm
    """
    report = engine.resolve(_backend(where, backend, credentials, auth), redo=redo, early=early,
                            allow_empty=allow_empty)
    if report.action == "delivered":
        typer.echo(f"round {report.round} had been resolved but not delivered to every book: delivery finished. "
                   "Run resolve again for the next round.")
        return
    typer.echo(f"round {report.round} {report.action}.")
    if report.note:
        typer.echo(report.note)
    for reading in report.readings.values():
        for problem in reading.parsed.problems:
            typer.echo(f"  {problem}")
    for path in report.files:
        typer.echo(f"announcement: {path}")
    if report.standings is not None:
        typer.echo(report.standings.to_string(index=False))


@app.command()
@_friendly
def undo(where: str = typer.Argument(..., help="The game: a folder, or the host spreadsheet's id or URL."),
         backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Restore the state before the last resolve; the round's submissions go back into the submit tabs.

    Example: sheets-host undo games/wgm
    """
    round_number = engine.undo(_backend(where, backend, credentials, auth))
    typer.echo(f"round {round_number} undone: it is open again with its submissions restored.")


@app.command()
@_friendly
def lock(where: str = typer.Argument(..., help="The game: a folder, or the host spreadsheet's id or URL."),
         backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Freeze submissions at the deadline: only the host can edit submit tabs until the next round opens.

    Example: sheets-host lock https://docs.google.com/spreadsheets/d/1AbC.../edit
    """
    round_number = engine.lock(_backend(where, backend, credentials, auth))
    typer.echo(f"round {round_number}: submit tabs locked.")


@app.command()
@_friendly
def status(where: str = typer.Argument(..., help="The game: a folder, or the host spreadsheet's id or URL."),
           backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Show the round, its deadline and who has submitted.

    Example: sheets-host status games/wgm
    """
    report = engine.status(_backend(where, backend, credentials, auth))
    if report.round is None:
        typer.echo(f"{report.game}: the game is over.")
        return
    typer.echo(f"{report.game}: round {report.round}, deadline {report.deadline}")
    for player, state in report.submitted.items():
        typer.echo(f"  {player}: {state}")


@app.command()
@_friendly
def demo(game: str = typer.Argument("wind-guide-me", help=f"One of: {', '.join(game_names())}."),
         where: Path = typer.Argument(Path("demo"), help="A folder for the books."),
         force: bool = typer.Option(False, "--force", help="Replace a game already in the folder."),
         seed: int = typer.Option(1, "--seed"),
         players: Optional[int] = typer.Option(None, "--players", help="How many bots (default: as in the rule text).")):
    """Play a whole game with bots on offline .xlsx books, every round written, and print the standings.

    Example: sheets-host demo wind-guide-me demo/
    """
    report = play.demo(game, open_backend("xlsx", str(where)), seed, players, say=typer.echo, force=force)
    typer.echo("\nFinal standings:")
    typer.echo(report.standings.to_string(index=False))
    typer.echo(f"\nBooks: {where}/host.xlsx, {where}/public.xlsx, {where}/players/*.xlsx; "
               f"announcements in {where}/announcements/")


@app.command()
@_friendly
def simulate(game: str = typer.Argument(..., help=f"One of: {', '.join(game_names())}."),
             games: int = typer.Option(1000, "--games", min=1), seed: int = typer.Option(1, "--seed"),
             players: Optional[int] = typer.Option(None, "--players", help="How many bots (default: as in the rule text)."),
             as_json: bool = typer.Option(False, "--json", help="Print the report as JSON.")):
    """Play N whole games in memory with bots: outcome statistics and throughput (the benchmark).

    The bots make random legal submissions, as in demo and the property tests.

    Example: sheets-host simulate wind-guide-me --games 1000 --seed 1
    """
    report = play.simulate(game, games, seed, players)
    if as_json:
        typer.echo(json.dumps(report.as_dict(), indent=2))
        return
    data = report.as_dict()
    typer.echo(f"{report.game}: {report.games} games in {data['seconds']} s "
               f"({data['games_per_second']} games/s, {data['games_per_minute']} games/min)")
    for key, value in report.averages.items():
        typer.echo(f"  average {key}: {value}")
    typer.echo("  wins by seat: " + ", ".join(f"{k} {v}" for k, v in report.wins.items()))


@app.command()
@_friendly
def bench(game: str = typer.Argument("wind-guide-me", help=f"One of: {', '.join(game_names())}."),
          players: Optional[int] = typer.Option(None, "--players", help="How many bots (default: as in the rule text)."),
          seed: int = typer.Option(1, "--seed"),
          as_json: bool = typer.Option(False, "--json", help="Print the report as JSON.")):
    """Time each resolve of a whole bot game on offline .xlsx books (target: under 2 s a round).

    Example: sheets-host bench wind-guide-me
    """
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        report = play.bench(game, Path(folder), seed, players)
    data = report.as_dict()
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    typer.echo(f"{data['game']}, {data['players']} players, {data['rounds']} rounds on xlsx: resolve takes "
               f"{data['mean_resolve_seconds']} s on average, {data['max_resolve_seconds']} s at most")


@app.command()
@_friendly
def replay(where: str = typer.Argument(..., help="The game to replay: a folder, or a host spreadsheet id/URL."),
           into: Path = typer.Argument(..., help="A new folder for the replayed .xlsx books."),
           backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Replay a game from its host book's log (snapshot + archived submissions) into new offline books.

    Example: sheets-host replay games/wgm /tmp/wgm-replay
    """
    rounds = engine.replay(_backend(where, backend, credentials, auth), open_backend("xlsx", str(into)))
    typer.echo(f"replayed {rounds} round(s) into {into}")


@app.command("games")
def list_games():
    """List the games sheets-host can host."""
    from .games import get_game

    for name in game_names():
        g = get_game(name)
        span = g.min_players if g.min_players == g.max_players else f"{g.min_players}-{g.max_players}"
        typer.echo(f"{name}: {g.title} ({span} players)")
