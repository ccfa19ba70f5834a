"""Wind Guide Me's seating: the 21 sites, balanced positions and adjacency, and the host check."""

from __future__ import annotations

import itertools
import random

import pytest

from sheets_host.games.wind_guide_me.seating import BASE_TABLE, adjacency, check_seating, position_counts, seat_sites

PLAYERS = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus"]
SUBSETS = [frozenset(c) for c in itertools.combinations(PLAYERS, 5)]


def spread(sites) -> int:
    counts = adjacency(sites).values()
    return max(counts) - min(counts)


def assert_valid(sites) -> None:
    assert len(sites) == 21
    assert all(len(site) == 5 and len(set(site)) == 5 for site in sites)
    assert sorted(map(frozenset, sites), key=sorted) == sorted(SUBSETS, key=sorted)  # (a)
    assert position_counts(sites) == {name: [3] * 5 for name in PLAYERS}  # (b)
    assert len(adjacency(sites)) == 21 and spread(sites) <= 2  # (c)


def test_base_table_is_perfect():
    sites = [tuple(PLAYERS[i] for i in site) for site in BASE_TABLE]
    assert_valid(sites)
    assert set(adjacency(sites).values()) == {5}  # spread 0
    assert [tuple(sorted(site)) for site in BASE_TABLE] == list(itertools.combinations(range(7), 5))


@pytest.mark.parametrize("seed", range(50))
def test_seat_sites_is_valid(seed):
    sites = seat_sites(PLAYERS, random.Random(seed))
    assert_valid(sites)
    assert spread(sites) == 0
    assert check_seating(PLAYERS, sites) == []


@pytest.mark.parametrize("seed", range(5))
def test_sites_in_canonical_order(seed):
    players = ["Zoe", "Yan", "Xu", "Wes", "Val", "Uma", "Ty"]  # not alphabetical on purpose
    sites = seat_sites(players, random.Random(seed))
    index = {name: i for i, name in enumerate(players)}
    assert [tuple(sorted(index[n] for n in site)) for site in sites] == list(
        itertools.combinations(range(7), 5))
    assert set(sites[0]) == set(players[:5])  # site 1 misses the last two players
    assert set(sites[-1]) == set(players[2:])  # site 21 misses the first two


def test_deterministic_for_a_seed():
    assert seat_sites(PLAYERS, random.Random(42)) == seat_sites(PLAYERS, random.Random(42))
    rng_a, rng_b = random.Random(3), random.Random(3)
    assert [seat_sites(PLAYERS, rng_a) for _ in range(3)] == [seat_sites(PLAYERS, rng_b) for _ in range(3)]


def test_varied_by_the_rng():
    tables = {tuple(seat_sites(PLAYERS, random.Random(seed))) for seed in range(30)}
    assert len(tables) >= 28  # 50,400 possible tables
    rng = random.Random(0)
    assert seat_sites(PLAYERS, rng) != seat_sites(PLAYERS, rng)


def test_seat_sites_needs_seven_distinct_players():
    with pytest.raises(ValueError):
        seat_sites(PLAYERS[:6], random.Random(0))
    with pytest.raises(ValueError):
        seat_sites(PLAYERS[:6] + ["Ann"], random.Random(0))


def test_helpers():
    sites = [("a", "b", "c", "d", "e"), ("b", "a", "c", "d", "f")]
    adj = adjacency(sites)
    assert adj[frozenset("ab")] == 2 and adj[frozenset("ae")] == 1 and adj[frozenset("af")] == 0
    assert adj[frozenset("bf")] == 1 and adj[frozenset("ef")] == 0
    assert len(adj) == 15  # every pair of the 6 names seen
    assert position_counts(sites) == {
        "a": [1, 1, 0, 0, 0], "b": [1, 1, 0, 0, 0], "c": [0, 0, 2, 0, 0],
        "d": [0, 0, 0, 2, 0], "e": [0, 0, 0, 0, 1], "f": [0, 0, 0, 0, 1]}


