"""What each game takes from the season: its players and the settings the ledger and the cast fill
in, each marked as given by the season, so the game's config shows where it came from and a value
typed over it is refused (`engine.host.read_config`).

A game the season does not know how to make from the ledger would be retyped by hand; every game
of the tool is here, and `tests/season` holds each to it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from sheets_host.engine.host import ENGINE_SETTINGS, parse_time
from sheets_host.games import get_game
from sheets_host.kit import cells
from sheets_host.kit.errors import SchemaErrors, SheetsHostError
from sheets_host.kit.result import DEATH_MATCH, MAIN_MATCH, POWER_OF_DARK, POWER_OF_LIGHT, TOKEN
from .state import TOKEN_NEXT_PICKS, Season
from .week import eligible

# The settings the season fills in from its ledger (`making`); the host's own are the others.
SEASON_GIVES = {"wind-guide-me": ("light holders", "dark holders"),
                "academy-of-witchcraft-arts": ("garnets", "gamewide tiebreak"),
                "pyramid-superiority": ("blue meadow", "red meadow", "green meadow", "garnets", "tie winner")}
DEATH_MATCH_GIVES = ("death match opponent",)
DEATH_MATCH_GAME = "spirit-chain"  # the rule texts' Death Match
# A first deadline a plan gives before the game's day is known: hours after the game is made.
AFTER_MADE = re.compile(r"\+\s*(\d+(?:\.\d*)?)\s*(?:h|hours?)?", re.IGNORECASE)


def match_of(game: str) -> str:
    """A Main Match or a Death Match, as the game's rule text says."""
    return get_game(game).match_type


def season_gives(game: str) -> tuple[str, ...]:
    return DEATH_MATCH_GIVES if match_of(game) == DEATH_MATCH else SEASON_GIVES.get(game, ())


def after_made(raw: object) -> float | None:
    """The hours of a first deadline written as hours after the game is made ("+24"); else None.

    >>> after_made("+24"), after_made(" + 1.5 h "), after_made("2026-12-01 18:00"), after_made(None)
    (24.0, 1.5, None, None)
    """
    found = None if cells.is_blank(raw) else AFTER_MADE.fullmatch(cells.text(raw).strip())
    return float(found.group(1)) if found else None


def dated(settings: Mapping[str, str], made: datetime) -> dict[str, str]:
    """`settings` as the game made at `made` takes them: a first deadline "+H" becomes the time H
    hours later, to the next whole minute (never less than H hours).

    >>> dated({"first deadline": "+2", "round hours": "24"}, datetime(2026, 11, 29, 10, 15, 30, tzinfo=timezone.utc))
    {'first deadline': '2026-11-29 12:16', 'round hours': '24'}
    """
    hours = after_made(settings.get("first deadline"))
    if hours is None:
        return dict(settings)
    at = made.astimezone(timezone.utc) + timedelta(hours=hours)
    minute = at.replace(second=0, microsecond=0)
    at = minute if at == minute else minute + timedelta(minutes=1)
    return {**settings, "first deadline": at.strftime("%Y-%m-%d %H:%M")}


def host_settings(game_name: str, settings: Mapping[str, object], what: str, later: bool = False) -> dict[str, str]:
    """The host's own settings for a game the season makes later, checked now: each key a setting
    of the game or the engine's that the season does not give, each value what it takes. A first
    deadline may be hours after the game is made ("+24"); `later` (settings for every Death Match
    to come) takes only that form. Refused naming `what`, the key, the value and what is allowed."""
    game = get_game(game_name)
    columns = {c.name.casefold(): c for c in (*game.settings, *ENGINE_SETTINGS) if c.name not in ("game", "seed")}
    gives = season_gives(game_name)
    out, problems = {}, []
    for key, value in settings.items():
        column = columns.get(" ".join(str(key).split()).casefold())
        text = "" if cells.is_blank(value) else cells.text(value).strip()
        if column is None:
            problems.append(f"{key!r} is not a {game.title} setting (settings: "
                            f"{', '.join(c.name for c in columns.values() if c.name not in gives)})")
            continue
        if column.name in gives:
            problems.append(f"{column.name!r} is given by the season from its ledger, not by hand")
        elif column.name == "first deadline":
            problems += _first_deadline(text, later)
        elif column.kind != "player":  # a player setting is checked when the game is made, among its players
            try:
                column.parse(text)
            except ValueError:
                problems.append(f"{column.name}={text!r}: {column.expected()}")
        out[column.name] = text
    if problems:
        raise SheetsHostError(f"{what}: " + "; ".join(problems))
    return out


