"""The week's rules as pure functions (`season/week.py`): pick order and what each candidate sees
and may pick, the decisions of several players together, the season's default, and what waits for
the host. The same rules through real books: `test_week.py`."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings, strategies as st

from sheets_host.kit.result import HOST, MAIN_MATCH, TOKEN, Owed
from sheets_host.season.ledger import Entry
from sheets_host.season.state import Season, SeasonGame, SeasonSettings, Settlement
from sheets_host.season.week import (ANSWERED, DECIDED, PICK_RULE, RULES, SEASON_DEFAULT, Decision, drawn, outcome,
                                     week)

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal", "Ivy"]


def a_season(cast, candidates, tokens=(), owed=(), twice=False, game="magicians-market", decisions=()):
    done = Settlement("2026-11-29 18:00", True, (cast[0],), tuple(candidates), owed_decisions=tuple(owed))
    main = SeasonGame("1", game, MAIN_MATCH, "g1", "xlsx", tuple(cast), 1, "t", settlement=done)
    rows = tuple(Entry(i, "t", "1", "endgame", p, TOKEN, 1, "won") for i, p in enumerate(tokens, 1))
    return Season("s", 5, tuple(cast), SeasonSettings(tiebreak=tuple(cast), twice_picked=twice), (main,), rows,
                  decisions=tuple(decisions))


def decided(season, ask, choice, who=None) -> Season:
    row = Decision(len(season.decisions) + 1, "t", ask.game, ask.key, who or ask.players[0], DECIDED, choice,
                   basis=ask.basis)
    return season.with_decisions([row])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_candidates_pick_in_order_each_seeing_the_picks_before_and_never_a_protected_or_picked_player(data):
    size = data.draw(st.integers(5, 9), label="cast")
    cast = NAMES[:size]
    candidates = data.draw(st.lists(st.sampled_from(cast), min_size=1, max_size=3, unique=True), label="candidates")
    tokens = data.draw(st.lists(st.sampled_from(cast), unique=True), label="tokens")
    twice = data.draw(st.booleans(), label="twice")
    season = a_season(cast, candidates, tokens, twice=twice)
    made = []
    for k, candidate in enumerate(candidates, 1):
        wk = week(season)
        assert [a.players for a in wk.asks] == [(candidate,)] and wk.asks[0].key == f"pick {k}"
        ask = wk.asks[0]
        assert ask.before == tuple(made) and ask.rule == PICK_RULE
        pool = [p for p in cast if p not in candidates]
        picked = {o for _, o in made}
        fits = [p for p in pool if p not in tokens and (twice or p not in picked)]
        if fits:
            assert set(ask.choices) == set(fits)
        else:  # ruling: the protection gives way first, then being picked once
            assert ask.choices and set(ask.choices) <= set(pool)
            assert set(ask.choices) == set([p for p in pool if twice or p not in picked] or pool)
        choice = data.draw(st.sampled_from(ask.choices), label=f"pick {k}")
        made.append((candidate, choice))
        season = decided(season, ask, choice)
    done = week(season)
    assert done.asks == () and done.death_matches == tuple(made) and not done.picking


def test_a_decision_owed_is_asked_before_the_picks_and_the_host_s_own_waits_for_the_host():
    owed = [Owed(("Ann",), "one more Token of Life", ("Bo", "Cy"), "extra token of life"),
            Owed((HOST,), "the Elimination Candidates' numbers", ("Ed", "Fay", "Gus"), "elimination candidates")]
    wk = week(a_season(NAMES[:7], ("Ed", "Fay", "Gus"), owed=owed))
    assert [(a.players, a.key) for a in wk.asks] == [(("Ann",), "extra token of life")]
    assert wk.asks[0].rule == RULES["magicians-market", "extra token of life"]
    assert [(a.key, a.choices) for a in wk.host] == [("elimination candidates", ("Ed", "Fay", "Gus"))]
    assert wk.picking and wk.death_matches == ()


@pytest.mark.parametrize("game, setting, players", [
    ("wind-guide-me", "elimination candidate", ("Ann", "Bo")),
    ("academy-of-witchcraft-arts", "candidate choice", ("Ann",)),
    ("pyramid-superiority", "elimination candidate", ("Ann",)),
    ("pyramid-superiority", "green meadow cosmos", ("Xan",)),
])
def test_each_decision_is_asked_of_the_players_the_result_names_quoting_their_rule(game, setting, players):
    """Who decides is the game's own result's (each game's tests hold it to its rule text:
    tests/games/test_results.py); the season asks exactly them, quoting the rule."""
    owed = [Owed(players, "the Elimination Candidate", ("Cy", "Di"), setting)]
    ask = week(a_season(NAMES[:5], (), owed=owed, game=game)).asks[0]
    assert ask.players == players and ask.rule == RULES[game, setting]


def answers(ask, **chosen):
    return [Decision(k, "t", ask.game, ask.key, p, ANSWERED, c, c, basis=ask.basis)
            for k, (p, c) in enumerate(chosen.items(), 1)]


def test_several_winners_decide_together_the_most_named_at_the_deadline_and_else_the_seasons_draw():
    owed = [Owed(("Ann", "Bo"), "the Elimination Candidate", ("Cy", "Di", "Ed"), "elimination candidate")]
    season = a_season(NAMES[:5], (), owed=owed, game="wind-guide-me")
    ask = week(season).asks[0]
    assert outcome(season, ask, answers(ask, Ann="Cy"), past_deadline=False) is None  # Bo has not decided
    assert outcome(season, ask, answers(ask, Ann="Cy", Bo="Cy"), False) == ("Cy", "Ann and Bo")
    assert outcome(season, ask, answers(ask, Ann="Cy", Bo="Di"), False) is None  # they disagree: until the deadline
    tied = outcome(season, ask, answers(ask, Ann="Cy", Bo="Di"), True)
    assert tied[0] in ("Cy", "Di") and "by the deadline" in tied[1]
    assert outcome(season, ask, answers(ask, Ann="Ed"), True)[0] == "Ed"  # the only one named
    assert outcome(season, ask, [], True) == (drawn(season, ask), SEASON_DEFAULT)


def test_the_seasons_draw_depends_on_the_season_and_the_ask_alone():
    owed = [Owed(("Ann",), "one more Token of Life", tuple(NAMES[1:7]), "extra token of life")]
    season = a_season(NAMES[:9], (), owed=owed)
    ask = week(season).asks[0]
    assert len({drawn(season, ask) for _ in range(5)}) == 1
    others = {drawn(replace(season, seed=s), ask) for s in range(40)}
    assert len(others) > 1  # another season's seed draws otherwise


def test_a_candidate_eliminated_or_given_a_death_match_by_hand_is_not_asked_to_pick():
    season = a_season(NAMES[:6], ("Ed", "Fay"))
    season = season.with_entries([Entry(1, "t", "", "by hand", "Ed", "elimination", 1, "left the show", "host")])
    assert [a.players for a in week(season).asks] == [("Fay",)]
