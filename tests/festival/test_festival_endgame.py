"""The festival's endgame: average rankings, the winner's and the candidate's tie chains, Tokens of
Life and garnets, over worked examples and every valid set of placements."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_host.festival.endgame import EndgameError, festival_endgame
from sheets_host.festival.event import Placement

SIX = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay"]  # Alchemy: Ann-Di; Continuum: Ann, Bo, Ed, Fay; Summoning: Cy-Fay


def ranked(alchemy: str, continuum: str, summoning: str) -> dict[str, list[Placement]]:
    """Each event's ranking, best first, as names separated by spaces."""
    orders = {"alchemy": alchemy, "continuum": continuum, "summoning": summoning}
    return {e: [Placement(p, i + 1, None) for i, p in enumerate(o.split())] for e, o in orders.items()}


def test_the_average_ranking_is_the_exact_mean_of_the_two_placements():
    done = festival_endgame(ranked("Ann Bo Cy Di", "Ann Bo Ed Fay", "Cy Ed Di Fay"), SIX, {})
    assert done.average == {"Ann": 1, "Cy": 2, "Bo": 2, "Ed": Fraction(5, 2), "Di": Fraction(7, 2), "Fay": 4}
    assert list(done.average) == ["Ann", "Cy", "Bo", "Ed", "Di", "Fay"]  # equal averages: best placement first
    assert done.placements_of["Ed"] == {"continuum": 3, "summoning": 2}
    assert "- Ed: 2.5 (3rd in continuum, 2nd in summoning)" in done.lines()


def test_the_best_average_is_the_sole_winner_with_two_tokens_and_a_garnet():
    done = festival_endgame(ranked("Ann Bo Cy Di", "Ann Bo Ed Fay", "Cy Di Ed Fay"), SIX, {})
    assert (done.winners, done.sole_winner, done.tokens) == (("Ann",), "Ann", {"Ann": 2})
    assert ("Ann", 1, "the sole winner") in done.garnet_reasons
    assert (done.candidate, done.candidate_tied, done.candidate_awaited) == ("Fay", (), False)


def test_a_tie_for_the_best_average_goes_to_the_best_single_placement():
    # Ann (1st, 3rd) and Bo (2nd, 2nd) both average 2: Ann's 1st wins.
    done = festival_endgame(ranked("Ann Bo Cy Di", "Ed Bo Ann Fay", "Di Cy Fay Ed"), SIX, {})
    assert done.sole_winner == "Ann" and done.tokens == {"Ann": 2}
    assert done.winner_why == ("Ann and Bo tie on the best average, 2; "
                               "Ann has the best single placement among them, 1st.")


def test_still_tied_winners_earn_a_token_each_and_no_winners_garnet():
    # Ann (1st, 2nd) and Bo (2nd, 1st): same average, same best placement.
    done = festival_endgame(ranked("Ann Bo Cy Di", "Bo Ann Ed Fay", "Cy Di Ed Fay"), SIX, {})
    assert (done.winners, done.sole_winner, done.tokens) == (("Ann", "Bo"), None, {"Ann": 1, "Bo": 1})
    assert not any(reason == "the sole winner" for _, _, reason in done.garnet_reasons)
    assert done.lines()[8].startswith("**Winners: Ann and Bo**, earning 1 Token of Life each.")


def test_a_tie_for_the_worst_average_goes_to_the_worst_single_placement():
    # Ed (2nd, 4th) and Fay (3rd, 3rd) both average 3: Ed's 4th is the worst.
    done = festival_endgame(ranked("Ann Bo Cy Di", "Bo Ed Fay Ann", "Di Cy Fay Ed"), SIX, {})
    assert (done.candidate, done.candidate_tied, done.candidate_awaited) == ("Ed", (), False)
    assert done.candidate_why == ("Ed and Fay tie on the worst average, 3; "
                                  "Ed has the worst single placement among them, 4th.")


