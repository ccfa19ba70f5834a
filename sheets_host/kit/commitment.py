"""Commitments: a salted SHA-256 of a canonical text, published before what it commits to is revealed.

A commitment is the SHA-256, in lowercase hex, of a **canonical text**: one line of ASCII, the
encoding's name, a kind, and a JSON object with its keys sorted, no spaces, every character
outside ASCII written as a JSON escape (`\\u00eb`), so that any SHA-256 tool gives the same hash
from the text copied out of a cell (`docs/verify.md`, with a worked example a person can recompute).
Each text but a round's root holds a fresh 128-bit salt, so a commitment says nothing of what it
commits to until its salt is revealed, and two equal submissions give unrelated commitments.

An encoding never changes once released: a change is a new version, `ENCODINGS` keeps every
version's, and a record names the one each commitment used. Version 2 chains the game's **links**
(its seed, each round's root, each undo): each commits to the link made before it (`previous`) and
names the roots it supersedes, so one root a player kept pins the whole history before it.

>>> text = canonical("submission", {"game": "g", "round": 1, "player": "Zoë", "rows": [], "salt": "00"})
>>> text
'sheets-host/1 submission {"game":"g","player":"Zo\\\\u00eb","round":1,"rows":[],"salt":"00"}'
>>> digest(text)[:16]
'147b2d841a14a5ff'
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .cells import SubmitRow, typed_cells
from .errors import SheetsHostError

ENCODING = 1  # the encoding this version of the tool writes a seed's, a submission's and the host's in
CHAINED = 2  # the encoding of a link: a round's root or an undo, chained to the link before it
KINDS = ("seed", "submission", "host", "round", "undo")
LINKS = ("seed", "round", "undo")  # the kinds the chain is made of, in the order made
DIGITS = re.compile(r"[0-9a-f]{64}")  # a commitment as written: SHA-256 in lowercase hex


def _encoder(version: int) -> Callable[[str, Mapping[str, Any]], str]:
    def encode(kind: str, fields: Mapping[str, Any]) -> str:
        body = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
        return f"sheets-host/{version} {kind} {body}"
    return encode


# version -> the canonical text of (kind, fields). Never edit a released one: add a version. Version
# 2 writes text as version 1 does; what changed is what a round's root holds, and the undo.
ENCODINGS: dict[int, Callable[[str, Mapping[str, Any]], str]] = {1: _encoder(1), 2: _encoder(2)}


def canonical(kind: str, fields: Mapping[str, Any], encoding: int = ENCODING) -> str:
    """The canonical text of one commitment (`kind` one of `KINDS`), in the given encoding."""
    if kind not in KINDS:
        raise ValueError(kind)
    try:
        encode = ENCODINGS[encoding]
    except KeyError:
        raise SheetsHostError(f"commitment encoding {encoding!r} is unknown to this version of sheets-host "
                              f"(it knows {', '.join(map(str, ENCODINGS))}): use a newer one") from None
    return encode(kind, fields)


def parsed(text: str) -> tuple[int, str, dict[str, Any]]:
    """A canonical text's encoding, kind and fields; a ValueError saying, in a line, how a text is
    not one (a cell a person or a program changed).

    >>> parsed('sheets-host/1 seed {"game":"g","salt":"00","seed":7}')
    (1, 'seed', {'game': 'g', 'salt': '00', 'seed': 7})
    >>> parsed('sheets-host/1 seed {"seed": 7}')
    Traceback (most recent call last):
    ValueError: it is not written as the canonical encoding writes its JSON (keys sorted, no spaces)
    """
    if not text.isascii():
        raise ValueError("it holds characters outside ASCII, which a canonical text writes as JSON escapes (\\u00eb)")
    head, _, rest = text.partition(" ")
    kind, _, body = rest.partition(" ")
    version = head.removeprefix("sheets-host/")
    if head == version or not version.isdigit() or int(version) not in ENCODINGS:
        raise ValueError(f"it does not begin with sheets-host/ and an encoding this tool knows "
                         f"({', '.join(map(str, ENCODINGS))})")
    if kind not in KINDS:
        raise ValueError(f"its kind is not one of {', '.join(KINDS)}")
    try:
        fields = json.loads(body)
        again = canonical(kind, fields, int(version)) if isinstance(fields, dict) else None
    except (ValueError, RecursionError):
        raise ValueError("its JSON cannot be read") from None
    if again is None:
        raise ValueError("its JSON is not an object")
    if again != text:
        raise ValueError("it is not written as the canonical encoding writes its JSON (keys sorted, no spaces)")
    return int(version), kind, fields


def digest(text: str) -> str:
    """A canonical text's commitment: SHA-256 of its bytes (ASCII, no line ending), in hex."""
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def new_salt() -> str:
    """128 bits from the operating system's secure generator, as 32 hex digits: never from the
    game's seed, which would let anyone who learns the seed open every commitment."""
    return secrets.token_hex(16)


