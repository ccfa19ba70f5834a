"""Deadlines a host moves (`sheets-host extend`), and rounds that close early.

`extend` moves the open round's deadline in the host book's `rounds` tab, where `watch` and every
status tab read it, records the move in the host log (kind `extend`, which `watch` reads to plan
the round's reminders afresh: `moved_at`), and has every player's status tab and the public
book's say the new deadline at once. Refused for a locked round (its submissions were copied at
the lock: a later deadline would change nothing) and once the game is over.

Each later deadline is set as its round opens: the deadline before it plus the config's `round
hours` (`resolve`). `extend` moves the open round's alone, the later ones staying where the
schedule put them (the rounds tab's `scheduled` keeps the deadline the schedule gave, which the
next deadline follows); with `--all` every later one moves with it, each round keeping its
length. Without `round hours` there are no later deadlines: the host sets each as its round
opens. The config's `first deadline` is read only by `new`, and stays as the game began.

**Early close** (the config's `early close`, off unless yes): a player marks their submission
final in a column of their own, headed `final`, in a submit tab, right of the game's columns, with
`yes` under it (`marked_final`). Every game's parser reads only its own columns, so no game is
touched, and the archive keeps what counted. Once every player with something due has a
submission that counts without a problem and has marked it final, `watch` locks and resolves
(`closes_early`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pandas as pd

from sheets_host.backends import Backend
from sheets_host.kit import cells
from sheets_host.kit.errors import BookError, RoundError, SchemaErrors, SheetsHostError
from sheets_host.kit.game import Game
from sheets_host.kit.table import Column
from .commands import check
from .commit import commit
from .host import Clock, Session, now_utc, open_session, parse_time, stamp
from .reading import HEADER_SEARCH
from .status_tab import from_now, status_frame, status_layout


@dataclass(frozen=True)
class Extension:
    """A deadline moved: the round's number and name, its deadline before and after."""

    round: int
    name: str
    before: datetime | None
    after: datetime

    def said(self, now: datetime) -> str:
        """The public post: the round, the new deadline in UTC and from now, and by how much.

        >>> from datetime import timezone
        >>> at = datetime(2026, 11, 24, 18, tzinfo=timezone.utc)
        >>> Extension(2, "day 2", at, at + timedelta(hours=24)).said(at - timedelta(hours=3))
        '\u23f0 **Day 2**: the deadline is moved to 2026-11-25 18:00:00 UTC (in 1 day 3 hours), 24 hours later.'
        """
        moved = ""
        if self.before is not None:
            hours = (self.after - self.before) / timedelta(hours=1)
            moved = f", {abs(hours):g} hour{'' if abs(hours) == 1 else 's'} {'later' if hours > 0 else 'earlier'}"
        return (f"\u23f0 **{self.name[:1].upper()}{self.name[1:]}**: the deadline is moved to {stamp(self.after)} "
                f"({from_now(self.after, now)}){moved}.")


def new_deadline(before: datetime | None, hours: float | None, to: str | None) -> datetime:
    """The deadline asked for: `hours` after the one there is, or `to` (UTC, as a host types it)."""
    if (hours is None) == (to is None):
        raise RoundError("say the new deadline: --hours N (from the one there is) or --to \"2026-11-24 18:00\" (UTC)")
    if to is not None:
        try:
            moment = parse_time(to, "--to:")
        except SchemaErrors as e:
            raise RoundError(f"--to {cells.quote(to)} is not {e.errors[0].expected}") from None
        if moment is None:
            raise RoundError("--to is blank: give the new deadline, e.g. --to \"2026-11-24 18:00\" (UTC)")
        return moment
    if before is None:
        raise RoundError("the round has no deadline to move by hours: give it one with --to \"2026-11-24 18:00\" (UTC)")
    return before + timedelta(hours=hours or 0)


