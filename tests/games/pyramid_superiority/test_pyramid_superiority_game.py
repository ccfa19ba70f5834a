"""Pyramid Superiority as the engine sees it: days, stages, chips, defaults, standings, tabs (parsing:
tests/games/pyramid_superiority/test_pyramid_superiority_parsing.py)."""

import random
from dataclasses import replace

import pytest

from sheets_host.engine.play import bot_names, default_settings, play_in_memory
from sheets_host.games import get_game
from sheets_host.games.pyramid_superiority.ledger import Award, account
from sheets_host.games.pyramid_superiority.meadows import NO_ONE, Construction, Meadow, Proposal, Settings, Transfer
from sheets_host.games.pyramid_superiority.rules import BY_NAME, Corner, Piece, Purse, Type
from sheets_host.games.pyramid_superiority.state import PyramidState
from sheets_host.games.pyramid_superiority.views import host_decisions
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaErrors
from sheets_host.kit.game import rng_for
from sheets_host.kit.result import COSMOS, GARNET, GUEST, HOST, TOKEN, Change, Owed

GAME = get_game("pyramid-superiority")
NAMES = bot_names(9)
BLUE, RED, GREEN = tuple(NAMES[:3]), tuple(NAMES[3:6]), tuple(NAMES[6:])
ADA, BLAISE, CORA, DMITRI, EMMY, FELIX, GRACE, HEDY, ISAAC = NAMES
G, F, W = Type.GRASS, Type.FIRE, Type.WATER
TL, TR, BL, BR = Corner.TOP_LEFT, Corner.TOP_RIGHT, Corner.BOTTOM_LEFT, Corner.BOTTOM_RIGHT
HEADER = ["what", "value", "to"]


@pytest.fixture(scope="module")
def defaults():
    return default_settings(GAME)


def plain(kind: Type) -> Piece:
    """kind kind / other other: e.g. grass grass / fire water."""
    return Piece((kind, kind, *(t for t in Type if t is not kind)))


def fresh(**settings) -> PyramidState:
    """A game before day 1: in every meadow the seats hold grass, fire, water; plain pieces."""
    s = Settings({Meadow.BLUE: BLUE, Meadow.RED: RED, Meadow.GREEN: GREEN}, **settings)
    types = dict(zip(NAMES, [G, F, W] * 3))
    return PyramidState(tuple(NAMES), s, types, {(1, g): plain(types[g]) for g in s.guests}, {}, {})


def step(state, **subs):
    """Resolve one day with these submissions (by name); everyone else gets the default. Next
    round's pieces are plain, so every round is as predictable as round 1."""
    after = GAME.resolve(state, subs, random.Random(0)).state
    pieces = {k: (plain(after.types[k[1]]) if k[0] == after.day else p) for k, p in after.pieces.items()}
    return replace(after, pieces=pieces)


def days(state, n, **subs):
    for _ in range(n):
        state = step(state, **subs)
    return state


def rows(player, *specs):
    return [SubmitRow(player, n, HEADER, dict(zip(HEADER, spec))) for n, spec in enumerate(specs, start=2)]


def awards(state, name):
    return [(a.what, a.points) for a in state.ledger.awards if a.name == name]


def statement(state, name):
    return [e.what for e in state.ledger.statements.get(name, [])]


def bot_game(seed, upto=None, config=None, defaults=None):
    state = GAME.setup(NAMES, seed, config or defaults["config"], {})
    states = [state]
    while not GAME.is_over(state) and (upto is None or state.day <= upto):
        subs = {p: GAME.bot(state, p, rng_for(seed, state.day, f"bot/{p}")) for p in NAMES}
        state = GAME.resolve(state, subs, rng_for(seed, state.day, "resolve")).state
        states.append(state)
    return states


# ---- setup ---------------------------------------------------------------------------------------


def test_each_meadow_holds_one_of_each_type_drawn_from_the_seed_and_everyone_sees_them(defaults):
    seen = set()
    for seed in range(12):
        state = GAME.setup(NAMES, seed, defaults["config"], {})
        for meadow in Meadow:
            assert sorted(state.types[n].value for n in state.settings.meadows[meadow]) == ["fire", "grass", "water"]
        seen.add(tuple(state.types[n] for n in NAMES))
        public = GAME.public_view(state)["participants"]
        assert dict(zip(public["participant"], public["type"])) == {n: state.types[n].value for n in NAMES}
    assert len(seen) > 6


