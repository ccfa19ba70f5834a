"""Magician's Market's end (standings, Tokens of Life, Elimination Candidates and the host's decisions)
and its privacy (coins, bids and gifts never reach the public or another player)."""

import random
from dataclasses import replace

import pytest

from sheets_host.engine.play import bot_names, play_in_memory
from sheets_host.games.magicians_market.market import Bid, Gift
from sheets_host.games.magicians_market.state import MarketState
from sheets_host.games.magicians_market.views import host_decisions
from sheets_host.kit.errors import SchemaErrors
from sheets_host.kit.game import rng_for
from sheets_host.kit.result import GARNET, HOST, TOKEN, Owed

from .test_magicians_market_game import SIX, day, gen, new, records

# ---- the end --------------------------------------------------------------------------------------------


def finished(mm, mm_defaults, coins, **config):
    """A one-day game whose players end with `coins` (starting coins 300, bids on magicians that carry
    nothing pay for the rest)."""
    state = new(mm, mm_defaults, players=list(coins), taste_rows=[], starting_coins=300, days=1, **config)
    orders = {p: gen(bid=Bid("Pierre" if i % 2 else "Jackie", 300 - c)) for i, (p, c) in enumerate(coins.items())
              if c < 300}
    state = day(mm, state, **orders).state
    assert state.now.coins == coins
    return state


def test_standings_show_rank_coins_tokens_of_life_candidates_and_garnets(mm, mm_defaults):
    coins = {"Ada": 120, "Bo": 250, "Cy": 99, "Di": 5, "Ed": 60, "Fay": 200, "Gus": 10, "Hal": 100}
    table = mm.standings(finished(mm, mm_defaults, coins))
    assert list(table["player"]) == ["Bo", "Fay", "Ada", "Hal", "Cy", "Ed", "Gus", "Di"]
    assert list(table["rank"]) == list(range(1, 9)) and list(table["garnets"]) == [2, 2, 1, 1, 0, 0, 0, 0]
    assert list(table["Tokens of Life"]) == [1, 1, 1, 1, 0, 0, 0, 0]
    assert list(table["Elimination Candidate"]) == ["", "", "", "", "", 1, 2, 3]
    assert "richest: may grant one more Token of Life" in table.iloc[0]["result"]
    assert "config" not in " ".join(table["result"])


def test_candidates_are_decided_before_tokens_so_the_poorest_get_none(mm, mm_defaults):
    table = mm.standings(finished(mm, mm_defaults, {"Ada": 50, "Bo": 40, "Cy": 30, "Di": 20, "Ed": 10})).set_index("player")
    assert table["Tokens of Life"].to_dict() == {"Ada": 1, "Bo": 1, "Cy": 0, "Di": 0, "Ed": 0}


def test_a_tie_across_fourth_place_reduces_the_tokens_of_life(mm, mm_defaults):
    coins = {"Ada": 90, "Bo": 80, "Cy": 70, "Di": 70, "Ed": 70, "Fay": 3, "Gus": 2, "Hal": 1}
    table = mm.standings(finished(mm, mm_defaults, coins)).set_index("player")
    assert table["Tokens of Life"].sum() == 2 and table.loc["Cy", "Tokens of Life"] == 0
    assert "tied with Di, Ed for Token of Life 3 or 4: the tied players get none" in table.loc["Cy", "result"]


