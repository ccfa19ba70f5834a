"""A decision the game's rules leave open at its end, given from outside the game after it (a
season: the player's own decision, read from their book): written into the config as the host
would type it, marked `given by`, with the last round resolved again in the same commit of the host
book, so that its host commitment, its results and every book hold it.

Run again after a kill at any moment it finishes: a kill before that commit leaves the config as
it was (a result read from the config never shows a value its round was not resolved with); after
it, the delivery is finished and nothing is resolved again. A config given by an earlier version
(written alone) is resolved again while the round's commitment does not hold it.
"""

from __future__ import annotations

import json

from sheets_host.backends import Backend
from sheets_host.kit import cells
from sheets_host.kit.errors import SchemaErrors, SheetsHostError
from . import commitments
from .commands import resolve
from .commit import caught_up
from .host import AS_GIVEN, GIVEN_BY, Clock, now_utc, open_session, read_config


def _check(session, config, key: str, value: str) -> None:
    """Refused, naming the setting and what the game allows, unless the game takes `value` for `key`
    (never written to stop every command of the game)."""
    try:
        parsed = read_config(config, session.game)
    except SchemaErrors as e:
        raise SheetsHostError(f"{key} = {value!r}: {e}") from None
    problems = session.game.check_config(parsed, session.players)
    if problems:
        raise SheetsHostError(f"{key} = {value!r}: " + "; ".join(problems))


def check_decision(backend: Backend, key: str, value: str) -> None:
    """Refused, naming what the game allows, unless game's decision `key` may be `value` now."""
    with backend.hold("give"):
        session = open_session(backend)
        config = session.tabs["config"].copy()
        rows = [i for i, k in config["key"].items() if cells.fold(cells.text(k)) == cells.fold(key)]
        if key not in session.game.host_decisions or not rows:
            raise SheetsHostError(f"{session.game.title} has no decision {key!r}")
        config.at[rows[0], "value"] = value
        for column in (GIVEN_BY, AS_GIVEN):
            if column in config.columns:
                config.at[rows[0], column] = None
        _check(session, config, key, value)


def give_decision(backend: Backend, key: str, value: str, by: str, clock: Clock = now_utc) -> bool:
    """The game's decision `key` given `value` by `by` (words: "Ann's decision, read from her book");
    whether the last round was resolved again for it."""
    with backend.hold("give"):
        session = caught_up(backend, clock)[0]
        game = session.game
        if key not in game.host_decisions:
            raise SheetsHostError(f"{game.title} has no decision {key!r} to give; its decisions: "
                                  f"{', '.join(game.host_decisions) or 'none'}")
        if not game.is_over(session.state):
            raise SheetsHostError(f"{game.title} is not over: {key!r} is given at its end")
        config = session.tabs["config"].copy()
        for column in (GIVEN_BY, AS_GIVEN):
            if column not in config.columns:
                config[column] = None
        rows = [i for i, k in config["key"].items() if cells.fold(cells.text(k)) == cells.fold(key)]
        if not rows:
            raise SheetsHostError(f"config: no row {key!r} (restore it: sheets-host games {game.name} lists it)")
        wanted = {"value": value, GIVEN_BY: by, AS_GIVEN: value}
        given = None
        if any(cells.text(config.at[rows[0], c]) != v for c, v in wanted.items()):
            for column, v in wanted.items():
                config.at[rows[0], column] = v
            _check(session, config, key, value)
            given = config
        else:
            last = session.last_resolved["round"]
            held = commitments.current(commitments.read(session.tabs, session.players), last, "host")
            if held and held[-1].get("text") and json.loads(held[-1]["text"]).get(key) == value:
                return False
    # The config goes into the redo's own commit: a kill leaves the value given with its round
    # resolved again, or neither. The reason is published with the round's root: it says what was
    # given and by what, never the value (a decision the rules keep private, a guest's cosmos, is
    # the host's and the record's).
    resolve(backend, redo=True, clock=clock, reason=f"config '{key}' given ({by})", config=given)
    return True
