"""Verifiable hosting during the game: what the host commits to, and when (`docs/verify.md`).

- `new` commits to the seed (a salted commitment of the game and the seed), published at once.
- `lock` (or `resolve`, for a round not locked) commits to what counted for each player: the
  rows of the attempt the round is resolved with, each player with a salt of their own.
- `resolve` commits to what the host put in (the state the round is resolved from, with every
  host edit, and the round's window), and publishes the round's root over all of them.
- A redo or an undo marks the round's commitments superseded (the public book keeps them), and
  the round resolved again gets new ones.
- The seed, each root and each undo are the game's **chain** (`LINKS`): each root and undo
  commits to the link made before it and names the roots it supersedes, with the host's reason,
  so a root a player kept pins everything published before it (`verify --root`).

The host book's `commitments` tab keeps every commitment with its salt and, for a seed and a
submission, its canonical text (the host may correct archived rows before a redo: the text keeps
what was committed). Public books show the commitments; a player's book shows their own texts
and salts; the record (`record.py`) reveals the rest after the game. Salts come from the
operating system (`commitment.new_salt`): they are drawn once, committed to the host book in the
same write as the rows they salt, and never again, so a command killed and run again publishes
what the host book holds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.commitment import (CHAINED, ENCODING, KINDS, LINKS, counted_rows, digest, host_text, root_text,
                                        salt_for, seed_text, submission_text, undo_text)
from sheets_host.kit.errors import SchemaError, SchemaErrors
from sheets_host.kit.game import Game
from sheets_host.kit.layout import TabLayout, lay_out, row_height
from sheets_host.kit.table import Column, TabSchema
from .host import frame, stamp, window_of
from .snapshots import CELL_PART, snapshot_of

COMMITMENTS = TabSchema("commitments", (
    Column("round", "int", lo=0, doc="0: the seed, committed when the game was made"),
    Column("attempt", "int", lo=0, doc="the archive's attempt the commitment is of"),
    Column("kind", "choice", KINDS, doc="seed, a player's submission, the host's inputs, the round's root, or an undo"),
    Column("player", "player", optional=True),
    Column("encoding", "int", lo=1, doc="the canonical text's version (docs/verify.md)"),
    Column("salt", optional=True, doc="secret until the record: 128 random bits"),
    Column("commitment", doc="SHA-256 of the canonical text"),
    Column("made at"),
    Column("superseded", optional=True, doc="why it no longer counts (a redo, an undo)"),
    Column("text", optional=True, doc="a seed's or a submission's canonical text, as committed; the host's "
                                       "decisions in the config, for the host's inputs"),
    Column("part", "int", lo=1, optional=True, doc="a text too long for one cell goes on in the rows below, "
                                                   "the same commitment's: its parts, in order")),
    "Every commitment the game published, with its secret salt (docs/verify.md).")
HASH_WIDTH = 66  # characters: a commitment's 64 hex digits and a margin
PUBLIC_TAB = "commitments"
PRIVATE_TAB = "my commitments"
TEXT = "committed text"
PUBLIC_FIRST, PRIVATE_FIRST = "what these are", "how to check"  # each tab's first row
TOO_LONG = "too long for a cell"
PART_NOTE = "part {} of {}"  # a player's commitments tab: a row carrying the next part of the text above it
WHAT = {"seed": "seed", "submission": "submission", "host": "host's inputs", "round": "round root", "undo": "undo"}


# What names one commitment on each row of its text's parts (the schema's required columns).
_NAMING = ("round", "attempt", "kind", "player", "encoding", "commitment", "made at")


def read(tabs: Mapping[str, pd.DataFrame], players: Sequence[str]) -> list[dict]:
    """The host book's commitments (none in a game made before they existed), a text kept in parts
    (`host_frame`) whole again."""
    data = tabs.get(COMMITMENTS.name)
    if data is None:
        return []
    rows: list[list[dict]] = []  # each commitment's rows: one, or its text's parts
    parted: dict[tuple, list[dict]] = {}
    for r in COMMITMENTS.records(data, players):
        key = tuple(r[k] for k in _NAMING)
        if r["part"] is None or key not in parted:
            rows.append([r])
            if r["part"] is not None:
                parted[key] = rows[-1]
        else:
            parted[key].append(r)
    errors = []
    for pieces in rows:
        if pieces[0]["part"] is not None:
            pieces.sort(key=lambda p: p["part"])
            text = whole([(p["part"], p["text"]) for p in pieces])
            if text is None:
                errors.append(SchemaError(COMMITMENTS.name, pieces[0]["_row"], "part",
                                          ", ".join(str(p["part"]) for p in pieces),
                                          f"parts 1 to {len(pieces)} of one commitment's text, each once"))
            pieces[0]["text"] = text
    if errors:
        raise SchemaErrors(errors)
    return [{k: v for k, v in pieces[0].items() if k not in ("_row", "part")} for pieces in rows]


def whole(pieces: Sequence[tuple[int, str | None]]) -> str | None:
    """A text kept in parts (`parts`: each its number and text), whole again; None unless the parts
    are numbered 1 to n, each once.

    >>> whole([(2, "cd"), (1, "ab")]), whole([(1, "ab"), (3, "cd")])
    ('abcd', None)
    """
    ordered = sorted(pieces, key=lambda p: p[0])
    if [n for n, _ in ordered] != list(range(1, len(ordered) + 1)):
        return None
    return "".join(text or "" for _, text in ordered)


def current(rows: Sequence[Mapping], round_number: int, kind: str | None = None) -> list[Mapping]:
    """The round's commitments that count (none superseded), of one kind or all."""
    return [r for r in rows if r["round"] == round_number and not r.get("superseded")
            and (kind is None or r["kind"] == kind)]


