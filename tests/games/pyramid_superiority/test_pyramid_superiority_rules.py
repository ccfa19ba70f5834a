"""Pyramid Superiority's rules, one ruling per test (docs/games/pyramid-superiority.md)."""

import random

import pytest

from sheets_host.games.pyramid_superiority import rules
from sheets_host.games.pyramid_superiority.rules import (BY_NAME, Cell, Corner, Group, Piece, Purse, Type, bid_winner,
                                                         buildable, default_position, groups, overall_rates,
                                                         score_round, star_corner, top_view, why_not_here)

G, F, W = Type.GRASS, Type.FIRE, Type.WATER
TL, TR, BL, BR = Corner.TOP_LEFT, Corner.TOP_RIGHT, Corner.BOTTOM_LEFT, Corner.BOTTOM_RIGHT
TYPES = {"g": G, "f": F, "w": W}


def at(*names):
    return [BY_NAME[n] for n in names]


def built(*names, piece=Piece((W, W, G, F))):
    return {p: piece for p in at(*names)}


# ---- types and pieces ------------------------------------------------------------------------


def test_fire_beats_grass_water_beats_fire_grass_beats_water():
    assert F.stronger_than(G) and W.stronger_than(F) and G.stronger_than(W)
    assert not G.stronger_than(F) and not F.stronger_than(W) and not W.stronger_than(G)
    assert [t.beats for t in (G, F, W)] == [W, G, F]


def test_a_dealt_piece_has_two_cells_of_its_majority_and_one_of_each_other_type_in_a_drawn_arrangement():
    rng = random.Random(1)
    for kind in Type:
        pieces = [rules.deal_piece(kind, rng.shuffle) for _ in range(200)]
        assert all(rules.is_piece_of(p.cells, kind) and p.majority is kind and p.star is None for p in pieces)
        assert len({p.cells for p in pieces}) == 12  # every arrangement of 2+1+1 cells turns up


def test_rotating_a_quarter_turn_clockwise_moves_each_cell_and_the_star_one_corner_on():
    piece = Piece((G, F, W, G), star=TL)  # grass fire / water grass, star on the grass top-left
    turned = piece.rotated(1)
    assert turned.cells == (W, G, G, F)  # water grass / grass fire: the left column became the top row
    assert turned.star is TR and turned.cell(turned.star) is G
    assert piece.rotated(2) == Piece((G, W, F, G), star=BR)
    assert piece.rotated(3) == turned.rotated(2)


def test_four_quarter_turns_give_the_piece_back_and_turning_never_reflects():
    piece = Piece((G, G, F, W), star=TL)  # grass grass / fire water
    assert piece.rotated(4) == piece
    mirror = Piece((G, G, W, F), star=TR)  # grass grass / water fire: its left-right reflection
    assert all(piece.rotated(k) != mirror for k in range(4))


def test_the_default_star_is_the_first_cell_of_the_type_in_reading_order():
    piece = Piece((F, W, G, F))
    assert [piece.first_cell_of(t) for t in (G, F, W)] == [BL, TL, TR]


# ---- bids and stars ----------------------------------------------------------------------------


def test_the_highest_bid_wins():
    assert bid_winner({"g": 3, "f": 7, "w": 1}, TYPES, G) == "f"


def test_two_tied_for_the_highest_bid_the_stronger_type_wins():
    # The text's example: grass and fire tied, the fire guest wins.
    assert bid_winner({"g": 5, "f": 5, "w": 1}, TYPES, G) == "f"
    assert bid_winner({"g": 5, "f": 0, "w": 5}, TYPES, G) == "g"
    assert bid_winner({"g": 0, "f": 4, "w": 4}, TYPES, W) == "w"


def test_three_tied_the_type_stronger_than_the_previous_winner_of_the_contest_wins():
    tied = {"g": 2, "f": 2, "w": 2}
    assert bid_winner(tied, TYPES, W) == "g"  # the text's example: after a water winner, grass wins
    assert bid_winner(tied, TYPES, G) == "f"  # before round 1 the previous winner counts as grass
    assert bid_winner(tied, TYPES, F) == "w"


def test_a_bid_above_the_bidders_chips_is_invalid_and_counts_as_0():
    assert rules.bid_counted(21, 20) == 0
    assert rules.bid_counted(20, 20) == 20


def test_the_star_goes_where_at_least_two_guests_tried():
    assert star_corner([BL, TR, BL]) is BL
    assert star_corner([TR, TR, TR]) is TR


