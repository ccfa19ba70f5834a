"""Events hosted by hand: the tool does not run them (not built yet, or the host prefers the
original spreadsheet), but their participants are assigned as usual and the host types the final
ranking into a host tab before the last resolve, so the festival's endgame combines every event.

The tab is named for the event (`alchemy ranking`): one row per participant with the place (1 is
first; no two alike: the host breaks the event's ties by its own chain, the Gamewide Tiebreak
last), the score, and the tie chain's figures as notes for the final announcement.
"""

from __future__ import annotations

from collections.abc import Sequence

from sheets_host.kit.errors import SchemaError, SchemaErrors
from sheets_host.kit.table import Column, TabSchema
from .event import Placement


def ranking_tab(event: str, figures: Sequence[Column] = ()) -> TabSchema:
    """The tab; `figures`: what the festival's endgame rewards besides the place (Alchemy's gold)."""
    return TabSchema(f"{event} ranking", (
        Column("player", "player", doc="a participant of the event"),
        Column("place", "int", lo=1, optional=True, doc="1 is first; each place once; blank until the event ends"),
        Column("score", optional=True, doc="the event's score, as its rule text counts it"),
        Column("tiebreak", optional=True, doc="the figures of the event's tie chain, if they decided a place"),
        *figures,
    ), f"The final ranking of {event}, hosted by hand: the host types it before the last resolve.")


def read_ranking(event: str, records: Sequence[dict], participants: Sequence[str],
                 figures: Sequence[Column] = ()) -> list[Placement] | None:
    """The event's placements from the ranking tab's typed records (`TabSchema.records`), best
    first; None while no place is typed. SchemaErrors naming the row when a participant is
    missing or listed twice, someone else is listed, or the places are not 1 to the number of
    participants, each once.

    >>> rows = [{"_row": 2, "player": "Bo", "place": 1, "score": "40", "tiebreak": None},
    ...         {"_row": 3, "player": "Ann", "place": 2, "score": "31", "tiebreak": None}]
    >>> [p.player for p in read_ranking("continuum", rows, ["Ann", "Bo"])]
    ['Bo', 'Ann']
    >>> read_ranking("continuum", rows[:1], ["Ann", "Bo"])
    Traceback (most recent call last):
    ...
    sheets_host.kit.errors.SchemaErrors: tab 'continuum ranking', column 'player': 'Ann' is not listed: every participant of continuum once (Ann, Bo)
    """
    tab = ranking_tab(event).name
    if all(r["place"] is None for r in records):
        return None
    errors, seen = [], {}
    for r in records:
        # Records read back from a snapshot (undo, redo, replay) have no sheet row.
        if r["player"] not in participants:
            errors.append(SchemaError(tab, r.get("_row"), "player", r["player"],
                                      f"a participant of {event}: {', '.join(participants)}"))
        elif r["player"] in seen:
            errors.append(SchemaError(tab, r.get("_row"), "player", r["player"],
                                      f"listed once (also in row {seen[r['player']]})"))
        seen.setdefault(r["player"], r.get("_row"))
    for player in participants:
        if player not in seen:
            errors.append(SchemaError(tab, None, "player", player,
                                      f"listed: every participant of {event} once ({', '.join(participants)})"))
    places = sorted(r["place"] for r in records if r["place"] is not None)
    if not errors and places != list(range(1, len(participants) + 1)):
        row = next(r.get("_row") for r in records if r["place"] is None or places.count(r["place"]) > 1
                   or r["place"] > len(participants))
        errors.append(SchemaError(tab, row, "place", ", ".join(map(str, places)),
                                  f"the places 1 to {len(participants)}, each once"))
    if errors:
        raise SchemaErrors(errors)
    ranked = sorted(records, key=lambda r: r["place"])
    return [Placement(r["player"], r["place"], r["score"],
                      {**({"tiebreak": r["tiebreak"]} if r["tiebreak"] else {}),
                       **{c.name: r[c.name] for c in figures if r[c.name] is not None}})
            for r in ranked]