def test_tied_elimination_candidates_are_reported_until_the_host_records_an_order(mm, mm_defaults):
    coins = {"Ada": 90, "Bo": 80, "Cy": 5, "Di": 5, "Ed": 5, "Fay": 5}
    table = mm.standings(finished(mm, mm_defaults, coins)).set_index("player")
    assert set(table.loc[["Cy", "Di", "Ed", "Fay"], "Elimination Candidate"]) == {""}
    assert table.loc["Cy", "result"].startswith("tied with Di, Ed, Fay for Elimination Candidate 3 or 2 or 1: "
                                                "the host decides")
    # The config key is the host's word: in the host's log, never in the public results.
    assert "config" not in " ".join(table["result"])
    assert "to decide: Cy, Di, Ed, Fay tie for Elimination Candidate 3 or 2 or 1: write the order in config " \
           "'elimination candidates'" in host_decisions(finished(mm, mm_defaults, coins))
    decided = finished(mm, mm_defaults, coins, elimination_candidates="Fay, Cy, Ed")
    table = mm.standings(decided).set_index("player")
    assert table["Elimination Candidate"].to_dict() == {"Ada": "", "Bo": "", "Cy": 2, "Di": "", "Ed": 3, "Fay": 1}
    assert table.loc["Di", "Tokens of Life"] == 1  # no longer a candidate: among the top four of the rest


def test_an_order_of_candidates_that_ignores_the_coins_is_refused_at_the_end(mm, mm_defaults):
    state = finished(mm, mm_defaults, {"Ada": 90, "Bo": 80, "Cy": 5, "Di": 5, "Ed": 5, "Fay": 5})
    bad = {**mm_defaults["config"], "starting coins": 300, "days": 1, "elimination candidates": "Ada, Cy, Di"}
    with pytest.raises(SchemaErrors, match="column 'elimination candidates': 'Ada, Cy, Di' is not an order that "
                                           "follows the coins"):
        mm.load(state.players, records(mm, state), bad, {**mm_defaults["data"], "tastes": []})


def test_the_richest_player_s_extra_token_of_life_is_a_host_decision_never_for_a_candidate(mm, mm_defaults):
    coins = {"Ada": 90, "Bo": 80, "Cy": 70, "Di": 60, "Ed": 50, "Fay": 3, "Gus": 2, "Hal": 1}
    table = mm.standings(finished(mm, mm_defaults, coins, extra_token_of_life="Ed")).set_index("player")
    assert table.loc["Ed", "Tokens of Life"] == 1 and "granted by the richest player" in table.loc["Ed", "result"]
    assert table["Tokens of Life"].sum() == 5
    state = finished(mm, mm_defaults, coins)
    for recipient in ("Hal", "Ada"):
        config = {**mm_defaults["config"], "starting coins": 300, "days": 1, "extra token of life": recipient}
        with pytest.raises(SchemaErrors, match="column 'extra token of life'"):
            mm.load(state.players, records(mm, state), config, {**mm_defaults["data"], "tastes": []})


def test_a_tie_for_the_most_coins_leaves_the_extra_token_s_grant_to_the_host(mm, mm_defaults):
    table = mm.standings(finished(mm, mm_defaults, {"Ada": 90, "Bo": 90, "Cy": 70, "Di": 60, "Ed": 50})).set_index("player")
    assert "tied richest with Bo: the host decides who grants one more Token of Life" in table.loc["Ada", "result"]
    assert list(table["rank"]) == [1, 1, 3, 4, 5]


def test_end_decisions_that_no_longer_fit_the_coins_are_set_aside_by_the_last_day_and_logged(mm, mm_defaults):
    # A host who filled the config, then redid the last day with other submissions: the coins moved.
    bids = {"Di": gen(bid=Bid("Jackie", 3)), "Ed": gen(bid=Bid("Jackie", 2)), "Fay": gen(bid=Bid("Pierre", 1))}
    state = new(mm, mm_defaults, taste_rows=[], days=1, elimination_candidates="Ada, Bo, Cy")
    outcome = day(mm, state, **bids)
    table = mm.standings(outcome.state).set_index("player")
    assert table["Elimination Candidate"].to_dict() == {"Ada": "", "Bo": "", "Cy": "", "Di": 3, "Ed": 2, "Fay": 1}
    assert "config 'elimination candidates' set aside: 'Ada, Bo, Cy' is not an order that follows the coins" \
           in " ".join(outcome.log)
    assert "| 6 | Di | 0 | 3 |" in mm.announcement(state, outcome.state)
    state = new(mm, mm_defaults, taste_rows=[], days=1, extra_token_of_life="Fay")  # Fay ends as a candidate
    outcome = day(mm, state, **bids)
    table = mm.standings(outcome.state).set_index("player")
    assert table.loc["Fay", "Tokens of Life"] == 0 and table.loc["Fay", "Elimination Candidate"] == 1
    assert table["Tokens of Life"].sum() == 3
    assert any(line.startswith("config 'extra token of life' set aside: 'Fay'") for line in outcome.log)