def of_attempt(rows: Sequence[Mapping], round_number: int, attempt: int, kind: str) -> list[Mapping]:
    """The commitments of one kind that an attempt of a round made, in the order made (attempts
    are never reused, so none of them is superseded but by a later attempt's)."""
    return [r for r in rows if r["kind"] == kind and r["round"] == round_number and r["attempt"] == attempt]


def _row(round_number: int, attempt: int, kind: str, salt: str | None, text: str | None, at: str,
         player: str | None = None, commitment: str | None = None) -> dict:
    return {"round": round_number, "attempt": attempt, "kind": kind, "player": player,
            "encoding": CHAINED if kind in ("round", "undo") else ENCODING,
            "salt": salt, "commitment": commitment or digest(text), "made at": at, "text": text}


def links(rows: Sequence[Mapping]) -> list[Mapping]:
    """The chain: the seed, every round root and every undo, in the order made, superseded or not."""
    return [r for r in rows if r["kind"] in LINKS]


def last_link(rows: Sequence[Mapping]) -> str | None:
    """The commitment the next link commits to (none in a game made before commitments)."""
    chain = links(rows)
    return chain[-1]["commitment"] if chain else None


def of_seed(game: Game, seed: int, at: str, key: str) -> dict:
    """The seed's commitment, made when the game is."""
    salt = salt_for(key, "seed")
    return _row(0, 0, "seed", salt, seed_text(game.name, seed, salt), at)


def of_submissions(game: Game, round_number: int, attempt: int, rows: Mapping[str, Sequence[SubmitRow]],
                   players: Sequence[str], at: str, key: str) -> list[dict]:
    """Each player's commitment to what counts for them (`rows`), in seating order."""
    out = []
    for player in players:
        salt = salt_for(key, f"{round_number}/{attempt}/submission/{player}")
        text = submission_text(game.name, round_number, player, counted_rows(rows.get(player, ())), salt)
        out.append(_row(round_number, attempt, "submission", salt, text, at, player))
    return out


def window(record: Mapping) -> dict[str, str | None]:
    """The round's window as the host commitment and the record hold it: each time stamped in one form."""
    read = window_of(record)
    return {"opened at": stamp(read.opened) if read.opened else None,
            "frozen at": stamp(read.frozen) if read.frozen else None}


