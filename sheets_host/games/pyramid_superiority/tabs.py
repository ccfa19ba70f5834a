"""Pyramid Superiority's settings and state tabs, and the state read from them and written back.

The state tabs hold what was dealt (`types`, `pieces`) and what everyone submitted (`proposals`,
`constructions`, `transfers`), defaults included; everything else is replayed from them. `load`
checks what a host's edit could break: one of each type per meadow, pieces of the guest's majority
type, rotations in quarter turns, one row per round and participant, every resolved day complete.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from sheets_host.kit import cells
from sheets_host.kit.cells import CellError
from sheets_host.kit.errors import SchemaError, SchemaErrors
from sheets_host.kit.table import Column, TabSchema
from . import rules
from .meadows import (COSMOS_KEYS, GUEST_MEADOWS, NO_ONE, ROUNDS, Construction, Meadow, Name, Proposal, Settings,
                      Transfer)
from .rules import BY_NAME, CORNERS, Corner, Piece, Type
from .state import PyramidState

TYPES = tuple(t.value for t in Type)

TYPES_TAB = TabSchema("types", (Column("participant", "player"), Column("type", "choice", TYPES)),
                      "Everyone's type, drawn from the seed (one of each in every meadow); public.")
PIECES_TAB = TabSchema("pieces", (
    Column("round", "int", lo=1, hi=ROUNDS), Column("guest", "player"),
    *(Column(c, "choice", TYPES) for c in CORNERS)),
    "The piece each guest receives each round (dealt at the start of its proposal stage).")
PROPOSALS_TAB = TabSchema("proposals", (
    Column("round", "int", lo=1, hi=ROUNDS), Column("guest", "player"), Column("bid", "int", lo=0),
    Column("star", "choice", CORNERS, doc="the star attempt, on the piece as proposed"),
    Column("rotation", "int", lo=0, hi=270, doc="degrees clockwise: 0, 90, 180 or 270")),
    "Every guest's proposal-stage submission (defaults included), as submitted.")
CONSTRUCTIONS_TAB = TabSchema("constructions", (
    Column("round", "int", lo=1, hi=ROUNDS), Column("player", "player"), Column("bid", "int", lo=0),
    Column("piece", "choice", tuple(m.value for m in GUEST_MEADOWS), doc="which meadow's proposed piece"),
    Column("rotation", "int", lo=0, hi=270, doc="degrees clockwise: 0, 90, 180 or 270"),
    Column("position", "choice", tuple(BY_NAME), optional=True, doc="blank: the default position")),
    "Every player's construction-stage submission (defaults included), as submitted.")
TRANSFERS_TAB = TabSchema("transfers", (
    Column("round", "int", lo=1, hi=ROUNDS), Column("player", "player"), Column("guest", "player"),
    Column("chips", "int", lo=1)),
    "Chips players asked to send to guests, in the order asked (one beyond the chips is dropped).")
STATE_TABS = (TYPES_TAB, PIECES_TAB, PROPOSALS_TAB, CONSTRUCTIONS_TAB, TRANSFERS_TAB)

SETTINGS = (
    Column("blue meadow", optional=True, doc="the 3 players, comma-separated; blank: the first 3 names given to new"),
    Column("red meadow", optional=True, doc="the 3 guests who are eliminated players; blank: names 4 to 6"),
    Column("green meadow", optional=True, doc="the 3 guests who are spectators; blank: names 7 to 9"),
    Column("player chips", "int", lo=0, doc="chips each player starts with"),
    Column("guest chips", "int", lo=0, doc="chips each guest starts with"),
    Column("garnets", optional=True, doc="garnets each player may spend once out of chips, e.g. 'Ada: 5, Cora: 2'"),
    Column("tie winner", optional=True, doc="only if all three players tie: the previous Main Match's winner"),
    Column("elimination candidate", optional=True, doc="only if all three players tie: the tie winner's choice"),
    *(Column(key, optional=True, doc=f"the {m.title} winner's extra cosmos: the finalist (a player) they give it "
                                     f"to, or '{NO_ONE}'") for m, key in COSMOS_KEYS.items()),
)


def settings(config: Mapping[str, Any], players: Sequence[Name]) -> tuple[Settings, list[str]]:
    """The settings from the config, and what is wrong with it (meadows, garnets, the tie's record)."""
    problems: list[str] = []

    def names(key: str, within: Sequence[str], what: str) -> list[str]:
        out = []
        for n in str(config.get(key) or "").split(","):
            if n.strip():
                try:
                    out.append(cells.as_choice(n, within, what))
                except CellError as e:
                    problems.append(f"config {key!r}: {e}")
        return out

    keys = {m: f"{m.value} meadow" for m in Meadow}
    given = {m: names(keys[m], players, "a participant") for m in Meadow}
    if not any(given.values()):
        meadows = {m: tuple(players[3 * i:3 * i + 3]) for i, m in enumerate(Meadow)}
    else:
        meadows = {m: tuple(v) for m, v in given.items()}
        for m, v in given.items():
            if len(v) != 3 or len(set(v)) != 3:
                problems.append(f"config {keys[m]!r}: {', '.join(v) or 'blank'} is not 3 different participants "
                                "(name all three meadows, or leave all three blank)")
        everyone = [n for v in given.values() for n in v]
        left = [p for p in players if p not in everyone]
        twice = sorted({n for n in everyone if everyone.count(n) > 1})
        if left:
            problems.append(f"config meadows: {', '.join(left)} {'is' if len(left) == 1 else 'are'} in no meadow")
        if twice:
            problems.append(f"config meadows: {', '.join(twice)} in more than one meadow")
    garnets, wrong = cells.named_counts(config.get("garnets"), meadows[Meadow.BLUE], "a player (Blue Meadow)", "garnets")
    problems += [f"config 'garnets': {p}" for p in wrong]
    picks = {k: names(k, meadows[Meadow.BLUE], "a player (Blue Meadow)") for k in ("tie winner", "elimination candidate")}
    for key, picked in picks.items():
        if len(picked) > 1:
            problems.append(f"config {key!r}: one player, not {', '.join(picked)}")
    tie_winner, candidate = (p[0] if p else None for p in picks.values())
    if candidate and candidate == tie_winner:
        problems.append("config 'elimination candidate': the tie winner cannot be the Elimination Candidate")
    cosmos_to = {}
    for meadow, key in COSMOS_KEYS.items():
        given = [n for n in names(key, (*meadows[Meadow.BLUE], NO_ONE), f"a player (Blue Meadow) or '{NO_ONE}'")]
        if len(given) > 1:
            problems.append(f"config {key!r}: one player or '{NO_ONE}', not {', '.join(given)}")
        if given:
            cosmos_to[meadow] = given[0]
    return Settings(meadows, config["player chips"], config["guest chips"], garnets, tie_winner,
                    candidate, cosmos_to), problems


def load(players: Sequence[Name], tabs: Mapping[str, list[dict]], config: Mapping[str, Any]) -> PyramidState:
    s, _ = settings(config, players)
    errors: list[SchemaError] = []
    types = {}
    for r in tabs["types"]:
        if r["participant"] in types:
            errors.append(SchemaError("types", r["_row"], "participant", r["participant"], "listed once"))
        types[r["participant"]] = Type(r["type"])
    for meadow, names in s.meadows.items():
        kinds = sorted(types[n].value for n in names if n in types)
        if kinds != sorted(TYPES):
            errors.append(SchemaError("types", None, "type", f"{meadow.title}: {', '.join(kinds)}",
                                      f"one of each type in the {meadow.title} ({', '.join(names)})"))

    def guest_row(tab: str, r: dict, column: str, within: Sequence[str], what: str) -> bool:
        if r[column] not in within:
            errors.append(SchemaError(tab, r["_row"], column, r[column], what))
            return False
        return True

    def once(tab: str, r: dict, column: str, kept: Mapping) -> bool:
        """One row per round and participant: a second would silently replace the first."""
        if (r["round"], r[column]) in kept:
            errors.append(SchemaError(tab, r["_row"], column, r[column], f"listed once for round {r['round']}"))
            return False
        return True

    pieces = {}
    for r in tabs["pieces"]:
        if guest_row("pieces", r, "guest", s.guests, "a guest") and r["guest"] in types \
                and once("pieces", r, "guest", pieces):
            cells_ = tuple(Type(r[c]) for c in CORNERS)
            if not rules.is_piece_of(cells_, types[r["guest"]]):
                errors.append(SchemaError("pieces", r["_row"], "top-left", " ".join(t.value for t in cells_),
                                          f"two {types[r['guest']].value} cells and one of each other type"))
            pieces[(r["round"], r["guest"])] = Piece(cells_)
    proposals = {}
    for r in tabs["proposals"]:
        if guest_row("proposals", r, "guest", s.guests, "a guest") and once("proposals", r, "guest", proposals) \
                and _degrees(r, "proposals", errors):
            proposals[(r["round"], r["guest"])] = Proposal(r["bid"], Corner(r["star"]), r["rotation"] // 90)
    constructions = {}
    for r in tabs["constructions"]:
        if guest_row("constructions", r, "player", s.players, "a player (Blue Meadow)") \
                and once("constructions", r, "player", constructions) and _degrees(r, "constructions", errors):
            constructions[(r["round"], r["player"])] = Construction(
                r["bid"], Meadow(r["piece"]), r["rotation"] // 90, BY_NAME[r["position"]] if r["position"] else None)
    for r in tabs["transfers"]:
        if guest_row("transfers", r, "player", s.players, "a player (Blue Meadow)") \
                and guest_row("transfers", r, "guest", s.guests, "a guest"):
            key = (r["round"], r["player"])
            if key not in constructions:
                errors.append(SchemaError("transfers", r["_row"], "round", r["round"],
                                          f"a round {r['player']} has a construction-stage row for"))
            else:
                c = constructions[key]
                constructions[key] = replace(c, transfers=c.transfers + (Transfer(r["guest"], r["chips"]),))
    if errors:
        raise SchemaErrors(errors)
    state = PyramidState(tuple(players), s, types, pieces, proposals, constructions)
    _check_complete(state)
    return state


def _degrees(r: dict, tab: str, errors: list[SchemaError]) -> bool:
    if r["rotation"] % 90:
        errors.append(SchemaError(tab, r["_row"], "rotation", r["rotation"], "0, 90, 180 or 270"))
        return False
    return True


def _check_complete(state: PyramidState) -> None:
    """Every resolved day must have everyone's row, and every dealt round's pieces."""
    d, s = state.days, state.settings
    errors = []
    for tab, keys, want in (
            ("proposals", state.proposals, [(r, g) for r in range(1, min(d, ROUNDS) + 1) for g in s.guests]),
            ("constructions", state.constructions, [(r, p) for r in range(1, d) for p in s.players]),
            ("pieces", state.pieces, [(r, g) for r in range(1, min(d + 1, ROUNDS) + 1) for g in s.guests])):
        for r, name in want:
            if (r, name) not in keys:
                errors.append(SchemaError(tab, None, "round", r, f"present for {name} (day {d} is resolved)"))
        for r, name in keys:
            if (r, name) not in want:
                errors.append(SchemaError(tab, None, "round", r, f"a round already played by {name} "
                                                                 f"({d} days are resolved)"))
    if errors:
        raise SchemaErrors(errors)


def dump(state: PyramidState) -> dict[str, list[dict]]:
    def piece_cells(piece: Piece) -> dict:
        return {c.value: t.value for c, t in zip(Corner, piece.cells)}

    return {
        "types": [{"participant": n, "type": state.types[n].value} for n in state.players],
        "pieces": [{"round": r, "guest": g, **piece_cells(p)} for (r, g), p in sorted(state.pieces.items())],
        "proposals": [{"round": r, "guest": g, "bid": p.bid, "star": p.star.value, "rotation": 90 * p.rotation}
                      for (r, g), p in sorted(state.proposals.items())],
        "constructions": [{"round": r, "player": p, "bid": c.bid, "piece": c.meadow.value,
                           "rotation": 90 * c.rotation, "position": c.position.name if c.position else None}
                          for (r, p), c in sorted(state.constructions.items())],
        "transfers": [{"round": r, "player": p, "guest": t.guest, "chips": t.chips}
                      for (r, p), c in sorted(state.constructions.items()) for t in c.transfers],
    }
