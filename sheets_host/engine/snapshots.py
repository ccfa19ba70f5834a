"""The snapshots tab: the state before each round, as JSON cut into cells, so that a redo, an
undo or a replay starts each round from the state it was resolved from (`host.Session.snapshot`),
and a history that only grows costs what a round added.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from sheets_host.kit.errors import SchemaError, SchemaErrors
from sheets_host.kit.game import Game
from sheets_host.kit.table import Column, TabSchema
from .history import FIXED

# Characters per snapshot cell, and the most a player's cell keeps: both must fit every backend
# (xlsx holds 32,767 characters in a cell, Google Sheets 50,000), since a game can be replayed
# from one into the other.
CELL_PART = 30_000
SNAPSHOTS = TabSchema("snapshots", (Column("round", "int", lo=1), Column("tab"), Column("part", "int", lo=0),
                                    Column("json", "json")))


def snapshot_tabs(data: pd.DataFrame) -> dict[int, dict[str, list]]:
    """round -> tab -> records, from the snapshots tab; SchemaErrors for broken JSON or parts, or
    a tab stored as an earlier snapshot's records and more (see `snapshot_rows`) whose earlier
    snapshot is missing."""
    rows = SNAPSHOTS.records(data)
    parts: dict[tuple[int, str], list[tuple[int, str, int]]] = {}
    for r in rows:
        parts.setdefault((r["round"], r["tab"]), []).append((r["part"], r["json"], r["_row"]))
    out: dict[int, dict[str, list]] = {}
    errors = []
    for (round_number, tab), pieces in sorted(parts.items()):
        pieces.sort()
        numbers = [p for p, _, _ in pieces]
        if numbers != list(range(len(numbers))):
            errors.append(SchemaError("snapshots", pieces[0][2], "part", ", ".join(map(str, numbers)),
                                      f"parts 0 to {len(numbers) - 1}, each once (round {round_number}, tab {tab!r})"))
            continue
        try:
            value = json.loads("".join(j for _, j, _ in pieces))
        except ValueError:
            errors.append(SchemaError("snapshots", pieces[0][2], "json", f"round {round_number}, tab {tab!r}",
                                      "whole JSON (a snapshot part was edited or cut; restore it from a copy)"))
            continue
        if isinstance(value, dict):
            earlier = out.get(value.get("after round"), {}).get(tab) if isinstance(value.get("after round"), int) else None
            if earlier is None or value["after round"] >= round_number or not isinstance(value.get("then"), list):
                errors.append(SchemaError("snapshots", pieces[0][2], "json", f"round {round_number}, tab {tab!r}",
                                          f"the records of an earlier round's snapshot of {tab!r} (round "
                                          f"{value.get('after round')!r}) and then more (restore it from a copy)"))
                continue
            value = earlier + value["then"]
        out.setdefault(round_number, {})[tab] = value
    if errors:
        raise SchemaErrors(errors)
    return out


def snapshot_of(game: Game, state: Any, fixed: Mapping | None = None) -> dict[str, list]:
    """The state as the snapshots tab gives it back: each state tab's records, through JSON; round
    1's also keeps the settings and data it is resolved with (`fixed`)."""
    tabs = {tab: json.loads(json.dumps(records, sort_keys=True)) for tab, records in game.dump(state).items()}
    return tabs | ({FIXED: [json.loads(json.dumps(fixed, sort_keys=True))]} if fixed is not None else {})


def state_given(game: Game, state: Any) -> str:
    """The `state given` of the rounds tab: a fingerprint (16 hex digits) of each state tab as the
    snapshot holds it, as JSON."""
    return json.dumps({tab: hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()[:16]
                       for tab, records in snapshot_of(game, state).items()}, sort_keys=True, separators=(",", ":"))


def edited_tabs(game: Game, state: Any, given: object) -> list[str] | None:
    """The state tabs the host changed since the engine gave the round its state (`given`, the
    round's `state given`); None for a round whose rounds tab has none (made before it was kept),
    or has it damaged."""
    try:
        then = json.loads(given) if isinstance(given, str) and given.strip() else None
    except ValueError:
        return None
    if not isinstance(then, dict):
        return None
    now = json.loads(state_given(game, state))
    return sorted(tab for tab in now.keys() | then.keys() if now.get(tab) != then.get(tab))


def snapshot_rows(game: Game, state: Any, round_number: int, earlier: Mapping[int, Mapping[str, list]] = {},
                  fixed: Mapping | None = None) -> list[dict]:
    """The snapshots tab's rows for `state` before `round_number`, each tab's JSON cut into parts
    that fit a cell. A tab whose records begin with those of the latest `earlier` snapshot (a
    history that only grows) is stored as ``{"after round": n, "then": [the records added]}``, so
    a snapshot costs what a round added rather than the whole history."""
    base_round = max((n for n in earlier if n < round_number), default=None)
    base = earlier[base_round] if base_round is not None else {}
    rows = []
    for tab, records in snapshot_of(game, state, fixed).items():
        before = base.get(tab)
        value: object = records
        if before and len(before) <= len(records) and records[:len(before)] == before:
            value = {"after round": base_round, "then": records[len(before):]}
        text = json.dumps(value, separators=(",", ":"), sort_keys=True)
        for part, start in enumerate(range(0, max(len(text), 1), CELL_PART)):
            rows.append({"round": round_number, "tab": tab, "part": part, "json": text[start:start + CELL_PART]})
    return rows