def decisions(game: Game, config: Mapping[str, Any]) -> dict[str, str]:
    """The host's decisions in the config (`Game.host_decisions`), as text: what the host may
    still set during the game, so a round's commitment and the record keep them as they were."""
    return {name: cells.text(config.get(name)) for name in game.host_decisions}


def host_commitment(game: Game, round_number: int, state: Any, fixed: Mapping | None, decided: Mapping[str, str],
                    record: Mapping, salt: str) -> str:
    """The host's commitment for a round resolved from `state` (and round 1's `fixed` settings and
    data) with the host's `decided` decisions."""
    return digest(host_text(game.name, round_number, snapshot_of(game, state, fixed), decided, window(record), salt))


def of_round(game: Game, round_number: int, attempt: int, state: Any, fixed: Mapping | None, config: Mapping[str, Any],
             record: Mapping, submissions: Sequence[Mapping], at: str, key: str, earlier: Sequence[Mapping],
             supersedes: Sequence[str] = (), reason: str | None = None,
             edits: Sequence[str] | None = None) -> list[dict]:
    """The host's commitment (its text: the host's decisions, as JSON) and the round's root, made
    at its resolve; `submissions` are the attempt's player commitments, in seating order; the root
    commits to the last link of the `earlier` commitments, names the roots a redo `supersedes`
    and the state tabs the host `edits`, and holds the host's `reason`."""
    salt = salt_for(key, f"{round_number}/{attempt}/host")
    decided = decisions(game, config)
    host = _row(round_number, attempt, "host", salt, json.dumps(decided, sort_keys=True, ensure_ascii=False), at,
                commitment=host_commitment(game, round_number, state, fixed, decided, record, salt))
    root = root_text(game.name, round_number, [(r["player"], r["commitment"]) for r in submissions], host["commitment"],
                     last_link(earlier), supersedes, reason, edits)
    return [host, _row(round_number, attempt, "round", None, root, at)]


def of_undo(game: Game, round_number: int, attempt: int, rows: Sequence[Mapping], reason: str | None,
            at: str) -> list[dict]:
    """The commitments after an undo of round `round_number`: its commitments and every later
    round's marked superseded, and the undo's link, naming the roots it withdraws."""
    withdrawn = [r["commitment"] for r in rows if r["kind"] == "round" and r["round"] >= round_number
                 and not r.get("superseded")]
    why = f"undone at {at}" + (f": {reason}" if reason else "")
    if last_link(rows) is None:  # a game made before commitments: nothing to chain
        return supersede(rows, why, round_number)
    link = _row(round_number, attempt, "undo", None, undo_text(game.name, round_number, last_link(rows), withdrawn,
                                                               reason, at), at)
    return [*supersede(rows, why, round_number), link]


def roots_of(rows: Sequence[Mapping], round_number: int) -> list[str]:
    """The round's roots that count (one, once it is resolved): what a redo of it supersedes."""
    return [r["commitment"] for r in current(rows, round_number, "round")]


def supersede(rows: Sequence[Mapping], why: str, first_round: int, last_round: int | None = None) -> list[dict]:
    """The commitments of rounds `first_round` to `last_round` (or every later one) marked
    superseded (`why`), unless they already are; the seed's never."""
    def hit(r: Mapping) -> bool:
        return 0 < first_round <= r["round"] and (last_round is None or r["round"] <= last_round)
    return [{**r, "superseded": why} if hit(r) and not r.get("superseded") else dict(r) for r in rows]


def parts(text: str | None) -> list[str | None]:
    """A text in the parts the cells of a commitments tab hold it in: whole when it fits one, else
    cut where no part begins or ends with a space (a text cell is read trimmed).

    >>> parts("ab cd"), [len(p) for p in parts("x" * 70_000)]
    (['ab cd'], [30000, 30000, 10000])
    >>> [(len(p), p[0], p[-1]) for p in parts("x" * 29_999 + " " + "y" * 5)]
    [(29998, 'x', 'x'), (7, 'x', 'y')]
    """
    if text is None or len(text) <= CELL_PART:
        return [text]
    out, start = [], 0
    while len(text) - start > CELL_PART:
        end = start + CELL_PART
        while text[end - 1] == " " or text[end] == " ":
            end -= 1
        out.append(text[start:end])
        start = end
    return [*out, text[start:]]


