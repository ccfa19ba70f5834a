"""The games sheets-host can host, by their command-line name."""

from __future__ import annotations

from ..errors import UnknownGame
from ..game import Game


def _games() -> dict[str, Game]:
    from .wind_guide_me import GAME as wind_guide_me

    return {g.name: g for g in (wind_guide_me,)}


def names() -> list[str]:
    return sorted(_games())


def get_game(name: str) -> Game:
    """The game called `name` (any case, spaces or dashes).

    >>> get_game("Wind Guide Me").title
    'Wind Guide Me'
    """
    key = "-".join(str(name).casefold().replace("_", " ").split())
    games = _games()
    if key not in games:
        raise UnknownGame(f"no game called {name!r}; allowed: {', '.join(sorted(games))}")
    return games[key]
