"""What a player reads after a round ("counted", "not counted", "what counted") is the resolver's
own record (issue 34): every game's parser names each part of a submission with the rows it came
from (`Parsed.parts`), and its resolver tells what it did with each part (`Outcome.fates`).

The contract, over bot games in every game (rows typed untidily, some typed twice, some a
neighbour's, so that parsers and resolvers refuse things):
- the resolver tells of every part the parser read, and of no other;
- every row the parser kept without a problem gave a part (else its player would read that
  nothing came of it, with no reason);
- every due player's record is there, a defaulted player's too (the default's parts).

CI runs 25 cases a game; `SHEETS_HOST_DEEP=1` runs 250.
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheets_host.engine.delivery import submit_frames
from sheets_host.engine.play import bot_states, bots, default_settings, untidy
from sheets_host.engine.reading import read_player
from sheets_host.games import get_game
from sheets_host.kit.game import Window, rng_for

GAMES = ["wind-guide-me", "magicians-market", "pyramid-superiority", "spirit-chain", "academy-of-witchcraft-arts"]
CASES = 250 if os.environ.get("SHEETS_HOST_DEEP") == "1" else 25


def typed(game, state, player: str, seed: int) -> list[dict]:
    """A bot's rows as a careless player types them: untidy, a row sometimes twice, sometimes a
    neighbour's row among them."""
    rng = random.Random(f"{seed}/{player}")
    r = game.round(state)
    rows = game.submit_rows(game.bot(state, player, rng_for(seed, r, f"bot/{player}")))
    players = game.players(state)
    if rows and rng.random() < 0.3:
        rows.append(dict(rng.choice(rows)))
    if rng.random() < 0.3:
        other = players[(players.index(player) + 1) % len(players)]
        theirs = game.submit_rows(game.bot(state, other, rng_for(seed, r, f"bot/{other}")))
        rows += [dict(rng.choice(theirs))] if theirs else []
    return [{k: v if k == "tab" else untidy(v, rng) for k, v in row.items()} for row in rows]


def a_round(game, seed: int, rounds: int):
    """The state after up to `rounds` rounds by random bots (not over), each player's reading of
    their typed rows for the next round, and the round resolved."""
    defaults = default_settings(game)
    state = None
    for i, s in enumerate(bot_states(game, bots(game, None), seed, defaults["config"], defaults["data"])):
        if game.is_over(s):
            break
        state = s
        if i == rounds:
            break
    r = game.round(state)
    state = game.host_bot(state, rng_for(seed, r, "host"))
    readings = {}
    for p in game.players(state):
        frames = submit_frames(game, state, p, [row for row in typed(game, state, p, seed)
                                                if row.get("tab") in {game.tab_key(t.name)
                                                                      for t in game.submit_tabs(state, p)}])
        readings[p] = read_player(game, state, p, frames, Window())
    subs = {p: r.parsed.submission if r.parsed.submission is not None else game.default(state, p)
            for p, r in readings.items()}
    return state, readings, game.resolve(state, subs, rng_for(seed, r, "resolve"))


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), rounds=st.integers(0, 12))
def test_the_resolver_tells_of_every_part_the_parser_read(name, seed, rounds):
    game = get_game(name)
    state, readings, outcome = a_round(game, seed, rounds)
    for player, reading in readings.items():
        if not reading.due:
            continue
        assert player in outcome.fates, f"{player}: the resolver kept no record of their submission"
        told = [f.part for f in outcome.fates[player]]
        assert len(told) == len(set(told)), f"{player}: a part told twice: {told}"
        parsed = reading.parsed
        if parsed.submission is None:
            continue
        assert set(told) == set(parsed.parts), (f"{player}: the parser read parts {sorted(parsed.parts)}, "
                                                f"the resolver told of {sorted(told)}")
        problems = {(p.tab, p.row) for p in parsed.problems if p.row is not None}
        gave = {ref for refs in parsed.parts.values() for ref in refs}
        for row in reading.rows:
            assert row.ref in problems or row.ref in gave, (
                f"{player}: {row.tab or 'submit'} row {row.row} was kept without a problem but gave no part "
                f"({row.values})")
