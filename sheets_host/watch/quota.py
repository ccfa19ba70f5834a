"""`watch`'s share of Google's read quota: at most `READS` read requests in any 60 s (the quota is
60 reads a minute per user: two games watched from one account fit), planned (`plan`: how often
to check and poll) and enforced (`Reads`: every request counted, and a pass waits for room).

In a timed round the polls at the moments that decide what counts (`Game.boundaries`) come
first: every other read leaves room for them, so that none of them waits and a row typed before
one is always stamped no later than it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sheets_host.backends import Backend

# Read requests one watched game may send in any 60 s: a hard cap, so that two games watched from
# one account stay within Google's 60 reads a minute per user.
READS = 30
MINUTE = timedelta(minutes=1)
CHECK_MINUTES = 5.0
FASTEST_POLL = timedelta(seconds=3)


@dataclass(frozen=True)
class Plan:
    """How often watch checks and, in a timed round, reads the submit tabs; its reads a minute."""

    check_every: timedelta
    poll_every: timedelta
    reads: float


def plan(books: int, polled: int, check_minutes: float | None, quota: bool = True) -> Plan:
    """A plan within `READS` reads a minute: in a timed round a check reads every book (the
    host's, at most) and takes at most half of them (elsewhere it reads those that changed, and
    `Reads` holds the minute when many did); a poll reads the `polled` players' books and the host book's
    small tabs, leaving room for what a part adds: its close (a resolve reads every book but the
    host's), the host book read whole after it, a stamp per player, and the poll at its window's
    end. (In reserve time a poll comes at each period's end, two a minute at most, and no close
    until the part settles: the part's share covers them.) Without a `quota` (xlsx) a poll comes
    every `FASTEST_POLL`.

    >>> plan(17, 0, None)  # 15 players
    Plan(check_every=datetime.timedelta(seconds=300), poll_every=datetime.timedelta(seconds=3), reads=3.4)
    >>> plan(17, 0, 0.5).check_every  # a check reads only the books that changed
    datetime.timedelta(seconds=30)
    >>> plan(4, 2, 0.1).check_every  # in a timed round every book: at most half the minute's reads
    datetime.timedelta(seconds=16)
    >>> round(plan(4, 2, None).poll_every.total_seconds(), 1)  # Spirit Chain's two duellists
    8.9
    """
    minutes = check_minutes or CHECK_MINUTES
    if polled:  # a timed round's checks read every book; elsewhere only those that changed (`watch.changes`)
        minutes = max(minutes, books / (READS / 2))
    check_rate = books / minutes
    poll = FASTEST_POLL
    if polled and quota:
        part = books + polled + (polled + 1)  # close, host book whole, a stamp each, the window's end
        poll = max(poll, MINUTE * (polled + 1) / (READS - check_rate - part))
    rate = check_rate + (polled + 1) / (poll / MINUTE) if polled else check_rate
    return Plan(timedelta(minutes=minutes), poll, round(rate, 1))


class Reads:
    """The read requests of the last minute, each at the moment the pass that sent it ended (no
    earlier than it was sent, so the cap holds). Counted by the backend; one that counts none
    (xlsx) has no quota."""

    def __init__(self, backend: Backend):
        self.backend = backend
        self.counted: int | None = getattr(backend, "reads", None)
        self.at: list[datetime] = []

    def note(self, now: datetime) -> None:
        if self.counted is None:
            return
        made, self.counted = self.backend.reads - self.counted, self.backend.reads  # type: ignore[attr-defined]
        self.at += [now] * made

    def room(self, reads: int, now: datetime, reserved: Sequence[datetime] = (), each: int = 0) -> datetime:
        """The first moment from `now` when `reads` more keep every 60 s within `READS`, with
        `each` reads set aside at each `reserved` moment after it (the polls at the boundaries:
        one at that very moment is the pass asking, and uses what was set aside for it).

        >>> class B: reads = 0
        >>> r, t = Reads(B()), datetime(2026, 1, 1)
        >>> B.reads = 28; r.note(t); B.reads = 29; r.note(t + timedelta(seconds=10))
        >>> r.room(1, t + timedelta(seconds=20)), r.room(2, t + timedelta(seconds=20))
        (datetime.datetime(2026, 1, 1, 0, 0, 20), datetime.datetime(2026, 1, 1, 0, 1))
        >>> B.reads = 0; r = Reads(B()); B.reads = 22; r.note(t)
        >>> boundary = t + timedelta(seconds=30)  # a poll of 5 then: 5 now would leave it no room
        >>> r.room(5, t, [boundary], 5), r.room(5, boundary, [boundary], 5), r.room(5, t, [boundary], 2)
        (datetime.datetime(2026, 1, 1, 0, 1), datetime.datetime(2026, 1, 1, 0, 0, 30), datetime.datetime(2026, 1, 1, 0, 0))
        """
        if self.counted is None:
            return now
        self.at = [t for t in self.at if t > now - MINUTE]
        start = now
        for start in [now, *(t + MINUTE for t in self.at)]:  # now, and each moment a read leaves the minute
            later = [b for b in reserved if b > start]
            # The most in a minute is in one that ends at a request: at `start` or at a reserved poll.
            ends = [start, *(b for b in later if b < start + MINUTE)]
            if all(sum(end - MINUTE < t <= end for t in self.at) + reads
                   + each * sum(end - MINUTE < b <= end for b in later) <= READS for end in ends):
                return start
        return start
