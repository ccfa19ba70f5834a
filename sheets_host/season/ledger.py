"""The season's ledger: every change to what a player holds or is, one row, never edited in place.

As in beancount, a balance is a sum of rows and a correction is a row of its own that names the
row it corrects and why. Rows come from three places: the season's making (starting garnets),
a game's result settled into the ledger (`settled`), and the host (`given`, `corrected`).

Settling is a comparison, so that it happens exactly once however often it is run: the rows a
game's result gave that still stand are compared with the changes of its result now; what is new
is added, what is gone is withdrawn by a correction (a redo changed the result, or an undo took
the game's end away). Run twice, the second run finds nothing to write.

>>> from sheets_host.kit.result import TOKEN
>>> won = Change("Ann", TOKEN, 2, "the sole winner earns two Tokens of Life")
>>> rows = settled((), "1", (won,), "2026-11-29 18:00", "endgame")
>>> [(r.number, r.player, r.what, r.amount) for r in rows]
[(1, 'Ann', 'Token of Life', 2)]
>>> settled(rows, "1", (won,), "2026-11-29 18:05", "endgame")
()
>>> again = settled(rows, "1", (), "2026-11-29 18:10", "round 6 undone")
>>> [(r.number, r.amount, r.corrects) for r in again], balance(rows + again, "Ann", TOKEN)
([(2, -2, 1)], 0)
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sheets_host.kit.result import Change

# Who wrote a row: a game's result (`settle`), the season's making, or the host's hand.
BY_RESULT, BY_SEASON, BY_HOST = "result", "season", "host"
BY = (BY_RESULT, BY_SEASON, BY_HOST)


@dataclass(frozen=True)
class Entry:
    """One row of the ledger. `game` is the game's number in the season ("" for none); `at` where in
    it ("endgame", "round 6 redone"); `corrects` the number of the row this one corrects."""

    number: int
    when: str
    game: str
    at: str
    player: str
    what: str
    amount: int
    why: str
    by: str = BY_RESULT
    corrects: int | None = None

    @property
    def change(self) -> tuple[str, str, int, str]:
        return self.player, self.what, self.amount, self.why


def seals(entries: Sequence[Entry]) -> list[str]:
    """Each row's seal: a digest of the row and the seal before it, so that a row edited in place
    (rows are never edited) is found, and where.

    >>> a, b = seals([Entry(1, "now", "", "season new", "Ann", "garnet", 1, "start"),
    ...               Entry(2, "now", "1", "endgame", "Ann", "garnet", 2, "won")])
    >>> len(a), a != b, seals([Entry(1, "now", "", "season new", "Ann", "garnet", 1, "start")]) == [a]
    (16, True, True)
    """
    out, seal = [], ""
    for e in entries:
        text = json.dumps([seal, e.number, e.when, e.game, e.at, e.player, e.what, e.amount, e.why, e.by, e.corrects],
                          ensure_ascii=False)
        seal = hashlib.sha256(text.encode()).hexdigest()[:16]
        out.append(seal)
    return out


def balance(entries: Iterable[Entry], player: str, what: str) -> int:
    """What `player` holds of `what`: the sum of its rows."""
    return sum(e.amount for e in entries if e.player == player and e.what == what)


def balances(entries: Iterable[Entry], what: str) -> dict[str, int]:
    """Player -> their balance of `what`, for every player with a row of it."""
    out: dict[str, int] = {}
    for e in entries:
        if e.what == what:
            out[e.player] = out.get(e.player, 0) + e.amount
    return out


def net(entries: Sequence[Entry], number: int) -> int:
    """Row `number`'s amount with every correction of it added: what it counts for now."""
    return sum(e.amount for e in entries if e.number == number or e.corrects == number)


def standing(entries: Sequence[Entry], game: str) -> list[Entry]:
    """The rows game `game`'s result gave that still count (not withdrawn to nothing)."""
    return [e for e in entries if e.game == game and e.by == BY_RESULT and e.corrects is None
            and net(entries, e.number) != 0]


def settled(entries: Sequence[Entry], game: str, changes: Iterable[Change], when: str, at: str) -> tuple[Entry, ...]:
    """The rows that make the ledger hold game `game`'s `changes` once (none: already so). A row of
    the game that the changes no longer hold is withdrawn: a correction of what it counts for now,
    its host corrections included."""
    wanted = Counter((c.player, c.what, c.amount, c.why) for c in changes)
    out: list[Entry] = []
    number = max((e.number for e in entries), default=0)
    for row in standing(entries, game):
        if wanted[row.change] > 0:
            wanted[row.change] -= 1
            continue
        number += 1
        out.append(Entry(number, when, game, at, row.player, row.what, -net(entries, row.number),
                         f"withdrawn: the game's result no longer gives it ({at})", BY_RESULT, row.number))
    for (player, what, amount, why), count in wanted.items():
        for _ in range(count):
            number += 1
            out.append(Entry(number, when, game, at, player, what, amount, why))
    return tuple(out)
