"""Wind Guide Me's rules, one ruling per test (docs/games/wind-guide-me.md)."""

import math

import pytest

from sheets_host.games.wind_guide_me import rules
from sheets_host.games.wind_guide_me.rules import Request, Stone, activate, place_stones

SEATS = ("Ann", "Bo", "Cy", "Di", "Ed")  # Ann sits at position 1, Bo at 2, ... Ed at 5


def owners(board):
    return {p: (s.player + ("*" if s.fake else "")) for p, s in sorted(board.items())}


def board(**powers_by_position):
    return {int(k[1:]): Stone("x", v) for k, v in powers_by_position.items()}


# ---- placement ---------------------------------------------------------------------------


def test_a_stone_alone_on_an_empty_position_takes_it():
    assert owners(place_stones(SEATS, {}, [Request("Cy", 4, 2)])) == {4: "Cy"}


def test_first_clockwise_seat_wins_a_contested_position_and_losers_move_clockwise():
    # Position 3: Di's seat is 1 step clockwise, Ed's 2, Ann's 3. Di takes it; Ed then Ann move on.
    placed = place_stones(SEATS, {}, [Request("Ann", 3, 1), Request("Ed", 3, 1), Request("Di", 3, 1)])
    assert owners(placed) == {3: "Di", 4: "Ed", 5: "Ann"}


def test_a_seat_on_the_position_itself_counts_as_first_clockwise():
    placed = place_stones(SEATS, {}, [Request("Di", 2, 1), Request("Bo", 2, 1)])
    assert owners(placed) == {2: "Bo", 3: "Di"}


def test_losers_move_only_after_every_first_choice_is_settled():
    # Cy loses position 2 to Bo; Di asked for 3 alone and keeps it, so Cy goes on to 4.
    placed = place_stones(SEATS, {}, [Request("Ann", 1, 1), Request("Bo", 2, 1), Request("Cy", 2, 1),
                                      Request("Di", 3, 1)])
    assert owners(placed) == {1: "Ann", 2: "Bo", 3: "Di", 4: "Cy"}


def test_a_stone_asking_for_an_occupied_position_takes_the_next_free_one_clockwise():
    standing = {2: Stone("Ann", 3), 3: Stone("Cy", 4)}
    assert owners(place_stones(SEATS, standing, [Request("Bo", 2, 5)]))[4] == "Bo"


def test_moved_stones_go_in_order_of_the_position_they_asked_for():
    standing = {1: Stone("Ann", 1), 2: Stone("Bo", 1), 3: Stone("Cy", 1)}
    placed = place_stones(SEATS, standing, [Request("Ed", 3, 2), Request("Di", 1, 2)])
    assert owners(placed)[4] == "Di" and owners(placed)[5] == "Ed"


def test_moving_wraps_round_from_position_5_to_1():
    standing = {5: Stone("Ed", 2), 2: Stone("Bo", 2)}
    assert owners(place_stones(SEATS, standing, [Request("Di", 5, 1)]))[1] == "Di"


def test_a_fake_yields_when_a_real_stone_finds_the_site_full_only_because_of_it():
    standing = {1: Stone("Ann", 2), 2: Stone("Bo", 2), 3: Stone("Cy", 6, fake=True)}
    placed = place_stones(SEATS, standing, [Request("Cy", 1, 4), Request("Di", 4, 1), Request("Ed", 5, 1)])
    assert owners(placed) == {1: "Ann", 2: "Bo", 3: "Cy", 4: "Di", 5: "Ed"}
    assert not placed[3].fake and placed[3].power == 4


def test_a_fake_that_finds_no_room_is_not_placed():
    standing = {p: Stone(n, 1) for p, n in zip((1, 2, 3, 4), SEATS)}
    placed = place_stones(SEATS, standing, [Request("Ed", 5, 3), Request("Di", 5, 7, fake=True)])
    assert owners(placed)[5] == "Ed" and not any(s.fake for s in placed.values())


def test_fake_stones_follow_the_normal_placing_rules():
    placed = place_stones(SEATS, {}, [Request("Ann", 2, 3, fake=True), Request("Bo", 2, 5)])
    assert owners(placed) == {2: "Bo", 3: "Ann*"}


