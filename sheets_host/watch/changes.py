"""A `watch` check that costs what changed: one question (`Backend.changed`: on Google Sheets
Drive's change log, offline the files' times) says which books changed since watch last read
them; only those are read, and only the players whose submit tabs hold something else than their
status tab last said are checked (their books read again, the game held, their status written).

While nobody types, a pass costs that one question: the host book as last read whole is kept
while it has not changed, and no book is read. A book this tool wrote (a status tab, a lease, a
delivery) is in the next answer too: its submit tabs are read once more (one read, no write), and
found the same. The answer's mark is taken before the books are read, so an edit made while they
are read is in the next answer: a player's edit is seen by the next check, never lost.

When the host book's commit, open round or deadline is not what watch last knew (a command run by
hand, the host's edit, `extend`), every player is checked again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from sheets_host.backends import ENGINE_TAB, Backend
from sheets_host.engine.commands import CheckReport
from sheets_host.engine.deadlines import marked_final
from sheets_host.engine.delivery import check_owner, delivered, fresh_submits
from sheets_host.engine.host import Session
from sheets_host.engine.reading import Reading, read_player, rows_digest, typed_rows
from sheets_host.kit.errors import BookError
from sheets_host.kit.game import Window


def submit_tabs(session: Session, players: list[str] | None = None) -> dict[str, dict[str, pd.DataFrame]]:
    """Each player's submit tabs and engine tab, one read a book (formulas as typed)."""
    game, state = session.game, session.state
    out = {}
    for p in session.players if players is None else players:
        book = session.backend.book(f"player:{p}")
        out[p] = book.read([*(t.name for t in game.submit_tabs(state, p)), ENGINE_TAB], formulas=True)
        check_owner(session, f"player:{p}", book, out[p])
    return out


def _key(session: Session) -> tuple[Any, ...]:
    """What, changed, makes every status tab out of date: the commit, the open round, its deadline."""
    record = session.open_round or {}
    return session.commit.version, record.get("round"), record.get("status"), str(record.get("deadline"))


class Changes:
    """What watch knows of the books: which it has read since they last changed (`fresh`), and
    what each player's status tab was written from (`told`: a digest of their typed rows)."""

    def __init__(self, backend: Backend, say: Callable[[str], None]):
        self.backend, self.say = backend, say
        self.mark: object = None  # the last answer's, for the next question
        self.fresh: set[str] = set()  # roles whose book is as watch last read it
        self.host: Session | None = None  # the host book as last read whole
        self.key: tuple[Any, ...] | None = None
        self.told: dict[str, str] = {}
        self.refused = False  # whether the last question was refused (said once, until one is answered)
        self.pending: set[str] = set()  # players found changed and not checked yet
        self.states: dict[str, str] = {}  # each player's submission as the last check of them found it
        self.final: dict[str, bool] = {}  # whether each player marked it final, as last read (`marked_final`)

    def session(self, read: Callable[[], Session]) -> Session:
        """The host book: as last read if it has not changed since, else `read` again. Asks which
        books changed first (one request), so the answers of later passes cover every read after."""
        players = self.host.players if self.host is not None else []
        roles = {"host", *(f"player:{p}" for p in players)}
        try:
            changed, self.mark = self.backend.changed(roles, self.mark)
        except BookError as e:  # the Drive API off in the host's project, say: every book is read, as before
            if not self.refused:
                self.say(f"{e}: every check reads every book until it answers")
            changed, self.mark, self.refused = roles | self.fresh, None, True
        else:
            self.refused = False
        self.fresh -= changed
        if self.host is not None and "host" in self.fresh:
            return self.host
        self.host = read()
        self.fresh.add("host")
        if _key(self.host) != self.key:
            self.key, self.told, self.pending = _key(self.host), {}, set()
        return self.host

    def due(self, session: Session) -> list[str] | None:
        """The players to check now: those whose submit tabs changed since their status tab was
        written (their books read once, here); None for every player (a full check: nothing known
        yet, or a delivery a kill cut short, which the check finishes)."""
        if not self.told:
            return None
        stale = [p for p in session.players if f"player:{p}" not in self.fresh]
        if stale:
            read = submit_tabs(session, stale)
            self.fresh |= {f"player:{p}" for p in stale}
            if any(delivered(tabs.get(ENGINE_TAB)) < session.commit.version for tabs in read.values()):
                self.told = {}
                return None
            game, state = session.game, session.state
            self.pending |= {p for p in stale if rows_digest(typed_rows(game, state, p, read[p])) != self.told.get(p)}
            self.final |= {p: marked_final(game, state, p, read[p]) for p in stale}
        return [p for p in session.players if p in self.pending]

    def checked(self, report: CheckReport) -> None:
        """A check told these players what their rows (as it read them) count for."""
        self._note(report.readings)

    def _note(self, readings: Mapping[str, Reading]) -> None:
        self.told |= {p: rows_digest(r.rows + r.aside) for p, r in readings.items()}
        self.states |= {p: r.state for p, r in readings.items()}
        self.pending -= set(readings)

    def opened(self, session: Session) -> None:
        """A round was resolved and delivered (`session` read after): each status tab says what the
        fresh submit tabs count for, so none is checked again until its player types."""
        game, state = session.game, session.state
        readings = {p: read_player(game, state, p, fresh_submits(game, state, p), Window(None, None))
                    for p in session.players}
        self.key, self.pending, self.told, self.states, self.final = _key(session), set(), {}, {}, {}
        self._note(readings)

    def counts(self) -> Counter[str]:
        """How many players' submissions are in each state, as the checks last found them."""
        return Counter(self.states.values())