def test_with_three_different_attempts_the_star_goes_on_the_cell_nobody_tried():
    # The text's example: top-left, bottom-left and bottom-right tried: the top-right gets the star.
    assert star_corner([TL, BL, BR]) is TR


def test_garnets_pay_only_once_the_chips_are_exhausted_one_garnet_per_chip():
    assert Purse(10, 4).pay(6) == Purse(4, 4)
    assert Purse(3, 4).pay(5) == Purse(0, 2)
    assert Purse(3, 4).total == 7


# ---- the pyramid -------------------------------------------------------------------------------


def test_positions_are_named_in_reading_order_per_layer():
    assert [p.name for p in rules.POSITIONS] == [f"base {n}" for n in range(1, 10)] + \
        [f"middle {n}" for n in range(1, 5)] + ["apex"]


def test_the_first_piece_goes_anywhere_on_the_base():
    assert buildable({}) == at(*(f"base {n}" for n in range(1, 10)))


def test_a_later_base_piece_must_share_an_edge_with_a_base_piece():
    pyramid = built("base 5")
    assert buildable(pyramid) == at("base 2", "base 4", "base 6", "base 8")
    assert "shares no edge with a base piece" in why_not_here(pyramid, BY_NAME["base 1"])  # only a corner


def test_an_upper_piece_needs_all_four_supporting_pieces():
    pyramid = built("base 1", "base 2", "base 4")
    assert why_not_here(pyramid, BY_NAME["middle 1"]) == \
        "middle 1 needs base 1, base 2, base 4, base 5 below it; base 5 is empty"
    pyramid = built("base 1", "base 2", "base 4", "base 5")
    assert why_not_here(pyramid, BY_NAME["middle 1"]) is None
    assert BY_NAME["middle 2"] not in buildable(pyramid)


def test_an_upper_piece_need_not_touch_another_upper_piece():
    pyramid = built(*(f"base {n}" for n in range(1, 10)), "middle 1")
    assert why_not_here(pyramid, BY_NAME["middle 4"]) is None  # only diagonal to middle 1


def test_the_apex_needs_the_four_middle_pieces():
    pyramid = built(*(f"base {n}" for n in range(1, 10)), "middle 1", "middle 2", "middle 3")
    assert "middle 4 is empty" in why_not_here(pyramid, BY_NAME["apex"])
    assert why_not_here({**pyramid, **built("middle 4")}, BY_NAME["apex"]) is None


def test_no_piece_goes_on_an_occupied_position():
    pyramid = built("base 5", "base 6")
    assert why_not_here(pyramid, BY_NAME["base 6"]) == "base 6 is already built"


def test_the_default_position_is_the_first_buildable_of_the_lowest_layer_in_reading_order():
    assert default_position({}).name == "base 1"
    assert default_position(built("base 5")).name == "base 2"
    # The middle is buildable here, but the base still has room: the base comes first.
    assert default_position(built("base 1", "base 2", "base 4", "base 5")).name == "base 3"
    assert default_position(built(*(f"base {n}" for n in range(1, 10)), "middle 1")).name == "middle 2"


def test_upper_pieces_are_centred_on_the_four_below_and_cover_them_from_the_top():
    pyramid = built(*(f"base {n}" for n in range(1, 10)), piece=Piece((W, W, G, F)))
    pyramid[BY_NAME["middle 2"]] = Piece((F, F, F, G), star=BR)  # an odd piece shows which cells it covers
    grid = top_view(pyramid)
    assert [[c.type for c in row[3:5]] for row in grid[1:3]] == [[F, F], [F, G]]
    assert grid[2][4] == Cell(G, starred=True)
    assert grid[0][3].type is W and grid[3][3].type is F  # outside it, the base shows
    pyramid[BY_NAME["apex"]] = Piece((G, G, G, G))
    assert {(r, c) for r in range(6) for c in range(6) if top_view(pyramid)[r][c] == Cell(G)} >= \
        {(2, 2), (2, 3), (3, 2), (3, 3)}


def test_empty_cells_belong_to_nobody():
    assert groups(top_view({})) == []
    assert sum(g.size for g in groups(top_view(built("base 1")))) == 4


# ---- groups and scoring --------------------------------------------------------------------------