# --- check_seating --------------------------------------------------------------------------

@pytest.fixture
def table() -> list[list[str]]:
    return [list(site) for site in seat_sites(PLAYERS, random.Random(11))]


def only(problems: list[str], containing: str) -> str:
    hits = [p for p in problems if containing in p]
    assert len(hits) == 1, problems
    return hits[0]


def test_check_wrong_site_count(table):
    problems = check_seating(PLAYERS, table[:-1])
    assert "expected 21 sites, got 20" in problems


def test_check_wrong_seat_count(table):
    table[6] = table[6][:4]
    assert "site 7 has 4 seats, expected 5" in check_seating(PLAYERS, table)


def test_check_unknown_name_is_quoted(table):
    table[4][2] = "Zed"
    assert only(check_seating(PLAYERS, table), "Zed") == "site 5: 'Zed' is not a player"


def test_check_unknown_name_suggests_the_player(table):
    name = table[8][0]
    table[8][0] = f" {name.lower()}"
    problem = only(check_seating(PLAYERS, table), "not a player")
    assert problem.startswith("site 9: ") and f"did you mean {name!r}" in problem


def test_check_player_twice(table):
    table[2][3] = table[2][0]
    problem = only(check_seating(PLAYERS, table), "more than once")
    assert problem == f"site 3: {table[2][0]!r} sits more than once (positions 1 and 4)"


def test_check_duplicate_subset(table):
    table[20] = list(table[19])
    problems = check_seating(PLAYERS, table)
    assert "site 21 seats the same players as site 20" in problems
    assert problems[-1].startswith("(position counts and adjacency not checked")


def test_check_position_counts(table):
    first, second = table[3][0], table[3][1]
    table[3][0], table[3][1] = second, first  # now `second` holds position 1 four times
    problems = check_seating(PLAYERS, table)
    assert len(problems) == 2
    problem = only(problems, f"{second} holds")
    assert "position 1 4 times (sites " in problem and "position 2 2 times (sites " in problem
    assert "4" in problem.split("position 1 4 times (sites ")[1].split(")")[0].split(", ")
    assert "each position must be held exactly 3 times" in problem
    assert "position 3" not in problem  # only the wrong positions are named
    only(problems, f"{first} holds")


def unbalanced_adjacency() -> list[list[str]]:
    """A table with (a) and (b) intact but adjacency spread > 2: swap two players in two sites
    where they hold each other's positions (which keeps every position count) until it breaks."""
    rng = random.Random(3)
    table = [list(site) for site in seat_sites(PLAYERS, random.Random(0))]
    while spread(table) <= 2:
        a, b = rng.sample(range(21), 2)
        x, y = rng.sample(sorted(set(table[a]) & set(table[b])), 2)
        i, j = table[a].index(x), table[a].index(y)
        if table[b].index(x) == j and table[b].index(y) == i:
            table[a][i], table[a][j] = y, x
            table[b][i], table[b][j] = x, y
    return table


def test_check_adjacency_spread():
    table = unbalanced_adjacency()
    assert position_counts(table) == {name: [3] * 5 for name in PLAYERS}
    counts = adjacency(table)
    high, low = max(counts.values()), min(counts.values())
    problems = check_seating(PLAYERS, table)
    assert len(problems) == 1
    problem = problems[0]
    assert problem.startswith(f"adjacency spread {high - low} is more than 2: most adjacent ")
    assert f"({high} times)" in problem and f"({low} times)" in problem
    most = [pair for pair, c in counts.items() if c == high]
    a, b = sorted(most[0], key=PLAYERS.index)
    assert f"{a}-{b}" in problem.split("least adjacent")[0]


def test_check_accepts_any_sequences(table):
    assert check_seating(tuple(PLAYERS), [tuple(site) for site in table]) == []
