"""`sheets-host season`: a season of games made from one season book and settled into its ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sheets_host.games import names as game_names
from sheets_host.kit.console import echo
from .settings import key_values, parse_settings
from .options import (AUTH, BACKEND, CREDENTIALS, WEBHOOK, Auth, BackendName, friendly, open_where, player_list,
                      webhooks_for)

SEASON_HELP = "The season: a folder, or the host season book's id or URL."


def _settings_help() -> str:
    # The settings' words live with the season (`season.tabs.SETTINGS`); kept in step by a test.
    return ("Settings (--set key=value): 'starting garnets' (default 0); 'gamewide tiebreak' (the whole cast, best "
            "first; default: drawn from the seed); 'garnets of the eliminated': removed (default, as on The Genius "
            "from its third season) or to the winner (as in its second); 'garnets public': no (default) or yes; "
            "'token of life lasts': next death match picks (default, as on the show) or the season; 'decision hours': "
            "each decision's and each Death Match pick's time (default 24); 'when nobody decides': drawn (default: "
            "among the choices, from the seed) or the host decides; 'one player in two death matches': no (default) "
            "or yes; 'death match settings': Spirit Chain's settings for each Death Match made, e.g. first "
            "deadline=+24; round hours=24 (default: none, the game's own; `season plan --death-matches` sets them).")


app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="A season of Main Matches and Death Matches: one season book whose ledger carries the cast, "
                       "Tokens of Life, garnets, cosmos, artefacts and eliminations from game to game. "
                       + _settings_help() + " Rulings: docs/season.md.")


def game_opener(backend: Optional[BackendName], credentials: Optional[Path], auth: Auth, season_where: str):
    """How a game of the season is opened: its where as recorded (a folder relative to the season's)."""
    def open_game(game):
        if game.backend == "xlsx":
            place = Path(game.where)
            return open_where(str(place if place.is_absolute() else Path(season_where) / place),
                              BackendName.xlsx)
        return open_where(game.where, BackendName.gsheets, credentials, auth)
    return open_game


@app.command("new")
@friendly
def new(season: str = typer.Argument(..., metavar="SEASON", help="xlsx: a folder to create."),
        cast: str = typer.Option(..., "--cast", help="Comma-separated names; with Google, name=email."),
        name: Optional[str] = typer.Option(None, "--name", help="The season's name (default: the folder's)."),
        seed: int = typer.Option(1, "--seed", help="Every game's seed and the drawn Gamewide Tiebreak derive from it."),
        setting: list[str] = typer.Option([], "--set", help="A season setting, key=value (repeatable)."),
        force: bool = typer.Option(False, "--force", help="Replace a season already there, removing its books."),
        backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Create a season's books (the host's and the public one) for its cast."""
    from sheets_host.season import commands

    names, emails = player_list(cast)
    settings = key_values(setting)
    b = open_where(season, backend, credentials, auth)
    made = commands.new_season(b, name or Path(season).name, names, seed, emails, settings, force=force)
    echo(f"season '{made.name}': {len(made.cast)} players; Gamewide Tiebreak {', '.join(made.settings.tiebreak)}.")
    echo(f"host season book: {b.book('host').ref}; public: {b.book('public').ref}")
    echo(f"next: sheets-host season next {season} GAME FOLDER")


@app.command("next")
@friendly
def next_(season: str = typer.Argument(..., metavar="SEASON", help=SEASON_HELP),
          game: str = typer.Argument(..., metavar="GAME", help=f"One of: {', '.join(game_names())}."),
          folder: str = typer.Argument(..., metavar="FOLDER", help="Where the game's books go: a folder (relative "
                                       "to the season's, or absolute); Google: '-' for new spreadsheets."),
          players: Optional[str] = typer.Option(None, "--players", help="Who plays (default: everyone still in; "
                                                "a Death Match: the next the picks made); a Death Match: the "
                                                "Elimination Candidate and the opponent they picked; Pyramid "
                                                "Superiority: its Blue Meadow."),
          red: Optional[str] = typer.Option(None, "--red", help="Pyramid Superiority: the Red Meadow's three "
                                            "eliminated players (default: the three eliminated last)."),
          green: Optional[str] = typer.Option(None, "--green", help="Pyramid Superiority: the Green Meadow's three "
                                              "spectators."),
          setting: list[str] = typer.Option([], "--set", help="A game setting the season does not give, key=value "
                                            "(repeatable): deadlines, the game's own rules."),
          backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Make the season's next game: its players and what it takes from the season filled in from the ledger."""
    from sheets_host.season import commands

    def split(text):
        return [n.strip() for n in (text or "").split(",") if n.strip()]

    b = open_where(season, backend, credentials, auth)
    kind = "gsheets" if b.name == "gsheets" else "xlsx"
    made = commands.next_game(b, game, folder, kind, game_opener(backend, credentials, auth, season), split(players),
                              split(red), split(green), settings=parse_settings(game, setting))
    g = made.game
    echo(f"game {g.number}: {made.title} ({g.match}) for {', '.join(g.players)}, seed {g.seed}, at {g.where}.")
    for key, value in g.given.items():
        echo(f"  from the season: {key} = {value or '(none)'}")
    echo(f"play it with the game's commands (sheets-host resolve ...); at its end: sheets-host season settle {season}")


@app.command("settle")
@friendly
def settle(season: str = typer.Argument(..., metavar="SEASON", help=SEASON_HELP),
           backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Write each finished game's result to the ledger, exactly once (a redo or an undo is corrected)."""
    if not settled_and_said(season, backend, credentials, auth):
        raise typer.Exit(1)


def settled_and_said(season: str, backend: Optional[BackendName], credentials: Optional[Path], auth: Auth) -> bool:
    """`season settle`, its lines printed (`watch --season` runs it when its game is over); whether
    every game could be read."""
    from sheets_host.season import commands

    report = commands.settle(open_where(season, backend, credentials, auth), game_opener(backend, credentials, auth, season))
    for line in report.lines:
        echo(f"season: {line}")
    for problem in report.problems:
        echo(f"season: problem: {problem}", fg=typer.colors.RED, err=True)
    return not report.problems


@app.command("step")
@friendly
def step(season: str = typer.Argument(..., metavar="SEASON", help=SEASON_HELP),
         backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Move the season on as far as it can now: settle every game, ask each decision a result leaves
    to a player in their book, read and count their answers (or the season's default at the
    deadline), give each decided one to its game, and once the Elimination Candidates' picks are
    in, make the next Death Match; once the week is over, the plan's next Main Match.

    Run it again at any time (`watch SEASON` runs it on a timer): it does each thing once.

    Example: sheets-host season step seasons/larks
    """
    if not stepped_and_said(season, backend, credentials, auth):
        raise typer.Exit(1)


def stepped_and_said(season: str, backend: Optional[BackendName], credentials: Optional[Path], auth: Auth):
    """`season step`, its lines printed; the report, or None when something could not be read."""
    from sheets_host.season import steps

    b = open_where(season, backend, credentials, auth)
    place = steps.new_spreadsheets if b.name == "gsheets" else steps.folder_place
    report = steps.step(b, game_opener(backend, credentials, auth, season), place=place)
    for line in report.lines:
        echo(line)
    for line in report.waiting:
        echo(f"waiting: {line}")
    for line in report.host:
        echo(f"for you: {line}", fg=typer.colors.YELLOW)
    for problem in report.problems:
        echo(f"problem: {problem}", fg=typer.colors.RED, err=True)
    if not (report.lines or report.waiting or report.host or report.problems):
        echo("nothing to do: no game is open, nothing is asked, and the plan has no next game "
             "(sheets-host season plan SEASON --add GAME)")
    return None if report.problems else report


@app.command("decide")
@friendly
def decide(season: str = typer.Argument(..., metavar="SEASON", help=SEASON_HELP),
           game: str = typer.Argument(..., metavar="GAME_NO", help="The number of the game that asks it."),
           key: str = typer.Argument(..., metavar="WHAT", help="What is asked: the game's setting ('extra token of "
                                     "life') or 'pick N'."),
           choice: str = typer.Argument(..., metavar="CHOICE"),
           backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Decide, as the host, what the rules leave to the host (Magician's Market's tied candidates'
    order, Pyramid Superiority's three-way tie) or what nobody decided by the deadline (under 'when
    nobody decides' = the host decides); the next step gives it to the game.

    Example: sheets-host season decide seasons/larks 1 "elimination candidates" "Ed, Fay, Gus"
    """
    from sheets_host.season import steps

    row = steps.decide(open_where(season, backend, credentials, auth), game, key, choice,
                       game_opener(backend, credentials, auth, season))
    echo(f"game {row.game}: {row.key} = {row.choice} (the host's decision); next: sheets-host season step {season}")


@app.command("plan")
@friendly
def plan(season: str = typer.Argument(..., metavar="SEASON", help=SEASON_HELP),
         add: Optional[str] = typer.Option(None, "--add", metavar="GAME", help="A Main Match to add at the plan's "
                                           f"end: one of {', '.join(game_names())}."),
         where: Optional[str] = typer.Option(None, "--where", help="With --add: where its books go (default: "
                                             "games/N-GAME beside the season; Google: new spreadsheets)."),
         players: Optional[str] = typer.Option(None, "--players", help="With --add: who plays (default: "
                                               "everyone still in when it is made)."),
         red: Optional[str] = typer.Option(None, "--red", help="With --add pyramid-superiority: the Red Meadow."),
         green: Optional[str] = typer.Option(None, "--green", help="With --add pyramid-superiority: the Green "
                                             "Meadow's three spectators."),
         setting: list[str] = typer.Option([], "--set", help="With --add or --death-matches: a game setting, "
                                           "key=value (repeatable); a first deadline may be hours after the game is "
                                           "made: \"first deadline=+24\"."),
         death_matches: bool = typer.Option(False, "--death-matches", help="Set every Death Match's settings from "
                                            "now on to --set's (none: Spirit Chain's defaults, with no deadlines)."),
         drop: list[int] = typer.Option([], "--drop", help="A plan row not made yet, to remove (repeatable)."),
         backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """List the season's plan of Main Matches in order; --add one at its end, --drop one not made;
    --death-matches sets what each Death Match the picks make is made with.

    `watch SEASON` (and `season step`) makes the plan's next Main Match once the week after the
    last is over: its decisions made, its Death Matches played. A first deadline written "+24" is
    24 hours after the game is made, so `watch` plays it with no one typing a date.

    Example: sheets-host season plan seasons/larks --add wind-guide-me --set "first deadline=+24" --set "round hours=24"

    Example: sheets-host season plan seasons/larks --death-matches --set "first deadline=+2" --set "round hours=1"
    """
    from sheets_host.season import commands, steps
    from sheets_host.season.state import Planned
    from sheets_host.season.takes import pairs_text

    def split(text):
        return tuple(n.strip() for n in (text or "").split(",") if n.strip())

    added = []
    if add and death_matches:
        raise typer.BadParameter("--add and --death-matches: one at a time (each takes its own --set)")
    if add:
        added.append(Planned(add, where or "", split(players), split(red), split(green), key_values(setting)))
    elif where or players or red or green or (setting and not death_matches):
        raise typer.BadParameter("--where, --players, --red and --green go with --add; --set with --add or "
                                 "--death-matches")
    b = open_where(season, backend, credentials, auth)
    changes = added or drop or death_matches
    after = (steps.plan(b, added, drop, key_values(setting) if death_matches else None) if changes
             else commands.read(b))
    made = sum(1 for g in after.games if g.match != "Death Match")
    if not after.plan:
        echo("the plan is empty: sheets-host season plan SEASON --add GAME")
    for k, p in enumerate(after.plan, 1):
        extra = [f"players {', '.join(p.players)}"] if p.players else []
        extra += [f"red {', '.join(p.red)}"] if p.red else []
        extra += [f"green {', '.join(p.green)}"] if p.green else []
        extra += [f"{key}={value}" for key, value in p.own.items()]
        echo(f"{k}. {p.game}{' at ' + p.where if p.where else ''}{' (' + '; '.join(extra) + ')' if extra else ''}"
             f"{' - made' if k <= made else ''}")
    dm = after.settings.death_match
    echo("Death Matches: " + (pairs_text(dm) if dm else
                              "Spirit Chain's defaults, no deadlines (set them: --death-matches --set KEY=VALUE)"))


@app.command("drop")
@friendly
def drop(season: str = typer.Argument(..., metavar="SEASON", help=SEASON_HELP),
         game: str = typer.Argument(..., metavar="GAME_NO", help="The season's last game, not begun."),
         backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Take the season's last game back before it began (its books removed, what its making wrote
    withdrawn): a Death Match made from picks a redo voided, a game made by mistake."""
    from sheets_host.season import steps

    after = steps.drop(open_where(season, backend, credentials, auth), game, game_opener(backend, credentials, auth,
                                                                                      season))
    echo(f"game {game} dropped; the season has {len(after.games)} game(s).")


# A negative amount ("-1": a Token of Life used) is an argument, not an unknown option.
SIGNED = {"ignore_unknown_options": True}


@app.command("give", context_settings=SIGNED)
@friendly
def give(season: str = typer.Argument(..., metavar="SEASON", help=SEASON_HELP),
         player: str = typer.Argument(..., metavar="PLAYER"),
         what: str = typer.Argument(..., metavar="WHAT", help="Token of Life, garnet, cosmos, Power of Light, "
                                    "Power of Dark, elimination or guest."),
         amount: int = typer.Argument(..., metavar="AMOUNT", help="How many (negative: taken away)."),
         why: str = typer.Option(..., "--why", help="Why, for the ledger (quote the rule)."),
         backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Write a row of your own to the ledger (an artefact granted, a Token of Life used)."""
    from sheets_host.season import commands

    entry = commands.give(open_where(season, backend, credentials, auth), player, what, amount, why)
    echo(f"ledger row {entry.number}: {entry.player} {entry.amount:+d} {entry.what} ({entry.why})")


@app.command("correct", context_settings=SIGNED)
@friendly
def correct(season: str = typer.Argument(..., metavar="SEASON", help=SEASON_HELP),
            row: int = typer.Argument(..., metavar="ROW", help="The ledger row corrected."),
            amount: int = typer.Argument(..., metavar="AMOUNT", help="Added to the row's (its negative cancels it)."),
            why: str = typer.Option(..., "--why", help="Why, for the ledger."),
            backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Correct a ledger row by a new row that names it (rows are never edited)."""
    from sheets_host.season import commands

    entry = commands.correct(open_where(season, backend, credentials, auth), row, amount, why)
    echo(f"ledger row {entry.number} corrects row {row}: {entry.player} {entry.amount:+d} {entry.what} ({entry.why})")


@app.command("post")
@friendly
def post(season: str = typer.Argument(..., metavar="SEASON", help=SEASON_HELP), webhook: Optional[str] = WEBHOOK,
         dry_run: bool = typer.Option(False, "--dry-run", help="Print what would be posted; post nothing."),
         backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Post the season so far to the public Discord channel: each game's winners, Elimination
    Candidates and who left, the cast still in, and a picture of it all (public information only).

    Sent once for each state of the season: posting again with nothing new says so (what was
    posted is kept in the host season book's posts tab).

    Example: sheets-host season post seasons/s1 --dry-run
    """
    from sheets_host.season import post as posting

    url = webhooks_for(season, webhook, None, public=not dry_run,
                       instead="add --dry-run to print the messages without posting them")[0]
    report = posting.post(open_where(season, backend, credentials, auth), url, dry_run=dry_run)
    if report.already:
        echo(f"nothing new: the season as it is now ({report.after}) was posted at {report.already}.")
    elif dry_run:
        for k, message in enumerate(report.messages, 1):
            files = f" (pictures: {', '.join(f.name for f in message.files)})" if message.files else ""
            echo(f"--- message {k} of {len(report.messages)}, {len(message.content)} characters{files}")
            echo(message.content)
    else:
        echo(f"the season ({report.after}) posted: {report.posted} message(s).")


# ---- a season's record and its check (docs/verify.md, "A season's record") -----------------------

@app.command("record")
@friendly
def record(season: str = typer.Argument(..., metavar="SEASON", help=SEASON_HELP),
           out: Path = typer.Argument(..., metavar="OUT", help="The season's record (JSON), e.g. larks-record.json."),
           force: bool = typer.Option(False, "--force", help="Write it while a game is not over: its record reveals "
                                                             "the seed and every salt so far."),
           backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Write the season's record after its games: its cast and settings, each game with its own
    record (`sheets-host record`), and the whole ledger; anyone can then run `season verify`.

    Example: sheets-host season record seasons/larks larks-record.json
    """
    from sheets_host.season.record import write_season_record

    written = write_season_record(open_where(season, backend, credentials, auth),
                                  game_opener(backend, credentials, auth, season), out, force=force)
    echo(f"season '{written['name']}': the record of {len(written['games'])} game(s) and {len(written['ledger'])} "
         f"ledger row(s) written to {out}"
         + ("" if written["complete"] else " (a game is not over: written with --force)"))


@app.command("verify")
@friendly
def verify(record_file: Path = typer.Argument(..., metavar="RECORD", help="A season's record (`season record`).")):
    """Check a season's record, offline: every game's record as `verify` checks it, each game played
    again to its end, and the ledger recomputed from the season's start and the games' results,
    compared row by row and balance by balance. One line a check, then each game's redos, undos
    and edits, and the host's own ledger rows; exits 1 when a check fails.

    Example: sheets-host season verify larks-record.json
    """
    from sheets_host.season.record import load_season_record, verify_season
    from .records import print_checks, verdict

    checked = load_season_record(record_file)
    if not checked.complete:
        echo("the record was written while a game was not over (season record --force): it says nothing of what "
             "came after", fg=typer.colors.YELLOW)
    done = verify_season(checked)
    failed = print_checks(done.checks)
    for number, lines in done.history.items():
        echo(f"game {number}: what the host did besides resolving: "
             + ("nothing (no redo, no undo, no edit of the state)" if not lines else f"{len(lines)} thing(s)"))
        for line in lines:
            echo(f"  {line}")
    echo("the host's own rows in the ledger (the host's word, taken as they are): "
         + (f"{len(done.host)}" if done.host else "none"))
    for line in done.host:
        echo(f"  {line}")
    verdict(failed)


@app.command("demo")
@friendly
def demo(season: Path = typer.Argument(Path("demo-season"), metavar="FOLDER", help="A folder for the season's books "
                                       "and its games' (games/N-GAME)."),
         seed: int = typer.Option(1, "--seed", help="The same seed plays the same season."),
         force: bool = typer.Option(False, "--force", help="Replace a season already in the folder, with its games.")):
    """Play a whole short season with bots on offline .xlsx books: eight bots, the Academy, Wind
    Guide Me, Magician's Market and Pyramid Superiority, each followed by the Death Matches
    (Spirit Chain) its Elimination Candidates' picks make, every handover made by `season step`;
    the bots answer each decision and pick in their own books (sometimes late, untidy or wrong).
    Then the season's record is written (FOLDER/record.json) and checked by `season verify`;
    exits 1 when a check fails.

    Example: sheets-host season demo demo-season
    """
    from sheets_host.season.demo import demo as play
    from .records import print_checks, verdict

    report = play(open_where(str(season), BackendName.xlsx), game_opener(BackendName.xlsx, None, Auth.oauth, str(season)),
                  seed, season / "record.json", say=echo, force=force)
    failed = print_checks(report.verified.checks)
    echo(f"books: {season}/host.xlsx, {season}/public.xlsx, and each game's in {season}/games/; the record: "
         f"{report.record} (sheets-host season verify {report.record})")
    verdict(failed)