def test_final_coins_stay_out_of_the_public_results(mm, mm_defaults):
    state = finished(mm, mm_defaults, {"Ada": 150, "Bo": 80, "Cy": 70, "Di": 60, "Ed": 50})
    results = mm.public_view(state)["results"]
    assert "coins" not in results.columns and list(results["garnets"]) == [1, 0, 0, 0, 0]
    assert "150" not in mm.announcement(state, state)
    private = mm.private_view(state, "Ada")["private"].set_index("what")["value"]
    assert private["coins"] == 150 and private["rank"] == 1


# ---- privacy -------------------------------------------------------------------------------------------


def frames_equal(a, b):
    return a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a)


def bid_twins(state):
    """States that differ from `state` only in one player's bid amount (hence coins), with the same
    public outcome: the same shows every day."""
    for i, d in enumerate(state.days):
        for j, (player, o) in enumerate(d.orders):
            if not o.bid:
                continue
            counted = state.history[i].counted[player]
            coins = o.bid.coins - 1 if counted and o.bid.coins > 1 else o.bid.coins + 1 if not counted else None
            if coins is None:
                continue
            orders = d.orders[:j] + ((player, replace(o, bid=Bid(o.bid.magician, coins))),) + d.orders[j + 1:]
            twin = MarketState(state.players, state.days[:i] + (replace(d, orders=orders),) + state.days[i + 1:],
                               state.settings)
            if not twin.walked[1] and all(a.shows == b.shows for a, b in zip(state.history, twin.history)):
                yield player, twin


def test_no_coins_or_bids_reach_the_public_or_another_player(mm, mm_defaults):
    checked = coins_changed = 0
    for seed in range(3):
        state = new(mm, mm_defaults, players=bot_names(6))
        for _ in range(3):
            subs = {p: mm.bot(state, p, rng_for(seed, state.round, f"bot/{p}")) for p in state.players}
            state = mm.resolve(state, subs, random.Random(0)).state
        for player, twin in bid_twins(state):
            coins_changed += twin.now.coins[player] != state.now.coins[player]
            assert frames_equal(mm.public_view(state), mm.public_view(twin))
            assert mm.announcement(state, state) == mm.announcement(twin, twin)
            for other in state.players:
                if other != player:
                    assert frames_equal(mm.private_view(state, other), mm.private_view(twin, other))
            assert not frames_equal(mm.private_view(state, player), mm.private_view(twin, player))
            checked += 1
    assert checked >= 20 and coins_changed >= 15


def test_gifts_received_are_anonymous_and_private(mm, mm_defaults):
    state = new(mm, mm_defaults)
    base = {p: gen("cape", "rabbit", "wand") for p in SIX}
    routed = {**base, "Ada": gen("cape", "rabbit", "wand", gifts=[Gift("Bo", "wand", 1)]),
              "Cy": gen("cape", "rabbit", "wand", gifts=[Gift("Ada", "wand", 1)])}
    direct = {**base, "Cy": gen("cape", "rabbit", "wand", gifts=[Gift("Bo", "wand", 1)])}
    one, two = day(mm, state, **routed).state, day(mm, state, **direct).state
    assert frames_equal(mm.public_view(one), mm.public_view(two))
    assert mm.announcement(state, one) == mm.announcement(state, two)
    for player in ("Bo", "Di", "Ed", "Fay"):
        assert frames_equal(mm.private_view(one, player), mm.private_view(two, player))
    assert not frames_equal(mm.private_view(one, "Ada"), mm.private_view(two, "Ada"))
    bo = mm.private_view(one, "Bo")["my days"].iloc[0]
    assert bo["gifts received"] == "wand ×1" and "Cy" not in str(bo.to_dict()) and "Ada" not in str(bo.to_dict())


