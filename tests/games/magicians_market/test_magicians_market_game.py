"""Magician's Market as the engine sees it: days, submissions, state tabs, data (the end and privacy:
tests/games/magicians_market/test_magicians_market_end.py)."""

import csv
import random
from dataclasses import replace

import pytest

from sheets_host.engine.play import bot_names, play_in_memory
from sheets_host.games.magicians_market.market import Bid, Gift, MarketSubmission
from sheets_host.games.magicians_market.rules import Sale
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaErrors
from sheets_host.kit.game import rng_for
from sheets_host.kit.table import TEMPLATES

HEADER = ["action", "good", "to", "amount"]
SIX = ["Ada", "Bo", "Cy", "Di", "Ed", "Fay"]
STAPLE = ("deck", "rabbit", "pigeon")  # generating these leaves capes, crystal balls and wands alone


def tastes(*rows):
    return [{"_row": n, "magician": m, "taste": t, "good": g, "market": sel, "quantity": q, "note": None}
            for n, (m, t, g, sel, q) in enumerate(rows, start=2)]


def new(mm, mm_defaults, players=SIX, taste_rows=None, **config):
    data = dict(mm_defaults["data"])
    if taste_rows is not None:
        data["tastes"] = taste_rows
    settings = {**mm_defaults["config"], **{k.replace("_", " "): v for k, v in config.items()}}
    return mm.setup(players, 1, settings, data)


def day(mm, state, **orders):
    return mm.resolve(state, orders, random.Random(0))


def gen(*goods, extra=None, gifts=(), bid=None):
    return MarketSubmission(tuple(goods), extra, tuple(gifts), bid)


def rows(player, *specs):
    return [SubmitRow(player, n, HEADER, dict(zip(HEADER, spec))) for n, spec in enumerate(specs, start=2)]


# ---- the market ------------------------------------------------------------------------------------


def test_every_player_starts_with_one_of_each_good_and_10_coins_and_every_price_is_1(mm, mm_defaults):
    state = new(mm, mm_defaults)
    assert all(stock == {g: 1 for g in state.settings.goods} for stock in state.now.goods.values())
    assert set(state.now.coins.values()) == {10} and set(state.now.prices.values()) == {1}
    assert state.settings.highest_price == 15 and state.settings.lowest_price == 1 and state.settings.days == 7


def test_any_number_of_players_from_4_to_20_plays_7_days(mm, mm_defaults):
    assert (mm.min_players, mm.max_players) == (4, 20)
    for count in (4, 20):
        state = play_in_memory(mm, bot_names(count), 3, mm_defaults["config"], mm_defaults["data"])
        assert len(state.history) == 7 and mm.is_over(state)


def test_generation_gives_one_of_each_named_good_and_raises_the_others_once_per_generating_player(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[])
    after = day(mm, state, Ada=gen("cape", "wand", "rabbit"), Bo=gen("cape", "wand", "pigeon")).state
    d = after.history[0]
    assert d.operations.goods["Ada"] == {"cape": 2, "crystal ball": 1, "deck": 1, "rabbit": 2, "pigeon": 1, "wand": 2}
    assert d.operations.prices == {"cape": 1, "crystal ball": 3, "deck": 3, "rabbit": 2, "pigeon": 2, "wand": 1}


def test_prices_rise_no_higher_than_15(mm, mm_defaults):
    state = new(mm, mm_defaults, players=bot_names(20), taste_rows=[])
    after = day(mm, state, **{p: gen(*STAPLE) for p in state.players}).state
    assert after.now.prices["cape"] == 15


def test_a_missing_submission_generates_nothing_changes_no_price_and_bids_nothing(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[])
    assert mm.default(state, "Ada") == MarketSubmission()
    after = day(mm, state, Ada=mm.default(state, "Ada")).state
    d = after.history[0]
    assert d.operations.goods == state.now.goods and d.operations.prices == state.now.prices
    assert d.counted == {} and after.now.coins == state.now.coins