def test_meadows_default_to_names_1_to_3_blue_4_to_6_red_7_to_9_green(defaults):
    state = GAME.setup(NAMES, 1, defaults["config"], {})
    assert state.settings.meadows == {Meadow.BLUE: BLUE, Meadow.RED: RED, Meadow.GREEN: GREEN}
    assert GAME.groups(state) == {"meadow:red": RED, "meadow:green": GREEN}


def test_meadow_settings_name_every_participant_once(defaults):
    config = {**defaults["config"], "blue meadow": "Isaac, hedy, Grace", "red meadow": "Ada, Blaise, Cora",
              "green meadow": "Dmitri, Emmy, Felix"}
    assert GAME.check_config(config, NAMES) == []
    state = GAME.setup(NAMES, 1, config, {})
    assert state.settings.players == (ISAAC, HEDY, GRACE) and GAME.groups(state)["meadow:red"] == BLUE
    partial = {**defaults["config"], "blue meadow": "Ada, Blaise, Cora"}
    assert any("'red meadow': blank is not 3 different participants" in p for p in GAME.check_config(partial, NAMES))
    twice = {**config, "green meadow": "Dmitri, Emmy, Ada"}
    problems = GAME.check_config(twice, NAMES)
    assert any("Felix is in no meadow" in p for p in problems) and any("Ada in more than one" in p for p in problems)
    unknown = {**config, "green meadow": "Dmitri, Emmy, Fellix"}
    assert any("'Fellix' is not a participant (did you mean 'Felix'?)" in p for p in GAME.check_config(unknown, NAMES))


def test_garnets_are_set_per_player_and_checked(defaults):
    config = {**defaults["config"], "garnets": "Ada: 5, cora:2"}
    assert GAME.check_config(config, NAMES) == []
    assert GAME.setup(NAMES, 1, config, {}).settings.garnets == {ADA: 5, CORA: 2}
    bad = {**defaults["config"], "garnets": "Dmitri: 5, Ada: lots"}
    problems = GAME.check_config(bad, NAMES)
    assert "'Dmitri' is not a player (Blue Meadow)" in problems[0] and "'lots' is not a whole number" in problems[1]
    twice = GAME.check_config({**defaults["config"], "garnets": "Ada: 5, ada: 3"}, NAMES)
    assert twice == ["config 'garnets': Ada is named twice (write each player once)"]


def test_the_tie_winner_and_their_choice_are_two_different_players(defaults):
    assert GAME.check_config({**defaults["config"], "tie winner": "Cora", "elimination candidate": "ada"}, NAMES) == []
    problems = GAME.check_config({**defaults["config"], "tie winner": "Dmitri", "elimination candidate": "Ada, Cora"},
                                 NAMES)
    assert "config 'tie winner': 'Dmitri' is not a player (Blue Meadow)" in problems[0]
    assert problems[1] == "config 'elimination candidate': one player, not Ada, Cora"
    same = GAME.check_config({**defaults["config"], "tie winner": "Ada", "elimination candidate": "Ada"}, NAMES)
    assert same == ["config 'elimination candidate': the tie winner cannot be the Elimination Candidate"]


# ---- days ----------------------------------------------------------------------------------------


def test_day_1_is_round_1_s_proposal_stage_only_and_day_15_round_14_s_construction_only(defaults):
    states = bot_game(3, defaults=defaults)
    day1 = states[1]
    assert {r for r, _ in day1.proposals} == {1} and not day1.constructions and not day1.ledger.pyramid
    assert day1.ledger.proposed.keys() == {(1, Meadow.RED), (1, Meadow.GREEN)}
    last = states[-1]
    assert len(states) == 16 and GAME.is_over(last) and last.days == 15
    assert max(r for r, _ in last.proposals) == 14 and max(r for r, _ in last.constructions) == 14
    assert len(last.ledger.pyramid) == 14  # one piece a round fills every position
    assert GAME.round(states[7]) == 8


def test_every_guest_gets_a_piece_of_their_own_majority_type_every_round(defaults):
    state = bot_game(5, defaults=defaults)[-1]
    assert len(state.pieces) == 14 * 6
    assert all(piece.majority is state.types[g] for (_, g), piece in state.pieces.items())
    assert len({p.cells for p in state.pieces.values()}) > 12  # arrangements are drawn


# ---- proposal stage ------------------------------------------------------------------------------


def test_every_guest_bid_is_paid_and_the_highest_bidder_s_piece_is_proposed():
    state = step(fresh(), **{DMITRI: Proposal(5, TL), EMMY: Proposal(3, TL), FELIX: Proposal(0, TL)})
    result = state.ledger.proposed[(1, Meadow.RED)]
    assert result.winner == DMITRI and result.piece == plain(G).starred(TL)
    assert [state.ledger.purses[g].chips for g in RED] == [15, 17, 20]


