"""The largest rows a player can type, and the commands run on them (issue 34), for
`test_largest_rows.py` and `test_largest_rows_festival.py`.

A cell at the limit holds 32,767 UTF-16 units, what a cell holds in Excel and LibreOffice (Google
holds 50,000: `test_largest_rows_festival.py` types those too). A row of them goes into each submit tab (a
grid's first row, its label kept), or as many rows as a tab shades for typing; each round then
runs commands, and what each typist's book shows and what the archive holds are checked."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from sheets_host.engine import commands as engine
from sheets_host.engine import commitments
from sheets_host.backends.xlsx.backend import XlsxBook
from sheets_host.engine.delivery import HISTORY, TYPED
from sheets_host.engine.reading import clean, within_limit
from sheets_host.engine.record import write_record
from sheets_host.engine.verify import Published, announcement_files, load_record, verify
from sheets_host.kit import cells
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.commitment import digest

from tests.conftest import fixed_clock

CUT = "characters cut)"
OVER = "submission is read up to"  # a cell of it, or the whole
# Players a game is made with: the Academy's three events all start by its round 3 with ten.
PLAYERS = {"wind-guide-me": 7, "magicians-market": 4, "pyramid-superiority": 9, "spirit-chain": 2,
           "academy-of-witchcraft-arts": 10}
# Every command that acts on a round, in an order that runs each on the largest rows: the rows
# read, locked, resolved, resolved again from the archive, given back to their tabs, resolved.
EVERY = ("check", "lock", "resolve", "redo", "undo", "resolve")


def largest(tab, row: int, column: str, limit: int = cells.CELL_LIMIT) -> str:
    """A cell at `limit` (in the UTF-16 units programs count): where it is first, then an emoji,
    then text outside ASCII (six characters each in a commitment's canonical text, so what is read
    of a submission is committed in parts)."""
    head = f"{tab.name} row {row} {column}: Zoë 😀 "
    return head + "ë" * (limit - cells.units(head))


def typed_tabs(tabs, rows: int, limit: int = cells.CELL_LIMIT) -> dict[str, pd.DataFrame]:
    """Submit tabs typed with `rows` rows (a grid's first, their labels kept), every cell at `limit`."""
    out = {}
    for tab in tabs:
        if tab.labels:
            body = [[label] + [largest(tab, 2 + i, c, limit) for c in tab.header[1:]]
                    for i, label in enumerate(tab.labels[:rows])]
        else:
            body = [[largest(tab, r, c, limit) for c in tab.header] for r in range(2, 2 + rows)]
        out[tab.name] = pd.DataFrame(body, columns=tab.header, dtype=object)
    return out


def typists(game, state, done: set[str]) -> dict[str, list]:
    """Each submit tab not typed into yet, by the first player who has it."""
    out: dict[str, list] = {}
    for player in game.players(state):
        for tab in game.submit_tabs(state, player):
            if tab.name not in done and all(tab.name != t.name for tabs in out.values() for t in tabs):
                out.setdefault(player, []).append(tab)
    return out


def run(backend, command: str) -> None:
    if command == "check":
        engine.check(backend, fixed_clock)
    elif command == "lock":
        engine.lock(backend, fixed_clock)
    elif command == "resolve":
        engine.resolve(backend, early=True, allow_empty=True, clock=fixed_clock)
    elif command == "redo":
        engine.resolve(backend, redo=True, clock=fixed_clock)
    else:
        engine.undo(backend, fixed_clock)


def a_round(backend, game, typed_so_far: set[str], rows: int, commands: Sequence[str],
            type_in=None, limit: int = cells.CELL_LIMIT) -> None:
    """One round: the largest rows (cells at `limit`) typed into each submit tab not typed yet (by
    `type_in(player, frames)`, else written into the player's book), then `commands`; then each
    typist's log says what was not read (and their `my submissions`, unless an undo gave the rows
    back as they were read, cut), their commitments check out, and the archive holds what was
    read: their rows, in order, as far as a submission is read."""
    session = engine.open_session(backend, fixed_clock)
    state, number = session.state, game.round(session.state)
    typed = {}
    for player, tabs in typists(game, state, typed_so_far).items():
        typed[player] = typed_tabs(tabs, rows, limit)
        (type_in or (lambda p, f: backend.book(f"player:{p}").write(f)))(player, typed[player])
        typed_so_far |= set(typed[player])
    for command in commands:
        run(backend, command)
    for player, tabs in typed.items():
        book = backend.book(f"player:{player}").read([HISTORY, commitments.PRIVATE_TAB])
        log = backend.book("host").read(["log"])["log"]
        unread = log[(log["kind"] == "not read") & (log["player"] == player) & (log["round"].map(cells.text) == str(number))]
        assert any(OVER in cells.text(m) for m in unread["message"]), (player, "the log keeps nothing not read")
        if "undo" not in commands:  # an undo gives the rows back as they were read, cut
            shown = [cells.text(v) for column in book[HISTORY] for v in book[HISTORY][column]]
            assert any(OVER in v or CUT in v for v in shown), (player, "my submissions says nothing was cut")
        archived = archived_rows(backend, game, number, player)
        key = game.tab_key
        rows = [SubmitRow(player, row, list(frame.columns), {c: clean(v, None) for c, v in values.items()}, key(name))
                for name, frame in tabs.items() for row, values in zip(range(2, 2 + len(frame)), frame.to_dict("records"))]
        (read,), _ = within_limit([rows])
        # A commitment's text too long for a cell is in parts: "ë" is six characters of it.
        commitments_check_out(book[commitments.PRIVATE_TAB],
                              sum(cells.units(v) for r in read for v in r.values.values() if isinstance(v, str)) > 6_000)
        assert {(r.tab, r.row) for r in read} == {(key(t), r) for t, r in archived}, player
        for row in read:
            stored = archived[next(t for t in tabs if key(t) == row.tab), row.row]
            for column in row.header:
                expected = row.values.get(column)
                assert (stored[column] == expected) or (expected is None and cells.is_blank(stored[column])), \
                    (player, row.tab, row.row, column, cells.text(stored[column])[-30:], cells.text(expected)[-30:])


def archived_rows(backend, game, round_number: int, player: str) -> dict[tuple[str, int], dict]:
    """The player's archived rows of the attempt the round was resolved with, by tab and row."""
    host = backend.book("host").read(["archive", "rounds"])
    archive, rounds = host["archive"], host["rounds"]
    attempt = rounds[rounds["round"] == round_number]["attempt"].iloc[0]
    mine = archive[(archive["round"] == round_number) & (archive["attempt"] == attempt) & (archive["player"] == player)]
    return {(r["tab"] if game.several_submit_tabs else game.submit_tab.name, int(r["row"])): r
            for r in mine.to_dict("records")}


def commitments_check_out(mine: pd.DataFrame, in_parts: bool) -> None:
    """Each commitment in a player's `my commitments` is the SHA-256 of its committed text, its
    parts joined where it is in parts (as the tab tells the player); `in_parts`: one is."""
    texts: list[list[str]] = []
    for row in mine.to_dict("records")[1:]:
        if cells.is_blank(row["commitment"]):
            texts[-1].append(row[commitments.TEXT])
        else:
            texts.append([row["commitment"], row[commitments.TEXT]])
    assert any(len(t) > 2 for t in texts) or not in_parts, "no committed text is in parts"
    for commitment, *pieces in texts:
        assert digest("".join(pieces)) == commitment


def verifies(backend, tmp_path: Path) -> None:
    """`status` runs, and the game's record verifies against its public book: every commitment,
    a text in parts whole again, recomputed, and the game played again from the record."""
    engine.status(backend, fixed_clock)
    write_record(backend, tmp_path / "record.json", force=True, clock=fixed_clock)
    public = XlsxBook(tmp_path / "game" / "public.xlsx", "public.xlsx").read()
    checks = verify(load_record(tmp_path / "record.json"),
                    Published(public, announcement_files(tmp_path / "game" / "announcements"), "public.xlsx"))
    assert [line for c in checks for line in c.lines() if not c.ok] == []