def test_a_submission_without_generation_raises_no_price(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[])
    d = day(mm, state, Ada=gen(bid=Bid("Jackie", 2)), Bo=gen(gifts=[Gift("Cy", "wand", 1)]),
            Cy=gen("cape", "wand", "rabbit")).state.history[0]
    assert d.operations.prices == {"cape": 1, "crystal ball": 2, "deck": 2, "rabbit": 1, "pigeon": 2, "wand": 1}
    assert d.operations.goods["Ada"] == state.now.goods["Ada"] and d.operations.goods["Bo"]["wand"] == 0


def test_the_extra_good_can_be_bought_with_exactly_5_coins(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[], starting_coins=5)
    parsed = mm.parse(state, "Ada", rows("Ada", ("extra", "wand")))
    assert parsed.problems == () and parsed.submission == gen(extra="wand")
    d = day(mm, state, Ada=parsed.submission).state.history[0]
    assert d.operations.coins["Ada"] == 0 and d.operations.goods["Ada"]["wand"] == 2


def test_the_extra_good_costs_5_coins_and_raises_no_price(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[])
    d = day(mm, state, Ada=gen("cape", "wand", "rabbit", extra="wand")).state.history[0]
    assert d.operations.goods["Ada"]["wand"] == 3 and d.operations.coins["Ada"] == 5
    assert d.operations.prices["wand"] == 1 and d.operations.prices["deck"] == 2


def test_gifts_are_simultaneous_and_come_from_what_the_giver_held_after_generation(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[])
    orders = {"Ada": gen("cape", "wand", "rabbit", gifts=[Gift("Bo", "wand", 2)]),
              "Bo": gen(*STAPLE, gifts=[Gift("Ada", "wand", 1)])}
    d = day(mm, state, **orders).state.history[0]
    assert d.operations.goods["Ada"]["wand"] == 1 and d.operations.goods["Bo"]["wand"] == 2
    assert d.gifts_received("Bo") == {"wand": 2}


def test_a_gift_received_cannot_be_passed_on_the_same_day(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[])
    parsed = mm.parse(state, "Bo", rows("Bo", ("generate", "deck, rabbit, pigeon"), ("gift", "wand", "Cy", 2)))
    assert "you will hold 1 wand after generating" in parsed.problems[0].message
    assert "never what you receive" in parsed.problems[0].message
    outcome = day(mm, state, Ada=gen("cape", "wand", "rabbit", gifts=[Gift("Bo", "wand", 2)]),
                  Bo=gen(*STAPLE, gifts=[Gift("Cy", "wand", 2)]))
    assert outcome.state.history[0].operations.goods["Cy"]["wand"] == 1
    assert any("Bo's gift refused" in line for line in outcome.log)


def test_coins_cannot_be_gifted(mm, mm_defaults):
    state = new(mm, mm_defaults)
    parsed = mm.parse(state, "Ada", rows("Ada", ("gift", "coins", "Bo", 5)))
    assert parsed.submission is None and "'coins' is not a good" in parsed.problems[0].message


JACKIE_BUYS = tastes(("Jackie", 1, "crystal ball", "most", "all"), ("Jackie", 2, "wand", "most", "2"),
                     ("Jackie", 3, "cape", "most", "1"))


def test_the_worked_example_jackie_earns_21_coins_an_8_coin_profit_on_a_13_coin_bid(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=JACKIE_BUYS)
    orders = {p: gen(*STAPLE, gifts=[Gift("Ada", "crystal ball", 1)]) for p in SIX[1:]}
    orders["Ada"] = gen(*STAPLE, bid=Bid("Jackie", 13))
    orders["Bo"] = gen("wand", "rabbit", "pigeon", gifts=[Gift("Ada", "crystal ball", 1)])
    orders["Cy"] = gen("cape", "rabbit", "pigeon", gifts=[Gift("Ada", "crystal ball", 1)])
    d = day(mm, state, **orders).state.history[0]
    assert d.shopping.magicians["Jackie"] == {"cape": 1, "crystal ball": 6, "deck": 0, "rabbit": 0, "pigeon": 0,
                                              "wand": 2}
    assert d.shows["Jackie"] == "Ada" and d.earned["Jackie"] == 21
    assert d.end.coins["Ada"] - d.shopping.coins["Ada"] == 21 - 13 == 8
    assert d.end.magicians["Jackie"] == {g: 0 for g in state.settings.goods}  # the goods are used up


