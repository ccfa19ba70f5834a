"""Pyramid Superiority's submit tab read as people type it: bids, stars, rotations, pieces, positions and
transfers, untidy or wrong, and what the resolver will make of them."""

from sheets_host.games.pyramid_superiority.meadows import Construction, Meadow, Proposal, Transfer
from sheets_host.games.pyramid_superiority.rules import BY_NAME

from .test_pyramid_superiority_game import ADA, DMITRI, FELIX, GAME, HEDY, TL, TR, days, fresh, rows, step

# ---- parsing --------------------------------------------------------------------------------------


def test_a_guest_types_a_bid_a_star_and_a_rotation():
    parsed = GAME.parse(fresh(), DMITRI, rows(DMITRI, ("bid", 4, None), ("star", "top-right", None),
                                              ("rotate", 90, None)))
    assert parsed.problems == () and parsed.submission == Proposal(4, TR, 1)
    assert parsed.kept == "bid 4, star top-right, your piece turned 90° if it is proposed"


def test_a_player_types_a_bid_a_piece_a_rotation_a_position_and_transfers():
    state = step(fresh())
    parsed = GAME.parse(state, ADA, rows(ADA, ("bid", 6, None), ("piece", "green", None), ("rotate", 180, None),
                                         ("position", "base 5", None), ("send", 3, "Hedy"), ("send", 2, "Dmitri")))
    assert parsed.problems == ()
    assert parsed.submission == Construction(6, Meadow.GREEN, 2, BY_NAME["base 5"],
                                             (Transfer(HEDY, 3), Transfer(DMITRI, 2)))
    assert parsed.kept == "bid 6; if you win: the Green Meadow's piece turned 180° at base 5; send 3 to Hedy; " \
                          "send 2 to Dmitri"


def test_untidy_cells_and_other_names_are_read():
    state = step(fresh())
    guest = GAME.parse(state, DMITRI, rows(DMITRI, (" BID ", " 4.0", None), ("Star", "upper left", None),
                                           ("rotation", "270 degrees", None)))
    assert guest.problems == () and guest.submission == Proposal(4, TL, 3)
    player = GAME.parse(state, ADA, rows(ADA, ("Bet", "three", None), ("meadow", "Red Meadow", None),
                                         ("place", " B5 ", None), ("transfer", "2", " hedy ")))
    assert player.problems == ()
    assert player.submission == Construction(3, Meadow.RED, 0, BY_NAME["base 5"], (Transfer(HEDY, 2),))
    assert GAME.parse(state, ADA, rows(ADA, ("where", "mid 3", None))).submission.position.name == "middle 3"


def test_a_row_for_the_other_role_is_dropped_and_says_what_is_allowed():
    state = step(fresh())
    parsed = GAME.parse(state, DMITRI, rows(DMITRI, ("position", "base 1", None), ("bid", 2, None)))
    (problem,) = parsed.problems
    assert problem.row == 2 and problem.column == "what" and problem.letter == "A"
    assert "'position' is not for guests (the proposal stage); allowed: bid, star, rotate; row dropped" in problem.message
    assert parsed.submission.bid == 2


def test_wrong_values_name_the_cell_and_what_is_allowed():
    state = step(fresh())
    parsed = GAME.parse(state, ADA, rows(ADA, ("bid", "x", None), ("piece", "blue", None),
                                         ("position", "base 10", None), ("rotate", 45, None),
                                         ("send", 2, None), ("send", 2, "Ada"), ("biid", 3, None), ("bid", 1, None)))
    messages = [str(p) for p in parsed.problems]
    assert "Ada: row 2, column 'value' (B): 'x' is not a whole number (a bid in chips: 0 to 10000); row dropped" \
        in messages[0]
    assert "'blue' is not a meadow's piece; allowed: red, green" in messages[1]
    assert "'base 10' is not a position" in messages[2] and "allowed: base 1, base 2" in messages[2]
    assert "'45' is not a multiple of 90 (a rotation: 0, 90, 180 or 270 (degrees clockwise))" in messages[3]
    assert "row 6, column 'to' (C): blank: name the guest who gets the chips" in messages[4]
    assert "'Ada' is not a guest; allowed: Dmitri, Emmy, Felix, Grace, Hedy, Isaac" in messages[5]
    assert "'biid' is not a row kind (did you mean 'bid'?)" in messages[6]
    assert parsed.submission == Construction(1)


def test_a_second_row_of_a_kind_is_dropped_and_the_first_counts():
    parsed = GAME.parse(fresh(), DMITRI, rows(DMITRI, ("bid", 2, None), ("bid", 5, None)))
    assert "a second 'bid' row: the first (row 2) counts; row dropped" in parsed.problems[0].message
    assert parsed.submission.bid == 2