def extend(backend: Backend, clock: Clock = now_utc, *, hours: float | None = None, to: str | None = None,
           every_later: bool = False) -> Extension:
    """Move the open round's deadline (see the module); every player's status tab then says it."""
    with backend.hold("extend"):
        session = open_session(backend, clock)
        record = session.open_round
        if record is None:
            raise RoundError("the game is over: there is no deadline to move")
        number, name = record["round"], session.game.round_name(record["round"])
        if record["status"] == "locked":
            raise RoundError(f"{name} is locked since {record['frozen at']}: its submissions were copied then, so a "
                             "later deadline would change nothing")
        before = parse_time(record.get("deadline"), "rounds:deadline")
        after = new_deadline(before, hours, to)
        if after <= clock():
            raise RoundError(f"the new deadline, {stamp(after)}, is not after now ({stamp(clock())}): to close "
                             f"{name} now, lock and resolve it")
        scheduled = bool(session.config.get("round hours"))
        if scheduled and not every_later:  # the later deadlines stay: the schedule is the one before
            record["scheduled"] = record.get("scheduled") or (stamp(before) if before else None)
        elif scheduled:
            record["scheduled"] = None
        record["deadline"] = stamp(after)
        session.note(number, record["attempt"], "extend",
                     f"deadline moved from {stamp(before) if before else 'none'} to {stamp(after)} by the host"
                     + ((", and every later one with it" if every_later else ", the later ones kept") if scheduled else ""))
        commit(session, session.state)
        _tell_public(session)
    try:
        check(backend, clock)  # every player's status tab: the new deadline, beside what counts
    except SheetsHostError as e:
        raise BookError(f"{name}'s deadline is moved to {stamp(after)} and saved in the host book, but the players' "
                        f"status tabs were not all written: {e}. Run `sheets-host check` to write them") from None
    return Extension(number, name, before, after)


def _tell_public(session: Session) -> None:
    status = status_frame(session, None)
    session.backend.book("public").write({"status": status}, layouts={"status": status_layout(status)})


FINAL = Column("final", "bool", optional=True)


def marked_final(game: Game, state: Any, player: str, tabs: Mapping[str, pd.DataFrame]) -> bool:
    """Whether the player marked their submission final: a cell `final` in one of their submit
    tabs (in the header row, or one of the rows a header is looked for in) with yes under it."""
    for tab in game.submit_tabs(state, player):
        data = tabs.get(tab.name)
        if data is None:
            continue
        rows = [list(data.columns), *(list(r) for r in data.itertuples(index=False, name=None))]
        for i, row in enumerate(rows[:HEADER_SEARCH]):
            for c in (c for c, v in enumerate(row) if cells.fold(cells.text(v)) == FINAL.name):
                if any(_yes(r[c]) for r in rows[i + 1:]):
                    return True
    return False


def _yes(raw: object) -> bool:
    try:
        return FINAL.parse(raw) is True
    except ValueError:
        return False


def closes_early(session: Session, states: Mapping[str, str], final: Mapping[str, bool]) -> bool:
    """Whether the open round closes now: `early close` is on, and every player with something due
    has a submission that counts without a problem (`states`, as `Reading.state` says) and has
    marked it final."""
    record, game = session.open_round, session.game
    if not session.config.get("early close") or record is None or record["status"] != "open":
        return False
    due = [p for p in session.players if game.submits(session.state, p)]
    return bool(due) and all(states.get(p) == "valid" and final.get(p) for p in due)


def moved_at(session: Session, round_number: int) -> datetime | None:
    """When the host last moved the round's deadline (the log's `extend` rows), if ever."""
    log = session.tabs.get("log")
    if log is None or log.empty:
        return None
    moments = []
    for r in log.to_dict("records"):
        if cells.text(r.get("kind")) == "extend" and cells.text(r.get("round")) == str(round_number):
            try:
                moments.append(parse_time(r.get("at"), "log:at"))
            except SchemaErrors:  # a host's edit of the log: that row says nothing
                pass
    return max((m for m in moments if m is not None), default=None)
