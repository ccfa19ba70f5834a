"""The pregame: every player placed in two of the festival's three events by their preference
list and the garnets they spent on it ("A maximum of 7 players may participate in each Event.
First choices will be examined first, then second choices. The number of garnets spent on your
preference list will be the tiebreak; after that, ties are broken randomly.").

The procedure, deterministic given the seeded generator:

1. A silent player (no valid list) has their two choices drawn: an ordered pair of distinct
   events, uniformly, and 0 garnets. Each is drawn from the player's own generator
   (`game.generators`), so whether another player listed never changes what is drawn for them.
2. Everyone starts sitting out the event they did not list (their unlisted event) and playing
   the two they listed.
3. First choices are examined first, then second choices: an event with more than `capacity`
   players turns players away, one at a time, until it has `capacity`. A player turned away from
   event E sits out E instead and plays their unlisted event. An event turns away those for whom
   it is the second choice before those for whom it is the first; then those who spent the fewest
   garnets; then by a seeded draw (the players shuffled once, by a generator of its own, so the
   order does not depend on who was silent). A player may only be
   turned away to an unlisted event with room (fewer than `capacity` players); a player whose
   unlisted event is full is skipped. Events are examined in festival order, repeating until no
   event is over capacity.

Why someone can always be turned away when 3·capacity ≥ 2·n: each player sits out one event, and
q = n − capacity players must sit out each event. An over-full event E has fewer than q sitting
it out, so the other two together have more than n − q ≥ 2q, so some other event F has more than
q sitting it out: F has room. Nobody was turned away from F (it was never over-full), so everyone
sitting out F has F unlisted and listed E. Turning one player away fills only an event with room,
so no event ever goes over capacity again, and each player always plays exactly two events.

>>> done = assign(("alchemy", "continuum", "summoning"), ["Ann", "Bo", "Cy"],
...               {"Ann": ("alchemy", "continuum"), "Bo": ("alchemy", "summoning"),
...                "Cy": ("continuum", "alchemy")}, {"Ann": 1}, capacity=2, rng=random.Random(1))
>>> done.events["alchemy"], done.turned_away
(('Ann', 'Bo'), (Turn(player='Cy', event='alchemy', first_choice=False, instead='summoning'),))

Alchemy is Cy's second choice, so Cy is turned away before Bo, who spent fewer garnets than Ann.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.game import generators

EVENTS_PLAYED = 2  # "Players will each participate in 2 out of 3 of these Events."


class AssignmentError(SheetsHostError):
    """The players cannot be placed: wrong number of events, too many players, a bad choice."""


@dataclass(frozen=True)
class Turn:
    """A player turned away from `event` (their first or second choice) to play `instead`."""

    player: str
    event: str
    first_choice: bool
    instead: str


@dataclass(frozen=True)
class Assignment:
    """Who plays which event (in seating order), who sits out which, and how it came about."""

    events: dict[str, tuple[str, ...]]
    sits_out: dict[str, str]
    choices: dict[str, tuple[str, str]]  # the lists used, drawn ones included
    drawn: tuple[str, ...]  # silent players, whose lists were drawn
    turned_away: tuple[Turn, ...]  # in the order they happened


def check_sizes(events: Sequence[str], players: Sequence[str], capacity: int) -> None:
    """
    >>> check_sizes(("a", "b", "c"), [str(i) for i in range(11)], 7)
    Traceback (most recent call last):
    ...
    sheets_host.festival.assignment.AssignmentError: 11 players in 2 events each need 22 places; 3 events of 7 hold 21
    """
    if len(events) != 3 or len(set(events)) != 3:
        raise AssignmentError(f"the pregame places players in 2 of 3 distinct events; got {len(events)}: "
                              f"{', '.join(events)}")
    if len(set(players)) != len(players):
        raise AssignmentError("a player is listed twice in the seating")
    if len(events) * capacity < EVENTS_PLAYED * len(players):
        raise AssignmentError(f"{len(players)} players in {EVENTS_PLAYED} events each need "
                              f"{EVENTS_PLAYED * len(players)} places; {len(events)} events of "
                              f"{capacity} hold {len(events) * capacity}")


def preference_lists(events: Sequence[str], players: Sequence[str],
                     choices: Mapping[str, tuple[str, str] | None],
                     draw: Callable[[str], random.Random]) -> tuple[dict[str, tuple[str, str]], tuple[str, ...]]:
    """Every player's first and second choice, drawn for the silent ones each from their own
    generator `draw(player)` (step 1); with the silent players."""
    lists: dict[str, tuple[str, str]] = {}
    drawn = []
    for player in players:
        listed = choices.get(player)
        if listed is None:
            first, second = draw(player).sample(list(events), 2)  # each of the 6 ordered pairs alike
            lists[player] = (first, second)
            drawn.append(player)
            continue
        unknown = [e for e in listed if e not in events]
        if unknown or len(listed) != 2 or listed[0] == listed[1]:
            raise AssignmentError(f"{player}'s choices {' then '.join(map(str, listed))} are not two "
                                  f"different events of {', '.join(events)}")
        lists[player] = (listed[0], listed[1])
    return lists, tuple(drawn)


def assign(events: Sequence[str], players: Sequence[str], choices: Mapping[str, tuple[str, str] | None],
           garnets: Mapping[str, int], capacity: int, rng: random.Random) -> Assignment:
    """The pregame assignment (the procedure in the module's docstring)."""
    check_sizes(events, players, capacity)
    draw = generators(rng)
    lists, drawn = preference_lists(events, players, choices, lambda player: draw(f"list/{player}"))
    spent = {p: garnets.get(p, 0) if p not in drawn else 0 for p in players}
    draw_order = list(players)
    draw("turning away").shuffle(draw_order)
    position = {p: i for i, p in enumerate(draw_order)}

    sits_out = {p: next(e for e in events if e not in lists[p]) for p in players}
    playing = {e: {p for p in players if sits_out[p] != e} for e in events}
    turns: list[Turn] = []

    def over_full() -> str | None:
        return next((e for e in events if len(playing[e]) > capacity), None)

    while (event := over_full()) is not None:
        # Everyone playing an over-full event listed it: nobody is turned away to an event without room.
        candidates = [p for p in playing[event] if len(playing[sits_out[p]]) < capacity]
        player = min(candidates, key=lambda p: (lists[p][0] == event, spent[p], position[p]))
        instead = sits_out[player]
        playing[event].remove(player)
        playing[instead].add(player)
        sits_out[player] = event
        turns.append(Turn(player, event, lists[player][0] == event, instead))

    return Assignment(
        events={e: tuple(p for p in players if p in playing[e]) for e in events},
        sits_out=sits_out, choices=lists, drawn=drawn, turned_away=tuple(turns))
