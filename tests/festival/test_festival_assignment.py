"""The pregame assignment: every player in exactly two events, no event over capacity, over every
preference profile of 10 players, and the turn-away order of the rule text."""

import random
from itertools import combinations_with_replacement, permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_host.festival.assignment import Assignment, AssignmentError, Turn, assign

EVENTS = ("alchemy", "continuum", "summoning")
PAIRS = tuple(permutations(EVENTS, 2))  # the 6 ordered preference lists
PLAYERS = tuple(f"P{i}" for i in range(10))


def replay(done: Assignment, players, garnets, capacity) -> None:
    """Check the result and every recorded turn against the procedure, from the lists used."""
    lists = done.choices
    spent = {p: 0 if p in done.drawn else garnets.get(p, 0) for p in players}
    sits_out = {p: next(e for e in EVENTS if e not in lists[p]) for p in players}

    def playing(event):
        return {p for p in players if sits_out[p] != event}

    for turn in done.turned_away:
        event = turn.event
        assert len(playing(event)) > capacity, f"{turn} from an event with room"
        assert turn.player in playing(event) and sits_out[turn.player] == turn.instead
        assert len(playing(turn.instead)) < capacity, f"{turn} into a full event"
        assert turn.first_choice == (lists[turn.player][0] == event)
        movable = [p for p in playing(event) if len(playing(sits_out[p])) < capacity]
        if turn.first_choice:
            assert all(lists[p][0] == event for p in movable), f"{turn} while a second-chooser could go"
        same_kind = [p for p in movable if (lists[p][0] == event) == turn.first_choice]
        assert spent[turn.player] == min(spent[p] for p in same_kind), f"{turn} before one who spent less"
        sits_out[turn.player] = event

    assert done.sits_out == sits_out
    for event in EVENTS:
        assert done.events[event] == tuple(p for p in players if sits_out[p] != event)
        assert len(done.events[event]) <= capacity
    for player in players:
        assert sum(player in members for members in done.events.values()) == 2


def test_every_profile_of_ten_players_up_to_relabelling_fits():
    profiles = list(combinations_with_replacement(PAIRS, len(PLAYERS)))
    assert len(profiles) == 3003
    for profile in profiles:
        done = assign(EVENTS, PLAYERS, dict(zip(PLAYERS, profile)), {}, 7, random.Random(5))
        replay(done, PLAYERS, {}, 7)


@st.composite
def pregames(draw):
    players = PLAYERS[:draw(st.integers(8, 10))]
    choices = {p: draw(st.none() | st.sampled_from(PAIRS)) for p in players}
    garnets = {p: draw(st.integers(0, 3)) for p in players}
    return players, choices, garnets, draw(st.integers(0, 2**32))


@settings(max_examples=400, deadline=None)
@given(pregames())
def test_random_profiles_with_garnets_and_silent_players_follow_the_procedure(case):
    players, choices, garnets, seed = case
    done = assign(EVENTS, players, choices, garnets, 7, random.Random(seed))
    replay(done, players, garnets, 7)
    assert done.drawn == tuple(p for p in players if choices[p] is None)
    assert all(done.choices[p] == choices[p] for p in players if p not in done.drawn)
    assert assign(EVENTS, players, choices, garnets, 7, random.Random(seed)) == done


def all_alchemy_first(garnets):
    """Ten players with Alchemy first: P0-P4 list Continuum second, P5-P9 Summoning."""
    choices = {p: ("alchemy", "continuum" if i < 5 else "summoning") for i, p in enumerate(PLAYERS)}
    return choices, garnets


def test_all_ten_alchemy_first_the_fewest_garnets_are_turned_away():
    choices, garnets = all_alchemy_first({p: 5 for p in PLAYERS} | {"P9": 0, "P0": 1, "P8": 2})
    done = assign(EVENTS, PLAYERS, choices, garnets, 7, random.Random(0))
    # Each goes to the event they did not list: P0 to Summoning, P9 and P8 to Continuum.
    assert done.turned_away == (Turn("P9", "alchemy", True, "continuum"),
                                Turn("P0", "alchemy", True, "summoning"),
                                Turn("P8", "alchemy", True, "continuum"))
    assert done.events["alchemy"] == PLAYERS[1:8]
    assert done.events["continuum"] == PLAYERS[:5] + ("P8", "P9")
    assert done.events["summoning"] == ("P0",) + PLAYERS[5:]
    assert done.sits_out["P9"] == "alchemy" and done.sits_out["P1"] == "summoning"