def test_the_strange_shops_first_and_alone_then_the_others_see_what_is_left(mm, mm_defaults):
    both = tastes(("The Strange", 1, "wand", "most", "all"), ("Jackie", 1, "wand", "most", "1"))
    state = new(mm, mm_defaults, taste_rows=both)
    d = day(mm, state, Ada=gen("wand", "rabbit", "pigeon", extra="wand"), Bo=gen("wand", "rabbit", "pigeon")).state.history[0]
    assert d.sales == (Sale("The Strange", 1, "wand", "Ada", 3, 3), Sale("Jackie", 1, "wand", "Bo", 1, 1))


def test_magicians_pay_the_price_at_the_start_of_shopping_and_prices_drop_after_every_sale(mm, mm_defaults):
    two = tastes(("Jackie", 1, "wand", "most", "2"), ("Flavio", 1, "wand", "largest unique", "1"))
    state = new(mm, mm_defaults, taste_rows=two)
    orders = {p: gen(*STAPLE) for p in SIX}
    orders["Ada"] = gen("wand", "rabbit", "pigeon", extra="wand")  # 3 wands: most
    d = day(mm, state, **orders).state.history[0]
    price = d.operations.prices["wand"]
    assert price == 6 and [(s.magician, s.sold) for s in d.sales] == [("Flavio", 1), ("Jackie", 2)]
    assert d.shopping.coins["Ada"] == 10 - 5 + 3 * price
    assert d.shopping.prices["wand"] == 6 - 1 - 2


def test_taste_3_buys_from_the_market_that_sold_to_the_named_magician_yesterday(mm, mm_defaults):
    chain = tastes(("Jackie", 1, "wand", "most", "1"), ("Flavio", 3, "cape", "sold wand to Jackie yesterday", "1"))
    state = new(mm, mm_defaults, taste_rows=chain)
    first = day(mm, state, Cy=gen("wand", "rabbit", "pigeon")).state
    assert [(s.magician, s.market) for s in first.history[0].sales] == [("Jackie", "Cy")]
    second = day(mm, first).state
    assert [(s.magician, s.good, s.market) for s in second.history[1].sales] == [("Flavio", "cape", "Cy")]


def test_a_bid_above_the_coins_held_after_shopping_is_not_counted_and_not_paid(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[])
    outcome = day(mm, state, Ada=gen(*STAPLE, bid=Bid("Jackie", 11)), Bo=gen(*STAPLE, bid=Bid("Jackie", 2)))
    d = outcome.state.history[0]
    assert d.counted == {"Ada": False, "Bo": True} and d.shows["Jackie"] == "Bo"
    assert d.end.coins["Ada"] == 10
    assert "Ada's bid of 11 on Jackie is not counted: Ada holds 10 coins" in outcome.log


def test_sales_income_can_cover_a_bid_larger_than_the_coins_held_before_shopping(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=tastes(("Jackie", 1, "wand", "most", "2")))
    orders = {p: gen(*STAPLE) for p in SIX[1:]}  # wands rise to 6
    d = day(mm, state, Ada=gen("wand", "rabbit", "pigeon", bid=Bid("Pierre", 15)), **orders).state.history[0]
    assert d.shopping.coins["Ada"] == 10 + 2 * d.operations.prices["wand"] >= 15
    assert d.counted["Ada"] and d.shows["Pierre"] == "Ada"