def test_two_guests_tied_for_the_highest_bid_the_stronger_type_proposes():
    state = step(fresh(), **{DMITRI: Proposal(4, TL), EMMY: Proposal(4, TL), FELIX: Proposal(1, TL)})
    assert state.ledger.proposed[(1, Meadow.RED)].winner == EMMY  # fire beats grass


def test_three_tied_guests_look_at_the_previous_winner_of_their_own_meadow():
    state = step(fresh(), **{GRACE: Proposal(1, TL)})  # Red: all 0 after "grass": fire; Green: Grace
    assert state.ledger.proposed[(1, Meadow.RED)].winner == EMMY
    state = step(state)  # all tied at 0 in both meadows
    assert state.ledger.proposed[(2, Meadow.RED)].winner == FELIX  # water beats Emmy's fire
    assert state.ledger.proposed[(2, Meadow.GREEN)].winner == HEDY  # fire beats Grace's grass


def test_a_guest_bid_above_their_chips_counts_as_0_and_costs_nothing():
    state = step(fresh(), **{DMITRI: Proposal(25, TL), EMMY: Proposal(1, TL)})
    result = state.ledger.proposed[(1, Meadow.RED)]
    assert result.bids == {DMITRI: 0, EMMY: 1, FELIX: 0} and result.winner == EMMY
    assert state.ledger.purses[DMITRI].chips == 20
    assert "round 1 proposal: bid of 25 is more than your chips: counts as 0" in statement(state, DMITRI)


def test_only_the_proposing_guest_pays_5_for_a_rotation_and_their_piece_turns():
    state = step(fresh(), **{DMITRI: Proposal(5, TL, rotation=1), EMMY: Proposal(1, TL, rotation=2)})
    result = state.ledger.proposed[(1, Meadow.RED)]
    assert result.rotation == 1 and result.piece == plain(G).rotated(1).starred(TL)
    assert state.ledger.purses[DMITRI].chips == 10 and state.ledger.purses[EMMY].chips == 19


def test_a_rotation_the_proposing_guest_cannot_pay_after_the_bid_is_dropped():
    state = step(fresh(), **{DMITRI: Proposal(17, TL, rotation=1)})
    result = state.ledger.proposed[(1, Meadow.RED)]
    assert result.rotation == 0 and result.piece.cells == plain(G).cells
    assert state.ledger.purses[DMITRI].chips == 3


def test_star_attempts_refer_to_the_piece_as_proposed_after_the_rotation():
    # Dmitri's grass grass / fire water turned 90 degrees is fire grass / water grass.
    state = step(fresh(), **{DMITRI: Proposal(5, TL, rotation=1), EMMY: Proposal(0, TL), FELIX: Proposal(0, BR)})
    piece = state.ledger.proposed[(1, Meadow.RED)].piece
    assert piece.star is TL and piece.cell(TL) is F
    assert awards(state, EMMY) == [("round 1: star on a fire cell", 3)]


def test_the_star_goes_to_the_cell_nobody_tried_when_all_three_try_different_cells():
    state = step(fresh(), **{DMITRI: Proposal(1, TL), EMMY: Proposal(0, BL), FELIX: Proposal(0, BR)})
    assert state.ledger.proposed[(1, Meadow.RED)].piece.star is TR


def test_guests_score_2_for_their_proposed_piece_and_3_for_a_star_on_their_type():
    # Dmitri's grass grass / fire water: a star on top-left is on grass, Dmitri's own type.
    state = step(fresh(), **{DMITRI: Proposal(2, TL), EMMY: Proposal(0, TL)})
    assert awards(state, DMITRI) == [("round 1: piece proposed", 2), ("round 1: star on a grass cell", 3)]
    state = step(fresh(), **{DMITRI: Proposal(2, BR), EMMY: Proposal(0, BR)})  # water
    assert awards(state, DMITRI) == [("round 1: piece proposed", 2)]
    assert awards(state, FELIX) == [("round 1: star on a water cell", 3)]


# ---- construction stage --------------------------------------------------------------------------


def after_day_1():
    """Red proposes Dmitri's grass grass / fire water starred top-left, Green Grace's likewise."""
    return step(fresh(), **{DMITRI: Proposal(1, TL), GRACE: Proposal(1, TL)})


