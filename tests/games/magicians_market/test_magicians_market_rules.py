"""Magician's Market's rules as pure functions: tastes, shopping, prices, auction, shows, results."""

from fractions import Fraction

import pytest

from sheets_host.games.magicians_market import rules
from sheets_host.games.magicians_market.rules import (Payouts, Pick, Quantity, Sale, Selector, Taste, Tie,
                                                      elimination_candidates, performance, shop, show_for,
                                                      tokens_of_life)
from sheets_host.games.magicians_market.tastes import quantity_text, read_quantity, read_selector, selector_text
from sheets_host.kit.cells import CellError

GOODS = ("cape", "crystal ball", "deck", "rabbit", "pigeon", "wand")
PAYOUTS = Payouts(per_kind=3, per_most=2, every_good=10)
MAGICIANS = ["Flavio", "Jackie", "Julius", "Orange And Green", "Pierre", "Blaire", "The Strange"]
LISTED = {m: i for i, m in enumerate(MAGICIANS)}


def stock(**counts):
    return {g: counts.get(g.replace(" ", "_"), 0) for g in GOODS}


def markets(good, **amounts):
    return {player: stock(**{good.replace(" ", "_"): n}) for player, n in amounts.items()}


def choose(pick, good="wand", yesterday=(), selector_good=None, magician=None, **amounts):
    return Selector(pick, selector_good, magician).choose(markets(good, **amounts), good, yesterday)


# ---- shows ------------------------------------------------------------------------------------


def test_the_worked_example_jackie_with_2_wands_6_crystal_balls_and_a_cape_earns_21_coins():
    jackie = stock(wand=2, crystal_ball=6, cape=1)
    assert performance(jackie, PAYOUTS) == 3 * 3 + 2 * 6 == 21
    assert performance(jackie, PAYOUTS) - 13 == 8  # "an 8 coin profit from the bid"


def test_a_show_with_every_good_earns_the_10_coin_bonus():
    assert performance(stock(cape=1, crystal_ball=1, deck=1, rabbit=1, pigeon=1, wand=3), PAYOUTS) == 18 + 6 + 10


def test_a_magician_carrying_nothing_earns_nothing():
    assert performance(stock(), PAYOUTS) == 0


def test_a_tie_for_the_most_carried_good_counts_that_amount_once():
    assert performance(stock(cape=4, wand=4), PAYOUTS) == 6 + 8


# ---- market selectors -------------------------------------------------------------------------


def test_most_picks_the_one_market_holding_the_most():
    assert choose(Pick.MOST, Ada=1, Bo=4, Cy=2) == "Bo"


def test_fewest_ignores_markets_holding_none():
    assert choose(Pick.FEWEST, Ada=0, Bo=3, Cy=2) == "Cy"


def test_median_ignores_zeros_and_takes_the_higher_middle_of_an_even_count():
    assert choose(Pick.MEDIAN, Ada=0, Bo=1, Cy=5, Di=9) == "Cy"  # 1 5 9: the middle is 5
    assert choose(Pick.MEDIAN, Ada=1, Bo=2, Cy=5, Di=9, Ed=0) == "Cy"  # 1 2 5 9: the higher middle is 5


def test_smallest_and_largest_unique_ignore_zeros():
    assert choose(Pick.SMALLEST_UNIQUE, Ada=0, Bo=1, Cy=1, Di=3, Ed=4) == "Di"
    assert choose(Pick.LARGEST_UNIQUE, Ada=5, Bo=5, Cy=3, Di=1, Ed=0) == "Cy"


@pytest.mark.parametrize("pick, amounts", [
    (Pick.MOST, {"Ada": 3, "Bo": 3, "Cy": 1}),
    (Pick.FEWEST, {"Ada": 1, "Bo": 1, "Cy": 0}),
    (Pick.MEDIAN, {"Ada": 1, "Bo": 2, "Cy": 2}),
    (Pick.SMALLEST_UNIQUE, {"Ada": 1, "Bo": 1, "Cy": 2, "Di": 2}),
    (Pick.LARGEST_UNIQUE, {"Ada": 0, "Bo": 0}),
    (Pick.MOST, {"Ada": 0, "Bo": 0}),
])
def test_a_tie_or_no_market_means_the_taste_buys_nothing(pick, amounts):
    assert choose(pick, **amounts) is None


