"""The games sheets-host can host, by their command-line name.

Every subpackage here that exposes a `GAME` is a game, and its folder is its command-line name
with dashes for underscores (`wind_guide_me` is `wind-guide-me`): adding a game touches nothing
outside its own folder. Listing the names imports no game; a game's module is imported only when
it is asked for, so `sheets-host --help` starts without them.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import TYPE_CHECKING

from sheets_host.kit.errors import UnknownGame

if TYPE_CHECKING:
    from sheets_host.kit.game import Game


@cache
def _modules() -> dict[str, str]:
    """Command-line name -> module name, from the folders alone."""
    return {m.name.replace("_", "-"): m.name for m in pkgutil.iter_modules(__path__) if m.ispkg}


def names() -> list[str]:
    """Every game's command-line name, without importing any game.

    >>> "wind-guide-me" in names()
    True
    """
    return sorted(_modules())


@cache
def _load(key: str) -> Game:
    from sheets_host.kit.game import Game

    game = getattr(importlib.import_module(f"{__name__}.{_modules()[key]}"), "GAME", None)
    if not isinstance(game, Game) or game.name != key:
        raise UnknownGame(f"the folder of game {key!r} does not hold a GAME called {key!r}")
    return game


def get_game(name: str) -> Game:
    """The game called `name` (any case, spaces or dashes).

    >>> get_game("Wind Guide Me").title
    'Wind Guide Me'
    """
    key = "-".join(str(name).casefold().replace("_", " ").split())
    if key not in _modules():
        raise UnknownGame(f"no game called {name!r}; allowed: {', '.join(names())}")
    return _load(key)