def salt_for(key: str, purpose: str) -> str:
    """A commitment's salt: 128 bits of HMAC-SHA256 under the game's secret `key` (`new_salt`,
    kept in the host book, never revealed), for one purpose ("3/2/submission/Ann"). The same
    commitment made again (a command killed and run again) gets the same salt, and no salt tells
    anything of another; a game with no key (made before commitments) gets a fresh random one.

    >>> salt_for("00" * 16, "1/1/submission/Ann") == salt_for("00" * 16, "1/1/submission/Ann")
    True
    >>> len(salt_for("00" * 16, "seed")), salt_for("", "seed") != salt_for("", "seed")
    (32, True)
    """
    if not key:
        return new_salt()
    return hmac.new(key.encode(), purpose.encode(), hashlib.sha256).hexdigest()[:32]


def counted_rows(rows: Sequence[SubmitRow]) -> list[dict[str, Any]]:
    """Rows as a submission commitment holds them: each row's number, its tab where the game has
    several, and its non-blank cells as text by column (`cells.typed_cells`: what the engine
    compares two readings by), in the order of tab and row.

    >>> counted_rows([SubmitRow("Ann", 3, ["action", "good"], {"action": " bid ", "good": None}, None)])
    [{'row': 3, 'cells': {'action': 'bid'}}]
    """
    out = []
    for row in sorted(rows, key=lambda r: (r.tab or "", r.row)):
        item: dict[str, Any] = {"row": row.row, "cells": dict(typed_cells(row))}
        if row.tab:
            item["tab"] = row.tab
        out.append(item)
    return out


def seed_text(game: str, seed: int, salt: str, encoding: int = ENCODING) -> str:
    return canonical("seed", {"game": game, "seed": seed, "salt": salt}, encoding)


def submission_text(game: str, round_number: int, player: str, rows: Sequence[Mapping[str, Any]], salt: str,
                    encoding: int = ENCODING) -> str:
    """What counted for one player in one round (`rows` as `counted_rows` gives them)."""
    return canonical("submission", {"game": game, "round": round_number, "player": player, "rows": list(rows),
                                    "salt": salt}, encoding)


def host_text(game: str, round_number: int, state: Mapping[str, Any], decisions: Mapping[str, str],
              window: Mapping[str, str | None], salt: str, encoding: int = ENCODING) -> str:
    """What the host put into a round: the state it was resolved from (each state tab's records,
    with round 1's settings and data), so every host edit between rounds is in it; the host's
    decisions in the config (a candidate choice); and when the round opened and was frozen (what
    time controls read)."""
    return canonical("host", {"game": game, "round": round_number, "state": dict(state), "decisions": dict(decisions),
                              **dict(window), "salt": salt}, encoding)


def root_text(game: str, round_number: int, players: Sequence[tuple[str, str]], host: str,
              previous: str | None = None, supersedes: Sequence[str] = (), reason: str | None = None,
              edits: Sequence[str] | None = None, encoding: int = CHAINED) -> str:
    """A round's root: every player's commitment in seating order, then the host's; in version 2
    also the link before it (`previous`), the roots it supersedes (a redo's), the state tabs the
    host changed since the engine gave the round its state (`edits`; null where not known) and the
    host's `reason`. One line a player can keep from the announcement that pins the round and
    everything before it."""
    fields = {"game": game, "round": round_number, "players": [list(p) for p in players], "host": host}
    if encoding >= CHAINED:
        fields.update({"previous": previous, "supersedes": list(supersedes), "reason": reason,
                       "edits": None if edits is None else list(edits)})
    return canonical("round", fields, encoding)


def undo_text(game: str, round_number: int, previous: str, supersedes: Sequence[str], reason: str | None,
              at: str) -> str:
    """An undo of round `round_number` (and the rounds after it): the link before it and the roots
    it withdraws, with the host's reason and when."""
    return canonical("undo", {"game": game, "round": round_number, "previous": previous, "supersedes": list(supersedes),
                              "reason": reason, "undone at": at}, CHAINED)