def test_fakes_disappear_once_their_site_holds_four_stones():
    three = {1: Stone("Ann", 1), 2: Stone("Bo", 1, fake=True), 3: Stone("Cy", 1)}
    assert rules.fakes_disappear(three) == three
    four = {**three, 4: Stone("Di", 1)}
    assert sorted(rules.fakes_disappear(four)) == [1, 3, 4]


# ---- activation ------------------------------------------------------------------------------


def test_position_one_is_the_top_and_positions_go_clockwise():
    assert rules.position_angle(1) == pytest.approx(math.pi / 2)
    assert rules.position_angle(2) == pytest.approx(math.radians(18))
    assert math.cos(rules.position_angle(5)) == pytest.approx(math.cos(math.radians(162)))
    assert math.sin(rules.position_angle(5)) == pytest.approx(math.sin(math.radians(162)))


def test_a_site_over_25_power_collapses_and_25_does_not():
    assert activate(board(p1=7, p2=7, p3=6, p4=6), 25).failed == "26 power is over 25"
    assert activate(board(p1=7, p2=6, p3=6, p4=6), 25).failed is None


def test_five_stones_of_equal_power_fail_but_four_do_not():
    assert "all five" in activate(board(p1=3, p2=3, p3=3, p4=3, p5=3), 25).failed
    assert activate(board(p1=3, p2=3, p3=3, p4=3), 25).failed is None


def test_a_lone_stone_gives_its_power_in_its_direction():
    a = activate(board(p2=4), 25)
    assert a.length == 4 and (a.x, a.y) == pytest.approx((4 * math.cos(math.radians(18)), 4 * math.sin(math.radians(18))))


def test_direction_exactly_on_an_empty_position_has_length_1():
    a = activate(board(p2=3, p5=3), 25)  # equal pulls from 2 and 5 point straight up, at empty position 1
    assert a.length == 1 and (a.x, a.y) == pytest.approx((0, 1))


def test_direction_exactly_on_a_stone_has_that_stone_s_power():
    a = activate(board(p1=6, p2=3, p5=3), 25)
    assert a.length == 6 and (a.x, a.y) == pytest.approx((0, 6))


def test_direction_between_two_stones_has_their_average_rounded_half_up():
    a = activate(board(p1=4, p2=5, p3=1), 25)  # direction about 41.6 degrees: between 1 and 2
    assert a.length == 4.5
    assert math.hypot(a.x, a.y) == pytest.approx(4.5)


def test_direction_between_a_stone_and_an_empty_position_has_length_1():
    assert activate(board(p1=5, p3=2), 25).length == 1


def test_an_empty_site_contributes_nothing():
    a = activate({}, 25)
    assert (a.x, a.y, a.failed) == (0, 0, None)


def test_the_text_example_two_sites_at_0_and_180_degrees_with_equal_length_cancel_out():
    assert rules.score([(3.5, 0.0), (-3.5, 0.0)], 0.0) == pytest.approx(0.0)


def test_score_is_the_distance_of_the_summed_vectors_minus_penalties():
    assert rules.score([(3.0, 0.0), (0.0, 4.0)], 1.0) == pytest.approx(4.0)


def test_round_half_up_to_one_decimal():
    assert [rules.round_half_up(v) for v in (4.25, 4.35, 4.5, 1.05)] == [4.3, 4.4, 4.5, 1.1]


# ---- power of light, winners -------------------------------------------------------------


@pytest.mark.parametrize("stone,power,ok", [(4, 7, True), (4, 1, True), (1, 5, False), (7, 3, False),
                                            (2, 0, False), (6, 8, False)])
def test_power_of_light_changes_a_stone_by_up_to_3_within_1_to_7(stone, power, ok):
    assert (rules.light(stone, power) is None) == ok


@pytest.mark.parametrize("tied,tokens", [(1, 2), (2, 1), (3, 1), (4, 0)])
def test_tokens_of_life_2_alone_1_when_tied_none_when_more_than_3_tie(tied, tokens):
    assert rules.tokens_of_life([f"p{i}" for i in range(tied)]) == tokens


def test_top_and_bottom_compare_at_full_precision():
    top, bottom = rules.top_and_bottom({"a": 10.004, "b": 10.001, "c": 2.0, "d": 2.0})
    assert top == ["a"] and bottom == ["c", "d"]