def host_frame(rows: Sequence[Mapping]) -> pd.DataFrame:
    """The host book's commitments, each text too long for a cell in parts on rows of its own that
    repeat what names the commitment (a redo marking it superseded changes its first row alone),
    so the host book keeps every text committed whole. The `part` column comes with the first text
    in parts (a tab without it is then written whole)."""
    out = []
    for r in rows:
        first, *rest = parts(r.get("text"))
        out.append({**r, "text": first, "part": 1 if rest else None})
        out += [{**{k: r.get(k) for k in _NAMING}, "text": piece, "part": n} for n, piece in enumerate(rest, start=2)]
    parted = any(r["part"] for r in out)
    return frame(out, [c for c in COMMITMENTS.header if parted or c != "part"])


def round_label(game: Game, round_number: int) -> str:
    return "before round 1" if round_number == 0 else game.round_name(round_number)


# The public tab's first rows, a line each (its texts are not wrapped: a root's runs to thousands).
PUBLIC_HOW = ("Each commitment is a fingerprint (SHA-256) of something kept secret until the game's end:",
              "the seed of the dice, a player's submission, the host's inputs.",
              "A round root's text, here, holds every commitment of its round and the root or undo before it.",
              "Its fingerprint is the round root: one root you keep (each announcement has it) fixes the game before it.",
              "Check one: printf '%s' 'THE TEXT' | sha256sum gives the commitment beside it.",
              "After the game, sheets-host verify RECORD --root ROOT says whether the host's record is this history.")


def public_frame(game: Game, rows: Sequence[Mapping]) -> pd.DataFrame:
    """The public book's commitments tab: every commitment ever published, none taken away, each
    root's and undo's text (public: commitments, the link before it, what it supersedes, the
    host's reason), under first rows saying what they are and how to check one."""
    return frame([*({"round": PUBLIC_FIRST, TEXT: line} for line in PUBLIC_HOW),
                  *({"round": round_label(game, r["round"]), "what": WHAT[r["kind"]], "player": r.get("player"),
                     "commitment": r["commitment"], "made at": r["made at"], "superseded": r.get("superseded"),
                     TEXT: r.get("text") if r["kind"] in ("round", "undo") else None} for r in rows)],
                 # The text before `made at`, which stops a link's text running on (the rows above it
                 # run on over blank cells: a line each, whole).
                 ["round", "what", "player", "commitment", TEXT, "made at", "superseded"])


HOW_TO_CHECK = ("Copy a row's committed text, exactly and with no line break after it, into a SHA-256 tool: "
                "it gives the commitment beside it, the one the public book's commitments tab shows. "
                "In a terminal: printf '%s' 'THE TEXT' | sha256sum (on a Mac: shasum -a 256), never echo, "
                "which adds a line break and gives another commitment. "
                "The text holds exactly the rows that counted for you and your salt.")


def private_frame(game: Game, rows: Sequence[Mapping], player: str) -> pd.DataFrame:
    """A player's own commitments: the round, the commitment, the salt and the text committed (a
    text too long for a cell in parts, a row each), under a first row saying how to check one."""
    mine = []
    for r in rows:
        if r["kind"] != "submission" or r.get("player") != player:
            continue
        first, *rest = parts(r.get("text"))
        joined = (f"{TOO_LONG}: the committed text is this row's and the {len(rest)} below, "
                  "joined in order with nothing between") if rest else None
        mine.append({"round": round_label(game, r["round"]), "commitment": r["commitment"], "salt": r["salt"],
                     "made at": r["made at"], "note": "; ".join(n for n in (r.get("superseded"), joined) if n) or None,
                     TEXT: first})
        mine += [{"note": PART_NOTE.format(n, len(rest) + 1), TEXT: piece} for n, piece in enumerate(rest, start=2)]
    return frame([{"round": PRIVATE_FIRST, "note": HOW_TO_CHECK}, *mine],
                 ["round", "commitment", "salt", "made at", "note", TEXT])


