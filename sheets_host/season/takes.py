"""What each game takes from the season: its players and the settings the ledger and the cast fill
in, each marked as given by the season, so the game's config shows where it came from and a value
typed over it is refused (`engine.host.read_config`).

A game the season does not know how to make from the ledger would be retyped by hand; every game
of the tool is here, and `tests/season` holds each to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sheets_host.games import get_game
from sheets_host.kit import cells
from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.result import DEATH_MATCH, MAIN_MATCH, POWER_OF_DARK, POWER_OF_LIGHT, TOKEN
from .state import TOKEN_NEXT_PICKS, Season
from .week import eligible

def match_of(game: str) -> str:
    """A Main Match or a Death Match, as the game's rule text says."""
    return get_game(game).match_type


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
