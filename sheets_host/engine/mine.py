"""`verify --mine`: a player's own check during the game (`docs/verify.md`).

A player's book's `my commitments` tab holds, for each round, the commitment to what counted for
them, its salt and the committed text (`commitments.private_frame`). From that book alone, each
text is checked to give its commitment (SHA-256) and to be theirs, of that round, with that salt.
With the public book's `commitments` tab (`commitments.public_frame`), each commitment is checked
to be published as theirs, the round's root to hold it and to be what its text gives, and the
chain of links to be whole from the seed (`chain.chain`). Nothing secret but the player's own is
needed, and the game need not be over.

Pure: the books' tabs in, checks out (`checks.Check`). A cell a person or a program damaged (a
text that is not a canonical text, a commitment that is not 64 hex digits, a part missing) is a
failed check naming its tab and row, never an exception: it is what the check is for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from sheets_host.backends import ENGINE_TAB
from sheets_host.games import get_game
from sheets_host.kit import cells
from sheets_host.kit.commitment import CHAINED, DIGITS, LINKS, digest, parsed
from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.game import Game
from .commitments import PART_NOTE, PRIVATE_TAB, PUBLIC_FIRST, PUBLIC_TAB, PRIVATE_FIRST, TEXT, TOO_LONG, WHAT, \
    round_label, whole
from .delivery import mark_of
from .chain import chain
from .checks import Check

_PART = re.compile(PART_NOTE.replace("{}", r"(\d+)"))
_KIND = {shown: kind for kind, shown in WHAT.items()}
_NOTHING = "nothing to check: "


@dataclass
class Committed:
    """One commitment in a player's own book, as read: its row, round, commitment, salt, why it
    was superseded, its text whole again from its parts, and what is wrong with how it was kept."""

    row: int
    round: str
    commitment: str
    salt: str
    superseded: str | None
    text: str | None = None
    pieces: list[tuple[int, str | None]] = field(default_factory=list)
    expected_parts: int = 1
    damage: list[str] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)  # its canonical text's, once read


def check_mine(book: Mapping[str, pd.DataFrame], public: Mapping[str, pd.DataFrame] | None = None,
               where: str = "the public book") -> list[Check]:
    """Every check of a player's own `book` (its tabs), and of it against the `public` book's, in
    the order a player reads them: whose book it is, each round, the public book's chain."""
    tab = book.get(PRIVATE_TAB)
    if tab is None:
        return [Check("your book", [f"{_NOTHING}it has no {PRIVATE_TAB!r} tab (give your own book, as the host "
                                    "shared it with you)"])]
    missing = [c for c in ("round", "commitment", "salt", "note", TEXT) if c not in tab.columns]
    if missing:
        return [Check("your book", [f"{_NOTHING}its tab {PRIVATE_TAB!r} has no column {', '.join(map(repr, missing))}"])]
    mine, stray = _read_private(tab)
    owner = mark_of(book.get(ENGINE_TAB)).owner or ""
    player = owner.removeprefix("player:") if owner.startswith("player:") else None
    first = Check(f"your book: {player}'s, with {len(mine)} commitment(s) in its {PRIVATE_TAB!r} tab"
                  if player else "your book", stray)
    if player is None:
        first.differences.append(f"it does not say whose it is (its hidden {ENGINE_TAB!r} tab names no player): "
                                 "give your own book, as the host shared it with you")
    if not mine:
        first.differences.append(f"{_NOTHING}its tab {PRIVATE_TAB!r} holds no commitment yet (the host commits to "
                                 "the rows read from your submit tab when a round is locked or resolved)")
        return [first]
    game = _game(mine, first)
    out = [first]
    published = links = None
    if public is not None:
        read = _read_public(game, public, where, mine)
        out.append(read[0])
        published, links = read[1], read[2]
    for entry in mine:
        out.append(_round(game, player, entry, mine, published, book))
    if links is not None and game is not None:
        check = chain(game, links)
        check.what = (f"{where}: the game's chain is whole: the seed first, then each round root and undo naming "
                      "the one before it and the roots it replaces")
        out.append(check)
    return out