def test_every_player_bid_is_paid_and_the_winner_builds_the_piece_they_chose_where_they_chose():
    state = step(after_day_1(), **{ADA: Construction(5, Meadow.GREEN, 0, BY_NAME["base 5"]),
                                   BLAISE: Construction(3, Meadow.RED, 0, BY_NAME["base 1"])})
    built = state.ledger.built[1]
    assert built.winner == ADA and built.meadow is Meadow.GREEN and built.position.name == "base 5"
    assert state.ledger.pyramid == {BY_NAME["base 5"]: state.ledger.proposed[(1, Meadow.GREEN)].piece}
    assert [state.ledger.purses[p].chips for p in BLUE] == [45, 47, 50]


def test_winning_the_right_to_build_in_round_n_scores_n(defaults):
    state = bot_game(8, defaults=defaults)[-1]
    for r, built in state.ledger.built.items():
        assert (f"round {r}: right to build", r) in awards(state, built.winner)
    assert sum(p for n in BLUE for what, p in awards(state, n) if "right to build" in what) == sum(range(1, 15))


def test_the_winner_pays_5_to_rotate_and_the_piece_turns_with_its_star():
    state = step(after_day_1(), **{ADA: Construction(5, Meadow.RED, 2, BY_NAME["base 5"])})
    piece = state.ledger.pyramid[BY_NAME["base 5"]]
    assert piece == state.ledger.proposed[(1, Meadow.RED)].piece.rotated(2) and piece.star is BR
    assert state.ledger.purses[ADA].chips == 40


def test_a_player_who_does_not_win_does_not_pay_for_the_rotation():
    state = step(after_day_1(), **{ADA: Construction(5), BLAISE: Construction(3, Meadow.RED, 1)})
    assert state.ledger.purses[BLAISE].chips == 47


def test_a_rotation_the_winning_player_cannot_pay_after_the_bid_is_dropped():
    state = step(fresh(player_chips=8, garnets={ADA: 1}), **{DMITRI: Proposal(1, TL)})
    state = step(state, **{ADA: Construction(5, rotation=1)})  # 3 chips and 1 garnet left: not 5
    assert state.ledger.built[1].rotation == 0 and state.ledger.purses[ADA] == Purse(3, 1)
    assert "round 1 construction: rotation dropped, 5 chips needed" in statement(state, ADA)


def test_an_illegal_placement_is_replaced_by_the_default_and_the_winner_is_told_why():
    state = step(after_day_1(), **{ADA: Construction(5, Meadow.RED, 0, BY_NAME["base 5"])})
    state = step(state, **{BLAISE: Construction(5, Meadow.RED, 0, BY_NAME["base 1"])})  # only a corner
    built = state.ledger.built[2]
    assert built.position.name == "base 2"
    assert built.moved == "base 1 shares no edge with a base piece (a later base piece must): built at base 2, " \
                          "the default position, instead"
    assert f"round 2 construction: {built.moved}" in statement(state, BLAISE)
    assert not any("shares no edge" in line for p in (ADA, CORA) for line in statement(state, p))


def test_a_player_bid_above_chips_and_garnets_counts_as_0():
    state = step(after_day_1(), **{ADA: Construction(51), BLAISE: Construction(1)})
    assert state.ledger.built[1].bids[ADA] == 0 and state.ledger.built[1].winner == BLAISE
    assert state.ledger.purses[ADA].chips == 50


def test_players_pay_with_garnets_one_per_chip_only_after_their_chips_run_out():
    state = step(fresh(player_chips=5, garnets={ADA: 10}), **{DMITRI: Proposal(1, TL)})
    state = step(state, **{ADA: Construction(8, rotation=1)})
    assert state.ledger.purses[ADA] == Purse(0, 2)  # 5 chips, then 3 + 5 of the 10 garnets
    lines = state.ledger.statements[ADA]
    assert [(e.chips, e.garnets) for e in lines] == [(-5, -3), (0, -5)]
    assert state.ledger.built[1].rotation == 1
    assert [line for line in state.ledger.log[2] if "garnets" in line] == [
        "Ada spends 3 garnets (round 1 construction: bid)", "Ada spends 5 garnets (round 1 construction: rotation)"]


def test_garnets_never_count_for_the_most_chips_bonus():
    state = step(fresh(player_chips=5, garnets={ADA: 10}))
    state = step(state, **{ADA: Construction(8), BLAISE: Construction(3), CORA: Construction(4)})
    state = days(state, 13)
    assert GAME.is_over(state)
    purses = {p: state.ledger.purses[p] for p in BLUE}
    assert (purses[ADA].chips, purses[ADA].garnets, purses[BLAISE].chips, purses[CORA].chips) == (0, 7, 2, 1)
    assert ("most chips at the end", 20) in awards(state, BLAISE)
    assert not any("most chips" in what for what, _ in awards(state, ADA))


