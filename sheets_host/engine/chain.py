"""The chain of a game's links (`commitments.links`: its seed, each root, each undo) checked, the
roots a player kept found in it, and what the host did besides resolving told from it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sheets_host.kit.commitment import CHAINED, digest
from sheets_host.kit.game import Game
from . import commitments
from .checks import Check
from .commitments import fields_of


def _named(game: Game, link: Mapping) -> str:
    """A link as a reader knows it: with its attempt where it is known (a record's; a public book's
    links have none)."""
    what = {"seed": "the seed commitment", "round": f"{game.round_name(link['round'])}'s root",
            "undo": f"the undo of {game.round_name(link['round'])}"}[link["kind"]]
    return f"{what} (attempt {link['attempt']})" if link["kind"] != "seed" and link.get("attempt") is not None else what


def chain(game: Game, rows: Sequence[Mapping]) -> Check:
    """The chain (`commitments.links`): each root and undo commits to the link made before it and
    supersedes only roots before it, and every root marked superseded is named by a later link, so
    no root was taken out or put back unseen. `rows` are a record's commitments, or a public
    book's (`mine.public_rows`: no attempts)."""
    check = Check("the chain: each root and undo commits to the link before it, from the seed, and names the roots "
                  "it supersedes")
    seen: list[str] = []
    named: dict[str, str] = {}  # a superseded root -> the link that names it
    for link in commitments.links(rows):
        who = _named(game, link)
        if link["kind"] == "seed":
            if seen:
                check.differences.append(f"{who} is not the chain's first link")
            seen.append(link["commitment"])
            continue
        text = link.get("text") or ""
        fields = fields_of(text)
        if link["encoding"] < CHAINED:
            check.differences.append(f"{who}: of encoding {link['encoding']}, made before roots were chained: it "
                                     "commits to nothing before it, so a root kept pins its round alone")
        elif digest(text) != link["commitment"]:
            check.differences.append(f"{who}: its text gives {digest(text)}, the commitment is {link['commitment']}")
        else:
            if fields.get("game") != game.name or fields.get("round") != link["round"]:
                check.differences.append(f"{who}: its text is of {fields.get('game')!r}, round {fields.get('round')!r}")
            previous = seen[-1] if seen else None
            if fields.get("previous") != previous:
                check.differences.append(f"{who} commits to {fields.get('previous')} as the link before it; the "
                                         f"record's link before it is {previous}")
            for old in fields.get("supersedes") or []:
                if old not in seen:
                    check.differences.append(f"{who} supersedes the root {old}, which the chain does not hold "
                                             "before it (taken out of the record)")
                named[old] = who
        seen.append(link["commitment"])
    for link in commitments.links(rows):
        if link["kind"] == "round" and link.get("superseded") and link["commitment"] not in named \
                and link["encoding"] >= CHAINED:
            check.differences.append(f"{_named(game, link)} is marked superseded ({link['superseded']}), but no "
                                     "later root or undo names it")
        if link["kind"] == "round" and not link.get("superseded") and link["commitment"] in named:
            check.differences.append(f"{_named(game, link)} is superseded by {named[link['commitment']]}, but the "
                                     "record holds it as counting")
    return check


def kept(game: Game, rows: Sequence[Mapping], root: str) -> Check:
    """A root (or any commitment) a player kept is a link of the record's chain: the record is the
    history that was published, up to it."""
    found = next((r for r in rows if r["commitment"] == root), None)
    if found is None:
        return Check(f"the root you kept, {root}", [
            "it is nowhere in the record: the record is not the history that was published when you kept it "
            "(it was rewritten), or it is the record of another game"])
    if found["kind"] not in commitments.LINKS:
        return Check(f"the commitment you kept, {root}: {_named_any(game, found)}, in the record")
    later = commitments.links(rows)[[r["commitment"] for r in commitments.links(rows)].index(root) + 1:]
    tail = (f"; {len(later)} link(s) made after it" if later else "; the last link of the record")
    state = ("the chain's first link" if found["kind"] == "seed" else
             f"superseded ({found['superseded']})" if found.get("superseded") else "counting")
    return Check(f"the root you kept, {root}: {_named(game, found)}, {state}, in the record's chain{tail}")


def _named_any(game: Game, row: Mapping) -> str:
    what = commitments.WHAT[row["kind"]]
    whose = f"{row['player']}'s " if row.get("player") else ""
    return f"{whose}{what} of {commitments.round_label(game, row['round'])}"


def kept_roots(text: str) -> list[str]:
    """Every commitment (64 hex digits) in a text a player kept: saved posts, notes, a list.

    >>> kept_roots("Round root: `" + "ab" * 32 + "` and " + "0" * 64 + ", not " + "1" * 63)
    ['abababababababababababababababababababababababababababababababab', '0000000000000000000000000000000000000000000000000000000000000000']
    """
    return re.findall(r"(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])", text.lower())


def history(game: Game, record: Mapping[str, Any]) -> list[str]:
    """What the host did besides resolving, in the order done: each redo and undo (from the chain)
    and each edit of the state between rounds (the record's host inputs), with the host's reason."""
    rows = record["commitments"]
    roots = {(r["round"], r["attempt"]): fields_of(r.get("text") or "") for r in rows if r["kind"] == "round"}
    out = []
    for link in commitments.links(rows):
        fields = fields_of(link.get("text") or "")
        reason = fields.get("reason") or "none given"
        name = game.round_name(link["round"])
        if link["kind"] == "undo":
            out.append(f"{name} undone at {fields.get('undone at')}, withdrawing "
                       f"{len(fields.get('supersedes') or [])} root(s); the host's reason: {reason}")
        elif link["kind"] == "round" and fields.get("supersedes"):
            out.append(f"{name} redone at {link['made at']} (attempt {link['attempt']}), superseding "
                       f"{', '.join(fields['supersedes'])}; the host's reason: {reason}")
    for round_record in record["rounds"]:
        if round_record["host inputs"]:
            reason = roots.get((round_record["round"], round_record["attempt"]), {}).get("reason") or "none given"
            since = "the game was set up" if round_record["round"] == 1 else "the round before"
            out.append(f"before {game.round_name(round_record['round'])}, the host changed the state since {since}: "
                       f"tab(s) {', '.join(repr(t) for t in round_record['host inputs'])}; the host's reason: {reason}")
    return out