def test_a_bid_of_exactly_the_coins_held_after_shopping_counts_and_is_paid(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=tastes(("Jackie", 1, "wand", "most", "2")))
    others = {p: gen(*STAPLE) for p in SIX[1:]}  # wands rise to 6; Ada sells her 2 wands: 10 + 12 = 22
    for bid, counted, coins in ((22, True, 0), (23, False, 22)):
        d = day(mm, state, Ada=gen("wand", "rabbit", "pigeon", bid=Bid("Pierre", bid)), **others).state.history[0]
        assert d.shopping.coins["Ada"] == 22
        assert d.counted["Ada"] is counted and d.end.coins["Ada"] == coins
        assert d.shows["Pierre"] == ("Ada" if counted else None)


def test_every_counted_bid_is_paid_even_when_outbid_or_tied(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[])
    d = day(mm, state, Ada=gen(bid=Bid("Jackie", 4)), Bo=gen(bid=Bid("Jackie", 6)),
            Cy=gen(bid=Bid("Pierre", 3)), Di=gen(bid=Bid("Pierre", 3))).state.history[0]
    assert [d.end.coins[p] for p in ("Ada", "Bo", "Cy", "Di")] == [6, 4, 7, 7]
    assert d.shows["Jackie"] == "Bo" and d.shows["Pierre"] is None


def test_a_bidder_outbid_by_a_tie_reads_that_the_highest_bids_tied_not_that_they_tied(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[])
    bids = {"Ada": 3, "Bo": 5, "Cy": 5}  # Ada was outbid; Bo and Cy tied
    after = day(mm, state, **{p: gen(bid=Bid("Jackie", c)) for p, c in bids.items()}).state
    results = {p: mm.private_view(after, p)["my days"].iloc[0]["bid result"] for p in ("Ada", "Bo")}
    assert results == {p: "counted: the highest bids tied, no show" for p in ("Ada", "Bo")}


def test_a_magician_with_no_bid_or_a_tie_performs_nowhere_and_keeps_its_goods(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=tastes(("Jackie", 1, "wand", "most", "1"), ("Pierre", 1, "cape", "most", "1")))
    first = day(mm, state, Ada=gen("wand", "cape", "rabbit"), Bo=gen(bid=Bid("Pierre", 2)), Cy=gen(bid=Bid("Pierre", 2)))
    d = first.state.history[0]
    assert d.shows == {m: None for m in state.settings.magician_names}
    assert first.state.now.magicians["Jackie"]["wand"] == 1 and first.state.now.magicians["Pierre"]["cape"] == 1
    assert "Jackie performs nowhere and keeps wand ×1" in first.log
    second = day(mm, first.state, Ada=gen("wand", "rabbit", "pigeon"), Bo=gen(bid=Bid("Jackie", 1))).state
    assert second.history[1].shopping.magicians["Jackie"]["wand"] == 2
    assert second.history[1].earned["Jackie"] == 3 + 2 * 2


# ---- submissions -----------------------------------------------------------------------------------


def test_the_rule_text_s_example_submission_reads_as_typed(mm, mm_defaults):
    state = new(mm, mm_defaults, players=["Ann", "TGXAndy", "Cy", "Di"])
    state = replace(state, settings=replace(state.settings, starting_goods=3))
    parsed = mm.parse(state, "Ann", rows("Ann", ("Generate", "wand, cape, and pigeon"),
                                         ("extra", "an additional wand"), ("extra good", "wand"),
                                         ("gift", "decks of playing cards", "tgxandy", "three"),
                                         ("bid", None, "Jackie", "13 coins")))
    assert parsed.submission == gen("wand", "cape", "pigeon", extra="wand", gifts=[Gift("TGXAndy", "deck", 3)],
                                    bid=Bid("Jackie", 13))
    assert [p.row for p in parsed.problems] == [3]  # 'an additional wand' is not a good; the next row is
    assert parsed.kept == ("generate wand, cape, pigeon; extra wand for 5 coins; gift deck ×3 to TGXAndy; bid 13 on "
                           "Jackie (it counts only if you hold 13 coins after the magicians shop: you hold 5 before)")


