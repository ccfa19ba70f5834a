"""Elemental Continuum's state tabs, and the state read from them and written back.

`continuum boards` holds every ward of every board as set up in round 1 (one row a ward, the
neutral cells as one); `continuum bolts` one row per participant per round from round 2 on, with
the bolts fired. `load` fires the bolts again with the rules, which decide what broke exactly as
when the rounds were resolved, so breaks never disagree with the bolts and `load` inverts `dump`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sheets_host.kit import cells
from sheets_host.kit.cells import CellError
from sheets_host.kit.errors import SchemaError, SchemaErrors
from sheets_host.kit.table import Column, TabSchema
from . import rules
from .board import board_problems
from .state import BOLTS_PER_ROUND, CELLS, CELLS_SPAN, Bolt, ContinuumState, Element

BOARDS_TAB = TabSchema("continuum boards", (
    Column("player", "player"), Column("ward", doc="its label (the neutral cells: neutral)"),
    Column("element", "choice", tuple(e.value for e in Element)), Column("points", "int", lo=1, hi=6),
    Column("cells", doc="its cells, space-separated, e.g. A1 A2 A3 A4 A5"),
    Column("drawn", "bool", doc="yes: the board was drawn from the seed (none valid in round 1)"),
), "Every participant's board as set up in round 1 (private to each): one row per ward.")
BOLT_COLUMNS = tuple(f"bolt {k}" for k in range(1, BOLTS_PER_ROUND + 1))
BOLTS_TAB = TabSchema("continuum bolts", (
    Column("round", "int", lo=2), Column("player", "player"),
    *(Column(c, optional=True, doc="element and cell, e.g. fire A1; blank: not fired") for c in BOLT_COLUMNS),
), "Every participant's bolts, one row per participant per round from round 2 (who fired is private).")
STATE_TABS = (BOARDS_TAB, BOLTS_TAB)


def dump(state: ContinuumState) -> dict[str, list[dict]]:
    boards = [{"player": p, "ward": w.label, "element": w.element.value, "points": w.points,
               "cells": " ".join(w.cells), "drawn": p in state.defaulted}
              for p, board in state.boards.items() for w in board.wards]
    volleys = {}
    for firer, number, bolt in state.bolts:
        volleys.setdefault((number, firer), []).append(f"{bolt.element.value} {bolt.cell}")
    bolts = [{"round": n, "player": p, **dict(zip(BOLT_COLUMNS, volleys.get((n, p), [])))}
             for n in range(2, state.rounds_played + 1) for p in state.participants]
    return {BOARDS_TAB.name: boards, BOLTS_TAB.name: bolts}


def _bolt(raw: object) -> Bolt:
    """'fire A1' (either order, any case): the word that is a cell, or else the one beside an
    element's name, is the cell.

    >>> _bolt(" a1  FIRE "), _bolt("water h8")
    (Bolt(cell='A1', element=<Element.FIRE: 'fire'>), Bolt(cell='H8', element=<Element.WATER: 'water'>))
    """
    words = cells.text(raw).split()
    if len(words) != 2:
        raise CellError(f"{len(words)} word{'s' * (len(words) != 1)}, not 2")
    first, second = words
    if cells.fold(first).upper() in CELLS or cells.fold(second) in {e.value for e in Element}:
        cell, element = first, second
    else:
        cell, element = second, first
    return Bolt(cells.as_choice(cell, CELLS, "a cell", allowed=CELLS_SPAN),
                Element(cells.as_choice(element, [e.value for e in Element if e is not Element.NEUTRAL], "an element")))


def load(participants: Sequence[str], tabs: Mapping[str, list[dict]]) -> ContinuumState:
    errors: list[SchemaError] = []
    rows_of: dict[str, list[dict]] = {}
    for r in tabs[BOARDS_TAB.name]:
        if r["player"] not in participants:
            errors.append(SchemaError(BOARDS_TAB.name, r.get("_row"), "player", r["player"],
                                      f"a participant: {', '.join(participants)}"))
        rows_of.setdefault(r["player"], []).append(r)
    boards, defaulted = {}, []
    for player, rows in rows_of.items():
        labels: dict[str, str | None] = {c: None for c in CELLS}
        wards = {}
        for r in rows:
            for cell in cells.text(r["cells"]).upper().split():
                if cell not in labels:
                    errors.append(SchemaError(BOARDS_TAB.name, r.get("_row"), "cells", cell, "a cell, A1 to H8"))
                else:
                    labels[cell] = r["ward"]
            wards[r["ward"]] = (Element(r["element"]), r["points"])
        board, problems = board_problems(labels, wards)
        errors += [SchemaError(BOARDS_TAB.name, None, None, f"{player}'s board", f"valid ({p})") for p in problems]
        if board is not None:
            boards[player] = board
        if any(r["drawn"] for r in rows):
            defaulted.append(player)
    if rows_of and set(rows_of) != set(participants):
        errors.append(SchemaError(BOARDS_TAB.name, None, "player", ", ".join(p for p in participants if p not in rows_of),
                                  "a board for every participant"))
    volleys: dict[int, dict[str, tuple[Bolt, ...]]] = {}
    for r in tabs[BOLTS_TAB.name]:
        player, volley = r["player"], volleys.setdefault(r["round"], {})
        if player not in participants:  # their bolts would never be fired
            errors.append(SchemaError(BOLTS_TAB.name, r.get("_row"), "player", player,
                                      f"a participant: {', '.join(participants)}"))
            continue
        if player in volley:  # one row would silently replace the other
            errors.append(SchemaError(BOLTS_TAB.name, r.get("_row"), "player", player,
                                      f"a participant without another row in round {r['round']}"))
            continue
        fired = []
        for column in BOLT_COLUMNS:
            if cells.is_blank(r[column]):
                continue
            try:
                fired.append(_bolt(r[column]))
            except CellError as e:
                errors.append(SchemaError(BOLTS_TAB.name, r.get("_row"), column, r[column],
                                          f"a bolt: an element and a cell, like fire A1 ({e})"))
        volley[player] = tuple(fired)
    for number, volley in sorted(volleys.items()):
        missing = [p for p in participants if p not in volley]
        if missing:  # a row deleted by mistake would silently fire nothing
            errors.append(SchemaError(BOLTS_TAB.name, None, "player",
                                      f"round {number}: no row for {', '.join(missing)}",
                                      "one row for every participant every round"))
    numbers = sorted(volleys)
    if numbers != list(range(2, len(numbers) + 2)) or (numbers and not boards):
        errors.append(SchemaError(BOLTS_TAB.name, None, "round", ", ".join(map(str, numbers)),
                                  "rounds 2, 3, 4... in turn, after the boards are set"))
    if errors:
        raise SchemaErrors(errors)
    state = ContinuumState(tuple(participants), boards, tuple(p for p in participants if p in defaulted),
                           rounds_played=1 if boards else 0)
    for number in numbers:
        state = rules.strike_round(state, volleys[number], number)
    return state
