"""The `sheets-host` command. Every error a host can cause is printed as one clear message.

Start-up is kept light: the engine, pandas, the backends and the games are imported inside the
commands that use them, so `sheets-host --help` imports none of them; game names come from
`games.names`, which imports no game. Help is plain text (no Rich).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Optional

import typer

from sheets_host.games import names as game_names
from sheets_host.kit.console import echo, table
from sheets_host.kit.errors import SheetsHostError
from . import private
from .options import (AUTH, BACKEND, CREDENTIALS, PRIVATE_WEBHOOKS, REASON, WEBHOOK, WHERE_HELP, Auth, BackendName,
                      friendly, open_where, player_list, webhooks_for)
from . import records
from . import season as season_commands
from . import sweep as sweeping
from .deadlines import extend
from .settings import expected, parse_settings, player_span, setting_columns

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Host online reality games whose data lives in spreadsheets (offline .xlsx or Google Sheets).")


@app.command()
@friendly
def new(game: str = typer.Argument(..., metavar="GAME", help=f"One of: {', '.join(game_names())}."),
        where: str = typer.Argument(..., metavar="WHERE", help="xlsx: a folder to create. gsheets: '-' (new spreadsheets; their URLs are printed)."),
        players: str = typer.Option(..., "--players", help="Comma-separated names; with Google, name=email."),
        seed: int = typer.Option(1, "--seed", help="Every random choice of the game derives from it."),
        setting: list[str] = typer.Option([], "--set", help="A game setting, key=value (repeatable); "
                                                            "'sheets-host games GAME' lists them with defaults."),
        backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH,
        folder: Optional[str] = typer.Option(None, "--folder", help="Google: a shared-drive folder id for the books."),
        adopt: Optional[Path] = typer.Option(None, "--adopt", help="Google: CSV of role,spreadsheet id to use instead of creating."),
        notify: bool = typer.Option(True, "--notify/--no-notify", help="Google: Drive emails each player that their book "
                                    "is shared (the only way to share with an address that has no Google account)."),
        force: bool = typer.Option(False, "--force", help="Replace a game already there, removing its books.")):
    """Create the books of a new game.

    Example: sheets-host new wind-guide-me games/wgm --players Ann,Bo,Cy,Di,Ed,Fay,Gus --seed 7 --set rounds=5

    Every game's settings, their defaults and meaning: sheets-host games GAME
    """
    import csv

    from sheets_host.engine import commands as engine

    names, emails = player_list(players)
    settings = parse_settings(game, setting)
    options = {}
    if (backend and backend.value == "gsheets"):
        options = {"folder": folder, "notify": notify}
        where_arg = ""
    else:
        where_arg = where
    b = open_where(where_arg, backend, credentials, auth, **options)
    if adopt:
        with open(adopt, newline="") as f:
            rows = [row for row in csv.reader(f) if len(row) >= 2]
            if rows and rows[0][0].strip().casefold() == "role":
                rows = rows[1:]  # a header line
            b.adopt({row[0].strip(): row[1].strip() for row in rows})
    session = engine.new_game(b, game, names, seed, emails, settings, force=force)
    echo(f"{session.game.title}: new game for {', '.join(session.players)} (seed {seed}).")
    for role, label in [("host", "host book"), ("public", "public book")] + [
            (f"player:{p}", f"{p}'s book") for p in session.players]:
        book = session.backend.book(role)
        echo(f"{label}: {getattr(book, 'path', book.ref)}")  # a file offline, a URL on Google
    first = session.game.round_name(1)
    tabs = list(dict.fromkeys(tab.name for p in session.players
                              for tab in session.game.submit_tabs(session.state, p)))
    where = f"the {tabs[0]!r} tab" if len(tabs) == 1 else "their submit tabs (" + ", ".join(tabs) + ")"
    echo(f"{first[:1].upper()}{first[1:]} is open: players fill in {where} of their own book.")


@app.command(short_help="Read every submission and report problems; changes no state.")
@friendly
def check(where: str = typer.Argument(..., metavar="WHERE", help=WHERE_HELP),
          backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH,
          private_webhooks: Optional[Path] = PRIVATE_WEBHOOKS, no_receipts: bool = private.NO_RECEIPTS):
    """Read every submission, report problems, and tell each player in their own book; with the
    players' webhooks, each player whose submission changed gets a private receipt.

    Changes no game state.

    Example: sheets-host check games/wgm
    """
    from sheets_host.engine import commands as engine

    receipts = private.receipts(where, private_webhooks, no_receipts)
    report = engine.check(open_where(where, backend, credentials, auth), then=receipts)
    echo(report.name)
    echo("\n".join(table(report.table())))
    for reading in report.readings.values():
        for problem in reading.parsed.problems:
            echo(f"  {problem}")
    for todo in report.host_todo:
        echo(f"host, before resolving: {todo}")
    if receipts is not None:
        echo(f"private: {receipts.said()}")


@app.command(short_help="Resolve the open round and write every book.")
@friendly
def resolve(where: str = typer.Argument(..., metavar="WHERE", help=WHERE_HELP),
            redo: bool = typer.Option(False, "--redo", help="Resolve the last round again from its snapshot and "
                                                            "its archived (maybe corrected) submissions."),
            early: bool = typer.Option(False, "--early", help="Resolve before the round's deadline."),
            allow_empty: bool = typer.Option(False, "--allow-empty", help="Resolve even if nobody submitted."),
            reason: Optional[str] = REASON, backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Resolve the open round and write every book; refuses a round already resolved.

    Example: sheets-host resolve games/wgm
    """
    from sheets_host.engine import commands as engine

    report = engine.resolve(open_where(where, backend, credentials, auth), redo=redo, early=early,
                            allow_empty=allow_empty, reason=reason)
    if report.action == "delivered":
        echo(f"{report.name} had been resolved but not delivered to every book: delivery finished. "
             "Run resolve again to go on.")
        return
    echo(f"{report.name} {report.action}.")
    if report.note:
        echo(report.note)
    for reading in report.readings.values():
        for problem in reading.parsed.problems:
            echo(f"  {problem}")
    from sheets_host.engine.delivery import PRIVATE  # loaded by the resolve already: --help stays light

    for path in report.files:  # a private picture is for its player alone: `post` sends it to their webhook
        what = "private picture" if path.parent.parent.name == PRIVATE else "announcement"
        echo(f"{what}: {path}")
    if report.standings is not None:
        echo("\n".join(table(report.standings)))


