"""What the season's readers see, all derived from the host's season book: the public season book
and, in every game of the season, each player's own `season` tab.

Private information stays private: a player's tab holds their own standing, balances and ledger
rows (another's garnets only when the season makes garnets public); the public book holds what
the rule texts announce (Tokens of Life, cosmos, eliminations, guests, each game's winners and
candidates), garnets only when public, and never an artefact.
"""

from __future__ import annotations

import pandas as pd

from sheets_host.backends import Backend, Book
from sheets_host.games import get_game
from sheets_host.kit.errors import BookError
from sheets_host.kit.result import ARTEFACTS, COSMOS, ELIMINATION, GARNET, GUEST, TOKEN
from .ledger import Entry
from .state import Season, SeasonGame

SEASON_TAB = "season"


def title(game: SeasonGame) -> str:
    return f"game {game.number}: {get_game(game.game).title}"


def standing(season: Season, player: str) -> str:
    """
    "still in", "eliminated in game 3", or "eliminated in game 3; a guest in game 5"."""
    if player not in season.eliminated:
        return "still in"
    guest = [e.game for e in season.entries if e.player == player and e.what == GUEST and e.amount > 0]
    return f"eliminated in game {season.eliminated[player]}" + (f"; a guest in game {', '.join(guest)}" if guest else "")


def public_things(season: Season) -> tuple[str, ...]:
    return (TOKEN, COSMOS, ELIMINATION, GUEST) + ((GARNET,) if season.settings.garnets_public else ())


def public_tabs(season: Season) -> dict[str, pd.DataFrame]:
    shown = (TOKEN, COSMOS) + ((GARNET,) if season.settings.garnets_public else ())
    cast = pd.DataFrame([[p, standing(season, p), *(season.held(p, t) for t in shown)] for p in season.cast],
                        columns=["player", "standing", *(f"{t}s" if t != COSMOS else t for t in shown)], dtype=object)
    games = pd.DataFrame([[int(g.number), get_game(g.game).title, g.match, ", ".join(g.players),
                           ", ".join(g.settlement.winners) if g.settlement and g.settlement.over else
                           ("" if g.settlement is None else "not over"),
                           ", ".join(g.settlement.candidates) if g.settlement else "",
                           g.settlement.loser or "" if g.settlement else ""] for g in season.games],
                         columns=["game", "title", "match", "players", "winners", "Elimination Candidates",
                                  "left the season"], dtype=object)
    things = public_things(season)
    ledger = _ledger([e for e in season.entries if e.what in things])
    return {"cast": cast, "games": games, "ledger": ledger}


def _ledger(entries: list[Entry]) -> pd.DataFrame:
    return pd.DataFrame([[e.number, e.when, int(e.game) if e.game else None, e.at or None, e.player, e.what, e.amount,
                          e.why, e.corrects] for e in entries],
                        columns=["row", "when", "game", "at", "player", "what", "amount", "why", "corrects"], dtype=object)


def deliver_public(backend: Backend, season: Season) -> None:
    """The public season book, made whole from the season (made first when a killed `season new`
    left none)."""
    try:
        book = backend.book("public")
    except BookError:
        book = backend.create("public", f"{season.name} (season)", public=True)
    write_public(book, season)


def write_public(book: Book, season: Season) -> None:
    book.write(public_tabs(season), first=["cast", "games", "ledger"])


def season_tab(season: Season, player: str) -> pd.DataFrame:
    """A player's own `season` tab: their standing, balances and ledger rows."""
    rows: list[list[object]] = [["season", season.name], ["standing", standing(season, player)]]
    rows += [[f"{t}s" if t not in (COSMOS, *ARTEFACTS) else t, season.held(player, t)]
             for t in (TOKEN, GARNET, COSMOS, *ARTEFACTS)]
    if season.settings.garnets_public:
        rows.append(["everyone's garnets", ", ".join(f"{p} {season.held(p, GARNET)}" for p in season.cast)])
    for e in season.entries:
        if e.player == player:
            where = f"game {e.game}, {e.at}" if e.game else e.at
            rows.append([f"row {e.number}: {where}", f"{e.amount:+d} {e.what}: {e.why}"
                         + (f" (corrects row {e.corrects})" if e.corrects else "")])
    return pd.DataFrame(rows, columns=["what", "value"], dtype=object)


def deliver_season_tabs(game_backend: Backend, season: Season, game: SeasonGame) -> None:
    """Each cast member's book in game `game` gets their `season` tab (a spectator has none)."""
    with game_backend.hold("season"):
        for player in game.players:
            if player in season.cast:
                game_backend.book(f"player:{player}").write({SEASON_TAB: season_tab(season, player)})