def test_a_selector_may_compare_another_good_than_the_one_bought():
    m = {"Ada": stock(rabbit=5, wand=1), "Bo": stock(rabbit=1, wand=4)}
    assert Selector(Pick.MOST, "rabbit").choose(m, "wand", ()) == "Ada"


def test_sold_yesterday_picks_the_one_market_that_sold_that_good_to_that_magician():
    yesterday = [Sale("Jackie", 3, "wand", "Bo", 2, 2), Sale("Flavio", 1, "wand", "Cy", 2, 2),
                 Sale("Jackie", 1, "cape", "Di", 1, 1)]
    assert choose(Pick.SOLD, "wand", yesterday, magician="Jackie", Ada=1, Bo=1, Cy=1, Di=1) == "Bo"
    assert choose(Pick.SOLD, "rabbit", yesterday, "cape", "Jackie", Ada=1, Bo=1, Cy=1, Di=1) == "Di"
    assert choose(Pick.SOLD, "wand", yesterday, magician="Pierre", Ada=1, Bo=1) is None  # nobody sold to Pierre
    two = yesterday + [Sale("Jackie", 2, "wand", "Ada", 1, 1)]
    assert choose(Pick.SOLD, "wand", two, magician="Jackie", Ada=1, Bo=1) is None  # two sellers: a tie


# ---- quantities and shopping --------------------------------------------------------------------


@pytest.mark.parametrize("rule, stock_, wanted", [(Quantity(3), 1, 3), (Quantity(share=Fraction(1, 2)), 5, 3),
                                                  (Quantity(share=Fraction(1, 3)), 4, 2),
                                                  (Quantity(share=Fraction(2, 3)), 4, 3),
                                                  (Quantity(share=Fraction(1)), 7, 7),
                                                  (Quantity(share=Fraction(1, 2)), 0, 0)])
def test_quantities_are_a_number_or_a_share_of_the_chosen_market_s_stock_rounded_up(rule, stock_, wanted):
    assert rule.wanted(stock_) == wanted


def taste(magician, number, good, pick, quantity, selector_good=None, of=None):
    return Taste(magician, number, good, Selector(pick, selector_good, of), quantity)


def test_the_magician_buying_fewer_goes_first_and_the_other_takes_what_is_left():
    m = markets("wand", Ada=5, Bo=1)
    tastes = [taste("Jackie", 1, "wand", Pick.MOST, Quantity(4)), taste("Flavio", 1, "wand", Pick.MOST, Quantity(2))]
    sales, notes = shop(m, tastes, (), LISTED)
    assert sales == [Sale("Flavio", 1, "wand", "Ada", 2, 2), Sale("Jackie", 1, "wand", "Ada", 4, 3)]


def test_the_quantity_a_taste_attempts_is_set_before_anyone_buys():
    m = markets("wand", Ada=6, Bo=1)
    tastes = [taste("Jackie", 1, "wand", Pick.MOST, Quantity(share=Fraction(1))),  # all: 6, from 6 in stock
              taste("Flavio", 1, "wand", Pick.MOST, Quantity(2))]
    sales, _ = shop(m, tastes, (), LISTED)
    assert sales[1] == Sale("Jackie", 1, "wand", "Ada", 6, 4)


def test_when_stock_runs_out_a_later_buyer_gets_nothing_and_it_is_noted():
    m = markets("wand", Ada=2, Bo=1)
    tastes = [taste("Jackie", 1, "wand", Pick.MOST, Quantity(2)), taste("Flavio", 1, "wand", Pick.MOST, Quantity(3))]
    sales, notes = shop(m, tastes, (), LISTED)
    assert sales == [Sale("Jackie", 1, "wand", "Ada", 2, 2)]
    assert "Flavio (taste 1) wanted 3 wand from Ada, who had none left" in notes


def test_equal_quantities_go_higher_numbered_taste_first():
    m = markets("wand", Ada=3, Bo=1)
    tastes = [taste("Jackie", 3, "wand", Pick.MOST, Quantity(2)), taste("Flavio", 2, "wand", Pick.MOST, Quantity(2))]
    sales, _ = shop(m, tastes, (), LISTED)
    assert [(s.magician, s.sold) for s in sales] == [("Jackie", 2), ("Flavio", 1)]


