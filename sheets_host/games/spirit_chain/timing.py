"""Time controls: which of a player's submissions counts in a phase part, and the reserve it costs.

The latest valid submission made within the phase's window counts. Failing that, the earliest
valid one made in reserve time, which is spent in whole periods (30 s each by default) counted
from the end of the window; a submission later than the reserve left is too late. Failing that,
a blank submission, and the reserve is spent up to the freeze (all of it, once it ran out).

>>> opened = datetime(2026, 11, 23, 18, 0, tzinfo=timezone.utc)
>>> at = lambda s: opened + timedelta(seconds=s)
>>> clock = TimeControls(timedelta(seconds=75), timedelta(seconds=30))
>>> clock.choose([at(10), at(70), at(80)], opened, at(200), reserve=10)
Choice(index=1, periods=0, when='within the 75 s window')
>>> clock.choose([at(80), at(140)], opened, at(200), reserve=10)
Choice(index=0, periods=1, when='in reserve time, 5 s after the window, 1 period')

Every other valid submission is passed over, and why is said (the row that counts is the
reader's to name):

>>> clock.choose([at(10), at(70), at(80)], opened, at(200), reserve=10).passed
('a later valid row within the 75 s window counts instead', '', 'made after the 75 s window: a valid row within it counts instead')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

STAMP = "submitted at"  # the submit column a row's time is typed in (or `watch` stamps it)
_EPOCH = datetime.min.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class Choice:
    index: int | None  # the submission that counts, or None for the blank submission
    periods: int = 0  # reserve periods it costs
    when: str = ""
    passed: tuple[str, ...] = field(default=(), repr=False)  # each submission's why not ("" for the one)


@dataclass(frozen=True)
class TimeControls:
    """A phase part's window and the length of a reserve period; `window` None turns time
    controls off: the last valid row counts (the lowest in the tab), times are not read."""

    window: timedelta | None
    period: timedelta

    def choose(self, times: Sequence[datetime | None], opened: datetime | None, frozen: datetime | None,
               reserve: int, must_answer: bool = True) -> Choice:
        """The valid submissions' times (None: no time given, so the freeze) in row order.

        A player who need not answer (no upgrade available, no card to play) spends no reserve:
        their latest valid submission counts. Without the opening and freeze times nothing can be
        measured, and the latest valid submission counts too (rows without a time count as the latest).
        """
        measured = self.window is not None and must_answer and opened is not None and frozen is not None
        if not times and not measured:
            return Choice(None, 0, "nothing valid was submitted")
        later = ("a later valid row counts instead",) * len(times)
        if self.window is None:
            return Choice(len(times) - 1, 0, "the last valid row (time controls are off)", _but(later, len(times) - 1))
        stamped = [(t or frozen, i) for i, t in enumerate(times)]
        if not measured:
            last = max(stamped, key=lambda s: (s[0] is None, s[0] or _EPOCH, s[1]))  # no time: latest
            why = "nothing had to be answered" if not must_answer else "no window to measure"
            return Choice(last[1], 0, f"the latest valid row ({why})", _but(later, last[1]))
        deadline = opened + self.window
        seconds = f"{self.window.total_seconds():g} s"
        within = [s for s in stamped if s[0] <= deadline]
        if within:
            passed = tuple(f"a later valid row within the {seconds} window counts instead" if t <= deadline else
                           f"made after the {seconds} window: a valid row within it counts instead" for t, _ in stamped)
            return Choice(max(within)[1], 0, f"within the {seconds} window", _but(passed, max(within)[1]))
        late = sorted(s for s in stamped if s[0] > deadline)
        if late and reserve:
            t, i = late[0]
            need = self.periods(t - deadline)
            if need <= reserve:
                return Choice(i, need, f"in reserve time, {_seconds(t - deadline)} after the window, "
                                       f"{need} period{'s' if need != 1 else ''}",
                              _but(("the earliest valid row in reserve time counts instead",) * len(times), i))
        left = (f"more than your reserve time ({reserve} period{'s' if reserve != 1 else ''} of "
                f"{_seconds(self.period)})" if reserve else "with no reserve time left")
        passed = tuple(f"made {_seconds(t - deadline)} after the {seconds} window, {left}" for t, _ in stamped)
        spent = min(reserve, self.periods(frozen - deadline)) if frozen > deadline else 0
        if not reserve:
            why = "no reserve time left"
        elif late or spent == reserve:
            why = f"the reserve ran out: {spent} period{'s' if spent != 1 else ''} used"
        elif spent:
            why = f"nothing valid by the freeze: {spent} period{'s' if spent != 1 else ''} of reserve used"
        else:
            why = "nothing valid yet, and the window was still open"
        return Choice(None, spent, why, passed)

    def settled(self, times: Sequence[datetime], opened: datetime, reserve: int) -> datetime | None:
        """From when nothing a player may still type changes what counts for them, given the
        times of their valid submissions so far (None: time controls are off, nothing settles
        before the round's deadline). `watch` resolves a part once both players' have come.

        >>> opened = datetime(2026, 11, 23, 18, 0, tzinfo=timezone.utc)
        >>> clock = TimeControls(timedelta(seconds=75), timedelta(seconds=30))
        >>> [f"{t:%H:%M:%S}" for t in (clock.settled([opened + timedelta(seconds=9)], opened, 10),
        ...  clock.settled([opened + timedelta(seconds=100)], opened, 10), clock.settled([], opened, 2))]
        ['18:01:15', '18:01:40', '18:02:15']
        """
        if self.window is None:
            return None
        deadline = opened + self.window
        if any(t <= deadline for t in times):  # a later row in the window could still replace it
            return deadline
        late = [t for t in times if deadline < t <= deadline + reserve * self.period]
        return min(late) if late else deadline + reserve * self.period

    def boundaries(self, opened: datetime, reserve: int) -> list[datetime]:
        """The moments at which what a row counts for changes: the window's end (a row at it is
        within), then the end of each reserve period (a row in one costs the periods begun, and
        one after the last is too late). Between two of them a row made sooner or later counts the
        same, so `watch` stamps fairly if it reads the submit tabs at each.

        >>> opened = datetime(2026, 11, 23, 18, 0, tzinfo=timezone.utc)
        >>> [f"{t:%M:%S}" for t in TimeControls(timedelta(seconds=30), timedelta(seconds=30)).boundaries(opened, 2)]
        ['00:30', '01:00', '01:30']
        """
        if self.window is None:
            return []
        return [opened + self.window + k * self.period for k in range(reserve + 1)]

    def periods(self, overtime: timedelta) -> int:
        """Whole reserve periods begun by `overtime`.

        >>> TimeControls(None, timedelta(seconds=30)).periods(timedelta(seconds=30.5))
        2
        """
        return math.ceil(overtime / self.period)


def _but(passed: tuple[str, ...], chosen: int) -> tuple[str, ...]:
    """Why each submission is passed over, but for the `chosen` one, which counts."""
    return tuple("" if i == chosen else why for i, why in enumerate(passed))


def _seconds(delta: timedelta) -> str:
    return f"{delta.total_seconds():g} s"
