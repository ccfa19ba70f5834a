"""Commitments: a salted SHA-256 of a canonical text, published before what it commits to is revealed.

A commitment is the SHA-256, in lowercase hex, of a **canonical text**: one line of ASCII, the
encoding's name, a kind, and a JSON object with its keys sorted, no spaces, every character
outside ASCII written as a JSON escape (`\\u00eb`), so that any SHA-256 tool gives the same hash
from the text copied out of a cell (`docs/verify.md`, with a worked example a person can recompute).
Each text but a round's root holds a fresh 128-bit salt, so a commitment says nothing of what it
commits to until its salt is revealed, and two equal submissions give unrelated commitments.

An encoding never changes once released: a change is a new version, `ENCODINGS` keeps every
version's, and a record names the one each commitment used.

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
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .cells import SubmitRow, typed_cells
from .errors import SheetsHostError

ENCODING = 1  # the encoding this version of the tool writes
KINDS = ("seed", "submission", "host", "round")


def _encode_v1(kind: str, fields: Mapping[str, Any]) -> str:
    body = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return f"sheets-host/1 {kind} {body}"


# version -> the canonical text of (kind, fields). Never edit a released one: add a version.
ENCODINGS: dict[int, Callable[[str, Mapping[str, Any]], str]] = {1: _encode_v1}


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
              encoding: int = ENCODING) -> str:
    """A round's root: every player's commitment in seating order, then the host's. One line a
    player can keep from the announcement for the whole round."""
    return canonical("round", {"game": game, "round": round_number, "players": [list(p) for p in players],
                               "host": host}, encoding)