def test_a_player_whose_unlisted_event_is_full_is_skipped():
    # P0-P4 sit out Summoning (5 play it): P0 and P1, who spent least, fill it to 7, so P2 is skipped.
    choices, garnets = all_alchemy_first({p: i for i, p in enumerate(PLAYERS)})
    done = assign(EVENTS, PLAYERS, choices, garnets, 7, random.Random(0))
    assert [(t.player, t.instead) for t in done.turned_away] == [
        ("P0", "summoning"), ("P1", "summoning"), ("P5", "continuum")]
    assert "P2" in done.events["alchemy"]


def test_a_garnet_tie_is_broken_by_the_seeded_draw_reproducibly():
    choices, garnets = all_alchemy_first({p: 0 if p in ("P0", "P5") else 1 for p in PLAYERS})
    thirds = set()
    for seed in range(40):
        done = assign(EVENTS, PLAYERS, choices, garnets, 7, random.Random(seed))
        turned = [t.player for t in done.turned_away]
        assert sorted(turned[:2]) == ["P0", "P5"] and turned[2] not in ("P0", "P5")
        assert assign(EVENTS, PLAYERS, choices, garnets, 7, random.Random(seed)) == done
        thirds.add(turned[2])
    assert len(thirds) > 3  # the draw, not the seating, decides


def test_second_choosers_are_turned_away_before_first_choosers_whatever_they_spent():
    # Alchemy is listed 10 times: P4-P9 list it second and Continuum (4 players) has room for 3.
    choices = {p: ("alchemy", "continuum") for p in PLAYERS[:4]}
    choices |= {p: ("summoning", "alchemy") for p in PLAYERS[4:]}
    garnets = {p: 0 for p in PLAYERS[:4]} | {p: 9 for p in PLAYERS[4:]}
    done = assign(EVENTS, PLAYERS, choices, garnets, 7, random.Random(3))
    assert len(done.turned_away) == 3
    assert all(not t.first_choice and t.player in PLAYERS[4:] for t in done.turned_away)


def test_with_eight_players_capacity_binds_only_when_an_event_is_listed_more_than_seven_times():
    players = PLAYERS[:8]
    for profile in combinations_with_replacement(PAIRS, 8):
        done = assign(EVENTS, players, dict(zip(players, profile)), {}, 7, random.Random(1))
        listed = max(sum(e in pair for pair in profile) for e in EVENTS)
        assert (done.turned_away == ()) == (listed <= 7)
        replay(done, players, {}, 7)


def test_silent_players_lists_are_drawn_each_from_their_own_generator_and_they_count_no_garnets():
    choices = {p: None for p in PLAYERS}
    done = assign(EVENTS, PLAYERS, choices, {"P3": 5}, 7, random.Random(11))
    assert done.drawn == PLAYERS
    assert all(len(set(pair)) == 2 and set(pair) <= set(EVENTS) for pair in done.choices.values())
    assert len(set(done.choices.values())) > 1
    replay(done, PLAYERS, {}, 7)  # P3's 5 garnets do not count: spent on no valid list
    # Whoever else lists, or stays silent, what is drawn for a silent player stays theirs.
    for lister in PLAYERS:
        others = assign(EVENTS, PLAYERS, {**choices, lister: ("alchemy", "summoning")}, {}, 7, random.Random(11))
        assert all(others.choices[p] == done.choices[p] for p in PLAYERS if p != lister), lister


def test_too_many_players_for_the_capacity_is_refused_with_the_numbers():
    with pytest.raises(AssignmentError, match="11 players in 2 events each need 22 places; 3 events of 7 hold 21"):
        assign(EVENTS, [f"P{i}" for i in range(11)], {}, {}, 7, random.Random(0))
    with pytest.raises(AssignmentError, match="10 players .* 3 events of 6 hold 18"):
        assign(EVENTS, PLAYERS, {}, {}, 6, random.Random(0))


def test_unknown_events_repeats_and_other_than_three_events_are_refused():
    with pytest.raises(AssignmentError, match="P1's choices alchemy then potions"):
        assign(EVENTS, PLAYERS, {"P1": ("alchemy", "potions")}, {}, 7, random.Random(0))
    with pytest.raises(AssignmentError, match="P2's choices alchemy then alchemy"):
        assign(EVENTS, PLAYERS, {"P2": ("alchemy", "alchemy")}, {}, 7, random.Random(0))
    with pytest.raises(AssignmentError, match="2 of 3 distinct events; got 2"):
        assign(EVENTS[:2], PLAYERS[:4], {}, {}, 7, random.Random(0))
    assert issubclass(AssignmentError, ValueError)