def announcement_lines(rows: Sequence[Mapping], round_number: int) -> str:
    """What a round's announcement says of its commitments, in plain words: its root, what it
    fixes and how to keep it; the roots it supersedes (a redo, an undo) and the host's reason;
    round 1's, the seed's."""
    roots = current(rows, round_number, "round")
    if not roots:
        return ""
    root = roots[-1]
    lines = ["### Commitments", "", f"Round root: `{root['commitment']}`"]
    fields = fields_of(root.get("text"))
    redone = list(fields.get("supersedes") or ())
    for old, why in replaced(rows, root).items():
        # A redo's reason is this root's, said below once.
        lines.append(f"It replaces the root `{old}` published before ({why.split(': ')[0] if old in redone else why}).")
    if fields.get("edits"):
        since = "the game was set up" if round_number == 1 else "the round before"
        lines.append(f"The host changed the state since {since}: tab(s) "
                     f"{', '.join(repr(t) for t in fields['edits'])}.")
    if fields.get("reason") or fields.get("edits") or redone:
        lines.append(f"The host's reason: {fields.get('reason') or 'none given'}")
    seed = [r for r in rows if r["kind"] == "seed"]
    if round_number == 1 and seed:
        lines.append(f"Seed commitment, published when the game was made: `{seed[0]['commitment']}`")
    lines.append("The root is a fingerprint of every player's submission this round, the host's inputs and the "
                 "root before it: keep this message. After the game, `sheets-host verify RECORD --root ROOT` "
                 "shows whether the host's record is the game published here; a root the record lacks means "
                 "the history was rewritten.")
    return "\n".join(lines)


def replaced(rows: Sequence[Mapping], root: Mapping) -> dict[str, str]:
    """The roots a round's `root` replaces (a redo's, or an undo's before it resolved the round
    again: the undo withdrew them), each with why it no longer counts."""
    fields = fields_of(root.get("text"))
    earlier = {r["commitment"]: r for r in links(rows)}
    old = list(fields.get("supersedes") or ())
    before = earlier.get(fields.get("previous"))
    if before is not None and before["kind"] == "undo":
        old += fields_of(before.get("text")).get("supersedes") or []
    return {r: earlier.get(r, {}).get("superseded") or "superseded" for r in old}


def counted(text: str | None) -> list[dict]:
    """The rows a submission's canonical text commits to (`commitment.counted_rows`'s form)."""
    rows = fields_of(text).get("rows")
    return rows if isinstance(rows, list) else []


def fields_of(text: str | None) -> dict:
    """The JSON of a link's canonical text (none for a text of encoding 1 or none at all)."""
    try:
        value = json.loads((text or "").split(" ", 2)[2])
    except (IndexError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def announced(game: Game, rows: Sequence[Mapping], round_number: int, before: Any, after: Any) -> str:
    """A round's announcement: the game's, then its commitments."""
    text = game.announcement(before, after)
    lines = announcement_lines(rows, round_number)
    return f"{text.rstrip()}\n\n{lines}\n" if lines else text


def layout(tab: pd.DataFrame) -> TabLayout:
    """A commitments tab: a commitment and a salt whole on one line, to be read and copied; a
    player's committed text wrapped (copying a cell copies its text, not the lines it is shown
    in); the public tab's on one line, its start shown (a root of fifteen players would wrap to
    thirty lines; copying the cell copies it whole)."""
    public = "what" in tab.columns
    laid = lay_out(tab, clipped=["commitment", "salt", *([TEXT] if public else [])])
    columns = tuple(replace(c, width=HASH_WIDTH) if name == "commitment" else c
                    for name, c in zip(tab.columns, laid.columns))
    heights = dict(laid.heights)
    if TEXT in tab.columns and not public:
        # JSON has few spaces: a program breaks its lines where it can, so they run shorter than
        # the column (LibreOffice's come to about four fifths of it).
        width = columns[list(tab.columns).index(TEXT)].width * 0.8
        for r, text in enumerate(tab[TEXT], start=1):
            needed = row_height([(text, width)])
            if needed and needed > heights.get(r, 0):
                heights[r] = needed
    return replace(laid, columns=columns, heights=heights)
