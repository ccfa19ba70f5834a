"""Bot games played in batches of seeds: in this process, on worker processes, or on a Dask
cluster, with the same games whatever the split.

A `Batch` names everything its games need by value (the game's name, the bots' names, the
strategy, the settings typed, a run of seeds), so a worker started by `spawn` or a Dask worker on
another machine imports the game by its name and plays the same games this process would; what
plays a batch (`play.play_batch`) is a module-level function for the same reason, pickled by its
name (no lambdas cross a process). The results come back in the order the batches were given,
whatever order they finished in, so what is made of them is the same whatever the split.
"""

from __future__ import annotations

import functools
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from sheets_host.kit.errors import SheetsHostError

# Games a batch holds at most: a batch a worker is playing when Ctrl-C comes is finished (seconds,
# not minutes), and the progress moves at least this often.
MOST_IN_A_BATCH = 200
# How a worker process starts. On Linux by fork: it starts in milliseconds, with the games already
# imported (spawn took 1 to 6 s here, each worker importing pandas and the games again). Elsewhere
# by spawn, as macOS and Windows do anyway. What a worker is given is spawn-safe either way (a test
# plays a run under spawn).
CONTEXT = "fork" if sys.platform == "linux" else "spawn"
INSTALL_CLUSTER = 'pip install "sheets-host[cluster]"'


@dataclass(frozen=True)
class Batch:
    """Games `first` to `last` - 1 (their seeds) of `game` by `players` bots of `strategy`, under
    the settings typed (`settings`: key, value; the template's for the others)."""

    game: str
    players: tuple[str, ...]
    strategy: str
    first: int
    last: int
    settings: tuple[tuple[str, str], ...] = ()

    @property
    def games(self) -> int:
        return self.last - self.first

    def said(self) -> str:
        typed = "".join(f", {k}={v}" for k, v in self.settings)
        return f"{self.game} ({self.strategy} bots{typed}), seeds {self.first} to {self.last - 1}"


def split(first: int, games: int, workers: int) -> list[tuple[int, int]]:
    """Seeds `first` .. `first + games - 1` as contiguous runs of nearly equal length, none longer
    than MOST_IN_A_BATCH; with several workers, four runs a worker or a multiple of it, so that
    they all finish at about the same time.

    >>> split(1, 10, 1)
    [(1, 11)]
    >>> split(1, 10, 2)
    [(1, 3), (3, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10), (10, 11)]
    >>> len(split(0, 1000, 1)), len(split(0, 1000, 2))
    (5, 8)
    """
    rounds = -(-games // (workers * MOST_IN_A_BATCH))  # runs a worker at least, for the longest limit
    parts = min(games, workers * (rounds if workers == 1 else max(4, rounds)))
    size, extra = divmod(games, max(parts, 1))
    runs, at = [], first
    for i in range(parts):
        step = size + (i < extra)
        runs.append((at, at + step))
        at += step
    return runs


def _quiet() -> None:
    # Ctrl-C reaches every process of the terminal: the parent stops the pool, its workers stay quiet.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


Progress = Callable[[int, int], None]  # games played so far, games in all
Play = Callable[[Batch], list]  # a module-level function: the games of a batch, in seed order
Run = Callable[[Play, Sequence[Batch], "Progress | None"], list[list]]


@contextmanager
def runner(workers: int = 1, cluster: str | None = None) -> Iterator[Run]:
    """A function that plays batches and returns their games in the batches' order: in this
    process (one worker, no pool), on `workers` processes, or on the Dask scheduler at `cluster`.

    A batch that fails stops the run with a message naming it; Ctrl-C cancels what is not started
    and waits for the batches being played (MOST_IN_A_BATCH games at most each)."""
    if cluster:
        with _dask(cluster) as run:
            yield run
        return
    if workers <= 1:
        def here(play: Play, batches: Sequence[Batch], progress: Progress | None = None) -> list[list]:
            return _in_order(batches, ((i, functools.partial(play, b)) for i, b in enumerate(batches)), progress)
        yield here
        return
    import concurrent.futures
    import multiprocessing

    pool = concurrent.futures.ProcessPoolExecutor(workers, multiprocessing.get_context(CONTEXT), _quiet)

    def run(play: Play, batches: Sequence[Batch], progress: Progress | None = None) -> list[list]:
        return _in_order(batches, _finished([pool.submit(play, b) for b in batches],
                                            concurrent.futures.as_completed), progress)
    try:
        yield run
    finally:  # after a failure or Ctrl-C: nothing more starts, what is being played ends
        pool.shutdown(wait=True, cancel_futures=True)


def _finished(futures: list, completed: Callable) -> Iterator[tuple[int, Callable[[], list]]]:
    """Each future's index and its result (to get) as it finishes."""
    where = {id(f): i for i, f in enumerate(futures)}
    return ((where[id(f)], f.result) for f in completed(futures))


def _in_order(batches: Sequence[Batch], results: Iterable[tuple[int, Callable[[], list]]],
              progress: Progress | None) -> list[list]:
    """The batches' games in the batches' order, from each batch's index and its games (to get) as
    they finish; a batch's failure as a message naming it."""
    out: dict[int, list] = {}
    total, done = sum(b.games for b in batches), 0
    for index, get in results:
        try:
            out[index] = get()
        except Exception as e:  # the game's failure in a worker, or a worker gone (its pool broken)
            raise SheetsHostError(f"playing {batches[index].said()} failed: {type(e).__name__}: {e}") from e
        done += batches[index].games
        if progress:
            progress(done, total)
    return [out[i] for i in range(len(batches))]


@contextmanager
def _dask(address: str) -> Iterator[Run]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SheetsHostError(f"--cluster needs Dask's distributed scheduler: {INSTALL_CLUSTER}") from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError) as e:
        raise SheetsHostError(f"no Dask scheduler answered at {address}: {e}") from None
    try:
        def run(play: Play, batches: Sequence[Batch], progress: Progress | None = None) -> list[list]:
            futures = [client.submit(play, b, pure=False) for b in batches]
            try:
                return _in_order(batches, _finished(futures, as_completed), progress)
            finally:  # after a failure or Ctrl-C nothing is left running on the cluster
                client.cancel(futures)
        yield run
    finally:
        client.close()