def test_untidy_cells_one_good_a_row_and_case_are_read(mm, mm_defaults):
    state = new(mm, mm_defaults)
    parsed = mm.parse(state, "Ada", rows("Ada", (" GENERATE ", " Capes"), ("make", "crystal"), ("generate", "Wands "),
                                         ("give", "rabbit", " bo ", None), ("offer", None, "the strange", 3.0)))
    assert parsed.problems == ()
    assert parsed.submission == gen("cape", "crystal ball", "wand", gifts=[Gift("Bo", "rabbit", 1)],
                                    bid=Bid("The Strange", 3))


def test_a_fourth_good_is_dropped_and_the_first_three_stand(mm, mm_defaults):
    parsed = mm.parse(new(mm, mm_defaults), "Ada", rows("Ada", ("generate", "cape, wand, rabbit, deck", None, 2)))
    assert parsed.submission.generate == ("cape", "wand", "rabbit")
    assert "ignored: generate gives one of each good named" in parsed.problems[0].message
    assert "deck dropped: you generate 3 different goods (cape, wand, rabbit)" in parsed.problems[1].message


def test_fewer_than_three_different_goods_generate_nothing_and_say_so(mm, mm_defaults):
    parsed = mm.parse(new(mm, mm_defaults), "Ada", rows("Ada", ("generate", "cape, cape, wand"), ("bid", None, "Pierre", 1)))
    assert "cape is named twice" in parsed.problems[0].message
    assert "nothing is generated and no prices rise" in parsed.problems[1].message
    assert parsed.submission == gen(bid=Bid("Pierre", 1)) and parsed.kept.startswith("no goods generated")


def test_a_gift_of_goods_not_held_is_dropped_and_the_rest_stands(mm, mm_defaults):
    parsed = mm.parse(new(mm, mm_defaults), "Ada", rows("Ada", ("generate", "cape, wand, rabbit"),
                                                     ("gift", "wand", "Bo", 2), ("gift", "wand", "Cy", 1),
                                                     ("gift", "deck", "Ada", 1)))
    assert [(p.row, p.column) for p in parsed.problems] == [(4, "amount"), (5, "to")]
    assert "you will hold 2 wand after generating and have already gifted 2" in parsed.problems[0].message
    assert "you cannot gift to yourself" in parsed.problems[1].message
    assert parsed.submission.gifts == (Gift("Bo", "wand", 2),)


def test_a_bid_on_an_unknown_magician_is_dropped_and_the_rest_stands(mm, mm_defaults):
    parsed = mm.parse(new(mm, mm_defaults), "Ada", rows("Ada", ("generate", "cape, wand, rabbit"),
                                                     ("bid", None, "Houdini", 5)))
    (problem,) = parsed.problems
    assert problem.row == 3 and problem.column == "to" and problem.letter == "C"
    assert "'Houdini' is not a magician" in problem.message and "allowed: Flavio, Jackie" in problem.message
    assert parsed.submission == gen("cape", "wand", "rabbit")


def test_a_second_bid_a_second_extra_good_and_an_unaffordable_extra_good_are_dropped(mm, mm_defaults):
    state = new(mm, mm_defaults)
    parsed = mm.parse(state, "Ada", rows("Ada", ("extra", "wand"), ("extra", "cape"), ("bid", None, "Jackie", 2),
                                         ("bid", None, "Pierre", 3)))
    assert "one extra good a day" in parsed.problems[0].message
    assert "one bid a day (you bid 2 on Jackie)" in parsed.problems[1].message
    poor = replace(state, settings=replace(state.settings, starting_coins=4))
    parsed = mm.parse(poor, "Ada", rows("Ada", ("extra", "wand")))
    assert parsed.submission is None
    assert "the extra good costs 5 coins and you hold 4" in parsed.problems[0].message


def test_typos_and_formulas_name_the_cell_and_what_is_allowed(mm, mm_defaults):
    parsed = mm.parse(new(mm, mm_defaults), "Ada", rows("Ada", ("genrate", "cape"), ("generate", "=B2"),
                                                     ("bid", None, "Jackie", "lots")))
    messages = [str(p) for p in parsed.problems]
    assert "Ada: row 2, column 'action' (A): 'genrate' is not an action (did you mean 'generate'?); allowed: " \
           "generate, extra, gift, bid; row dropped" == messages[0]
    assert "'=B2' is a formula; type the value itself" in messages[1]
    assert "column 'amount' (D): 'lots' is not a whole number (coins to bid: 1 to 1000000)" in messages[2]
    assert parsed.submission is None and parsed.kept == "nothing"


