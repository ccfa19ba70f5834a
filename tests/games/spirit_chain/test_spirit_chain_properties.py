"""Properties of Spirit Chain that hold for every summoning and every duel, over generated cases."""

from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_host.games.spirit_chain.cards import LANTERN
from sheets_host.games.spirit_chain.rules import summon
from sheets_host.kit.game import rng_for

from .test_spirit_chain_game import GAME, PLAYERS, play, setup
from .test_spirit_chain_rules import BOOK

slots = st.lists(st.sampled_from([None, *BOOK.cards]), min_size=3, max_size=3)
lights = st.integers(-50, LANTERN)


@settings(max_examples=400, deadline=None)
@given(slots, slots, lights, lights)
def test_a_summoning_treats_both_sides_alike(mine, theirs, a, b):
    one = summon((a, b), [mine, theirs])
    two = summon((b, a), [theirs, mine])
    assert one.lights == two.lights[::-1] and one.leaving == two.leaving[::-1] and one.locked == two.locked[::-1]
    assert all(x <= LANTERN for x in one.lights)


@settings(max_examples=400, deadline=None)
@given(slots, slots, lights, lights)
def test_only_played_cards_leave_a_deck_or_get_locked_and_only_spirits_are_locked(mine, theirs, a, b):
    s = summon((a, b), [mine, theirs])
    for side, played in enumerate((mine, theirs)):
        titles = [c.title for c in played if c]
        assert all(t in titles for t in s.leaving[side] + s.locked[side])
        assert all(BOOK[t].is_spirit for t in s.locked[side])
        for t in set(s.leaving[side]) | set(s.locked[side]):  # a copy either leaves, or stays and may be locked
            assert s.leaving[side].count(t) + s.locked[side].count(t) <= titles.count(t)


def test_every_bot_duel_keeps_the_state_consistent_and_resolve_pure():
    for seed in range(30):
        s = setup(seed)
        while not GAME.is_over(s):
            moves = [GAME.bot(s, p, rng_for(seed, s.round, f"bot/{p}")) for p in PLAYERS]
            before = GAME.dump(s)
            after = play(s, moves)
            assert GAME.dump(s) == before and play(s, moves) == after  # the given state untouched; deterministic
            assert all(x <= LANTERN for x in after.lights) and all(0 <= r <= 10 for r in after.reserve)
            for deck, locked in zip(after.decks, after.locked):
                assert all(n > 0 for n in deck.values())
                assert all(locked[t] <= deck.get(t, 0) for t in locked)
            s = after
        assert GAME.standings(s).iloc[0]["rank"] == 1 and s.winner()[0] is not None


def test_the_same_seed_gives_the_same_duel():
    a = [setup(5)]
    b = [setup(5)]
    for trail in (a, b):
        while not GAME.is_over(trail[-1]):
            s = trail[-1]
            trail.append(GAME.resolve(s, {p: GAME.bot(s, p, rng_for(5, s.round, f"bot/{p}")) for p in PLAYERS},
                                      rng_for(5, s.round, "resolve")).state)
    assert a == b and setup(5).lots != setup(6).lots
