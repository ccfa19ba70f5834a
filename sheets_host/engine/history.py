"""The host book's history as replay reads it: what a host may no longer edit once rounds are
resolved, because the game went on from it and `replay` would read the edit as if it had always
been there. Every command checks these when it reads the host book (`host.open_session`) and
refuses an edit naming the tab, row and cell and saying what to do:

- **the players**: as the game was made (the `books` tab lists their books): names are fixed;
- **the attempt each resolved round was resolved with**: the rounds tab keeps its rows' fingerprint
  (`rows read`). A round before the last can never change: later rounds were played on it. The
  last round's rows may be corrected in the archive to redo it: then only `resolve --redo` (or
  `undo`, which gives the corrected rows back to the players) runs;
- **the seed, the game's settings, the data tabs and the game's frozen state tabs**: as round 1 was
  resolved with them (round 1's snapshot keeps a copy, `FIXED`). The engine's schedule (deadlines,
  reminders, checks) and a game's `host_decisions` (choices the rules leave to the host, read when
  the rules call for them) may change at any time; replay reads them as the host book holds them.

The state tabs a host corrects between rounds are followed by replay, which types them again from
each round's snapshot.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaError
from sheets_host.kit.game import Game

FIXED = "fixed at round 1"  # round 1's snapshot: the settings and data the game was played with
SCHEDULE = ("first deadline", "round hours", "reminder hours", "check minutes")  # the engine's clock only


def plain(records: Sequence[Mapping]) -> list[dict]:
    """Records as JSON gives them back, without the sheet row numbers a read adds."""
    return json.loads(json.dumps([{k: v for k, v in r.items() if not k.startswith("_")} for r in records],
                                 sort_keys=True, default=str))


def fixed_inputs(game: Game, config: Mapping[str, Any], data: Mapping[str, Sequence[Mapping]]) -> dict:
    """What round 1 is resolved with and no later command may see changed: the seed and settings
    (as text), and the data tabs' records."""
    keys = ["seed"] + [c.name for c in game.settings if c.name not in game.host_decisions]
    return {"config": {k: cells.text(config.get(k)) for k in keys},
            "data": {tab.name: plain(data.get(tab.name, [])) for tab in game.data_tabs}}


def _hash(value: object, size: int) -> str:
    return hashlib.sha256(json.dumps(value).encode("utf-8", "backslashreplace")).hexdigest()[:size]


def _keyed(rows: Mapping[str, Sequence[SubmitRow]]) -> list[tuple[tuple[str, str, int], SubmitRow]]:
    return sorted((((player, row.tab or "", row.row), row) for player, player_rows in rows.items()
                   for row in player_rows), key=lambda kr: kr[0])


def attempt_digest(rows: Mapping[str, Sequence[SubmitRow]]) -> str:
    """The rows a round was read from, as the rounds tab keeps them: how many and a fingerprint of
    their cells as text (as every backend gives them back), then a short one of each row and of
    each column, with which an edit is named down to its cell.

    >>> digest = attempt_digest({"Ann": [SubmitRow("Ann", 2, ["site"], {"site": 3.0})]})
    >>> digest.split("#")[0], digest == attempt_digest({"Ann": [SubmitRow("Ann", 2, ["site"], {"site": "3"})]})
    ('1 row ', True)
    """
    keyed = [(key, cells.typed_cells(row)) for key, row in _keyed(rows)]
    columns = sorted({k for _, values in keyed for k, _ in values})
    detail = {"row": "".join(_hash([key, values], 4) for key, values in keyed),
              "column": {c: _hash([[key, dict(values).get(c)] for key, values in keyed], 4) for c in columns}}
    return f"{len(keyed)} row{'s' if len(keyed) != 1 else ''} #{_hash(keyed, 10)} {json.dumps(detail)}"