@app.command(short_help="Post the last resolved round to a Discord channel.")
@friendly
def post(where: str = typer.Argument(..., metavar="WHERE", help=WHERE_HELP),
         webhook: Optional[str] = WEBHOOK, private_webhooks: Optional[Path] = PRIVATE_WEBHOOKS,
         dry_run: bool = typer.Option(False, "--dry-run", help="Print what would be posted; post nothing."),
         as_json: bool = typer.Option(False, "--json", help="With --dry-run: the messages as a JSON list."),
         backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Post the last resolved round's announcement and pictures through a Discord webhook, then
    its commitments (the round root) in a message of their own; and through each player's own
    channel's webhook (a players' webhooks file) their private pictures and a receipt: their
    submission's commitment and the round root, for them to keep.

    Posting again (or after resolve --redo) edits the results already posted instead of posting
    twice: their ids are kept in the host book's posts tab. A root is never edited nor deleted: a
    redo's new root comes in a new message naming the one it replaces.

    Example: sheets-host post games/wgm --dry-run
    """
    from sheets_host.discord import post as posting

    source = open_where(where, backend, credentials, auth)
    url, webhooks = webhooks_for(where, webhook, private_webhooks, public=not dry_run,
                                 instead="add --dry-run to print the messages without posting them")
    report = posting.post(source, url, dry_run=dry_run, webhooks=webhooks)
    planned = report.planned()
    if dry_run and as_json:  # a private message names its player: never its address
        echo(json.dumps([{"player": p, **m.as_dict()} if p else m.as_dict() for p, m in planned],
                        indent=2, ensure_ascii=False), wrap=False)
    elif dry_run:
        seen: Counter[str] = Counter()
        for player, message in planned:
            whose = f"{player}'s private message" if player else "message"
            seen[player] += 1
            parts = sum(p == player for p, _ in planned)
            files = f" (pictures: {', '.join(f.name for f in message.files)})" if message.files else ""
            echo(f"--- {whose} {seen[player]} of {parts}, {len(message.content)} characters{files}")
            echo(message.content)
    else:
        echo(f"{report.name} posted to {posting.shown(url)}: {report.said() or 'nothing to do'}.")
    if dry_run and report.unsent:
        echo(f"no private webhook for {', '.join(report.unsent)}: their private messages would not be posted",
             err=True)


@app.command(short_help="Check, remind, lock, resolve and post on the deadlines, until the game (or the season's "
                        "plan) is over.")
@friendly
def watch(where: str = typer.Argument(..., metavar="WHERE", help=WHERE_HELP + " Or a season: its folder, or the "
                                    "host season book's id or URL."),
          webhook: Optional[str] = WEBHOOK, private_webhooks: Optional[Path] = PRIVATE_WEBHOOKS,
          no_post: bool = typer.Option(False, "--no-post", help="Post nothing to Discord (no reminders either)."),
          once: bool = typer.Option(False, "--once", help="Do what is due now and exit (run it from cron)."),
          season: Optional[str] = typer.Option(None, "--season", metavar="SEASON", help="The game's season: once the "
                                               "game is over, its result is settled into the season's ledger."),
          backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Run the game on its deadlines: check submissions every few minutes (players see their
    status in their own book), post reminders before each deadline, lock and resolve at the
    deadline, post the results, and go on with the next round, until the game is over. With the
    players' webhooks, each player also gets private receipts and nudges in their own channel.

    Given a season, run the season: each game of it as above, and between games the season's
    week (sheets-host season step): the decisions asked in the players' books, their answers or
    the season's default at the deadline, the Death Matches made from the picks, the plan's next
    Main Match; each posted in public, each player asked nudged in private. It exits once the
    plan is done and nothing is owed.

    Everything it needs is in the host book, so stopping it (Ctrl-C) and starting it again, on any
    machine, never resolves or posts twice. The config's reminder hours and check minutes set it.

    Example: sheets-host watch games/wgm
    """
    from sheets_host.discord import post as posting
    from sheets_host.watch.loop import Watch
    from sheets_host.watch.season import SeasonWatch, is_season

    source = open_where(where, backend, credentials, auth)
    whole = is_season(source)
    url, webhooks = (None, None) if no_post else webhooks_for(
        where, webhook, private_webhooks, public=True,
        instead=f"add --no-post to run the {'season' if whole else 'game'} without Discord (no reminders, no results "
                "posted)")
    if url:
        echo(f"posting to {posting.shown(url)}"
             + (f", and private pictures, receipts and nudges to the players' webhooks in {webhooks}" if webhooks else ""))
    if whole and season:
        raise typer.BadParameter(f"{where} is a season: --season goes with a game")
    if whole:
        from sheets_host.season import steps

        place = steps.new_spreadsheets if source.name == "gsheets" else steps.folder_place
        watcher = SeasonWatch(source, season_commands.game_opener(backend, credentials, auth, where), url, say=echo,
                              webhooks=webhooks, place=place)
    else:
        watcher = Watch(source, url, say=echo, webhooks=webhooks)
    try:
        over = watcher.run(once=once)
    except KeyboardInterrupt:
        echo("watch stopped: start it again to go on (the host book says what is done)")
        return
    if over and season and not season_commands.settled_and_said(season, backend, credentials, auth):
        raise typer.Exit(1)


