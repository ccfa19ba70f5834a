"""A book's first tab, `status`: for a player, its first rows say what to do, by when, whether what
they typed counts and what exactly counts, what is wrong (in red, naming the tab, row and column) and
when it was checked; then the game and the round open; then how to submit, one idea a row, with the
examples as the very cells to type, one block a festival's event. One renderer for every game: a
game says what to say (`Game.how_to_submit`, a `HowTo` a block), this says how it looks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import pandas as pd

from sheets_host.kit.game import Game, HowTo
from sheets_host.kit.table import frame_rows
from sheets_host.kit.layout import HEADER_FILL, INPUT_FILL, MEANINGS, NEXT_FILL, PROBLEM_FILL, TabLayout, lay_out
from .host import Session, parse_time, stamp
from .reading import Reading, nothing_due

# How a row looks, by its kind (a row of no kind is plain); a problem and the to-do fill the whole
# row, an example's fill stops where its cells do, so the example reads as a small submit tab.
FILLS = {"to do": NEXT_FILL, "problem": PROBLEM_FILL, "heading": HEADER_FILL, "example header": HEADER_FILL,
         "example": INPUT_FILL}
WHOLE_ROW = ("to do", "problem", "heading")
EXAMPLES_KEY = (f"{MEANINGS[INPUT_FILL]}: in your submit tab's yellow cells", INPUT_FILL)


def from_now(moment: datetime, now: datetime) -> str:
    """How far `moment` is from `now`, in the two largest units.

    >>> from datetime import timedelta, timezone
    >>> now = datetime(2026, 11, 23, 12, tzinfo=timezone.utc)
    >>> from_now(now + timedelta(days=2, hours=7, minutes=5), now), from_now(now - timedelta(minutes=90), now)
    ('in 2 days 7 hours', '1 hour 30 minutes ago')
    """
    seconds = abs(int((moment - now).total_seconds()))
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        count, seconds = divmod(seconds, size)
        if count or (unit == "minute" and not parts):
            parts.append(f"{count} {unit}{'' if count == 1 else 's'}")
    text = " ".join(parts[:2])
    return f"in {text}" if moment >= now else f"{text} ago"


def when(moment: datetime, now: datetime) -> str:
    """A moment in UTC and how far it is from when the tab was written.

    >>> from datetime import timedelta, timezone
    >>> now = datetime(2026, 11, 23, 12, tzinfo=timezone.utc)
    >>> when(now, now), when(now + timedelta(hours=2), now)
    ('2026-11-23 12:00:00 UTC (just now)', '2026-11-23 14:00:00 UTC (in 2 hours)')
    """
    near = abs((moment - now).total_seconds()) < 60
    return f"{stamp(moment)} ({'just now' if near else from_now(moment, now)})"


def _deadline(record: Mapping[str, Any] | None, now: datetime) -> str:
    moment = parse_time((record or {}).get("deadline"), "rounds:deadline")
    return when(moment, now) if moment else "none set"


def _todo(game: Game, state: Any, player: str, record: Mapping[str, Any] | None) -> str:
    if record is None:
        return "nothing: the game is over"
    name = game.round_name(record["round"])
    if record["status"] == "locked":
        return f"nothing: submissions for {name} were locked at {record['frozen at']}"
    tabs = [f"'{t.name}'" for t in game.submit_tabs(state, player)]
    if not tabs or not game.submits(state, player):
        return f"nothing this {game.round_word}: you have nothing to submit for {name}"
    named = f"the {tabs[0]} tab" if len(tabs) == 1 else f"the tabs {', '.join(tabs[:-1])} and {tabs[-1]}"
    return f"fill in {named} for {name} by the deadline"


def _otherwise(blocks: Sequence[HowTo]) -> str:
    """What the rule text gives when nothing valid is typed, each event's named in a festival."""
    said = [f"{b.title}: {b.default}" if b.title else b.default for b in blocks if b.default]
    return "; ".join(said) or "nothing"


def _counts(reading: Reading | None, blocks: Sequence[HowTo]) -> str:
    """Whether what the player typed counts, in a few words (they have something due)."""
    if reading is None:
        return "not checked yet"
    state = reading.state
    if state == "valid":
        return "counts"
    if state == "problems":
        rows = len({(p.tab, p.row) for p in reading.parsed.problems if p.row is not None})
        return (f"counts, except {rows} row{'' if rows == 1 else 's'} (the problems below)" if rows else
                "counts, with the problems below")
    if state == "empty":
        return f"nothing typed yet; if nothing valid by the deadline: {_otherwise(blocks)}"
    return f"does not count (the problems below); if nothing valid by the deadline: {_otherwise(blocks)}"