# ---- transfers ------------------------------------------------------------------------------------


def test_transfers_arrive_after_the_construction_stage_and_are_usable_from_the_next_proposal_stage():
    state = step(fresh())
    state = step(state, **{ADA: Construction(transfers=(Transfer(DMITRI, 10),)), DMITRI: Proposal(30, TL)})
    assert state.ledger.proposed[(2, Meadow.RED)].bids[DMITRI] == 0  # day 2's proposal stage came first
    assert state.ledger.purses[DMITRI].chips == 30 and state.ledger.purses[ADA].chips == 40
    state = step(state, **{DMITRI: Proposal(30, TL)})
    assert state.ledger.proposed[(3, Meadow.RED)].bids[DMITRI] == 30


def test_a_transfer_beyond_the_players_chips_is_dropped_and_later_ones_still_count():
    state = step(fresh())
    state = step(state, **{ADA: Construction(45, transfers=(Transfer(DMITRI, 10), Transfer(EMMY, 5)))})
    assert state.ledger.purses[DMITRI].chips == 20 and state.ledger.purses[EMMY].chips == 25
    assert "sending 10 to Dmitri dropped: more than your 5 chips" in statement(state, ADA)


def test_no_transfers_in_the_last_construction_stage():
    state = days(fresh(), 14)
    state = step(state, **{ADA: Construction(transfers=(Transfer(DMITRI, 5),))})
    assert state.ledger.purses[ADA].chips == 50 and state.ledger.purses[DMITRI].chips == 20
    assert "sending 5 to Dmitri dropped: no transfers in the last construction stage" in statement(state, ADA)


# ---- defaults -------------------------------------------------------------------------------------


def test_a_silent_guest_bids_0_and_stars_the_first_cell_of_their_type_in_their_own_piece():
    state = replace(fresh(), pieces={**fresh().pieces, (1, DMITRI): Piece((F, W, G, G))})
    assert GAME.default(state, DMITRI) == Proposal(0, BL)
    assert GAME.default(state, EMMY) == Proposal(0, TL)


def test_a_silent_player_bids_0_and_builds_the_red_piece_on_the_first_free_position_of_the_lowest_layer():
    assert GAME.default(after_day_1(), ADA) == Construction(0, Meadow.RED, 0, None, ())
    state = step(after_day_1())  # three tied at 0 after "grass": fire (Blaise) builds
    assert state.ledger.built[1].winner == BLAISE
    assert state.ledger.pyramid == {BY_NAME["base 1"]: state.ledger.proposed[(1, Meadow.RED)].piece}
    state = step(state)  # tied again after fire: water (Cora) builds next to it
    assert state.ledger.built[2].winner == CORA and state.ledger.built[2].position.name == "base 2"


def test_nobody_submits_on_a_day_without_their_stage():
    assert GAME.default(fresh(), ADA) is None
    assert GAME.default(days(fresh(), 14), DMITRI) is None


# ---- scoring rounds and the end -------------------------------------------------------------------


def test_scoring_rounds_follow_rounds_6_11_and_14_with_multipliers_2_3_4(defaults):
    from sheets_host.games.pyramid_superiority import rules

    states = bot_game(4, defaults=defaults)
    assert [(s.round, s.multiplier) for s in states[-1].ledger.scorings] == [(6, 2), (11, 3), (14, 4)]
    for day, r in ((7, 6), (12, 11), (15, 14)):
        state = states[day]
        scores = rules.score_round(rules.groups(rules.top_view(state.ledger.pyramid)))
        for p in BLUE:
            want = scores[state.types[p]].total * rules.MULTIPLIERS[r]
            assert (f"scoring round after round {r} (x{rules.MULTIPLIERS[r]})", want) in awards(state, p)
        assert len(states[day - 1].ledger.scorings) == len(state.ledger.scorings) - 1


