"""A game's settings on the command line: `--set key=value` items checked against the settings
`new` takes, and how `games` shows a game's players and settings. Light to import: the engine and
the games are imported when a function needs them (see `sheets_host.cli.main`)."""

from __future__ import annotations

from sheets_host.kit.errors import SheetsHostError


def setting_columns(game) -> list:
    """The settings `--set` takes for `game`: the game's, then the engine's (but game and seed,
    which have their own arguments)."""
    from sheets_host.engine.host import ENGINE_SETTINGS

    return list(game.settings) + [c for c in ENGINE_SETTINGS if c.name not in ("game", "seed")]


def key_values(items: list[str], allowed: str = "") -> dict[str, str]:
    """`--set key=value` items as a dict, keys with their spaces tidied; an item without '=' is
    an error saying how to write it (and `allowed`).

    >>> key_values(["max  cycles = 1", "round hours=24"])
    {'max cycles': '1', 'round hours': '24'}
    """
    settings = {}
    for item in items:
        key, eq, value = item.partition("=")
        key = " ".join(key.split())
        if not eq:
            raise SheetsHostError(f"--set {item!r} has no '=': write --set \"{key}=VALUE\"" + (f"; {allowed}" if allowed else ""))
        settings[key] = value.strip()
    return settings


def parse_settings(game_name: str, items: list[str]) -> dict[str, str]:
    """`--set key=value` items as a dict; an item without '=', an unknown key, or game or seed
    (which have their own arguments) is an error naming the settings there are."""
    if not items:
        return {}
    from sheets_host.games import get_game

    game = get_game(game_name)
    known = {c.name.casefold(): c.name for c in setting_columns(game)}
    allowed = (f"{game.name} settings: {', '.join(known.values())} "
               f"(sheets-host games {game.name} shows their defaults and meaning)")
    settings = {}
    for item in items:
        ((key, value),) = key_values([item], allowed).items()
        if key.casefold() in ("game", "seed"):
            raise SheetsHostError(f"--set {item!r}: the {key.casefold()} is given by "
                                  f"{'--seed' if key.casefold() == 'seed' else 'the GAME argument'}, not --set")
        if key.casefold() not in known:
            raise SheetsHostError(f"--set {item!r}: unknown setting {key!r}; {allowed}")
        settings[known[key.casefold()]] = value
    return settings


def player_span(g) -> str:
    return f"{g.min_players}" if g.min_players == g.max_players else f"{g.min_players}-{g.max_players}"


def expected(column) -> str:
    """What a setting's value must be, as a sentence ('' for any text that may not be blank)."""
    if column.kind == "text":
        return "May be blank." if column.optional else ""
    what = "one of the players" if column.kind == "player" else column.expected()
    return what[0].upper() + what[1:] + (", or blank." if column.optional else ".")