def test_still_tied_with_a_sole_winner_awaits_the_winners_choice_then_uses_it():
    # Ed (3rd, 4th) and Fay (4th, 3rd): same average, same worst placement; Ann is the sole winner.
    rankings = ranked("Ann Bo Cy Di", "Ann Bo Ed Fay", "Cy Di Fay Ed")
    waiting = festival_endgame(rankings, SIX, {})
    assert (waiting.candidate, waiting.candidate_tied, waiting.candidate_awaited) == (None, ("Ed", "Fay"), True)
    assert "**Elimination Candidate: Ann chooses Ed or Fay.**" in waiting.lines()[9]
    chosen = festival_endgame(rankings, SIX, {}, candidate_choice=" fay ")
    assert (chosen.candidate, chosen.candidate_tied, chosen.candidate_awaited) == ("Fay", ("Ed", "Fay"), False)
    assert chosen.candidate_why.endswith("the sole winner, Ann, chose Fay.")


def test_a_choice_not_among_the_tied_is_still_awaited():
    rankings = ranked("Ann Bo Cy Di", "Ann Bo Ed Fay", "Cy Di Fay Ed")
    for choice in ("Di", "Ann", "Edd", ""):
        done = festival_endgame(rankings, SIX, {}, candidate_choice=choice)
        assert done.candidate is None and done.candidate_awaited


def test_still_tied_without_a_sole_winner_the_gamewide_tiebreak_decides():
    rankings = ranked("Ann Bo Cy Di", "Bo Ann Ed Fay", "Cy Di Fay Ed")  # winners Ann and Bo; Ed, Fay tied
    assert festival_endgame(rankings, SIX, {}, candidate_choice="Ed").candidate == "Fay"  # no one chooses
    assert festival_endgame(rankings, ["Fay", "Ed", "Ann", "Bo", "Cy", "Di"], {}).candidate == "Ed"
    assert festival_endgame(rankings, ["Ed"], {}).candidate == "Fay"  # missing: after those listed
    done = festival_endgame(rankings, SIX, {})
    assert done.candidate_tied == () and not done.candidate_awaited
    assert done.candidate_why.endswith("no sole winner: the Gamewide Tiebreak places Fay last of them.")


def test_when_everyone_ties_everyone_wins_a_token_and_the_gamewide_tiebreak_picks_the_candidate():
    three = {"alchemy": [Placement("Ann", 1, 0), Placement("Bo", 2, 0)],
             "continuum": [Placement("Bo", 1, 0), Placement("Cy", 2, 0)],
             "summoning": [Placement("Cy", 1, 0), Placement("Ann", 2, 0)]}
    done = festival_endgame(three, ["Bo", "Cy", "Ann"], {})
    assert done.sole_winner is None and done.tokens == {"Ann": 1, "Bo": 1, "Cy": 1}
    assert done.candidate == "Ann"


def test_garnets_for_the_top_three_of_each_event_the_most_gold_and_the_sole_winner():
    done = festival_endgame(ranked("Ann Bo Cy Di", "Ann Bo Ed Fay", "Cy Di Ed Fay"), SIX,
                            {"Ann": 0, "Bo": 3, "Cy": 1, "Di": 2}, titles={"alchemy": "Alchemy"})
    assert done.garnet_reasons == (
        ("Ann", 2, "1st in Alchemy"), ("Bo", 1, "2nd in Alchemy"), ("Cy", 1, "3rd in Alchemy"),
        ("Ann", 2, "1st in continuum"), ("Bo", 1, "2nd in continuum"), ("Ed", 1, "3rd in continuum"),
        ("Cy", 2, "1st in summoning"), ("Di", 1, "2nd in summoning"), ("Ed", 1, "3rd in summoning"),
        ("Bo", 1, "the most gold left in Alchemy (3 gold)"), ("Ann", 1, "the sole winner"))
    assert done.garnets == {"Ann": 5, "Bo": 3, "Cy": 3, "Ed": 2, "Di": 1}


