"""Books read or written at once: once a command holds the game (the host book read, the lease
taken), the other books are independent of one another, so their requests may be in flight
together; `Backend.in_flight` says how many (offline 1: one file after another, as the CPU is
the limit there; on Google a setting, `backends.gsheets.client.IN_FLIGHT` by default).

What comes back does not depend on which request finished first: results are returned, and
failures reported, in the books' order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TypeVar

from sheets_host.kit.errors import BookError, SheetsHostError

T = TypeVar("T")


def each_book(in_flight: int, acts: Iterable[tuple[str, Callable[[], T]]]) -> dict[str, T]:
    """Each book's act (its read or its write), by role, at most `in_flight` at a time, each started
    as soon as `acts` yields it (so the first are in flight while the caller makes the others); the
    results by role, in the order of `acts`.

    One at a time, it is a loop: the first failure stops the rest. With more, every book is acted
    on whatever another's fate (which books fail does not depend on timing), then the failures are
    raised: one as it is; several, each naming its book, as one BookError listing them all in the
    books' order; anything not an error for the host (a bug, an interrupt) as it is, the first in
    that order.

    >>> each_book(3, [("a", lambda: 10), ("b", lambda: 20)])
    {'a': 10, 'b': 20}
    >>> def missing(role):
    ...     raise BookError(f"the {role} book is missing")
    >>> each_book(3, [("a", lambda: 10), ("b", lambda: missing("b")), ("c", lambda: missing("c"))])
    Traceback (most recent call last):
    ...
    sheets_host.kit.errors.BookError: the b book is missing
    the c book is missing
    """
    if in_flight <= 1:
        return {role: act() for role, act in acts}
    pool = ThreadPoolExecutor(in_flight, thread_name_prefix="sheets-host-book")
    try:
        futures: dict[str, Future[T]] = {role: pool.submit(act) for role, act in acts}
        wait(futures.values())
    finally:
        # Stopped before all were sent (an act not made, Ctrl-C): what has not started is not sent;
        # what is in flight ends first.
        pool.shutdown(cancel_futures=True)
    failures = [e for f in futures.values() if (e := f.exception()) is not None]
    unexpected = [e for e in failures if not isinstance(e, SheetsHostError)]
    if unexpected or len(failures) == 1:
        raise (unexpected or failures)[0]
    if failures:
        raise BookError("\n".join(str(e) for e in failures))
    return {role: f.result() for role, f in futures.items()}
