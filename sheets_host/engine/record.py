"""`record`: the game's record, written after the game, from which anyone can check it (`verify.py`).

The record is one JSON file (`docs/verify.md` describes every field), plain enough to read without
the tool: the game, its players in seating order, its settings and data as the host book holds
them (never a webhook or a credential: those live in files of their own), the seed, every
commitment the game published with its salt and, for a seed or a submission, its canonical text
(what counted for each player), and each resolved round's window, the host's decisions in the
config at its resolve and the host's inputs: the state tabs the host changed before it (a ranking
typed by hand, a correction), whole, as they were when it was resolved.

The host's inputs are found by playing the game again from the record's own start (`replaying`):
for each round, the tabs of the state it was resolved from (its snapshot) that differ from the
state the round before gave, or, for round 1, from the state the seed and settings set up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from sheets_host.backends import Backend
from sheets_host.kit import cells
from sheets_host.kit.errors import RoundError
from . import commitments, replaying
from .history import plain
from .host import FIXED, Clock, now_utc, open_session, stamp
from .snapshots import snapshot_of, snapshot_tabs

FORMAT = "sheets-host record"
VERSION = 1


def tool_version() -> str:
    try:
        return f"sheets-host {version('sheets-host')}"
    except PackageNotFoundError:  # run from a source tree never installed
        from sheets_host import __version__

        return f"sheets-host {__version__}"


def make_record(backend: Backend, force: bool = False, clock: Clock = now_utc) -> dict[str, Any]:
    """The record of the game at `backend`; refused before the game is over unless `force`."""
    session = open_session(backend, clock)
    game = session.game
    if not game.is_over(session.state) and not force:
        raise RoundError(f"{game.title} is not over ({game.round_name(game.round(session.state))} is open): a record "
                         "reveals the seed and every salt, so it is written after the game; --force writes it now")
    config = session.tabs["config"]
    settings = {cells.text(k): _plain(v) for k, v in zip(config["key"], config["value"])
                if not cells.is_blank(k) and cells.fold(cells.text(k)) not in (cells.fold("game"), cells.fold("seed"))}
    data = {tab.name: plain(session.data[tab.name]) for tab in game.data_tabs}
    record: dict[str, Any] = {
        "format": FORMAT, "version": VERSION, "tool": tool_version(), "written at": stamp(clock()),
        "complete": game.is_over(session.state), "game": game.name, "title": game.title,
        "players": list(session.players), "seed": session.config["seed"], "settings": settings, "data": data,
        "commitments": [_shown(r) for r in commitments.read(session.tabs, session.players)], "rounds": []}
    snapshots = snapshot_tabs(session.tabs["snapshots"])
    start = replaying.Start.of(record)
    state = start.setup()
    for entry in [r for r in session.rounds if r["status"] == "resolved"]:
        number = entry["round"]
        resolved_from = {t: v for t, v in snapshots[number].items() if t != FIXED}
        expected = snapshot_of(game, state)
        inputs = {t: v for t, v in resolved_from.items() if expected.get(t) != v}
        round_record = {"round": number, "name": game.round_name(number), "attempt": entry["attempt"],
                        **commitments.window(entry), "host decisions": _decided(record, number),
                        "host inputs": inputs}
        record["rounds"].append(round_record)
        state = replaying.play_round(start, round_record, state, record["commitments"]).after
    return record


def _decided(record: Mapping, number: int) -> dict[str, str]:
    """The host's decisions a round was resolved with, as its host commitment keeps them."""
    hosts = commitments.current(record["commitments"], number, "host")
    return json.loads(hosts[-1]["text"]) if hosts and hosts[-1].get("text") else {}


def _plain(value: object) -> object:
    """A cell as JSON holds it: text, a number or true/false (a date as the text a program shows)."""
    if cells.is_blank(value):
        return None
    return value if isinstance(value, (bool, int, float, str)) else cells.text(value)


def _shown(row: Mapping) -> dict:
    return {k: row.get(k) for k in commitments.COMMITMENTS.header if k != "part"}  # a text whole


def write_record(backend: Backend, out: Path, force: bool = False, clock: Clock = now_utc) -> dict[str, Any]:
    """Write the record to `out` (JSON, UTF-8) whole or not at all; the record."""
    record = make_record(backend, force, clock)
    write_json(record, out)
    return record


def write_json(record: Mapping[str, Any], out: Path) -> None:
    """A record written to `out` (JSON, UTF-8) whole or not at all: a kill leaves the old file."""
    out = Path(out)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(out)