def test_a_scoring_round_scores_the_pyramid_from_the_top_as_computed_by_hand():
    # Silent days: ties of three send fire, water, grass, fire, water pieces (starred top-left) to
    # base 1 to 5. In round 6 Ada builds the Green Meadow's grass grass / fire water (starred
    # top-left) on middle 1, hiding base 5's starred water cell. From the top (rows 1 to 4):
    #   F* F  W* W  G* G
    #   G  G* G  F  F  W      grass: 1 + 3 + 1 (across layers), 3 + 1, 1, 1 -> groups 5, 4, 1, 1
    #   F* F  W  W  .  .      fire: 4, 2, 4, 1; water: 4, 1, 2, 1
    #   G  W  G  F  .  .
    # grass 11 + 5 + 2 x 5 (the sole largest) = 26; fire 11 + 4 = 15; water 8 + 4 = 12 (four groups
    # tie for second: nothing); times 2.
    state = days(fresh(), 6)
    state = step(state, **{ADA: Construction(1, Meadow.GREEN, 0, BY_NAME["middle 1"])})
    assert state.ledger.built[6].position.name == "middle 1"
    scored = {p: dict(awards(state, p)).get("scoring round after round 6 (x2)") for p in BLUE}
    assert scored == {ADA: 52, BLAISE: 30, CORA: 24}


def test_the_sole_most_chips_at_the_end_scores_20_for_a_player_and_4_for_a_guest_in_each_meadow():
    state = step(fresh(), **{DMITRI: Proposal(1, TL), GRACE: Proposal(1, TL), HEDY: Proposal(2, TL)})
    state = step(state, **{ADA: Construction(1), BLAISE: Construction(1)})
    state = days(state, 13)
    assert ("most chips at the end", 20) in awards(state, CORA)
    assert ("most chips at the end", 4) in awards(state, ISAAC)  # Green: 19, 18, 20
    assert not any("most chips" in a.what for a in state.ledger.awards if a.name in RED)  # Red: 19, 20, 20


def with_points(state, points):
    """`state` with a ledger whose only awards give these points (for the standings)."""
    ledger = state.ledger.copy()
    ledger.awards = [Award(15, n, "test", p) for n, p in points.items()]
    twin = replace(state)
    twin.__dict__["ledger"] = ledger
    return twin


def results(state):
    table = GAME.standings(state)
    return {row["player"]: (row["rank"], row["result"]) for row in table.to_dict("records")}


def test_standings_name_the_winner_and_the_elimination_candidate():
    end = days(fresh(), 15)
    table = results(with_points(end, {ADA: 90, BLAISE: 80, CORA: 70, DMITRI: 30, EMMY: 20, FELIX: 20,
                                      GRACE: 10, HEDY: 30, ISAAC: 25}))
    assert table[ADA] == (1, "winner: 1 cosmos and a Token of Life")
    assert table[BLAISE] == (2, "Death Match") and table[CORA] == (3, "Elimination Candidate (Death Match)")
    assert table[DMITRI] == (1, "Red Meadow winner: 1 cosmos to give a finalist")
    assert table[EMMY] == table[FELIX] == (2, "")
    assert table[HEDY] == (1, "Green Meadow winner: 1 cosmos to give a finalist")


def test_two_players_tied_for_most_the_stronger_type_wins_for_least_the_weaker_type_loses():
    end = days(fresh(), 15)
    top = results(with_points(end, {ADA: 90, BLAISE: 90, CORA: 70}))  # grass and fire: fire wins
    assert top[BLAISE][0] == 1 and top[ADA] == (2, "Death Match") and top[CORA][0] == 3
    low = results(with_points(end, {ADA: 90, BLAISE: 70, CORA: 70}))  # fire and water: fire loses
    assert low[BLAISE] == (3, "Elimination Candidate (Death Match)") and low[CORA] == (2, "Death Match")


def test_a_meadow_tie_goes_to_the_stronger_type():
    end = days(fresh(), 15)
    table = results(with_points(end, {DMITRI: 30, FELIX: 30, EMMY: 14}))  # grass beats water
    assert table[DMITRI] == (1, "Red Meadow winner: 1 cosmos to give a finalist") and table[FELIX] == (2, "")


def test_all_three_players_tied_is_reported_for_the_host_to_settle_and_recorded_in_the_config():
    end = days(fresh(), 15)
    table = results(with_points(end, {ADA: 50, BLAISE: 50, CORA: 50}))
    assert {rank for rank, _ in (table[p] for p in BLUE)} == {1}
    assert "all three tied: the previous Main Match's winner wins" in table[ADA][1]
    settled = replace(end, settings=replace(end.settings, tie_winner=CORA))
    table = results(with_points(settled, {ADA: 50, BLAISE: 50, CORA: 50}))
    assert table[CORA] == (1, "winner: 1 cosmos and a Token of Life")
    assert table[ADA] == (2, "tied: the winner chooses the Elimination Candidate (tell the host)")
    # Where to record it is the host's business: in the host's log, no config key in the public standings.
    assert "config" not in " ".join(r for _, r in table.values())
    assert host_decisions(with_points(settled, {ADA: 50, BLAISE: 50, CORA: 50}))[0] == (
        "to decide: the Blue Meadow's winner chooses the Elimination Candidate among the tied: write it in config "
        "'elimination candidate'")
    chosen = replace(end, settings=replace(end.settings, tie_winner=CORA, elimination_candidate=ADA))
    table = results(with_points(chosen, {ADA: 50, BLAISE: 50, CORA: 50}))
    assert table[ADA] == (3, "Elimination Candidate (Death Match)") and table[BLAISE] == (2, "Death Match")