def grid_of(*rows):
    """A top view from text: G F W cells, * after a cell stars it, . is empty."""
    out = []
    for row in rows:
        cells, tokens = [], row.split()
        for t in tokens:
            cells.append(None if t == "." else Cell(TYPES[t[0].lower()], t.endswith("*")))
        out.append(cells)
    return out


def test_groups_connect_orthogonally_never_diagonally():
    grid = grid_of("G F", "F G")
    assert sorted(g.size for g in groups(grid)) == [1, 1, 1, 1]
    assert [g.size for g in groups(grid_of("G G", "F G"))][0] == 3


def test_groups_connect_across_layers_as_seen_from_the_top():
    base = built(*(f"base {n}" for n in range(1, 10)), piece=Piece((W, F, W, G)))
    # Middle 1 covers cells (1..2, 1..2); its fire cell (2, 2) touches base 5's fire cell (2, 3).
    base[BY_NAME["middle 1"]] = Piece((G, W, G, F))
    fire = [g for g in groups(top_view(base)) if g.type is F]
    joined = next(g for g in fire if (2, 2) in g.cells)
    assert (2, 3) in joined.cells  # the middle piece's fire cell joins the base piece's fire cell


def test_a_star_counts_as_three_cells():
    (group,) = groups(grid_of("G* G"))
    assert group.size == 4
    assert score_round([group])[G].cells == 4


def test_the_texts_worked_example_scores_grass_32_fire_20_water_15():
    # grass: 3 (+2 stars), 3, 1; fire: 6, 4 (+1 star), 2; water: 3, 3, 3, 3 -- as in the text.
    grid = grid_of("G* G* G  F  F  F",
                   "W  W  W  F  F  F",
                   "F  F  .  W  W  W",
                   "G  G  G  .  F* F",
                   "W  W  W  .  F  F",
                   ".  G  .  W  W  W")
    found = groups(grid)
    sizes = {t: sorted((g.size for g in found if g.type is t), reverse=True) for t in Type}
    assert sizes == {G: [7, 3, 1], F: [6, 6, 2], W: [3, 3, 3, 3]}
    scores = score_round(found)
    assert (scores[G].cells, scores[F].cells, scores[W].cells) == (11, 14, 12)
    assert (scores[G].largest, scores[F].largest, scores[W].largest) == (7, 6, 3)
    assert (scores[G].overall, scores[F].overall, scores[W].overall) == (14, 0, 0)
    assert (scores[G].total, scores[F].total, scores[W].total) == (32, 20, 15)


def test_only_one_largest_group_of_a_type_counts():
    scores = score_round([Group(W, 3, ()), Group(W, 3, ()), Group(G, 9, ())])
    assert scores[W].largest == 3


def test_the_largest_group_overall_scores_2_per_cell_and_the_second_largest_1():
    scores = score_round([Group(G, 5, ()), Group(F, 4, ()), Group(W, 2, ())])
    assert (scores[G].overall, scores[F].overall, scores[W].overall) == (10, 4, 0)


def test_the_largest_and_second_largest_groups_may_belong_to_the_same_player():
    scores = score_round([Group(G, 5, ()), Group(G, 4, ()), Group(W, 2, ())])
    assert scores[G].overall == 5 * 2 + 4 * 1


def test_overall_ties_take_the_lower_reward():
    assert overall_rates([6, 6, 2]) == [1, 1, 0]  # two tied for largest: 1 each, no second
    assert overall_rates([6, 6, 6, 2]) == [0, 0, 0, 0]  # three tied for largest: nothing
    assert overall_rates([7, 6, 6]) == [2, 0, 0]  # two tied for second: nothing


# ---- the end -------------------------------------------------------------------------------------


def test_the_sole_most_gets_the_bonus_and_a_tie_gets_nothing():
    assert rules.sole_most({"a": 5, "b": 3}) == "a"
    assert rules.sole_most({"a": 5, "b": 5, "c": 1}) is None


@pytest.mark.parametrize("points, winner, loser", [
    ({"g": 30, "f": 20, "w": 10}, "g", "w"),
    ({"g": 30, "f": 30, "w": 10}, "f", "w"),  # two tied for most: the stronger type wins
    ({"g": 30, "f": 10, "w": 10}, "g", "f"),  # two tied for least: the weaker type loses
    ({"g": 10, "f": 10, "w": 10}, None, None),  # all three tied: the host settles
])
def test_winner_and_loser_with_ties_of_two_settled_by_type(points, winner, loser):
    assert rules.best(points, TYPES) == winner and rules.worst(points, TYPES) == loser
