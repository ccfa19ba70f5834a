"""Properties of Spirit Chain that hold for every summoning and every duel, over generated cases."""

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_host.games.spirit_chain.cards import LANTERN
from sheets_host.games.spirit_chain.rules import summon
from sheets_host.games.spirit_chain.state import Phase
from sheets_host.kit.game import rng_for

from .test_spirit_chain_game import GAME, PLAYERS, bids, play, rows, setup
from .test_spirit_chain_rules import BOOK
from .test_spirit_chain_time import stamp, window

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


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-10, 700)), max_size=5), st.integers(0, 10), st.integers(0, 600))
def test_every_row_either_gave_the_submission_or_says_why_not(offsets, reserve, frozen):
    """Whatever the times (in the window, in reserve, too late, none), the row that counts gave every
    part of the submission, and every other row has a problem saying why it does not count."""
    s = replace(setup(), reserve=(reserve, 10))
    typed = rows("Ada", *(bids(k, **{"submitted at": None if o is None else stamp(o)}) for k, o in enumerate(offsets)))
    parsed = GAME.parse(s, "Ada", typed, window(frozen))
    troubled = {p.row for p in parsed.problems if p.row is not None}
    gave = {row for refs in parsed.parts.values() for _, row in refs}
    assert len(gave) <= 1 and all((r.row in troubled) != (r.row in gave) for r in typed)


def test_what_each_bot_s_parts_came_to_agrees_with_the_auctions_and_the_summonings():
    """A bid counts when it won its card (or was no bid); a slot's fate is the public summonings tab's."""
    for seed in range(20):
        s = setup(seed)
        while not GAME.is_over(s):
            moves = dict(zip(PLAYERS, (GAME.bot(s, p, rng_for(seed, s.round, f"bot/{p}")) for p in PLAYERS)))
            outcome = GAME.resolve(s, moves, rng_for(seed, s.round, "resolve"))
            after = outcome.state
            lots = {f"bid {lot.number}": lot for lot in after.lots if lot.cycle == s.cycle}
            happened = GAME.public_view(after)["summonings"].tail(4)
            for seat, player in enumerate(PLAYERS):
                told = outcome.fates[player]
                assert [f.part for f in told] == [k for k, _ in moves[player].parts()]
                for fate, (key, value) in zip(told, moves[player].parts()):
                    if s.phase is Phase.AUCTION:
                        assert fate.counted == (lots[key].winner == seat or value == 0), (fate, lots[key])
                    elif s.phase is Phase.SLOTS:
                        slot = happened[happened["slot"] == int(key[-1])].iloc[0]
                        assert fate.counted and fate.what.endswith(f"{slot[f'{player}: what happened']}"), fate
                    else:
                        assert fate.counted
            s = after