def _edits(kept: str, rows: Mapping[str, Sequence[SubmitRow]], archive_row: Callable[[tuple], int | None]
           ) -> tuple[int | None, str | None, str]:
    """Where the attempt `rows` differs from the digest `kept`: the archive row, the column and what
    it is now, as precisely as the fingerprints tell."""
    try:
        _, brace, rest = kept.partition(" {")
        detail = json.loads(brace.strip() + rest)
        then_rows = [detail["row"][i:i + 4] for i in range(0, len(detail["row"]), 4)]
        then_columns = detail["column"]
    except (ValueError, KeyError, TypeError):  # a digest kept before rows were fingerprinted one by one
        return None, None, ""
    keyed = [(key, row, cells.typed_cells(row)) for key, row in _keyed(rows)]
    now_rows = [_hash([key, values], 4) for key, _, values in keyed]
    changed = [(key, row) for (key, row, _), digest in zip(keyed, now_rows) if digest not in then_rows]
    columns = sorted({k for *_, values in keyed for k, _ in values} | set(then_columns))
    now_columns = {c: _hash([[key, dict(values).get(c)] for key, _, values in keyed], 4) for c in columns}
    differ = [c for c in columns if then_columns.get(c) != now_columns[c]]
    if len(changed) == 1 and len(then_rows) == len(now_rows):
        (key, row), = changed
        column = differ[0] if len(differ) == 1 else None
        return archive_row(key), column, cells.text(row.values.get(column)) if column else f"{key[0]}'s row {key[2]}"
    if not changed and len(now_rows) < len(then_rows):  # rows deleted: the first place the rows part
        at = next((i for i, (a, b) in enumerate(zip(then_rows, now_rows)) if a != b), len(now_rows))
        near = keyed[at][0] if at < len(keyed) else keyed[-1][0] if keyed else None
        return (archive_row(near) if near else None), None, ""
    return (archive_row(changed[0][0]) if changed else None), None, ""


def check_players(players: pd.DataFrame, books: pd.DataFrame | None) -> list[SchemaError]:
    """The players tab lists the players the game was made for (their books), in order."""
    if books is None:
        return []
    made = [cells.text(r)[len("player:"):] for r in books.get("role", []) if cells.text(r).startswith("player:")]
    names = [cells.text(n) for n in players.get("player", [])]
    why = ("player names are fixed once the game is made, each with their book, seat and history: put it back "
           "as it was; a game for other names is a new game")
    for i in range(max(len(made), len(names))):
        row = int(players.index[i]) if i < len(names) else int(players.index[-1]) + 1 if names else 2
        if i >= len(made):
            return [SchemaError("players", row, "player", names[i], f"a player the game was made for ({why})")]
        if i >= len(names) or names[i] != made[i]:
            shown = names[i] if i < len(names) else ""
            return [SchemaError("players", row, "player", shown, f"{made[i]}, the name the game was made with ({why})")]
    return []


def check_archive(rounds: Sequence[dict], archive: Sequence[dict],
                  attempt_rows: Callable[[int, int], Mapping[str, Sequence[SubmitRow]]],
                  correcting: bool) -> list[SchemaError]:
    """Each resolved round's attempt is the rows it was resolved with; with `correcting` (a redo or
    an undo), the last round's may differ. An edit is named by its archive row and cell where the
    fingerprints tell them, a deletion by the row it was next to."""
    resolved = [r for r in rounds if r["status"] == "resolved"]
    errors = []
    for record in resolved:
        kept = cells.text(record.get("rows read"))
        number, attempt = record["round"], record["attempt"]
        if not kept or (correcting and record is resolved[-1]):
            continue
        rows = attempt_rows(number, attempt)
        now = attempt_digest(rows)
        if now.split(" {")[0] == kept.split(" {")[0]:
            continue
        mine = [r for r in archive if r["round"] == number and r["attempt"] == attempt]

        def archive_row(key: tuple) -> int | None:
            return next((r["_row"] for r in mine if (r["player"], r.get("tab") or "", r["row"]) == tuple(key)), None)
        row, column, shown = _edits(kept, rows, archive_row)
        if row is None and mine:
            row = min(r["_row"] for r in mine)
        count_then, count_now = kept.split(" #")[0], now.split(" #")[0]
        what = "" if count_then == count_now else f": {count_then} then, {count_now} now{', a row deleted here' if row else ''}"
        todo = ("the last round's archive is corrected to redo it: run resolve --redo (or undo, to give the "
                "corrected rows back to the players), or put the rows back as they were"
                if record is resolved[-1] else
                "a round before the last cannot change, later rounds were played on it: put the rows back as "
                "they were")
        errors.append(SchemaError(
            "archive", row, column, shown or f"attempt {attempt} of round {number}",
            f"what round {number} was resolved with{what} (the rounds tab, row {record['_row']}, keeps the rows' "
            f"fingerprint): {todo}"))
    return errors