def _read_private(tab: pd.DataFrame) -> tuple[list[Committed], list[str]]:
    """The player's commitments, a text in parts whole again (`commitments.whole`), and the rows
    that are none of them."""
    out: list[Committed] = []
    stray = []
    for row, values in _rows(tab):
        label, note = cells.text(values.get("round")), cells.text(values.get("note"))
        text = _as_kept(values.get(TEXT))
        if label == PRIVATE_FIRST or not any(cells.text(v) for v in values.values()):
            continue
        part = _PART.fullmatch(note)
        if not label and part and out:
            out[-1].pieces.append((int(part[1]), text))
            if int(part[2]) != out[-1].expected_parts:
                out[-1].damage.append(f"tab {PRIVATE_TAB!r}, row {row}: says {note!r}, but row {out[-1].row} "
                                      f"says its text is in {out[-1].expected_parts} part(s)")
            continue
        if not label:
            stray.append(f"tab {PRIVATE_TAB!r}, row {row}: a row with no round that is not a part of the text above it")
            continue
        superseded, _, long = note.partition(TOO_LONG) if TOO_LONG in note else (note, "", "")
        below = re.search(r"the (\d+) below", long)
        entry = Committed(row, label, cells.text(values.get("commitment")), cells.text(values.get("salt")),
                          superseded.rstrip("; ") or None, pieces=[(1, text)],
                          expected_parts=1 + int(below[1]) if below else 1)
        out.append(entry)
    for entry in out:
        entry.text = whole(entry.pieces)
        if entry.text is None or len(entry.pieces) != entry.expected_parts:
            found = ", ".join(str(n) for n, _ in entry.pieces)
            entry.damage.append(f"tab {PRIVATE_TAB!r}, row {entry.row}: its text should be in {entry.expected_parts} "
                                f"part(s), numbered 1 to {entry.expected_parts} on the rows below it; found part(s) "
                                f"{found}")
            entry.text = None
    return out, stray


def _as_kept(value: object) -> str | None:
    """A committed text as its cell holds it: not made tidy as a player's cell is (`cells.text`
    makes a run of spaces, and a control character Python counts as one, a single space), since a
    character changed in it is what the check must see; only the ends trimmed, as a program shows."""
    if cells.is_blank(value):
        return None
    return (value.strip(" ") if isinstance(value, str) else cells.text(value)) or None


def _rows(tab: pd.DataFrame) -> list[tuple[int, dict]]:
    """Each row of a tab with its sheet row (a tab read from a book is indexed by it)."""
    rows = tab.to_dict("records")
    index = [int(i) if pd.api.types.is_integer(i) else n for n, i in enumerate(tab.index, start=2)]
    return list(zip(index, rows))


def _game(mine: Sequence[Committed], check: Check) -> Game | None:
    """The game the player's texts name (the first that can be read), or None, said in `check`."""
    for entry in mine:
        try:
            name = parsed(entry.text or "")[2].get("game")
        except ValueError:
            continue
        try:
            return get_game(str(name))
        except SheetsHostError as e:
            check.differences.append(f"tab {PRIVATE_TAB!r}, row {entry.row}: its text is of a game this sheets-host "
                                     f"does not know ({e})")
            return None
    return None


def _own(game: Game | None, player: str | None, entry: Committed) -> list[str]:
    """The player's commitment in their own book: its text gives it, and is theirs, of its round,
    with its salt."""
    where = f"tab {PRIVATE_TAB!r}, row {entry.row}"
    out = list(entry.damage)
    if not DIGITS.fullmatch(entry.commitment):
        out.append(f"{where}: the commitment {cells.quote(entry.commitment)} is not one (64 digits 0-9 and a-f)")
    if entry.text is None:
        return out or [f"{where}: no committed text"]
    try:
        _, kind, entry.fields = parsed(entry.text)
    except ValueError as e:
        return [*out, f"{where}: its committed text is not a text sheets-host commits to: {e}"]
    if digest(entry.text) != entry.commitment:
        out.append(f"{where}: your committed text gives the commitment {digest(entry.text)}, but the row shows "
                   f"{_shown(entry.commitment)}: the text is not what was committed, or the commitment is not")
    said = {"kind": (kind, "submission"), "salt": (entry.fields.get("salt"), entry.salt)}
    if player is not None:  # a book that does not say whose it is fails its own check
        said["player"] = (entry.fields.get("player"), player)
    if game is not None:
        number = entry.fields.get("round")
        said["round"] = (round_label(game, number) if isinstance(number, int) else number, entry.round)
        said["game"] = (entry.fields.get("game"), game.name)
    for name, (text_says, row_says) in said.items():
        if text_says != row_says:
            out.append(f"{where}: its text's {name} is {text_says!r}, where it should be {row_says!r}")
    return out


def _shown(commitment: str) -> str:
    """A commitment in a line: whole when it is one (64 digits), else quoted, and cut when long."""
    return commitment if DIGITS.fullmatch(commitment) else cells.quote(commitment)


