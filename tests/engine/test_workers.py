"""`simulate` on worker processes: the report is the same whatever the split (only the time
differs), a worker's failure is a message naming its games, and the rule text's defaults are
counted from the resolver's own record. On a Dask cluster: test_cluster.py."""

import pytest
from hypothesis import given, settings, strategies as st

from sheets_host.engine import play, workers
from sheets_host.engine.workers import MOST_IN_A_BATCH, Batch, runner, split
from sheets_host.games import get_game
from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.game import rng_for

TIMING = ("seconds", "games_per_second", "games_per_minute")


def untimed(reports) -> list[dict]:
    return [{k: v for k, v in r.as_dict().items() if k not in TIMING} for r in reports]


def test_the_report_is_the_same_on_one_two_or_three_workers():
    one = untimed(play.simulations("wind-guide-me", 7, 3, workers=1))
    assert untimed(play.simulations("wind-guide-me", 7, 3, workers=2)) == one
    assert untimed(play.simulations("wind-guide-me", 7, 3, workers=3)) == one
    assert one[0]["games"] == 7 and sum(one[0]["wins_by_seat"].values()) >= 7


def test_one_worker_starts_no_pool(monkeypatch):
    import concurrent.futures

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", None)  # a pool started would fail
    assert play.simulations("spirit-chain", 2, 1, workers=1)[0].games == 2


@pytest.mark.slow(6)
def test_workers_started_by_spawn_play_the_same_games(monkeypatch):
    """What a worker is given crosses a process by name (macOS and Windows start workers so)."""
    monkeypatch.setattr(workers, "CONTEXT", "spawn")
    assert untimed(play.simulations("spirit-chain", 3, 1, workers=2)) == untimed(play.simulations("spirit-chain", 3, 1))


@settings(max_examples=60, deadline=None)
@given(st.integers(-5, 50), st.integers(0, 2 * MOST_IN_A_BATCH + 7), st.integers(1, 8))
def test_any_split_covers_every_seed_once_in_order(first, games, count):
    runs = split(first, games, count)
    assert [s for a, b in runs for s in range(a, b)] == list(range(first, first + games))
    assert all(0 < b - a <= MOST_IN_A_BATCH for a, b in runs)
    assert len(runs) >= min(games, count)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=6), st.randoms())
def test_batches_finishing_in_any_order_merge_in_seed_order(sizes, rng):
    bounds = [sum(sizes[:i]) for i in range(len(sizes) + 1)]
    batches = [Batch("wind-guide-me", ("Ada",), "random", a, b) for a, b in zip(bounds, bounds[1:])]
    order = list(range(len(batches)))
    rng.shuffle(order)
    finished = [(i, lambda i=i: list(range(batches[i].first, batches[i].last))) for i in order]
    seen = []
    merged = workers._in_order(batches, finished, lambda done, total: seen.append((done, total)))
    assert [s for games in merged for s in games] == list(range(bounds[-1]))
    assert seen[-1] == (bounds[-1], bounds[-1]) and [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.parametrize("count", [1, 2])
def test_a_workers_failure_is_a_message_naming_its_games(count):
    names = tuple(play.bot_names(2))
    good = Batch("spirit-chain", names, "random", 1, 2)
    bad = Batch("spirit-chain", names, "cautious", 2, 4)  # no such bots: the worker's KeyError
    with runner(count) as run, pytest.raises(SheetsHostError) as e:
        run(play.play_batch, [good, bad])
    assert str(e.value).startswith("playing spirit-chain (cautious bots), seeds 2 to 3 failed: KeyError")


def test_without_dask_cluster_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "distributed", None)  # as if not installed
    with pytest.raises(SheetsHostError, match=r'pip install "sheets-host\[cluster\]"'):
        play.simulations("wind-guide-me", 2, 1, cluster="tcp://127.0.0.1:8786")


def test_the_default_position_is_counted_as_the_resolver_told_it():
    """A summary's count of a default agrees with the resolver's record of each round (its fates)."""
    game = get_game("pyramid-superiority")
    names, settings_ = play.bot_names(9), play.default_settings(game)
    told = 0
    state = game.setup(names, 4, settings_["config"], settings_["data"])
    while not game.is_over(state):
        r = game.round(state)
        subs = {p: game.bot(state, p, rng_for(4, r, f"bot/{p}")) for p in game.players(state)}
        outcome = game.resolve(state, subs, rng_for(4, r, "resolve"))
        told += sum("the default position" in f.what + f.refused for fates in outcome.fates.values() for f in fates)
        state = outcome.state
    assert play.play_in_memory(game, names, 4, settings_["config"], settings_["data"]) == state
    assert game.summary(state)["default: the default position"] == told > 0