def check_fixed(game: Game, config_tab: pd.DataFrame, now: Mapping, first: Mapping[str, list]) -> list[SchemaError]:
    """The settings, data tabs and frozen state tabs as round 1's snapshot `first` has them; `now`
    is `fixed_inputs` of the host book as read, plus the frozen state tabs."""
    kept = (first.get(FIXED) or [None])[0]  # a list, as every snapshot tab (a dict would be "after round")
    errors = []
    if kept:
        rows = {cells.fold(cells.text(k)): int(i) for i, k in zip(config_tab.index, config_tab.get("key", []))}
        for key, value in kept["config"].items():
            if now["config"].get(key, value) != value:
                todo = ("a game's seed is fixed once round 1 is resolved: put it back, or start a new game for a new "
                        "seed" if key == "seed" else
                        "settings are fixed once round 1 is resolved: put it back, or undo back to round 1")
                errors.append(SchemaError("config", rows.get(cells.fold(key)), "value", now["config"][key],
                                          f"{value}, the {key} round 1 was resolved with ({todo})"))
        for tab, records in kept["data"].items():
            errors += _tab_changes(tab, records, now["data"].get(tab, records), now["rows"].get(tab, []),
                                   "data tabs are fixed once round 1 is resolved")
    for tab in game.frozen_tabs:
        if tab in first and first[tab] != now["frozen"][tab]:
            errors += _tab_changes(tab, first[tab], now["frozen"][tab], now["rows"].get(tab, []),
                                   f"the {tab} tab is editable only before round 1")
    return errors


def _tab_changes(tab: str, then: list[dict], now: list[dict], rows: Sequence[int], why: str) -> list[SchemaError]:
    """The first difference between a tab as round 1 was resolved with it and as it is now."""
    if then == now:
        return []
    todo = f"({why}: put it back, or undo back to round 1)"
    i = next((i for i, (a, b) in enumerate(zip(then, now)) if a != b), min(len(then), len(now)))
    row = rows[i] if i < len(rows) else (rows[-1] + 1 if rows else 2)

    def shown(record: Mapping) -> str:
        return ", ".join(f"{k} {cells.text(v)}" for k, v in record.items() if not cells.is_blank(v))

    if len(now) < len(then) and now[i:] == then[i + 1:]:
        return [SchemaError(tab, row, None, "", f"the row round 1 was resolved with here ({shown(then[i])}), "
                                               f"since deleted {todo}")]
    if len(now) > len(then) and now[i + 1:] == then[i:]:
        return [SchemaError(tab, row, None, shown(now[i]), f"in the tab as round 1 was resolved with it: a row "
                                                           f"added since {todo}")]
    if i < len(then) and i < len(now):
        column = next(k for k in {**then[i], **now[i]} if then[i].get(k) != now[i].get(k))
        return [SchemaError(tab, row, column, cells.text(now[i].get(column)),
                            f"{cells.text(then[i].get(column)) or 'blank'}, as round 1 was resolved with it {todo}")]
    return [SchemaError(tab, None, None, f"{len(now)} rows", f"the {len(then)} rows round 1 was resolved with {todo}")]