def _first_deadline(text: str, later: bool) -> list[str]:
    if not text or after_made(text) is not None:
        return []
    relative = "hours after the game is made, e.g. +24"
    if later:
        return [f"first deadline={text!r}: {relative} (a time would be the same for every game)"]
    try:
        parse_time(text, "plan:first deadline")
    except SchemaErrors:
        return [f"first deadline={text!r}: a UTC time ({cells.TIME_FORMS}), or {relative}"]
    return []


def pairs(text: object) -> dict[str, str]:
    """Settings written in one cell, "key=value; key=value" (a blank cell: none); a part with no
    '=' keeps a blank value, for `host_settings` to name.

    >>> pairs("max cycles = 1; time controls=no ;"), pairs(None)
    ({'max cycles': '1', 'time controls': 'no'}, {})
    """
    parts = ("" if cells.is_blank(text) else cells.text(text)).split(";")
    return {k.strip(): v.strip() for k, _, v in (p.partition("=") for p in parts) if k.strip()}


def pairs_text(settings: Mapping[str, str]) -> str:
    return "; ".join(f"{k}={v}" for k, v in settings.items())


@dataclass(frozen=True)
class Making:
    """A game as the season makes it: the names `new` gets (a Pyramid's Blue, Red and Green
    Meadows), the settings the season fills in, and for each what gave it."""

    players: tuple[str, ...]
    settings: dict[str, str] = field(default_factory=dict)
    given: dict[str, str] = field(default_factory=dict)
    season_players: tuple[str, ...] = ()  # who plays for the season (not a Pyramid's guests)


def _in(season: Season, names: Sequence[str], what: str) -> tuple[str, ...]:
    """Names as the cast spells them, each still in; refused naming the player and why not."""
    out = []
    for name in names:
        try:
            player = cells.as_choice(name, season.cast, "a player of the cast")
        except cells.CellError as e:
            raise SheetsHostError(f"{what}: {e}") from None
        if player in season.eliminated:
            raise SheetsHostError(f"{what}: {player} was eliminated in game {season.eliminated[player]}")
        if player in out:
            raise SheetsHostError(f"{what}: {player} is named twice")
        out.append(player)
    return tuple(out)


def making(season: Season, game: str, players: Sequence[str] = (), red: Sequence[str] = (),
           green: Sequence[str] = ()) -> Making:
    """The game `game` made from `season` now; `players` as the host names them (blank: everyone
    still in). Refused, naming the player and the ledger's reason, where the season forbids it, and
    when the game does not take that many players."""
    made = _making(season, game, players, red, green)
    rules = get_game(game)
    if not rules.min_players <= len(made.players) <= rules.max_players:
        span = (f"{rules.min_players}" if rules.min_players == rules.max_players
                else f"{rules.min_players} to {rules.max_players}")
        raise SheetsHostError(f"{rules.title} takes {span} players; the season would give it {len(made.players)}: "
                              f"{', '.join(made.players)} (name them with --players, or plan another game)")
    return made


def _making(season: Season, game: str, players: Sequence[str], red: Sequence[str], green: Sequence[str]) -> Making:
    number = season.next_number()
    by = f"season '{season.name}', before game {number}"
    chosen = _in(season, players, "--players") if players else season.still_in
    if match_of(game) == DEATH_MATCH:
        return _death_match(season, chosen, by)
    if game == "pyramid-superiority":
        return _pyramid(season, chosen, red, green, by)
    if red or green:
        raise SheetsHostError("--red and --green are Pyramid Superiority's meadows")
    settings: dict[str, str] = {}
    if game == "wind-guide-me":
        settings = {"light holders": ", ".join(p for p in season.holders(POWER_OF_LIGHT) if p in chosen),
                    "dark holders": ", ".join(p for p in season.holders(POWER_OF_DARK) if p in chosen)}
    elif game == "academy-of-witchcraft-arts":
        settings = {"garnets": cells.counts_text({p: season.garnets()[p] for p in chosen}),
                    "gamewide tiebreak": ", ".join(p for p in season.settings.tiebreak if p in chosen)}
    return Making(chosen, settings, {k: by for k in settings}, chosen)


