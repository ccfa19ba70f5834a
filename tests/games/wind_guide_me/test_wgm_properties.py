"""Properties that hold for every placement and every game, checked over generated cases."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_host.engine.play import play_in_memory, simulate
from sheets_host.games.wind_guide_me.rules import POSITIONS, Request, Stone, place_stones
from sheets_host.kit.game import rng_for

from tests.conftest import PLAYERS

SEATS = tuple(PLAYERS[:5])


@st.composite
def site_rounds(draw):
    """A site with some stones standing and this round's requests: one real stone per seated player
    at most over the whole game, maybe one fake."""
    players = list(SEATS)
    draw(st.randoms()).shuffle(players)
    standing_count = draw(st.integers(0, 4))
    positions = draw(st.permutations(range(1, POSITIONS + 1)))[:standing_count]
    standing = {p: Stone(players[i], draw(st.integers(1, 7))) for i, p in enumerate(positions)}
    movers = players[standing_count:]
    requests = [Request(p, draw(st.integers(1, POSITIONS)), draw(st.integers(1, 7))) for p in movers
                if draw(st.booleans())]
    if draw(st.booleans()):
        requests.append(Request(draw(st.sampled_from(SEATS)), draw(st.integers(1, POSITIONS)), 4, fake=True))
    return standing, requests


@settings(max_examples=300, deadline=None)
@given(site_rounds())
def test_every_real_stone_finds_a_place_and_nothing_standing_moves(case):
    standing, requests = case
    board = place_stones(SEATS, standing, requests)
    real = [r for r in requests if not r.fake]
    placed_real = [s for s in board.values() if not s.fake and s not in standing.values()]
    assert sorted((s.player, s.asked) for s in placed_real) == sorted((r.player, r.position) for r in real)
    assert all(board[p] is s for p, s in standing.items())
    assert len(board) <= POSITIONS


@settings(max_examples=300, deadline=None)
@given(site_rounds())
def test_a_real_stone_alone_on_an_empty_position_is_placed_there(case):
    # (A fake alone there takes it too, but may yield later in the round to a real stone.)
    standing, requests = case
    board = place_stones(SEATS, standing, requests)
    for r in requests:
        alone = sum(1 for q in requests if q.position == r.position) == 1
        if alone and r.position not in standing and not r.fake:
            assert board[r.position].player == r.player and not board[r.position].fake


def test_the_same_seed_and_submissions_give_the_same_game(wgm, wgm_defaults):
    a = play_in_memory(wgm, PLAYERS, 42, wgm_defaults["config"], wgm_defaults["data"])
    b = play_in_memory(wgm, PLAYERS, 42, wgm_defaults["config"], wgm_defaults["data"])
    c = play_in_memory(wgm, PLAYERS, 43, wgm_defaults["config"], wgm_defaults["data"])
    assert a == b and a.placed == b.placed and a != c


def test_resolve_does_not_change_the_state_it_is_given(wgm, wgm_defaults):
    state = wgm.setup(PLAYERS, 1, wgm_defaults["config"], wgm_defaults["data"])
    subs = {p: wgm.bot(state, p, rng_for(1, 1, f"bot/{p}")) for p in PLAYERS}
    before = (state.placed, state.missed)
    first = wgm.resolve(state, subs, random.Random(0)).state
    assert (state.placed, state.missed) == before
    assert wgm.resolve(state, subs, random.Random(99)).state == first


def test_simulate_is_reproducible_from_its_seed():
    one, two = simulate("wind-guide-me", 5, seed=8), simulate("wind-guide-me", 5, seed=8)
    assert one.averages == two.averages and one.wins == two.wins