def test_an_empty_submit_tab_is_a_missing_submission_without_messages(mm, mm_defaults):
    parsed = mm.parse(new(mm, mm_defaults), "Ada", [])
    assert parsed.submission is None and parsed.problems == () and parsed.kept == "nothing"


def test_what_a_bot_types_parses_back_to_the_same_submission(mm, mm_defaults):
    for seed in range(20):
        state = new(mm, mm_defaults, players=bot_names(8))
        while not mm.is_over(state):
            subs = {p: mm.bot(state, p, rng_for(seed, state.round, f"bot/{p}")) for p in state.players}
            for p, orders in subs.items():
                typed = [SubmitRow(p, n, HEADER, r) for n, r in enumerate(mm.submit_rows(orders), start=2)]
                parsed = mm.parse(state, p, typed)
                assert parsed.problems == () and parsed.submission == (orders if orders != MarketSubmission() else None)
            outcome = mm.resolve(state, subs, random.Random(0))
            assert not any("refused" in line for line in outcome.log)
            state = outcome.state


# ---- state tabs --------------------------------------------------------------------------------------


def records(mm, state):
    return {name: [{"_row": i + 2, **r} for i, r in enumerate(rs)] for name, rs in mm.dump(state).items()}


def test_state_tabs_round_trip(mm, mm_defaults):
    state = play_in_memory(mm, bot_names(15), 4, mm_defaults["config"], mm_defaults["data"])
    loaded = mm.load(state.players, records(mm, state), mm_defaults["config"], mm_defaults["data"])
    assert loaded == state and loaded.now == state.now and loaded.round == 8


def test_a_host_edit_that_gifts_more_than_was_held_names_tab_row_and_column(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[])
    state = day(mm, state, Ada=gen("cape", "wand", "rabbit", gifts=[Gift("Bo", "wand", 2)])).state
    tabs = records(mm, state)
    tabs["gifts"][0]["count"] = 3
    with pytest.raises(SchemaErrors) as e:
        mm.load(SIX, tabs, mm_defaults["config"], mm_defaults["data"])
    assert "tab 'gifts', row 2, column 'count': 3 is not a gift from what Ada held after generation (2 wand)" \
           in str(e.value)


def test_a_recorded_sale_beyond_the_market_s_stock_or_a_missing_player_day_is_refused(mm, mm_defaults):
    state = play_in_memory(mm, SIX, 2, mm_defaults["config"], mm_defaults["data"])
    tabs = records(mm, state)
    sale = tabs["sales"][0]
    sale["sold"] = sale["wanted"] = 40
    del tabs["orders"][3]
    with pytest.raises(SchemaErrors) as e:
        mm.load(SIX, tabs, mm_defaults["config"], mm_defaults["data"])
    assert "tab 'orders', column 'player': 'day 1: no row for Di' is not one row for every player every day" in str(e.value)
    tabs = records(mm, state)
    tabs["sales"][0].update(sold=40, wanted=40)
    with pytest.raises(SchemaErrors, match=r"tab 'sales', row 2, column 'sold': 40 is not a sale from the market's stock"):
        mm.load(SIX, tabs, mm_defaults["config"], mm_defaults["data"])


def test_a_host_edit_that_buys_an_extra_good_without_the_coins_names_tab_row_and_column(mm, mm_defaults):
    state = new(mm, mm_defaults, taste_rows=[], starting_coins=4)
    tabs = records(mm, day(mm, state, Ada=gen("cape", "wand", "rabbit")).state)
    tabs["orders"][0]["extra good"] = "wand"
    config = {**mm_defaults["config"], "starting coins": 4}
    with pytest.raises(SchemaErrors, match="tab 'orders', row 2, column 'extra good': 'wand' is not a good bought "
                                           r"for 5 coins \(Ada held 4\)"):
        mm.load(SIX, tabs, config, {**mm_defaults["data"], "tastes": []})