def _death_match(season: Season, chosen: tuple[str, ...], by: str) -> Making:
    """Two players: an Elimination Candidate the last Main Match left owed a Death Match, and the
    Death Match Opponent they picked, who holds no Token of Life unless every player they may pick
    holds one (the protection then gives way: `week.eligible`, docs/season.md)."""
    if len(chosen) != 2:
        raise SheetsHostError(f"--players: a Death Match is two players, the Elimination Candidate first; got "
                              f"{', '.join(chosen) or 'none'}")
    owed = season.candidates_owed()
    candidate = next((p for p in chosen if p in owed), None)
    if candidate is None:
        raise SheetsHostError(f"--players: neither {' nor '.join(chosen)} is an Elimination Candidate owed a Death "
                              f"Match (owed now: {', '.join(owed) or 'none'})")
    opponent = next(p for p in chosen if p != candidate)
    last = season.last(MAIN_MATCH)
    since = season.games[season.games.index(last) + 1:]
    made = [tuple(g.players) for g in since if g.match == DEATH_MATCH]
    may = eligible(season, last.settlement.candidates, made)
    if season.held(opponent, TOKEN) > 0 and opponent not in may:  # when all may pick hold one, it gives way
        raise SheetsHostError(f"--players: {opponent} holds a Token of Life ({season.held(opponent, TOKEN)}), which "
                              f"protects them from being picked for the Death Match (may be picked: "
                              f"{', '.join(may) or 'none'})")
    settings = {"death match opponent": opponent}
    return Making((candidate, opponent), settings, {k: by for k in settings}, (candidate, opponent))


def _pyramid(season: Season, blue: tuple[str, ...], red: Sequence[str], green: Sequence[str], by: str) -> Making:
    """The Blue Meadow (three players still in), the Red Meadow from the eliminated (the host's three,
    else the three eliminated last) and the Green Meadow as the host names them."""
    if len(blue) != 3:
        raise SheetsHostError(f"--players: Pyramid Superiority's Blue Meadow is three players still in; got "
                              f"{', '.join(blue)}")
    out = list(season.eliminated)
    if red:
        reds = []
        for name in red:
            try:
                reds.append(cells.as_choice(name, out, "an eliminated player"))
            except cells.CellError as e:
                raise SheetsHostError(f"--red: {e}") from None
    else:
        reds = out[-3:]
    if len(reds) != 3 or len(set(reds)) != 3:
        raise SheetsHostError(f"--red: the Red Meadow is three eliminated players; the season has "
                              f"{', '.join(out) or 'none'}")
    greens = [cells.text(g) for g in green]
    if len(greens) != 3 or len(set(greens)) != 3:
        raise SheetsHostError("--green: the Green Meadow is three spectators, comma-separated")
    taken = [g for g in greens if g in blue or g in reds]
    if taken:
        raise SheetsHostError(f"--green: {', '.join(taken)} already in another meadow")
    settings = {"blue meadow": ", ".join(blue), "red meadow": ", ".join(reds), "green meadow": ", ".join(greens),
                "garnets": cells.counts_text({p: season.garnets()[p] for p in blue})}
    winner = season.previous_winner()
    if winner in blue:  # "pseud wins as the winner of the previous Main Match"
        settings["tie winner"] = winner
    return Making((*blue, *reds, *greens), settings, {k: by for k in settings}, blue)


def expiring(season: Season, game: str) -> dict[str, int]:
    """Player -> the Tokens of Life that stop protecting when game `game` is made: under the default
    setting, every Token held once a new Main Match begins (its Death Match picks are over)."""
    if season.settings.token_lasts != TOKEN_NEXT_PICKS or match_of(game) != MAIN_MATCH:
        return {}
    return {p: season.held(p, TOKEN) for p in season.cast if season.held(p, TOKEN) > 0}