def test_tied_for_the_most_gold_each_earns_a_garnet_and_no_gold_earns_none():
    rankings = ranked("Ann Bo Cy Di", "Ann Bo Ed Fay", "Cy Di Ed Fay")
    tied = festival_endgame(rankings, SIX, {"Ann": 2, "Bo": 2, "Cy": 1, "Di": 0})
    assert [p for p, _, why in tied.garnet_reasons if "gold" in why] == ["Ann", "Bo"]
    broke = festival_endgame(rankings, SIX, {"Ann": 0, "Bo": 0, "Cy": 0, "Di": 0})
    assert not any("gold" in why for _, _, why in broke.garnet_reasons)
    assert festival_endgame(rankings, SIX, {}).garnets == broke.garnets  # Alchemy not played


def test_a_full_festival_of_ten_in_events_of_7_7_and_6():
    rankings = ranked("Ann Di Bo Ed Cy Fay Gus", "Hal Di Ivy Ed Jo Gus Fay", "Jo Ivy Ann Bo Hal Cy")
    tiebreak = ["Jo", "Ivy", "Hal", "Gus", "Fay", "Ed", "Di", "Cy", "Bo", "Ann"]
    gold = {"Ann": 0, "Bo": 4, "Cy": 4, "Di": 1, "Ed": 0, "Fay": 2, "Gus": 0}
    titles = {"alchemy": "Alchemy", "continuum": "Elemental Continuum", "summoning": "Summoner's Dream"}
    waiting = festival_endgame(rankings, tiebreak, gold, titles=titles)
    assert list(waiting.average) == ["Ann", "Di", "Ivy", "Hal", "Jo", "Bo", "Ed", "Cy", "Fay", "Gus"]
    assert waiting.candidate_awaited and waiting.candidate_tied == ("Fay", "Gus")
    done = festival_endgame(rankings, tiebreak, gold, candidate_choice="Gus", titles=titles)
    assert (done.sole_winner, done.tokens, done.candidate) == ("Ann", {"Ann": 2}, "Gus")
    assert done.garnets == {"Ann": 4, "Di": 2, "Ivy": 2, "Hal": 2, "Jo": 2, "Bo": 2, "Cy": 1}
    assert done.lines() == [
        "**The festival's endgame**",
        "Average rankings (lower is better):",
        "- Ann: 2 (1st in Alchemy, 3rd in Summoner's Dream)",
        "- Di: 2 (2nd in Alchemy, 2nd in Elemental Continuum)",
        "- Ivy: 2.5 (3rd in Elemental Continuum, 2nd in Summoner's Dream)",
        "- Hal: 3 (1st in Elemental Continuum, 5th in Summoner's Dream)",
        "- Jo: 3 (5th in Elemental Continuum, 1st in Summoner's Dream)",
        "- Bo: 3.5 (3rd in Alchemy, 4th in Summoner's Dream)",
        "- Ed: 4 (4th in Alchemy, 4th in Elemental Continuum)",
        "- Cy: 5.5 (5th in Alchemy, 6th in Summoner's Dream)",
        "- Fay: 6.5 (6th in Alchemy, 7th in Elemental Continuum)",
        "- Gus: 6.5 (7th in Alchemy, 6th in Elemental Continuum)",
        ("**Sole winner: Ann**, earning 2 Tokens of Life and a garnet. Ann and Di tie on the best average, 2; "
         "Ann has the best single placement among them, 1st."),
        ("**Elimination Candidate: Gus**. Fay and Gus tie on the worst average, 6.5, each with a worst "
         "placement of 7th: the sole winner, Ann, chose Gus."),
        "**Garnets**",
        "- Ann: 4 (2 for 1st in Alchemy, 1 for 3rd in Summoner's Dream, 1 for the sole winner)",
        "- Di: 2 (1 for 2nd in Alchemy, 1 for 2nd in Elemental Continuum)",
        "- Ivy: 2 (1 for 3rd in Elemental Continuum, 1 for 2nd in Summoner's Dream)",
        "- Hal: 2 (2 for 1st in Elemental Continuum)",
        "- Jo: 2 (2 for 1st in Summoner's Dream)",
        "- Bo: 2 (1 for 3rd in Alchemy, 1 for the most gold left in Alchemy (4 gold))",
        "- Cy: 1 (1 for the most gold left in Alchemy (4 gold))",
    ]