def test_equal_quantity_and_taste_number_go_bottom_to_top_in_the_magicians_tab():
    m = markets("wand", Ada=3, Bo=1)
    tastes = [taste("Flavio", 1, "wand", Pick.MOST, Quantity(2)), taste("Blaire", 1, "wand", Pick.MOST, Quantity(2))]
    sales, _ = shop(m, tastes, (), LISTED)
    assert [(s.magician, s.sold) for s in sales] == [("Blaire", 2), ("Flavio", 1)]


def test_every_taste_picks_its_market_from_the_stock_as_the_visit_begins():
    # Flavio's purchase empties Ada's wands, yet Jackie's "most" still sees Ada as the market.
    m = markets("wand", Ada=3, Bo=2)
    tastes = [taste("Flavio", 1, "wand", Pick.MOST, Quantity(3)), taste("Jackie", 1, "wand", Pick.MOST, Quantity(4))]
    sales, notes = shop(m, tastes, (), LISTED)
    assert sales == [Sale("Flavio", 1, "wand", "Ada", 3, 3)]
    assert any("Jackie (taste 1) wanted 4 wand from Ada" in n for n in notes)


def test_a_taste_that_finds_no_single_market_is_noted_for_the_host():
    _, notes = shop(markets("wand", Ada=1, Bo=1), [taste("Pierre", 2, "wand", Pick.MEDIAN, Quantity(1))], (), LISTED)
    assert notes == ["Pierre (taste 2) found no single market"]


# ---- prices ---------------------------------------------------------------------------------------


def test_each_good_not_named_rises_by_one_per_generating_player_up_to_15():
    prices = {g: 1 for g in GOODS} | {"deck": 14}
    named = [("cape", "wand", "rabbit"), ("cape", "wand", "pigeon")]
    assert rules.raise_prices(prices, named, 15) == {"cape": 1, "crystal ball": 3, "deck": 15, "rabbit": 2,
                                                      "pigeon": 2, "wand": 1}


def test_each_transaction_lowers_its_good_s_price_by_the_number_sold_down_to_1():
    sales = [Sale("Jackie", 1, "wand", "Ada", 3, 3), Sale("Flavio", 1, "wand", "Bo", 2, 2),
             Sale("Julius", 1, "deck", "Bo", 20, 20)]
    assert rules.lower_prices({"wand": 9, "deck": 15}, sales, 1) == {"wand": 4, "deck": 1}


# ---- auction --------------------------------------------------------------------------------------


def test_the_sole_highest_bid_gets_the_show_a_tie_or_no_bid_gets_none():
    assert show_for({"Ada": 3, "Bo": 8, "Cy": 5}) == "Bo"
    assert show_for({"Ada": 8, "Bo": 8, "Cy": 5}) is None
    assert show_for({}) is None


def test_a_bid_counts_only_up_to_the_coins_held_at_the_auction():
    assert rules.bid_counts(13, 13) and not rules.bid_counts(14, 13)


# ---- end of the game --------------------------------------------------------------------------------


def test_the_top_four_earn_tokens_of_life():
    winners, edge = tokens_of_life({"Ada": 9, "Bo": 8, "Cy": 7, "Di": 6, "Ed": 5})
    assert winners == ["Ada", "Bo", "Cy", "Di"] and edge is None


def test_a_tie_across_fourth_place_gives_that_group_no_token_of_life():
    winners, edge = tokens_of_life({"Ada": 9, "Bo": 8, "Cy": 7, "Di": 7, "Ed": 7})
    assert winners == ["Ada", "Bo"] and edge == Tie(("Cy", "Di", "Ed"), (3, 4))


def test_five_tied_for_the_most_coins_earn_no_token_of_life():
    assert tokens_of_life({p: 20 for p in ("Ada", "Bo", "Cy", "Di", "Ed")})[0] == []


def test_four_tied_exactly_all_earn_a_token_of_life():
    assert tokens_of_life({"Ada": 9, "Bo": 9, "Cy": 9, "Di": 9, "Ed": 1}) == (["Ada", "Bo", "Cy", "Di"], None)