def test_a_formula_is_reported_not_evaluated():
    parsed = GAME.parse(fresh(), DMITRI, rows(DMITRI, ("bid", "=B3+1", None), ("star", "tl", None)))
    assert "'=B3+1' is a formula; type the value itself" in parsed.problems[0].message
    assert parsed.submission == Proposal(0, TL)


def test_a_missing_star_is_the_first_cell_of_the_guest_s_type_in_the_piece_as_they_would_propose_it():
    parsed = GAME.parse(fresh(), FELIX, rows(FELIX, ("bid", 1, None), ("rotate", 90, None)))
    # Felix's water water / grass fire turned 90 degrees: grass water / fire water: first water top-right.
    assert parsed.submission == Proposal(1, TR, 1)


def test_a_missing_star_is_on_the_piece_unturned_when_the_rotation_cannot_be_paid():
    # Felix holds 20: after a bid of 18 the 5-chip turn would be dropped, so he would propose his
    # water water / grass fire as dealt, and its first water cell is the top-left (turned: top-right).
    parsed = GAME.parse(fresh(), FELIX, rows(FELIX, ("bid", 18, None), ("rotate", 90, None)))
    assert parsed.submission == Proposal(18, TL, 1)
    assert parsed.kept == "bid 18, star top-left"


def test_a_counter_clockwise_rotation_is_read_as_its_clockwise_equal_and_an_unknown_word_is_refused():
    state = step(fresh())
    for typed, turns in (("90 counter-clockwise", 3), ("anticlockwise 90", 3), ("ccw 270", 1),
                         ("180 anti clockwise", 2), ("90 degrees clockwise", 1)):
        parsed = GAME.parse(state, ADA, rows(ADA, ("rotate", typed, None)))
        assert parsed.problems == () and parsed.submission.rotation == turns, typed
    # 'left 90' might mean counter-clockwise: refused, never read as 90 clockwise.
    (problem,) = GAME.parse(state, DMITRI, rows(DMITRI, ("rotate", "left 90", None), ("bid", 1, None))).problems
    assert problem.column == "value" and "'left 90' is not a rotation: 0, 90, 180 or 270" in problem.message


def test_parse_tells_in_advance_what_the_resolver_will_drop():
    state = step(fresh(garnets={ADA: 2}))
    guest = GAME.parse(state, DMITRI, rows(DMITRI, ("bid", 21, None), ("star", "tl", None)))
    assert "you hold 20 chips: a bid of 21 is more, so it counts as 0" in guest.problems[0].message
    assert guest.kept == "bid 0 (21 is more than you hold), star top-left"
    late = GAME.parse(state, DMITRI, rows(DMITRI, ("bid", 18, None), ("star", "tl", None), ("rotate", 90, None)))
    assert "you would have 2 chips left: if you win, the rotation is dropped" in late.problems[0].message
    player = GAME.parse(state, ADA, rows(ADA, ("bid", 53, None), ("position", "middle 1", None),
                                         ("send", 40, "Hedy"), ("send", 20, "Emmy")))
    messages = [p.message for p in player.problems]
    assert messages[0] == "you hold 52 chips and garnets: a bid of 53 is more, so it counts as 0"
    assert "middle 1 needs base 1, base 2, base 4, base 5 below it" in messages[1]
    assert "if you win, your piece goes to the default position, base 1" in messages[1]
    assert "you would have 10 chips left after your bid, and garnets cannot be sent: this transfer is dropped" \
        in messages[2]
    assert player.kept == "bid 0 (53 is more than you hold); if you win: the Red Meadow's piece at base 1 " \
                          "(the default: middle 1 cannot be built on now); send 40 to Hedy"


def test_nothing_to_submit_on_a_day_without_a_stage():
    player = GAME.parse(fresh(), ADA, rows(ADA, ("bid", 3, None), ("piece", "red", None)))
    assert player.submission is None and [p.row for p in player.problems] == [2, 3]  # each row says it
    assert all("players submit from day 2; row ignored" in p.message for p in player.problems)
    guest = GAME.parse(days(fresh(), 14), DMITRI, rows(DMITRI, ("bid", 3, None)))
    assert guest.submission is None and "guests have nothing to submit on day 15" in guest.problems[0].message
    assert GAME.parse(fresh(), ADA, []) .problems == ()


def test_a_tab_with_no_valid_row_gives_the_default():
    parsed = GAME.parse(fresh(), DMITRI, rows(DMITRI, ("bid", "lots", None)))
    assert parsed.submission is None and "no valid row: the default applies" in parsed.problems[-1].message
