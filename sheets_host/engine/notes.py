"""What the log records of each player's submission: what was typed but not read, and the
resolver's own record of what became of each part of it (`Outcome.fates`), by row. A player's
`my submissions` tab and what `verify` and a redo tell are written from these lines alone, never
from a second reading of what was typed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.cells import Problem
from sheets_host.kit.game import Outcome
from .host import Session, row_ref
from .reading import Reading, nothing_due


def note_unread(session: Session, number: int, attempt: int, readings: Mapping[str, Reading]) -> None:
    """What each player typed that was not read, into the log, when their tabs are read: the rows
    the attempt keeps are cut already, so a resolve of a locked round and a redo tell it from here."""
    for player, reading in readings.items():
        for p in reading.unread:
            session.note(number, attempt, "not read", f"{p.where()}: {p.message}" if p.where() else p.message,
                         player, row_ref(p.tab, p.row))


def unread_at(session: Session, number: int, attempt: int) -> dict[str, tuple[Problem, ...]]:
    """The "not read" lines an attempt's reading logged, as each player's problems again."""
    out: dict[str, tuple[Problem, ...]] = {}
    for e in session.tabs.get("log", pd.DataFrame()).to_dict("records"):
        if (cells.text(e.get("kind")) == "not read" and cells.text(e.get("round")) == str(number)
                and cells.text(e.get("attempt")) == str(attempt)):
            tab, _, row = cells.text(e.get("row")).rpartition("!")
            said = Problem(e["player"], "", int(row) if row.isdigit() else None, tab=tab or None)
            text, prefix = cells.text(e.get("message")), f"{said.where()}: "
            said = replace(said, message=text[len(prefix):]) if said.where() and text.startswith(prefix) \
                else Problem(e["player"], text)
            out[e["player"]] = (*out.get(e["player"], ()), said)
    return out


def note_fates(session: Session, number: int, attempt: int, readings: Mapping[str, Reading], outcome: Outcome,
               state: Any) -> None:
    """The resolver's record of each player's submission, into the log: each part that counted or
    not against the rows it was read from, then the whole of what counted; a row typed by a
    player with nothing due, why it did not count. A player's `my submissions` is written from
    these lines alone."""
    for player, reading in readings.items():
        if not reading.due:
            for row in reading.rows:
                session.note(number, attempt, "not counted", nothing_due(session.game, state, player), player,
                             row_ref(row.tab, row.row))
            continue
        fates = outcome.fates.get(player, ())
        parts = reading.parsed.parts if reading.parsed.submission is not None else {}
        for fate in fates:
            rows = parts.get(fate.part, ())
            for tab, row in rows:
                session.note(number, attempt, "counted" if fate.counted else "not counted",
                             fate.what if fate.counted else fate.refused, player, row_ref(tab, row))
            if not rows and not fate.counted:  # the default's, or a part no row gave
                session.note(number, attempt, "not counted", fate.told(), player)
        session.note(number, attempt, "counted", "; ".join(f.what for f in fates if f.counted) or "nothing", player)