def test_the_three_poorest_are_elimination_candidates_numbered_by_coins_1_the_richest_of_them():
    numbered, ties = elimination_candidates({"Ada": 30, "Bo": 2, "Cy": 9, "Di": 5, "Ed": 12})
    assert numbered == {"Bo": 3, "Di": 2, "Cy": 1} and ties == []


def test_more_than_three_tied_among_the_poorest_are_reported_for_the_host():
    numbered, ties = elimination_candidates({"Ada": 30, "Bo": 0, "Cy": 0, "Di": 0, "Ed": 0})
    assert numbered == {} and ties == [Tie(("Bo", "Cy", "Di", "Ed"), (3, 2, 1))]


def test_a_tie_inside_the_three_leaves_only_the_numbering_to_the_host():
    numbered, ties = elimination_candidates({"Ada": 30, "Bo": 1, "Cy": 1, "Di": 7, "Ed": 9})
    assert numbered == {"Di": 1} and ties == [Tie(("Bo", "Cy"), (3, 2))]


def test_the_host_s_order_of_tied_candidates_must_follow_the_coins():
    coins = {"Ada": 30, "Bo": 0, "Cy": 0, "Di": 0, "Ed": 0}
    assert elimination_candidates(coins, ["Ed", "Cy", "Bo"]) == ({"Ed": 1, "Cy": 2, "Bo": 3}, [])
    with pytest.raises(ValueError, match="follows the coins"):
        elimination_candidates(coins, ["Ada", "Cy", "Bo"])
    with pytest.raises(ValueError, match="3 different players"):
        elimination_candidates(coins, ["Ed", "Cy"])


def test_garnets_are_one_per_100_coins():
    assert [rules.garnets(c) for c in (0, 99, 100, 250)] == [0, 0, 1, 2]


# ---- the tastes vocabulary --------------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("most", Selector(Pick.MOST)),
    (" Fewest ", Selector(Pick.FEWEST)),
    ("least", Selector(Pick.FEWEST)),
    ("MEDIAN", Selector(Pick.MEDIAN)),
    ("smallest unique", Selector(Pick.SMALLEST_UNIQUE)),
    ("largest   unique rabbits", Selector(Pick.LARGEST_UNIQUE, "rabbit")),
    ("most of the decks", None),
    ("most of deck", Selector(Pick.MOST, "deck")),
    ("sold to Jackie yesterday", Selector(Pick.SOLD, None, "Jackie")),
    ("sold crystal balls to the strange yesterday", Selector(Pick.SOLD, "crystal ball", "The Strange")),
])
def test_market_selectors_read_every_form_of_the_vocabulary(text, expected):
    aliases = {g + "s": g for g in GOODS}
    if expected is None:
        with pytest.raises(ValueError):
            read_selector(text, GOODS, aliases, MAGICIANS)
    else:
        assert read_selector(text, GOODS, aliases, MAGICIANS) == expected
        assert read_selector(selector_text(expected), GOODS, aliases, MAGICIANS) == expected


def test_a_selector_naming_an_unknown_good_or_magician_says_what_is_allowed():
    with pytest.raises(CellError, match="'copper' is not a good"):
        read_selector("most copper", GOODS, {}, MAGICIANS)
    with pytest.raises(CellError, match="is not a magician.*allowed: Flavio"):
        read_selector("sold to Houdini yesterday", GOODS, {}, MAGICIANS)
    with pytest.raises(ValueError):
        read_selector("cheapest", GOODS, {}, MAGICIANS)


@pytest.mark.parametrize("text, expected", [("3", Quantity(3)), (3.0, Quantity(3)), ("all", Quantity(share=Fraction(1))),
                                            ("Half", Quantity(share=Fraction(1, 2))),
                                            ("a third", Quantity(share=Fraction(1, 3))),
                                            ("2 / 3", Quantity(share=Fraction(2, 3))),
                                            ("quarter", Quantity(share=Fraction(1, 4)))])
def test_quantity_rules_read_a_number_a_share_or_all(text, expected):
    assert read_quantity(text) == expected
    assert read_quantity(quantity_text(expected)) == expected


@pytest.mark.parametrize("text", ["0", "-2", "3/2", "0/4", "lots", "", "1.5"])
def test_a_quantity_that_is_not_in_the_vocabulary_is_refused(text):
    with pytest.raises(ValueError):
        read_quantity(text)