app.command(short_help="Nudge privately each player whose submission is missing or does not count.")(private.remind)


@app.command(short_help="Undo the last resolve; its submissions go back.")
@friendly
def undo(where: str = typer.Argument(..., metavar="WHERE", help=WHERE_HELP), reason: Optional[str] = REASON,
         backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Restore the state before the last resolve; the round's submissions go back into the submit tabs.

    Example: sheets-host undo games/wgm
    """
    from sheets_host.engine import commands as engine

    done = engine.undo(open_where(where, backend, credentials, auth), reason=reason)
    echo(f"{done} undone: it is open again with its submissions restored.")


@app.command(short_help="Freeze the submit tabs at the deadline.")
@friendly
def lock(where: str = typer.Argument(..., metavar="WHERE", help=WHERE_HELP),
         backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Freeze submissions at the deadline: only the host can edit submit tabs until the next round opens.

    Example: sheets-host lock https://docs.google.com/spreadsheets/d/1AbC.../edit
    """
    from sheets_host.engine import commands as engine

    done = engine.lock(open_where(where, backend, credentials, auth))
    echo(f"{done}: submit tabs locked.")


@app.command()
@friendly
def status(where: str = typer.Argument(..., metavar="WHERE", help=WHERE_HELP),
           backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Show the round, its deadline and who has submitted.

    Example: sheets-host status games/wgm
    """
    from sheets_host.engine import commands as engine

    report = engine.status(open_where(where, backend, credentials, auth))
    if report.round is None:
        echo(f"{report.game}: the game is over.")
        return
    echo(f"{report.game}: {report.name}, deadline {report.deadline}")
    for player, state in report.submitted.items():
        echo(f"  {player}: {state}")


@app.command(short_help="Play a whole bot game on offline .xlsx books.")
@friendly
def demo(game: str = typer.Argument("wind-guide-me", metavar="GAME", help=f"One of: {', '.join(game_names())}."),
         where: Path = typer.Argument(Path("demo"), metavar="WHERE", help="A folder for the books."),
         force: bool = typer.Option(False, "--force", help="Replace a game already in the folder."),
         seed: int = typer.Option(1, "--seed"),
         players: Optional[int] = typer.Option(None, "--players", help="How many bots (default: as in the rule text).")):
    """Play a whole game with bots on offline .xlsx books, every round written, and print the standings.

    Example: sheets-host demo wind-guide-me demo/
    """
    from sheets_host.engine import play
    from sheets_host.backends.kinds import open_backend

    report = play.demo(game, open_backend("xlsx", str(where)), seed, players, say=echo, force=force)
    echo("\nFinal standings:")
    echo("\n".join(table(report.standings)))
    echo(f"\nBooks: {where}/host.xlsx, {where}/public.xlsx, {where}/players/*.xlsx; "
         f"announcements in {where}/announcements/")


app.command(short_help="Play N bot games in memory, on every core: statistics, throughput.")(sweeping.simulate)
app.command(short_help="Play every combination of some settings with every bot strategy: a table and its "
                       "picture.")(sweeping.sweep)


@app.command(short_help="Time each resolve of a bot game (xlsx, or Google requests).")
@friendly
def bench(game: str = typer.Argument("wind-guide-me", metavar="GAME", help=f"One of: {', '.join(game_names())}."),
          players: Optional[int] = typer.Option(None, "--players", help="How many bots (default: as in the rule text)."),
          seed: int = typer.Option(1, "--seed"),
          rounds: Optional[int] = typer.Option(None, "--rounds", min=1, help="Only the first N rounds (default: all)."),
          end_to_end: bool = typer.Option(True, "--end-to-end/--in-process-only",
                                          help="Also time each round's `sheets-host resolve` in a fresh process."),
          google: bool = typer.Option(False, "--google", help="Count Google Sheets requests and bytes per command "
                                                              "instead, on a local fake of the Sheets API."),
          watched: bool = typer.Option(False, "--watch", help="A game run by `watch` on the fake Google API: Spirit "
                                                              "Chain's duel, its reads and bytes a minute; any other "
                                                              "game (20 players, or as many as it takes, unless "
                                                              "--players) checked every minute, nobody typing, then "
                                                              "one player: its requests."),
          latency: float = typer.Option(0.0, "--latency", min=0, metavar="MS",
                                        help="With --google: each request takes MS milliseconds more (a round "
                                             "trip to Google); the report gives each command's wall time."),
          as_json: bool = typer.Option(False, "--json", help="Print the report as JSON.")):
    """Time each resolve of a whole bot game on offline .xlsx books (target: under 2 s a round).

    Each round is resolved in this process (everything already imported) and, unless
    --in-process-only, also by `sheets-host resolve` in a fresh process on a copy of the same
    books: wall and CPU seconds, start-up included. With --google: the requests each command
    sends to each spreadsheet, the largest request of each round and each command's wall time, on a
    local fake of the API (--latency 250: as if each request took a quarter of a second).
    With --watch: a Spirit Chain duel run by `watch` (--rounds: its first N phase parts), its reads
    and bytes a minute; another game watched with a check a minute, nobody typing, then one player.

    Example: sheets-host bench magicians-market --players 20
    """
    if google or watched:
        _bench_google(game, players, rounds, seed, as_json, watched, latency)
        return
    import tempfile

    from sheets_host.engine import play

    with tempfile.TemporaryDirectory() as folder:
        report = play.bench(game, Path(folder), seed, players, end_to_end=end_to_end, rounds=rounds)
    data = report.as_dict()
    if as_json:
        echo(json.dumps(data, indent=2), wrap=False)
        return
    echo(f"{data['game']}, {data['players']} players, {data['rounds']} rounds on xlsx:")
    echo(f"  resolve in process:    {data['mean_resolve_seconds']} s a round on average, "
         f"{data['max_resolve_seconds']} s at most")
    fresh = data.get("end_to_end")
    if fresh:
        cpu = (f"; CPU {fresh['mean_cpu_seconds']} s on average, {fresh['max_cpu_seconds']} s at most"
               if fresh["mean_cpu_seconds"] is not None else "")
        echo(f"  sheets-host resolve in a fresh process: wall {fresh['mean_wall_seconds']} s on average, "
             f"{fresh['max_wall_seconds']} s at most{cpu}")


def _bench_google(game: str, players: int | None, rounds: int | None, seed: int, as_json: bool, watched: bool,
                  latency: float = 0.0) -> None:
    try:
        from . import bench_google, bench_idle, bench_watch
    except ImportError as e:
        if e.name not in (f"{__package__}.bench_google", f"{__package__}.bench_idle", f"{__package__}.bench_watch"):
            raise
        raise SheetsHostError("bench --google is not available in this installation "
                              f"({e.name} is missing)") from None
    from sheets_host.games import get_game

    chosen = get_game(game)
    name = chosen.name
    # Spirit Chain: a duel with time controls, polled; any other game: idle, then one player typing,
    # 20 players or as many as the game takes.
    report = (bench_watch if name == "spirit-chain" else bench_idle) if watched else bench_google
    data = (bench_watch.run(rounds, seed) if report is bench_watch
            else bench_idle.run(name, players or min(20, chosen.max_players), seed) if report is bench_idle
            else bench_google.run(name, players, rounds=rounds, seed=seed, latency_ms=latency))
    if as_json:
        echo(json.dumps(data, indent=2, default=str), wrap=False)
        return
    for line in report.report_lines(data):
        echo(line)


@app.command(short_help="Replay a game from its host book's log into new books.")
@friendly
def replay(where: str = typer.Argument(..., metavar="WHERE", help="The game to replay: a folder, or a host spreadsheet id/URL."),
           into: Path = typer.Argument(..., metavar="INTO", help="A new folder for the replayed .xlsx books."),
           backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Replay a game from its host book's log (snapshot + archived submissions) into new offline books.

    Example: sheets-host replay games/wgm /tmp/wgm-replay
    """
    from sheets_host.engine import commands as engine
    from sheets_host.backends.kinds import open_backend

    rounds = engine.replay(open_where(where, backend, credentials, auth), open_backend("xlsx", str(into)))
    echo(f"replayed {rounds} round(s) into {into}")


app.command(short_help="Write the game's record after the game, for anyone to verify.")(records.record)
app.command(short_help="Check a game's record and what was published, offline.")(records.verify)


@app.command("games", short_help="List the games; with a GAME, its settings.")
@friendly
def list_games(game: Optional[str] = typer.Argument(None, metavar="GAME", help="A game: show its players and every setting.")):
    """List the games sheets-host can host; with a GAME, every setting `new --set` takes, its
    default and what it means.

    Example: sheets-host games wind-guide-me
    """
    from sheets_host.games import get_game

    if game is None:
        for name in game_names():
            g = get_game(name)
            echo(f"{name}: {g.title} ({player_span(g)} players)")
        echo("\nSettings of a game: sheets-host games GAME")
        return
    from sheets_host.engine import commands as engine

    g = get_game(game)
    defaults = engine.template(g)[1]
    echo(f"{g.name}: {g.title}, {player_span(g)} players"
         + (f" ({g.default_players} in the rule text)" if g.default_players else "") + ".")
    echo(f"\nSettings and their defaults; change one with: sheets-host new {g.name} FOLDER "
         "--players A,B,... --set \"key=value\"\n")
    for column in setting_columns(g):
        default = defaults.get(column.name, "")
        echo(f"  {column.name} = {default if default.strip() else '(blank)'}")
        about = column.doc + ("." if column.doc and not column.doc.endswith(".") else "")
        echo(f"      {about} {expected(column)}".rstrip())


app.command(short_help="Move the open round's deadline; the players are told.")(extend)


if __name__ == "__main__":  # python -m sheets_host.cli.main, as bench runs it in a fresh process
    app(prog_name="sheets-host")

app.add_typer(season_commands.app, name="season", short_help="A season: its book and ledger; make each game from it, "
                                                             "settle each into it.")