def test_events_hosted_by_hand_give_the_same_placements():
    by_hand = {e: [Placement(p.player, p.place, "typed by the host") for p in ranking]
               for e, ranking in ranked("Ann Bo Cy Di", "Ann Bo Ed Fay", "Cy Di Ed Fay").items()}
    assert festival_endgame(by_hand, SIX, {}).lines() == \
        festival_endgame(ranked("Ann Bo Cy Di", "Ann Bo Ed Fay", "Cy Di Ed Fay"), SIX, {}).lines()


def test_placements_with_gaps_or_not_two_events_a_player_are_refused():
    with pytest.raises(EndgameError, match=r"alchemy: places \[1, 2, 4\] are not 1 to 3"):
        festival_endgame({"alchemy": [Placement("Ann", 1, 0), Placement("Bo", 2, 0), Placement("Cy", 4, 0)]},
                         SIX, {})
    with pytest.raises(EndgameError, match="summoning: a player is placed twice"):
        festival_endgame(ranked("Ann Bo Cy Di", "Ann Bo Ed Fay", "Cy Cy Ed Fay"), SIX, {})
    with pytest.raises(EndgameError, match=r"exactly 2 events; not: Cy \(1\), Di \(1\)"):
        festival_endgame(ranked("Ann Bo Cy Di", "Ann Bo Ed Fay", "Ed Fay"), SIX, {})


@st.composite
def festivals(draw):
    """Every player in exactly two of three events, each of at most 7, places 1..k."""
    players = [f"P{i}" for i in range(draw(st.integers(8, 10)))]
    n, q = len(players), len(players) - 7  # at least q sit out each event
    out_a = draw(st.integers(q, n - 2 * q))
    out_b = draw(st.integers(q, n - out_a - q))
    seated = draw(st.permutations(players))
    sits_out = [seated[:out_a], seated[out_a:out_a + out_b], seated[out_a + out_b:]]
    placements = {}
    for event, out in zip(("alchemy", "continuum", "summoning"), sits_out):
        order = draw(st.permutations([p for p in players if p not in out]))
        placements[event] = [Placement(p, i + 1, None) for i, p in enumerate(order)]
    gold = {p.player: draw(st.integers(0, 3)) for p in placements["alchemy"]}
    return placements, list(draw(st.permutations(players))), gold, draw(st.none() | st.sampled_from(players))


@settings(max_examples=400, deadline=None)
@given(festivals())
def test_every_valid_festival_has_winners_and_one_candidate_or_an_awaited_choice(case):
    placements, tiebreak, gold, choice = case
    done = festival_endgame(placements, tiebreak, gold, choice)
    assert done.winners and (done.candidate is None) == done.candidate_awaited
    best, worst = min(done.average.values()), max(done.average.values())
    assert all(done.average[w] == best for w in done.winners)
    if done.sole_winner is not None:
        assert done.winners == (done.sole_winner,) and done.tokens == {done.sole_winner: 2}
        assert done.candidate != done.sole_winner and done.sole_winner not in done.candidate_tied
    else:
        assert len(done.winners) > 1 and done.tokens == dict.fromkeys(done.winners, 1)
        assert not done.candidate_awaited
    for player in done.candidate_tied:
        assert done.average[player] == worst
    if done.candidate is not None:
        assert done.average[done.candidate] == worst
    for event, ranking in placements.items():
        earned = sum(n for _, n, why in done.garnet_reasons if why.endswith(f" in {event}"))
        assert earned == (4 if len(ranking) >= 3 else {1: 2, 2: 3}[len(ranking)])
    most = max(gold.values())
    by_gold = sum(n for _, n, why in done.garnet_reasons if "gold" in why)
    assert by_gold == (sum(g == most for g in gold.values()) if most else 0)