def rows_said(fields: Mapping[str, Any], book: Mapping[str, pd.DataFrame] = {}) -> str:
    """The rows a submission's text holds, as the player typed them: each cell in the order of its
    tab's columns (in the player's `book`, when given), non-ASCII as typed.

    >>> rows_said({"rows": [{"row": 2, "cells": {"action": "bid", "amount": "3", "good": "cape"}},
    ...                     {"row": 3, "cells": {"action": "gift", "to": "Zo\\u00eb"}, "tab": "gifts"}]})
    "rows 2 (bid, 3, cape) and 3 of 'gifts' (gift, Zoë)"
    """
    rows = fields.get("rows")
    if not isinstance(rows, list) or not rows:
        return "no row (nothing you typed counted)"
    said = []
    for r in rows:
        if not isinstance(r, dict) or not isinstance(r.get("cells"), dict):
            return f"rows {cells.quote(str(rows))}"
        tab = book.get(r.get("tab") or "submit")
        order = [str(c) for c in tab.columns] if tab is not None else []
        typed = sorted(r["cells"].items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order), kv[0]))
        where = f" of {r['tab']!r}" if r.get("tab") else ""
        said.append(f"{r.get('row')}{where} ({', '.join(str(v) for _, v in typed)})")
    return ("row " if len(said) == 1 else "rows ") + (said[0] if len(said) == 1 else
                                                      ", ".join(said[:-1]) + " and " + said[-1])


# ---- the public book ----------------------------------------------------------------------------------------


def _read_public(game: Game | None, public: Mapping[str, pd.DataFrame], where: str,
                 mine: Sequence[Committed]) -> tuple[Check, list[dict] | None, list[dict] | None]:
    """The public commitments tab as rows (`public_rows`), with a check of how it was read, and its links."""
    check = Check(f"{where}: its {PUBLIC_TAB!r} tab can be read")
    tab = public.get(PUBLIC_TAB)
    if tab is None:
        check.differences.append(f"{_NOTHING}it has no {PUBLIC_TAB!r} tab (give the game's public book)")
        return check, None, None
    missing = [c for c in ("round", "what", "player", "commitment", "superseded", TEXT) if c not in tab.columns]
    if missing or game is None:
        check.differences.append(f"{_NOTHING}its tab {PUBLIC_TAB!r} has no column {', '.join(map(repr, missing))}"
                                 if missing else "the game your texts name is unknown: its rounds cannot be read")
        return check, None, None
    rows = public_rows(game, tab, check, [e.fields.get("round") for e in mine])
    return check, rows, [r for r in rows if r["kind"] in LINKS]


def public_rows(game: Game, tab: pd.DataFrame, check: Check, rounds: Sequence[Any] = ()) -> list[dict]:
    """A public commitments tab's rows as a record's commitments (no attempt, no salt), each with
    its sheet row and round label; each cell that cannot be read said in `check`."""
    found = []
    for row, values in _rows(tab):
        label = cells.text(values.get("round"))
        if label == PUBLIC_FIRST or not any(cells.text(v) for v in values.values()):
            continue
        what, text = cells.text(values.get("what")), _as_kept(values.get(TEXT))
        kind = _KIND.get(what)
        where = f"tab {PUBLIC_TAB!r}, row {row}"
        if kind is None:
            check.differences.append(f"{where}: 'what' is {cells.quote(what)}, not one of {', '.join(WHAT.values())}")
            continue
        commitment = cells.text(values.get("commitment"))
        if not DIGITS.fullmatch(commitment):
            check.differences.append(f"{where}: the commitment {cells.quote(commitment)} is not one (64 digits 0-9 "
                                     "and a-f)")
        encoding, fields = CHAINED, {}
        if kind in ("round", "undo"):
            try:
                encoding, _, fields = parsed(text or "")
            except ValueError as e:
                check.differences.append(f"{where}: its committed text is not a text sheets-host commits to: {e}")
                text = text if (text or "").isascii() else None
        found.append({"row": row, "label": label, "round": fields.get("round"), "attempt": None, "kind": kind,
                      "player": cells.text(values.get("player")) or None, "encoding": encoding,
                      "commitment": commitment, "superseded": cells.text(values.get("superseded")) or None,
                      "text": text})
    numbers = [n for n in [*rounds, *(r["round"] for r in found)] if isinstance(n, int) and not isinstance(n, bool)]
    labels = {round_label(game, n): n for n in {0, *numbers}}
    for r in found:
        if not isinstance(r["round"], int):
            r["round"] = labels.get(r["label"], 0)
        elif round_label(game, r["round"]) != r["label"]:
            check.differences.append(f"tab {PUBLIC_TAB!r}, row {r['row']}: its round is {r['label']!r}, but its text "
                                     f"is of {round_label(game, r['round'])}")
    return found