def _idle(game: Game, state: Any, player: str, reading: Reading | None) -> str:
    """That nothing typed counts for a player with nothing due, and why."""
    if reading is not None and reading.parsed.problems:  # they typed: the problem names the rows and why
        return f"does not count: nothing is due from you this {game.round_word} (the problem below)"
    return f"anything you type will not count: {nothing_due(game, state, player)}"


def verdict(game: Game, state: Any, player: str, reading: Reading | None,
            blocks: Sequence[HowTo] | None = None) -> str:
    """Whether what `player` typed counts (`reading`: what a check made of it, if one did), as their
    status tab says it (their private receipts and nudges say it so too); `blocks`: their how to
    submit, when already made."""
    if not game.submits(state, player):
        return _idle(game, state, player, reading)
    return _counts(reading, game.how_to_submit(state, player) if blocks is None else blocks)


def _how_to(block: HowTo) -> list[tuple[str, tuple]]:
    """A block's rows, each with its kind: the event's title, the lines, the examples, the default."""
    rows: list[tuple[str, tuple]] = [("heading", (block.title,))] if block.title else []
    rows += [("", ("how to submit" if i == 0 else "", line)) for i, line in enumerate(block.lines)]
    for example in block.examples:
        said = ", ".join(filter(None, [f"in the '{example.tab}' tab" if example.tab else "", example.note]))
        if said:
            rows.append(("", ("", said + ":")))
        rows.append(("example header", ("example", *example.header)))
        rows += [("example", ("", *(v or None for v in row))) for row in example.rows]  # "" is a blank cell
    if block.default:
        rows.append(("", ("nothing valid", block.default)))
    return rows


def status_frame(session: Session, player: str | None, reading: Reading | None = None,
                 checked: datetime | None = None) -> pd.DataFrame:
    """A book's status (a player's, or the public's when `player` is None); `reading` is what a
    check made of the player's submit tabs at `checked`. Each row's kind is in `attrs["kinds"]`,
    for `status_layout`."""
    game, state, now, record = session.game, session.state, session.clock(), session.open_round
    due = bool(player) and record is not None and record["status"] != "locked" and game.submits(state, player)
    blocks = game.how_to_submit(state, player) if player and record is not None else []
    rows: list[tuple[str, tuple]] = []
    if player:
        rows.append(("to do", ("to do", _todo(game, state, player, record))))
        if record is not None:
            rows.append(("", ("deadline", _deadline(record, now))))
        if record is None:  # a submit tab may still be there: nothing reads it any more
            rows.append(("", ("your submission", "anything you type will not count: the game is over")))
        elif due or reading is not None or not game.submits(state, player):  # locked: what the lock read counts
            rows.append(("", ("your submission", verdict(game, state, player, reading, blocks))))
        if reading is not None:
            if reading.parsed.submission is not None:
                rows.append(("", ("what counts", reading.parsed.kept or "nothing")))
            rows += [("problem", ("problem", f"{p.where()}: {p.message}" if p.where() else p.message))
                     for p in reading.parsed.problems]
            rows.append(("", ("checked", when(checked or now, now))))
        if due and session.config.get("early close"):  # `engine.deadlines.marked_final` reads the mark
            tab = game.submit_tabs(state, player)[0].name
            rows.append(("", ("early close", f"when your submission is final, type final at the top of the first "
                                             f"empty column of the '{tab}' tab, and yes under it: the {game.round_word} "
                                             "closes as soon as every submission counts and is final")))
    rows.append(("", ("game", game.title)))
    if player:
        rows.append(("", ("player", player)))
    rows.append(("", (f"{game.round_word} open", game.round_name(record["round"]) if record else "game over")))
    if not player:
        rows.append(("", ("deadline", _deadline(record, now))))
    rows.append(("", ("updated", stamp(now))))
    for block in blocks:
        rows += _how_to(block)
    width = max(len(cells) for _, cells in rows)
    frame = pd.DataFrame([list(cells) + [None] * (width - len(cells)) for _, cells in rows],
                         columns=["what", "value", *[""] * (width - 2)], dtype=object)
    frame.attrs["kinds"] = [kind for kind, _ in rows]
    return frame


def status_layout(status: pd.DataFrame) -> TabLayout:
    """The to-do is the first, green row; problems are red (each row's label says so); an event's
    title is a heading; an example is shaded as the submit tab's header and input rows are, the
    key saying where that yellow is typed in. The fills mark rows by where they are."""
    kinds = status.attrs["kinds"]
    fills = {}
    for i, (kind, row) in enumerate(zip(kinds, frame_rows(status))):
        if kind.startswith("example"):
            last = max((c for c, v in enumerate(row) if v is not None and v != ""), default=1)
            fills.update({(i + 1, c): FILLS[kind] for c in range(1, max(last, 1) + 1)})
    return lay_out(status, highlight={i: FILLS[k] for i, k in enumerate(kinds) if k in WHOLE_ROW}, fills=fills,
                   key=[EXAMPLES_KEY] if "example" in kinds else [])