# ---- state, tabs and bots -----------------------------------------------------------------------------


def records(state):
    return {name: [{"_row": i + 2, **r} for i, r in enumerate(rs)] for name, rs in GAME.dump(state).items()}


def test_state_tabs_round_trip_every_day(defaults):
    for state in bot_game(6, defaults=defaults):
        loaded = GAME.load(NAMES, records(state), defaults["config"], {})
        assert loaded == state and loaded.ledger == state.ledger


def test_a_resolved_state_accounts_like_a_full_replay(defaults):
    for state in bot_game(7, defaults=defaults):
        s = state
        replayed = account(s.settings, s.types, s.pieces, s.proposals, s.constructions, s.days)
        assert replayed == state.ledger


def test_a_host_correction_of_a_bid_flows_into_everything_after_it(defaults):
    state = bot_game(9, upto=4, defaults=defaults)[-1]
    tabs = records(state)
    row = next(r for r in tabs["proposals"] if r["round"] == 1 and r["guest"] == DMITRI)
    row["bid"] = 0 if row["bid"] else 1
    corrected = GAME.load(NAMES, tabs, defaults["config"], {})
    assert corrected.ledger.purses[DMITRI] != state.ledger.purses[DMITRI]


def test_host_edits_that_break_the_state_name_tab_row_and_column(defaults):
    state = bot_game(2, upto=3, defaults=defaults)[-1]
    tabs = records(state)
    first = tabs["pieces"][0]  # round 1, Dmitri
    for corner in ("top-left", "top-right", "bottom-left", "bottom-right"):
        first[corner] = "fire"
    tabs["types"][0]["type"] = tabs["types"][1]["type"]
    tabs["proposals"][2]["rotation"] = 45
    with pytest.raises(SchemaErrors) as e:
        GAME.load(NAMES, tabs, defaults["config"], {})
    kind = state.types[DMITRI].value
    assert str(e.value).splitlines() == [
        f"tab 'types', column 'type': 'Blue Meadow: {', '.join(sorted([tabs['types'][1]['type']] * 2 + [tabs['types'][2]['type']]))}' "
        "is not one of each type in the Blue Meadow (Ada, Blaise, Cora)",
        f"tab 'pieces', row 2, column 'top-left': 'fire fire fire fire' is not two {kind} cells and one of each other type",
        "tab 'proposals', row 4, column 'rotation': 45 is not 0, 90, 180 or 270"]


def test_a_second_row_for_the_same_round_and_participant_is_refused(defaults):
    state = bot_game(2, upto=3, defaults=defaults)[-1]
    tabs = records(state)
    for tab in ("pieces", "proposals", "constructions"):
        tabs[tab].append({**tabs[tab][0], "_row": 99})
    with pytest.raises(SchemaErrors) as e:
        GAME.load(NAMES, tabs, defaults["config"], {})
    assert str(e.value).splitlines() == [
        f"tab 'pieces', row 99, column 'guest': '{DMITRI}' is not listed once for round 1",
        f"tab 'proposals', row 99, column 'guest': '{DMITRI}' is not listed once for round 1",
        f"tab 'constructions', row 99, column 'player': '{ADA}' is not listed once for round 1"]


def test_a_resolved_day_missing_a_row_is_refused(defaults):
    state = bot_game(2, upto=3, defaults=defaults)[-1]
    tabs = records(state)
    tabs["constructions"] = [r for r in tabs["constructions"] if not (r["round"] == 1 and r["player"] == CORA)]
    with pytest.raises(SchemaErrors, match="tab 'constructions', column 'round': 1 is not present for Cora"):
        GAME.load(NAMES, tabs, defaults["config"], {})


