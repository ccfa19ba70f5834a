"""Seating of Wind Guide Me's 21 ritual sites: who sits at which of the 5 positions of each site.

The rule text asks for 21 ritual sites, each assigned to "a unique combination of 5 players" of
the 7 (so the 21 sites are exactly the 21 five-player subsets, and each player can access 15
sites); each site has 5 positions around a circle (position 1 at the top, then clockwise), and
"each player will be assigned to each position 3 times" (positions are the placement tiebreak).
The designer also tried, by trial and error, to spread evenly who sits next to whom.

`seat_sites` guarantees, exactly, for every rng:

* (a) the 21 sites are the 21 distinct 5-subsets of the 7 players;
* (b) every player holds every position 1..5 exactly 3 times;
* (c) every one of the 21 pairs of players sits adjacent (positions k and k+1, and 5 and 1)
  exactly 5 times over all sites: adjacency spread (max - min) 0, the best there is;
* (d) the same rng state gives the same table, and different seeds give different tables
  (7! relabelings x 10 rotations/reflections = 50,400 distinct tables; the base table has no
  symmetry of its own, so they are all different);
* (e) it is fast (a few tens of microseconds): a fixed base table is relabeled at call time.

Sites are numbered in a canonical order: by the players they seat, as indices into `players`,
in lexicographic order (the order of `itertools.combinations`). So site 1 seats the first five
players (it misses the last two), site 2 misses the 5th and 7th, ..., site 21 misses the first two.

`check_seating` validates a host-edited table and explains every problem in words.

>>> import random
>>> players = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus"]
>>> sites = seat_sites(players, random.Random(7))
>>> len(sites), sorted(sites[0]), sorted(sites[-1])
(21, ['Ann', 'Bo', 'Cy', 'Di', 'Ed'], ['Cy', 'Di', 'Ed', 'Flo', 'Gus'])
>>> check_seating(players, sites)
[]
>>> position_counts(sites)["Ann"], set(adjacency(sites).values())
([3, 3, 3, 3, 3], {5})
>>> edited = [list(site) for site in sites]
>>> edited[3][:2] = edited[3][1], edited[3][0]  # the host swaps positions 1 and 2 of site 4
>>> for problem in check_seating(players, edited):
...     print(problem)
Bo holds position 1 2 times (sites 1, 5); position 2 4 times (sites 3, 4, 6, 17); each position must be held exactly 3 times
Cy holds position 1 4 times (sites 4, 18, 19, 21); position 2 2 times (sites 11, 16); each position must be held exactly 3 times
>>> edited[4][2] = "ed"
>>> check_seating(players, edited)[0]
"site 5: 'ed' is not a player (did you mean 'Ed'?)"
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

PLAYERS = 7
SEATS = 5  # players per site = positions per site
SITES = 21  # C(7, 5)
TIMES_PER_POSITION = 3  # 15 sites per player / 5 positions
MAX_ADJACENCY_SPREAD = 2

# The base table: site i seats the players BASE_TABLE[i] (indices 0..6) at positions 1..5.
# Sorted by the sorted tuple of its members, i.e. in `itertools.combinations(range(7), 5)` order.
#
# Found offline (seeded simulated annealing, in two phases): first, each 5-subset chose one of its
# 12 undirected 5-cycles so that every pair of players is adjacent in exactly 5 cycles (pairs in
# a 5-cycle: 5 per site, 105 in all, 21 pairs -> 5 each); then each cycle chose one of its 10
# starting points/directions (this keeps adjacency) so that every player holds every position
# exactly 3 times. Result: position counts all exactly 3, adjacency spread 0 (every pair adjacent
# exactly 5 times). Its only symmetry under relabeling x rotation x reflection is the identity.
# The tests re-verify (a)-(c) on the shipped table and on relabeled copies.
BASE_TABLE: tuple[tuple[int, ...], ...] = (
    (0, 1, 2, 4, 3),
    (3, 5, 0, 1, 2),
    (2, 0, 3, 6, 1),
    (1, 5, 4, 2, 0),
    (6, 0, 2, 4, 1),
    (6, 2, 5, 0, 1),
    (1, 5, 3, 0, 4),
    (0, 1, 6, 3, 4),
    (0, 6, 1, 3, 5),
    (6, 4, 1, 5, 0),
    (3, 2, 5, 4, 0),
    (3, 4, 0, 2, 6),
    (5, 3, 0, 2, 6),
    (4, 2, 5, 0, 6),
    (4, 0, 6, 5, 3),
    (2, 3, 1, 5, 4),
    (2, 6, 4, 1, 3),
    (5, 6, 3, 1, 2),
    (4, 1, 2, 6, 5),
    (1, 3, 4, 6, 5),
    (5, 4, 6, 3, 2),
)

# The 10 uniform position permutations (rotations, optionally after a reflection that keeps
# position 1 and reverses the direction): new position k takes old position _DIHEDRAL[j][k].
# Applied to every site at once they only permute which position each count of (b) belongs to,
# and keep every pair's adjacency, so (a)-(c) survive.
_DIHEDRAL: tuple[tuple[int, ...], ...] = tuple(
    tuple((sign * k + shift) % SEATS for k in range(SEATS)) for sign in (1, -1) for shift in range(SEATS)
)


def seat_sites(players: Sequence[str], rng: random.Random) -> list[tuple[str, ...]]:
    """The 21 sites as tuples of 5 player names; tuple i is site i+1, element k is position k+1.

    The base table relabeled by a random permutation of the players and a random rotation
    (optionally with a reflection) of the positions, then put in canonical order (see above).
    Uses `rng` for one shuffle (of 7) and one choice (of 10), nothing else.

    >>> sites = seat_sites("ABCDEFG", random.Random(1))
    >>> sites == seat_sites("ABCDEFG", random.Random(1)), sites == seat_sites("ABCDEFG", random.Random(2))
    (True, False)
    """
    names = list(players)
    if len(names) != PLAYERS or len(set(names)) != PLAYERS:
        raise ValueError(f"Wind Guide Me seats exactly {PLAYERS} distinct players, got {names!r}")
    relabel = list(range(PLAYERS))
    rng.shuffle(relabel)
    order = rng.choice(_DIHEDRAL)
    seated = [tuple(relabel[site[j]] for j in order) for site in BASE_TABLE]
    seated.sort(key=sorted)
    return [tuple(names[i] for i in site) for site in seated]


def adjacency(sites: Sequence[Sequence[str]]) -> dict[frozenset[str], int]:
    """How many times each unordered pair of players sits adjacent (k and k+1, last and first).

    Every pair of distinct names seen anywhere in `sites` is a key, with 0 when never adjacent.

    >>> adjacency([("a", "b", "c")]) == {frozenset("ab"): 1, frozenset("bc"): 1, frozenset("ac"): 1}
    True
    """
    names = sorted({name for site in sites for name in site})
    counts = {frozenset(pair): 0 for pair in itertools.combinations(names, 2)}
    for site in sites:
        n = len(site)
        if n < 2:
            continue
        steps = range(n) if n > 2 else range(1)  # a 2-seat "circle" has one adjacent pair
        for k in steps:
            a, b = site[k], site[(k + 1) % n]
            if a != b:
                counts[frozenset((a, b))] += 1
    return counts


def position_counts(sites: Sequence[Sequence[str]]) -> dict[str, list[int]]:
    """For each name seen in `sites`: how many times it holds position 1, 2, ... (list index 0, 1, ...).

    The lists are as long as the longest site (5 for a proper table); names in order of first sight.

    >>> position_counts([("a", "b"), ("b", "a")])
    {'a': [1, 1], 'b': [1, 1]}
    """
    width = max((len(site) for site in sites), default=0)
    counts: dict[str, list[int]] = {}
    for site in sites:
        for k, name in enumerate(site):
            counts.setdefault(name, [0] * width)[k] += 1
    return counts


def _ordinal_positions(positions: Sequence[int]) -> str:
    return " and ".join(str(p) for p in positions) if len(positions) <= 2 else (
        ", ".join(str(p) for p in positions[:-1]) + f" and {positions[-1]}")


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _pair(pair: frozenset[str], players: Sequence[str]) -> str:
    a, b = sorted(pair, key=lambda name: players.index(name) if name in players else len(players))
    return f"{a}-{b}"


def check_seating(players: Sequence[str], sites: Sequence[Sequence[str]]) -> list[str]:
    """Every problem with a (host-edited) seating table, in words; [] when it is fine.

    Checks the table shape (21 sites of 5 seats), names (only players, no one twice in a site),
    that no two sites seat the same 5 players, then, once all of those hold, that every player
    holds every position exactly 3 times and that the adjacency spread is at most 2.

    >>> check_seating("ABCDEFG", [("A", "B", "C", "D", "E")] * 2)  # doctest: +NORMALIZE_WHITESPACE
    ['expected 21 sites, got 2', 'site 2 seats the same players as site 1',
     '(position counts and adjacency not checked until the problems above are fixed)']
    """
    players = list(players)
    problems: list[str] = []
    if len(players) != PLAYERS or len(set(players)) != len(players):
        problems.append(f"expected {PLAYERS} distinct players, got {players!r}")
    known = set(players)
    folded = {name.strip().casefold(): name for name in players}
    if len(sites) != SITES:
        problems.append(f"expected {SITES} sites, got {len(sites)}")
    seen: dict[frozenset[str], int] = {}
    for number, site in enumerate(sites, start=1):
        site = list(site)
        if len(site) != SEATS:
            problems.append(f"site {number} has {len(site)} seats, expected {SEATS}")
        for name in dict.fromkeys(site):
            if name not in known:
                hint = folded.get(name.strip().casefold()) if isinstance(name, str) else None
                problems.append(f"site {number}: {name!r} is not a player"
                                + (f" (did you mean {hint!r}?)" if hint else ""))
            held = [k + 1 for k, other in enumerate(site) if other == name]
            if len(held) > 1:
                problems.append(f"site {number}: {name!r} sits more than once "
                                f"(positions {_ordinal_positions(held)})")
        members = frozenset(site)
        if members in seen:
            problems.append(f"site {number} seats the same players as site {seen[members]}")
        else:
            seen[members] = number
    if problems:
        if sites:
            problems.append("(position counts and adjacency not checked until the problems above are fixed)")
        return problems

    for name in players:
        wrong = []
        for k in range(SEATS):
            at = [number for number, site in enumerate(sites, start=1) if site[k] == name]
            if len(at) != TIMES_PER_POSITION:
                where = f" (site{'s' if len(at) > 1 else ''} {', '.join(map(str, at))})" if at else ""
                wrong.append(f"position {k + 1} {_times(len(at))}{where}")
        if wrong:
            problems.append(f"{name} holds {'; '.join(wrong)}; each position must be held exactly "
                            f"{TIMES_PER_POSITION} times")
    adjacent = adjacency(sites)
    if adjacent:
        high, low = max(adjacent.values()), min(adjacent.values())
        if high - low > MAX_ADJACENCY_SPREAD:
            most = ", ".join(_pair(p, players) for p, c in adjacent.items() if c == high)
            least = ", ".join(_pair(p, players) for p, c in adjacent.items() if c == low)
            problems.append(f"adjacency spread {high - low} is more than {MAX_ADJACENCY_SPREAD}: "
                            f"most adjacent {most} ({_times(high)}), least adjacent {least} ({_times(low)})")
    return problems
