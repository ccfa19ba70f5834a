"""Wind Guide Me's host tabs: the `hand` (rules data), the settings, and the state tabs `sites`
(the seating), `stones` (every stone placed, fakes included) and `missed`; the state read from
them (`load`, which checks that the stones tell a game that could have happened) and written back
(`dump`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from sheets_host.kit import cells
from sheets_host.kit.cells import CellError
from sheets_host.kit.errors import SchemaError, SchemaErrors
from sheets_host.kit.table import Column, TabSchema
from . import rules, seating
from .rules import POSITIONS, Placed, Stone
from .state import Kind, Player, Settings, WindState

HAND_TAB = TabSchema("hand", (Column("power", "int", lo=rules.MIN_POWER, hi=rules.MAX_POWER),
                                Column("count", "int", lo=0, hi=20)),
                     "The wind stones every player starts with.")
SITES_TAB = TabSchema("sites", (Column("site", "int", lo=1, hi=seating.SITES),) + tuple(
    Column(f"position {k}", "player") for k in range(1, POSITIONS + 1)),
    "Who sits where at each ritual site. Editable before round 1; validated.")
STONES_TAB = TabSchema("stones", (
    Column("round", "int", lo=1), Column("site", "int", lo=1, hi=seating.SITES),
    Column("position", "int", lo=1, hi=POSITIONS), Column("asked", "int", lo=1, hi=POSITIONS),
    Column("player", "player"), Column("kind", "choice", tuple(k.value for k in Kind)),
    Column("from hand", "int", lo=0, hi=rules.MAX_POWER, doc="the stone taken from the hand; 0 for a fake"),
    Column("power", "int", lo=rules.MIN_POWER, hi=rules.MAX_POWER),
    Column("gone in round", "int", lo=1, optional=True, doc="when a fake disappeared; blank while it stands"),
), "Every stone placed so far, fake stones included.")
MISSED_TAB = TabSchema("missed", (Column("round", "int", lo=1), Column("player", "player")),
                       "Rounds in which a player placed nothing (each costs the missed-round penalty).")
DATA_TABS = (HAND_TAB,)
STATE_TABS = (SITES_TAB, STONES_TAB, MISSED_TAB)
FROZEN_TABS = (SITES_TAB.name,)
SETTINGS = (
    Column("rounds", "int", lo=1, hi=7, doc="rounds in the game"),
    Column("stones per round", "int", lo=1, hi=3, doc="real stones each player places a round"),
    Column("collapse over", "int", lo=1, doc="a site with more power than this fails"),
    Column("missed round penalty", "float", lo=0, doc="distance taken off the final score per missed round"),
    Column("light holders", "text", optional=True, doc="players holding Power of Light, comma-separated"),
    Column("dark holders", "text", optional=True, doc="players holding Power of Dark, comma-separated"),
    Column("elimination candidate", "text", optional=True,
           doc="the winners' choice when several tie for the lowest score"),
)


def settings(config: Mapping[str, Any], data: Mapping[str, list[dict]], players: Sequence[Player]) -> Settings:
    def names(key: str) -> frozenset[Player]:
        raw = config.get(key) or ""
        return frozenset(cells.as_choice(n, players, "a player") for n in str(raw).split(",") if n.strip())

    hand = tuple(sorted(r["power"] for r in data["hand"] for _ in range(r["count"])))
    ec = config.get("elimination candidate")
    return Settings(config["rounds"], config["stones per round"], config["collapse over"],
                    float(config["missed round penalty"]), hand, names("light holders"),
                    names("dark holders"), cells.as_choice(ec, players, "a player") if ec else None)


def check_config(config: Mapping[str, Any], players: Sequence[Player]) -> list[str]:
    """Every name in the settings that name players must be a player."""
    problems = []
    for key in ("light holders", "dark holders", "elimination candidate"):
        for name in str(config.get(key) or "").split(","):
            if name.strip():
                try:
                    cells.as_choice(name, players, "a player")
                except CellError as e:
                    problems.append(f"config {key!r}: {e}")
    return problems


def load(players: Sequence[Player], tabs: Mapping[str, list[dict]], config: Mapping[str, Any],
         data: Mapping[str, list[dict]]) -> WindState:
    site_rows = tabs["sites"]
    ordered = [None] * len(site_rows)
    errors = []
    for r in site_rows:
        if not 1 <= r["site"] <= len(site_rows) or ordered[r["site"] - 1] is not None:
            errors.append(SchemaError("sites", r["_row"], "site", r["site"], "each site number once"))
        else:
            ordered[r["site"] - 1] = tuple(r[f"position {k}"] for k in range(1, POSITIONS + 1))
    if errors:
        raise SchemaErrors(errors)
    problems = seating.check_seating(players, ordered)
    if problems:
        raise SchemaErrors([SchemaError("sites", None, None, p, "a valid seating") for p in problems])
    placed = tuple(Placed(r["site"], r["position"], Stone(
        r["player"], r["power"], r["kind"] == Kind.FAKE.value, r["asked"], r["round"], r["from hand"]),
        r["gone in round"] or 0) for r in tabs["stones"])
    missed = tuple((r["round"], r["player"]) for r in tabs["missed"])
    state = WindState(tuple(players), tuple(ordered), placed, missed, settings(config, data, players))
    check_stones(state, tabs["stones"])
    return state


def check_stones(state: WindState, rows: list[dict]) -> None:
    """The stones tab must describe a game that could have happened."""
    errors, sites_used = [], set()
    # (site, position) -> the round from which it is free again: a fake's gone round (a stone of that
    # round may take it: the fake yields), never for a stone that stands
    taken_until: dict[tuple[int, int], float] = {}
    for r, p in zip(rows, state.placed):
        s = p.stone
        if s.player not in state.sites[p.site - 1]:
            errors.append(SchemaError("stones", r["_row"], "player", s.player, f"seated at site {p.site}"))
        where = (p.site, p.position)
        if not p.gone and s.round < taken_until.get(where, 0):
            errors.append(SchemaError("stones", r["_row"], "position", p.position,
                                      f"a free position at site {p.site} (two stones stand there)"))
        taken_until[where] = max(taken_until.get(where, 0), p.gone or math.inf)
        if not s.fake:
            if (s.player, p.site) in sites_used:
                errors.append(SchemaError("stones", r["_row"], "site", p.site, f"a site {s.player} has not used"))
            sites_used.add((s.player, p.site))
            if s.from_hand == 0 or rules.light(s.from_hand, s.power):
                errors.append(SchemaError("stones", r["_row"], "power", s.power,
                                          "the stone's own power or a Power of Light change of it"))
    for player in state.players:
        over = -state.hand(player)  # Counter negation keeps what went below zero
        if over:
            errors.append(SchemaError("stones", None, "from hand", dict(over),
                                      f"stones {player} still had (more used than the hand holds)"))
    if errors:
        raise SchemaErrors(errors)


def dump(state: WindState) -> dict[str, list[dict]]:
    return {
        "sites": [{"site": n, **{f"position {k}": p for k, p in enumerate(seats, 1)}}
                  for n, seats in enumerate(state.sites, 1)],
        "stones": [{"round": p.stone.round, "site": p.site, "position": p.position, "asked": p.stone.asked,
                    "player": p.stone.player, "kind": Kind.of(p.stone).value,
                    "from hand": p.stone.from_hand, "power": p.stone.power, "gone in round": p.gone or None}
                   for p in state.placed],
        "missed": [{"round": r, "player": p} for r, p in state.missed],
    }