def _round(game: Game | None, player: str | None, entry: Committed, mine: Sequence[Committed],
           published: Sequence[dict] | None, book: Mapping[str, pd.DataFrame]) -> Check:
    """One of the player's commitments: in their book and, given it, in the public book."""
    differences = _own(game, player, entry)
    rows = rows_said(entry.fields, book) if entry.fields else "what your book's row holds"
    what = f"{entry.round}: the rows read from your submit tab — {rows} —"
    if entry.superseded:
        later = [e.row for e in mine if e.round == entry.round and not e.superseded and e.row > entry.row]
        what = (f"{entry.round}, superseded ({entry.superseded}): the rows read from your submit tab then — {rows} — give its "
                "commitment" + (", published as yours and marked superseded" if published is not None else "")
                + (f"; your later commitment of {entry.round} is on row {later[-1]}" if later else
                   f"; your book holds no later commitment of {entry.round} (yet)"))
    elif published is None:
        what += f" give the commitment your book shows (row {entry.row})"
    else:
        roots = [r for r in published if r["kind"] == "round" and r["label"] == entry.round and not r["superseded"]]
        what += (" are what the host committed to, published as yours, and " +
                 (f"{entry.round}'s root holds it" if roots else f"{entry.round} has no root yet (it is not resolved)"))
        differences += _in_root(game, player, entry, roots)
    if published is not None:
        differences += _published(player, entry, published)
    return Check(what, differences)


def _published(player: str | None, entry: Committed, published: Sequence[dict]) -> list[str]:
    """The player's commitment is in the public tab, as their submission of its round, superseded
    or not as their book says."""
    shown = [r for r in published if r["commitment"] == entry.commitment]
    if not shown:
        theirs = [r["commitment"] for r in published if r["kind"] == "submission" and r["player"] == player
                  and r["label"] == entry.round and bool(r["superseded"]) == bool(entry.superseded)]
        return [f"the public commitments tab does not show your commitment {entry.commitment} (row {entry.row}): "
                + (f"it shows {', '.join(theirs)} as yours for {entry.round}" if theirs else
                   f"it shows no commitment of yours for {entry.round}")]
    r = shown[0]
    out = []
    if (r["kind"], r["player"], r["label"]) != ("submission", player, entry.round):
        out.append(f"the public commitments tab shows your commitment (its row {r['row']}) as {r['player'] or 'no one'}'s "
                   f"{WHAT[r['kind']]} of {r['label']}, not as your submission of {entry.round}")
    if bool(r["superseded"]) != bool(entry.superseded):
        out.append(f"the public commitments tab (its row {r['row']}) marks it "
                   + (f"superseded ({r['superseded']}), your book does not" if r["superseded"] else
                      f"counting, your book superseded ({entry.superseded})"))
    return out


def _in_root(game: Game | None, player: str | None, entry: Committed, roots: Sequence[dict]) -> list[str]:
    """The round's root that counts is what its text gives and holds the player's commitment."""
    if not roots:
        return []
    if len(roots) > 1:
        return [f"the public commitments tab has {len(roots)} roots of {entry.round} that count (its rows "
                f"{', '.join(str(r['row']) for r in roots)}): one counts, the others are marked superseded"]
    root = roots[0]
    where = f"{entry.round}'s root (the public commitments tab, row {root['row']})"
    text = root["text"] or ""
    try:
        _, _, fields = parsed(text)
    except ValueError:
        return [f"{where}: its text cannot be read, so whether it holds your commitment cannot be told"]
    out = []
    if digest(text) != root["commitment"]:
        out.append(f"{where}: its text gives {digest(text)}, but the root shown is {_shown(root['commitment'])}")
    listed = fields.get("players")
    pairs = [p for p in listed if isinstance(p, list) and len(p) == 2] if isinstance(listed, list) else []
    if [player, entry.commitment] not in pairs:
        theirs = [c for p, c in pairs if p == player]
        out.append(f"{where} does not hold your commitment {entry.commitment} (your book's row {entry.row}): "
                   + (f"it holds {', '.join(map(str, theirs))} as yours" if theirs else "it holds none of yours")
                   + f", so {entry.round} was not resolved from what your book shows")
    if game is not None and (fields.get("game"), fields.get("round")) != (game.name, entry.fields.get("round")):
        out.append(f"{where}: its text is of {fields.get('game')!r}, round {fields.get('round')!r}")
    return out