def test_editing_the_tastes_changes_the_days_to_come_not_the_past(mm, mm_defaults):
    state = play_in_memory(mm, SIX, 5, mm_defaults["config"], mm_defaults["data"])
    past = state.history
    data = {**mm_defaults["data"], "tastes": tastes(("Jackie", 1, "wand", "most", "all"))}
    loaded = mm.load(SIX, records(mm, state), mm_defaults["config"], data)
    assert [d.sales for d in loaded.history] == [d.sales for d in past] and loaded.now == state.now
    assert {t.magician for t in loaded.settings.tastes} == {"Jackie"}


# ---- rules data and config ---------------------------------------------------------------------------


def test_the_sample_tastes_are_three_for_each_of_the_seven_magicians_and_marked_sample(mm, mm_defaults):
    with open(TEMPLATES / "magicians-market" / "tastes.csv", newline="") as f:
        shipped = list(csv.DictReader(f))
    assert {r["note"] for r in shipped} == {"sample"} and "SAMPLE" in mm.data_tabs[2].doc
    state = new(mm, mm_defaults)
    by_magician = {m: sorted(t.number for t in state.settings.tastes if t.magician == m)
                   for m in state.settings.magician_names}
    assert by_magician == {m: [1, 2, 3] for m in ("Flavio", "Jackie", "Julius", "Orange And Green", "Pierre", "Blaire",
                                                  "The Strange")}


def test_a_taste_outside_the_vocabulary_names_tab_row_column_and_what_is_allowed(mm, mm_defaults):
    bad = tastes(("Jackie", 1, "wand", "cheapest", "2"), ("Jackie", 2, "wand", "most", "lots"),
                 ("Houdini", 1, "wand", "most", "2"), ("Jackie", 1, "copper", "most copper", "2"),
                 ("Pierre", 1, "cape", "most", "1"), ("Pierre", 1, "wand", "most", "1"))
    with pytest.raises(SchemaErrors) as e:
        new(mm, mm_defaults, taste_rows=bad)
    text = str(e.value)
    assert "tab 'tastes', row 2, column 'market': 'cheapest' is not a market selector: most, fewest, median, " \
           "smallest unique or largest unique" in text and "magicians: Flavio, Jackie" in text
    assert "tab 'tastes', row 3, column 'quantity': 'lots' is not a quantity rule: a whole number (e.g. 3), a share " \
           "of the chosen market's stock rounded up (half, third, quarter, or a fraction like 2/3), or all" in text
    assert "tab 'tastes', row 4, column 'magician': 'Houdini'" in text
    assert "row 5, column 'good': 'copper'" in text and "row 5, column 'market'" in text and "('copper' is not a good" in text
    assert "tab 'tastes', row 7, column 'taste': 1 is not a taste number Pierre has not used" in text


def test_a_name_two_goods_or_two_magicians_share_is_refused(mm, mm_defaults):
    goods = [dict(r) for r in mm_defaults["data"]["goods"]]
    goods[0]["also called"] = "wand"
    with pytest.raises(SchemaErrors, match="tab 'goods', row 2, column 'also called': 'wand' is not a name no other row uses"):
        mm.setup(SIX, 1, mm_defaults["config"], {**mm_defaults["data"], "goods": goods})


def test_config_names_must_be_players_and_the_start_price_within_its_bounds(mm, mm_defaults):
    config = {**mm_defaults["config"], "starting price": 20, "extra token of life": "Zed",
              "elimination candidates": "Ada, Bo"}
    problems = mm.check_config(config, SIX)
    assert any("'starting price' <= 'highest price'" in p for p in problems)
    assert any("config 'extra token of life': 'Zed' is not a player" in p for p in problems)
    assert any("config 'elimination candidates': 3 different player(s)" in p for p in problems)
    assert mm.check_config(mm_defaults["config"], SIX) == []
