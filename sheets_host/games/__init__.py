"""The games sheets-host can host, by their command-line name.

Every subpackage here that exposes a `GAME` is a game: adding a game touches nothing outside its
own folder.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from ..errors import UnknownGame
from ..game import Game


@cache
def _games() -> dict[str, Game]:
    games = {}
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            game = getattr(importlib.import_module(f"{__name__}.{module.name}"), "GAME", None)
            if isinstance(game, Game):
                games[game.name] = game
    return games


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
