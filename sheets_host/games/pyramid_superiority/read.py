"""Pyramid Superiority's submit tab (what | value | to, one row per item) read into a `Proposal` or
a `Construction`.

A cell that cannot be read (not a number, not a corner, a formula) drops its row with a message
naming row, column and what is allowed; a row of the other stage, or a second row of a kind, is
dropped too (the first counts). What the resolver will do with the rest (a bid counted as 0, a
rotation or transfer dropped, a position replaced) is asked of the state (`PyramidState.outlook`)
and told in advance; the submission is kept as typed. Names are read in any case and spacing,
with the other names people use (`cells.as_choice`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sheets_host.kit import cells
from sheets_host.kit.cells import CellError, Problem, SubmitRow
from sheets_host.kit.game import Parsed
from sheets_host.kit.table import Column, TabSchema
from .meadows import Construction, Meadow, Name, Proposal, Transfer
from .rules import BY_NAME, CORNERS, ROTATION_COST, Corner
from .state import PyramidState, PyramidSubmission, RowKind, parts_of

SUBMIT_TAB = TabSchema("submit", (
    Column("what", doc="guests: bid, star, rotate; players: bid, piece, rotate, position, send; one row each "
                       "(send: any number of rows)"),
    Column("value", doc="bid: chips (0 or more); star: top-left, top-right, bottom-left or bottom-right; "
                        "rotate: 90, 180 or 270 (clockwise); piece: red or green; position: base 1-9, middle 1-4 "
                        "or apex; send: chips"),
    Column("to", doc="send rows only: the guest who gets the chips; otherwise blank"),
), "What you submit today, one row per item.")

CLOCKWISE_WORDS = ("degrees", "degree", "deg", "clockwise", "cw")  # words a rotation may carry
COUNTER_CLOCKWISE_WORDS = ("counterclockwise", "anticlockwise", "ccw", "acw")

# What people call things, beyond the names themselves (matched ignoring case, spaces, dashes).
ROW_KINDS = {"bid": ("bid", "bet"), "star": ("star", "stars", "star cell", "cell"),
             "rotate": ("rotate", "rotation", "turn", "orientation"),
             "piece": ("piece", "meadow", "which piece"),
             "position": ("position", "place", "location", "where", "spot"),
             "send": ("send", "transfer", "give", "chips to")}
_ROW_ALIASES = {a: k for k, names in ROW_KINDS.items() for a in names}
CORNER_NAMES = {"tl": "top-left", "upper left": "top-left", "ul": "top-left", "nw": "top-left",
                "tr": "top-right", "upper right": "top-right", "ur": "top-right", "ne": "top-right",
                "bl": "bottom-left", "lower left": "bottom-left", "ll": "bottom-left", "sw": "bottom-left",
                "br": "bottom-right", "lower right": "bottom-right", "lr": "bottom-right", "se": "bottom-right"}
PIECE_NAMES = {"red meadow": "red", "r": "red", "eliminated": "red", "eliminated players": "red",
               "green meadow": "green", "g": "green", "spectators": "green"}
POSITION_NAMES = {**{f"b{n}": f"base {n}" for n in range(1, 10)},
                  **{f"m{n}": f"middle {n}" for n in range(1, 5)}, **{f"mid {n}": f"middle {n}" for n in range(1, 5)},
                  "top": "apex", "peak": "apex", "a": "apex"}


def parse(state: PyramidState, player: Name, rows: Sequence[SubmitRow]) -> Parsed[PyramidSubmission]:
    guest = state.is_guest(player)
    if not state.submits(player):
        return Parsed(None, tuple(row.problem(None, f"{state.nothing_due(player)}; row ignored") for row in rows),
                      "nothing to submit today")
    problems: list[Problem] = []
    allowed = state.row_kinds(player)
    found: dict[RowKind, tuple[SubmitRow, Any]] = {}
    sends: list[tuple[SubmitRow, Transfer]] = []
    for row in rows:
        kind = row.read("what", lambda v: RowKind(cells.as_choice(v, list(ROW_KINDS), "a row kind", _ROW_ALIASES)),
                        problems)
        if kind is None:
            continue
        if kind not in allowed:
            who, stage = ("guests", "proposal") if guest else ("players", "construction")
            problems.append(row.problem("what", f"{kind.value!r} is not for {who} (the {stage} stage); "
                                                f"allowed: {', '.join(k.value for k in allowed)}; row dropped"))
            continue
        if kind in found:
            problems.append(row.problem("what", f"a second {kind.value!r} row: the first (row {found[kind][0].row}) "
                                                "counts; row dropped"))
            continue
        if kind is not RowKind.SEND and not cells.is_blank(row.get("to")):
            problems.append(row.problem("to", f"'to' is for send rows only; {cells.quote(row.get('to'))} ignored"))
        column = "value"
        try:
            value = _value(kind, row.get("value"))
            if kind is RowKind.SEND:
                column = "to"
                if cells.is_blank(row.get("to")):
                    raise CellError("blank: name the guest who gets the chips")
                sends.append((row, Transfer(cells.as_choice(row.get("to"), state.settings.guests, "a guest"),
                                            value)))
            elif kind is RowKind.ROTATE and not value:  # as if untyped: it gives no part
                problems.append(row.problem(column, f"{cells.quote(row.get('value'))} is no turn: the piece goes as "
                                                    "it is; row dropped"))
            else:
                found[kind] = (row, value)
        except CellError as e:
            problems.append(row.problem(column, f"{e}; row dropped"))
    if not found and not sends:
        if rows:
            problems.append(Problem(player, "no valid row: the default applies"))
        return Parsed(None, tuple(problems), "nothing")
    values = {k: v for k, (_, v) in found.items()}
    if guest:
        submission = _proposal(state, player, values)
    else:
        submission = Construction(values.get(RowKind.BID, 0), values.get(RowKind.PIECE, Meadow.RED),
                                  values.get(RowKind.ROTATE, 0), values.get(RowKind.POSITION),
                                  tuple(t for _, t in sends))
    notes = _foresee(state, player, submission, {k: r for k, (r, _) in found.items()}, [r for r, _ in sends])
    typed = {k: [r] for k, (r, _) in found.items()} | {RowKind.SEND: [r for r, _ in sends]}
    parts = {key: tuple(r.ref for r in typed.get(kind, [])[i:i + 1]) for key, kind, i in parts_of(submission)}
    return Parsed(submission, tuple(problems + notes), describe(state, player, submission), parts)


def _value(kind: RowKind, raw: object) -> Any:
    if kind is RowKind.BID:
        return cells.as_int(raw, 0, 10_000, "a bid in chips")
    if kind is RowKind.STAR:
        return Corner(cells.as_choice(raw, CORNERS, "a cell", CORNER_NAMES))
    if kind is RowKind.ROTATE:
        return rotation(raw)
    if kind is RowKind.PIECE:
        return Meadow(cells.as_choice(raw, ("red", "green"), "a meadow's piece", PIECE_NAMES))
    if kind is RowKind.POSITION:
        return BY_NAME[cells.as_choice(raw, tuple(BY_NAME), "a position", POSITION_NAMES)]
    return cells.as_int(raw, 1, 10_000, "chips to send")


def _proposal(state: PyramidState, guest: Name, values: Mapping[RowKind, Any]) -> Proposal:
    bid, turns = values.get(RowKind.BID, 0), values.get(RowKind.ROTATE, 0)
    star = values.get(RowKind.STAR)
    if star is None:  # on the piece as they would propose it: unturned if the turn cannot be paid
        star = state.default_star(guest, turns if state.rotation_paid(guest, bid) else 0)
    return Proposal(bid, star, turns)


def _foresee(state: PyramidState, player: Name, sub: PyramidSubmission, rows: Mapping[RowKind, SubmitRow],
             send_rows: Sequence[SubmitRow]) -> list[Problem]:
    """Tell now what the resolver will do with a rule that depends on chips or the pyramid."""
    view, notes = state.outlook(player, sub), []
    what = "chips" if isinstance(sub, Proposal) else "chips and garnets"

    def note(kind: RowKind, message: str) -> None:
        notes.append(rows[kind].problem("value", message) if kind in rows else Problem(player, message))

    if view.bid != sub.bid:
        note(RowKind.BID, f"you hold {view.holds} {what}: a bid of {sub.bid} is more, so it counts as 0")
    if sub.rotation and not view.rotation_paid:
        note(RowKind.ROTATE, f"rotating costs {ROTATION_COST} after your bid of {view.bid}, and you would have "
                             f"{view.holds - view.bid} {what} left: if you win, the rotation is dropped")
    if view.position_why:
        note(RowKind.POSITION, f"{view.position_why}: if you win, your piece goes to the default position, "
                               f"{view.default.name}")
    for row, why in zip(send_rows, view.transfers):
        if why:
            notes.append(row.problem("value", f"{why}: this transfer is dropped"))
    return notes


def describe(state: PyramidState, player: Name, sub: PyramidSubmission) -> str:
    """What counts, in one line."""
    view = state.outlook(player, sub)
    bid = f"bid {view.bid}" + (f" ({sub.bid} is more than you hold)" if view.bid != sub.bid else "")
    turn = f" turned {90 * sub.rotation}°" if sub.rotation and view.rotation_paid else ""
    if isinstance(sub, Proposal):
        return f"{bid}, star {sub.star.value}" + (f", your piece{turn} if it is proposed" if turn else "")
    if sub.position is None:
        where = f"{view.default.name} (the default)"
    elif view.position_why:
        where = f"{view.default.name} (the default: {sub.position.name} cannot be built on now)"
    else:
        where = sub.position.name
    return f"{bid}; if you win: the {sub.meadow.title}'s piece{turn} at {where}" + "".join(
        f"; send {t.chips} to {t.guest}" for t, why in zip(sub.transfers, view.transfers) if why is None)


def rotation(raw: object) -> int:
    """Clockwise quarter turns from '90', '90°', '180 degrees', 'none'...; a counter-clockwise
    turn is read as its clockwise equal, and a word the reader does not know is refused rather
    than skipped (it might say the direction).

    >>> rotation("90°"), rotation(" 270 degrees clockwise "), rotation("none"), rotation(180.0)
    (1, 3, 0, 2)
    >>> rotation("90 counter-clockwise"), rotation("anticlockwise 180"), rotation("ccw 270")
    (3, 2, 1)
    """
    allowed = "a rotation: 0, 90, 180 or 270 (degrees clockwise)"
    said = cells.text(raw)
    if said.startswith("="):
        return cells.as_int(raw, 0, 270, allowed)  # refuses it: a formula is reported, not evaluated
    words = re.sub(r"\b(counter|anti)[\s-]+clockwise", r"\1clockwise", said.casefold()).replace("°", " ").split()
    backwards = any(w in COUNTER_CLOCKWISE_WORDS for w in words)
    words = [w for w in words if w not in CLOCKWISE_WORDS + COUNTER_CLOCKWISE_WORDS]
    if words in (["none"], ["no"]):
        return 0
    if len(words) > 1:
        raise CellError(f"{cells.quote(said)} is not {allowed}; e.g. '90', '180 degrees', '90 counter-clockwise'")
    degrees = cells.as_int(words[0] if words else raw, 0, 270, allowed)
    if degrees % 90:
        raise CellError(f"{cells.quote(said)} is not a multiple of 90 ({allowed})")
    return -(degrees // 90) % 4 if backwards else degrees // 90


def submit_rows(submission: PyramidSubmission | None) -> list[dict]:
    if submission is None:
        return []
    rows = [{"what": RowKind.BID.value, "value": submission.bid}]
    if isinstance(submission, Proposal):
        rows.append({"what": RowKind.STAR.value, "value": submission.star.value})
    else:
        rows.append({"what": RowKind.PIECE.value, "value": submission.meadow.value})
        if submission.position:
            rows.append({"what": RowKind.POSITION.value, "value": submission.position.name})
    if submission.rotation:
        rows.append({"what": RowKind.ROTATE.value, "value": 90 * submission.rotation})
    if isinstance(submission, Construction):
        rows += [{"what": RowKind.SEND.value, "value": t.chips, "to": t.guest} for t in submission.transfers]
    return rows