def test_public_tabs_show_goods_prices_sales_and_shows_but_never_coins_or_bids(mm, mm_defaults):
    state = play_in_memory(mm, bot_names(6), 1, mm_defaults["config"], mm_defaults["data"])
    public = mm.public_view(state)
    assert set(public) == {"goods now", "prices", "inventories", "sales", "shows", "magicians", "tastes", "results"}
    for frame in public.values():
        assert not {c for c in frame.columns if "coin" in c or "bid" in c}
    inventories = public["inventories"]
    assert set(inventories["stage"]) == {"start", "after market operations", "after shopping"}
    assert len(inventories) == 6 * (2 * 7 + 1)


# ---- what the season gets (`Game.result`) ---------------------------------------------------------------


def test_the_result_gives_the_top_four_s_tokens_reduced_by_a_tie_and_a_garnet_per_100_coins(mm, mm_defaults):
    """The text: the top four earn Tokens of Life, fewer when a tie crosses fourth place; the three
    poorest are candidates first (the clarification); 1 garnet for every 100 coins."""
    coins = {"Ada": 290, "Bo": 180, "Cy": 70, "Di": 70, "Ed": 70, "Fay": 3, "Gus": 2, "Hal": 1}
    result = mm.result(finished(mm, mm_defaults, coins))
    assert {p: result.earned(p, TOKEN) for p in coins} == {"Ada": 1, "Bo": 1, "Cy": 0, "Di": 0, "Ed": 0,
                                                            "Fay": 0, "Gus": 0, "Hal": 0}
    assert {c.player: c.amount for c in result.changes if c.what == GARNET} == {"Ada": 2, "Bo": 1}
    assert result.candidates == ("Fay", "Gus", "Hal") and result.winners == ("Ada",)
    assert not any("290" in c.why or "180" in c.why for c in result.changes)  # coins stay private
    # Ada's one more Token of Life: owed to her until the host types whom she grants it
    (owed,) = result.owed
    assert owed == Owed(("Ada",), "one more Token of Life", ("Bo", "Cy", "Di", "Ed"), "extra token of life")
    granted = mm.result(finished(mm, mm_defaults, coins, extra_token_of_life="Cy"))
    assert granted.earned("Cy", TOKEN) == 1 and granted.owed == ()


def test_tied_candidates_leave_the_numbers_from_the_first_open_one_to_the_host(mm, mm_defaults):
    """`candidates` holds the pick order decided from number 1 up to the first number a tie leaves
    open; the host's order (config `elimination candidates`) settles the rest."""
    coins = {"Ada": 90, "Bo": 80, "Cy": 60, "Di": 50, "Ed": 5, "Fay": 5}
    result = mm.result(finished(mm, mm_defaults, coins))
    assert result.candidates == ("Di",)  # number 1; Ed and Fay tie for 2 and 3
    assert Owed((HOST,), "the Elimination Candidates' numbers", ("Ed", "Fay"), "elimination candidates") in result.owed
    open_first = mm.result(finished(mm, mm_defaults, {"Ada": 90, "Bo": 80, "Cy": 5, "Di": 5, "Ed": 1}))
    assert open_first.candidates == ()  # Ed is number 3, but 1 and 2 are open
    decided = mm.result(finished(mm, mm_defaults, coins, elimination_candidates="Di, Fay, Ed"))
    assert decided.candidates == ("Di", "Fay", "Ed") and all(o.setting != "elimination candidates" for o in decided.owed)


def test_tied_richest_players_leave_the_extra_token_to_the_host(mm, mm_defaults):
    result = mm.result(finished(mm, mm_defaults, {"Ada": 90, "Bo": 90, "Cy": 50, "Di": 5, "Ed": 4, "Fay": 3}))
    assert result.winners == ("Ada", "Bo")
    assert Owed((HOST,), "one more Token of Life", ("Ada", "Bo", "Cy"), "extra token of life") in result.owed