def test_what_a_bot_types_parses_back_to_the_same_submission(defaults):
    for seed in range(4):
        for state in bot_game(seed, defaults=defaults)[:-1]:
            for name in NAMES:
                sub = GAME.bot(state, name, rng_for(seed, state.day, f"bot/{name}"))
                typed = [SubmitRow(name, n, HEADER, r) for n, r in enumerate(GAME.submit_rows(sub), start=2)]
                parsed = GAME.parse(state, name, typed)
                assert parsed.submission == sub
                assert parsed.problems == () or sub is None and not typed


def test_resolve_does_not_change_the_state_it_is_given(defaults):
    state = bot_game(1, upto=5, defaults=defaults)[-1]
    before = records(state)
    subs = {p: GAME.bot(state, p, rng_for(1, state.day, f"bot/{p}")) for p in NAMES}
    first = GAME.resolve(state, subs, random.Random(3)).state
    assert records(state) == before
    assert GAME.resolve(state, subs, random.Random(3)).state == first


def test_the_same_seed_gives_the_same_game(defaults):
    a = play_in_memory(GAME, NAMES, 42, defaults["config"], {})
    b = play_in_memory(GAME, NAMES, 42, defaults["config"], {})
    assert a == b and a != play_in_memory(GAME, NAMES, 43, defaults["config"], {})


# ---- what the season gets (`Game.result`) ---------------------------------------------------------------


def test_the_result_gives_the_winner_a_cosmos_and_a_token_and_the_guests_their_part():
    """The text: the winner receives a cosmos and a Token of Life; the least points is the
    Elimination Candidate; garnets spent as chips; the Red Meadow's guests are eliminated players;
    each meadow's winning guest may give 1 cosmos to a finalist (config '<meadow> meadow cosmos')."""
    state = step(fresh(player_chips=5, garnets={ADA: 10}), **{DMITRI: Proposal(1, TL)})
    state = days(step(state, **{ADA: Construction(8, rotation=1)}), 13)
    points = {ADA: 90, BLAISE: 80, CORA: 70, DMITRI: 30, EMMY: 20, FELIX: 20, GRACE: 10, HEDY: 30, ISAAC: 25}
    result = GAME.result(with_points(state, points))
    assert result.players == BLUE and result.winners == (ADA,) and result.candidates == (CORA,)
    assert (result.earned(ADA, COSMOS), result.earned(ADA, TOKEN)) == (1, 1)
    assert result.earned(ADA, GARNET) == -8  # 3 for the bid, 5 for the rotation
    assert {c.player for c in result.changes if c.what == GUEST} == set(RED)
    assert [(o.players, o.setting) for o in result.owed] == [((DMITRI,), "red meadow cosmos"),
                                                            ((HEDY,), "green meadow cosmos")]
    given = replace(state, settings=replace(state.settings, cosmos_to={Meadow.RED: CORA, Meadow.GREEN: NO_ONE}))
    result = GAME.result(with_points(given, points))
    assert result.owed == () and [c for c in result.changes if c.what == COSMOS and c.player != ADA] == [
        Change(CORA, COSMOS, 1, "given by Dmitri, winner of the Red Meadow")]
    assert GAME.result(step(fresh())) is None


def test_the_result_owes_the_three_way_tie_to_the_host_then_to_the_tie_winner():
    end = days(fresh(), 15)
    tied = GAME.result(with_points(end, {ADA: 50, BLAISE: 50, CORA: 50}))
    assert tied.winners == () and tied.candidates == ()
    assert [(o.players, o.setting) for o in tied.owed][:2] == [((HOST,), "tie winner"), ((HOST,), "elimination candidate")]
    settled = replace(end, settings=replace(end.settings, tie_winner=CORA))
    chooses = GAME.result(with_points(settled, {ADA: 50, BLAISE: 50, CORA: 50}))
    assert chooses.winners == (CORA,) and chooses.owed[0] == Owed((CORA,), "the Elimination Candidate", (ADA, BLAISE),
                                                                  "elimination candidate")


def test_the_meadow_cosmos_is_a_blue_player_or_no_one_typed_once(defaults):
    ok = {**defaults["config"], "red meadow cosmos": "cora", "green meadow cosmos": "No One"}
    assert GAME.check_config(ok, NAMES) == []
    bad = GAME.check_config({**defaults["config"], "red meadow cosmos": "Dmitri", "green meadow cosmos": "Ada, Cora"},
                            NAMES)
    assert "config 'red meadow cosmos': 'Dmitri' is not a player (Blue Meadow) or 'no one'" in bad[0]
    assert bad[1] == "config 'green meadow cosmos': one player or 'no one', not Ada, Cora"
