"""Elemental Continuum's rules as pure functions: tile breaks, accumulation, which bolts count, wards
breaking down, contribution shares, the score and its tie chain."""

from fractions import Fraction

from hypothesis import given, settings, strategies as st

from sheets_host.events.continuum.rules import (WITH_WARD, bolt_effect, broken_cells, broken_tiles, broken_wards,
                                                contributions, placements, score, shares, standing_points,
                                                strike_round, tie_chain, tile_break, tiles_broken_by, unbroken_tiles,
                                                ward_broken)
from sheets_host.events.continuum.state import ELEMENTS, FILES, Board, Bolt, ContinuumState, Element, Strike, Ward

FIRE, WATER, WIND, EARTH, NEUTRAL = Element.FIRE, Element.WATER, Element.WIND, Element.EARTH, Element.NEUTRAL

# A Hamiltonian path of the Surface: up file A, down file B, up file C, ...; any 5 cells in a row on
# it are a pentomino, so cutting it in 12 blocks of 5 (A1-A5 first) leaves 4 neutral cells: H4-H1.
SNAKE = tuple(f + r for i, f in enumerate(FILES) for r in ("12345678" if i % 2 == 0 else "87654321"))
BLOCKS = tuple(tuple(sorted(SNAKE[i:i + 5])) for i in range(0, 60, 5))
NEUTRAL_CELLS = tuple(sorted(SNAKE[60:]))
ELEMENT_CYCLE = (FIRE, WATER, WIND, EARTH) * 3
POINTS_CYCLE = (6, 4, 2) * 4  # block 0 (A1-A5) is a 6 point fire ward; 4*(2+4+6)+1 = 49 points in all


def board(elements=ELEMENT_CYCLE, points=POINTS_CYCLE) -> Board:
    wards = tuple(Ward(f"W{i + 1}", e, p, cells) for i, (e, p, cells) in enumerate(zip(elements, points, BLOCKS)))
    return Board(wards + (Ward("neutral", NEUTRAL, 1, NEUTRAL_CELLS),))


def state(boards, participants=None) -> ContinuumState:
    return ContinuumState(tuple(participants or boards), dict(boards), rounds_played=1)


def play(s: ContinuumState, *rounds, start=2) -> ContinuumState:
    """Rounds `start`, `start` + 1, ... of `rounds`, each {player: "water A1, fire A2"}."""
    for number, fired in enumerate(rounds, start):
        s = strike_round(s, {p: [bolt(b) for b in text.split(", ")] for p, text in fired.items()}, number)
    return s


def bolt(text: str) -> Bolt:
    element, cell = text.split()
    return Bolt(cell, Element(element))


def strike(firer, element, round=2, cell="A1"):
    return Strike(firer, round, Bolt(cell, element))


def breaks(s, player):
    return {c: (tb.kind, [x.firer for x in tb.strikes]) if tb != WITH_WARD else tb
            for c, tb in broken_tiles(s, player).items()}


# ---- the text's worked example ---------------------------------------------------------------------


def test_the_worked_example_shares_spadezs_fire_ward_3_2_1():
    s = state({"Spadez": board()}, ["Spadez", "hedger", "uri", "cam"])
    s = play(s, {"hedger": "water A1, water A2", "uri": "fire A1", "cam": "fire A1"},  # "R1": round 2
             {"hedger": "water A3", "uri": "water A4", "cam": "fire A4"})  # "R2": round 3
    assert breaks(s, "Spadez") == {
        "A1": ("advantage and singularity", ["hedger", "uri", "cam"]), "A2": ("advantage", ["hedger"]),
        "A3": ("advantage", ["hedger"]), "A4": ("advantage", ["uri"]),  # cam's fire bolt does not count
        "A5": WITH_WARD}
    (ward, wb), = broken_wards(s, "Spadez").items()
    assert ward.cells == ("A1", "A2", "A3", "A4", "A5") and ward.points == 6 and wb.round == 3
    assert len(wb.strikes) == 6
    assert wb.shares == {"hedger": 3, "uri": 2, "cam": 1}
    assert [score(s, p) for p in s.participants] == [49 - 6, 3, 2, 1]
    assert standing_points(s, "Spadez") == 43 and contributions(s, "hedger") == 3 and contributions(s, "Spadez") == 0
    assert s.rounds_played == 3 and len(s.bolts) == 7
    # what the views read
    assert broken_cells(s, "Spadez") == {"A1", "A2", "A3", "A4", "A5"} and ward_broken(s, "Spadez", ward)
    assert not ward_broken(s, "Spadez", s.boards["Spadez"].wards[1])
    assert bolt_effect(s, "uri", 2, bolt("fire A1")) == "broke Spadez's A1; helped break Spadez's fire ward worth 6"
    assert bolt_effect(s, "cam", 3, bolt("fire A4")) == "no tile broken by it so far"


# ---- the break kinds -------------------------------------------------------------------------------


def test_an_advantage_break_needs_one_bolt_of_the_element_that_beats_the_tile():
    for tile, beater in ((WIND, FIRE), (EARTH, WIND), (WATER, EARTH), (FIRE, WATER)):
        assert tile_break(tile, [strike("a", beater)]) == ("advantage", (strike("a", beater),))
        assert tile_break(tile, [strike("a", e) for e in ELEMENTS if e not in (beater, tile)]) is None


def test_a_singularity_break_needs_two_bolts_of_the_tiles_element():
    for tile in ELEMENTS:
        assert tile_break(tile, [strike("a", tile)]) is None
        assert tile_break(tile, [strike("a", tile), strike("b", tile)]) == (
            "singularity", (strike("a", tile), strike("b", tile)))
    # two bolts of one player at one cell are two bolts
    s = play(state({"P": board(), "Q": board()}), {"Q": "fire A1, fire A1"})
    assert breaks(s, "P") == {"A1": ("singularity", ["Q", "Q"])}


def test_a_neutral_break_needs_three_bolts_of_any_element():
    assert tile_break(NEUTRAL, [strike("a", FIRE), strike("b", WATER)]) is None
    three = [strike("a", FIRE), strike("b", WATER), strike("c", EARTH)]
    assert tile_break(NEUTRAL, three) == ("neutral", tuple(three))


def test_other_bolts_do_nothing():
    s = play(state({"P": board(), "Q": board()}), {"Q": "earth A1, wind A1"}, {"Q": "fire A1"})
    assert broken_tiles(s, "P") == {}  # earth and wind neither broke nor accumulated: one fire bolt alone
    s = play(s, {"Q": "wind A1"}, {"Q": "fire A1"}, start=4)
    assert breaks(s, "P") == {"A1": ("singularity", ["Q", "Q"])}
    assert tile_break(FIRE, [strike("a", EARTH), strike("b", WIND), strike("c", FIRE), strike("d", WATER)]) == (
        "advantage", (strike("d", WATER),))


# ---- ruling 2: accumulation ------------------------------------------------------------------------


def test_own_element_bolts_accumulate_across_rounds():
    s = play(state({"P": board(), "Q": board(), "R": board()}),
             {"Q": "fire A1"}, {}, {"R": "fire A1"})  # rounds 2, 3, 4
    (tb,) = s.tile_breaks
    assert (tb.board, tb.cell, tb.round, tb.kind) == ("P", "A1", 4, "singularity")
    assert [(x.firer, x.round) for x in tb.strikes] == [("Q", 2), ("R", 4)]  # both count
    # on R's board Q's bolt still waits: R's own bolt never strikes it
    assert bolt_effect(s, "Q", 2, bolt("fire A1")) == "broke P's A1"  # never how: that tells the tile's element
    assert broken_tiles(s, "R") == {}


def test_neutral_tiles_accumulate_bolts_of_any_element_until_three():
    s = play(state({"P": board(), "Q": board()}), {"Q": "fire H1"}, {"Q": "water H1"})
    assert broken_tiles(s, "P") == {}
    s = strike_round(s, {"Q": [bolt("wind H1")]}, 4)
    (tb,) = s.tile_breaks
    assert (tb.cell, tb.round, tb.kind, [x.round for x in tb.strikes]) == ("H1", 4, "neutral", [2, 3, 4])


# ---- ruling 3: which bolts count -------------------------------------------------------------------


def test_two_advantage_bolts_in_one_round_both_count():
    s = play(state({"P": board()}, ["P", "Q", "R"]), {"Q": "water A1", "R": "water A1"})
    assert breaks(s, "P") == {"A1": ("advantage", ["Q", "R"])}
    assert tiles_broken_by(s, "Q") == tiles_broken_by(s, "R") == 1


def test_a_lone_own_bolt_beside_an_advantage_break_does_not_count():
    s = play(state({"P": board()}, ["P", "Q", "R"]), {"Q": "water A1", "R": "fire A1"})
    assert breaks(s, "P") == {"A1": ("advantage", ["Q"])}
    # nor one fired in an earlier round
    s = play(state({"P": board()}, ["P", "Q", "R"]), {"R": "fire A1"}, {"Q": "water A1"})
    assert breaks(s, "P") == {"A1": ("advantage", ["Q"])} and tiles_broken_by(s, "R") == 0


def test_advantage_with_accumulated_singularity_counts_every_bolt():
    s = play(state({"P": board()}, ["P", "Q", "R", "S"]), {"R": "fire A1"}, {"Q": "water A1", "S": "fire A1"})
    assert breaks(s, "P") == {"A1": ("advantage and singularity", ["R", "Q", "S"])}


def test_three_own_bolts_all_count_and_four_neutral_bolts_all_count():
    s = play(state({"P": board()}, ["P", "Q", "R", "S", "T"]),
             {"Q": "fire A1, wind H1", "R": "fire A1, water H1", "S": "fire A1, earth H1", "T": "fire H1"})
    assert breaks(s, "P") == {"A1": ("singularity", ["Q", "R", "S"]), "H1": ("neutral", ["Q", "R", "S", "T"])}


# ---- ruling 4: bolts on a broken tile --------------------------------------------------------------


def test_bolts_on_a_broken_tile_do_nothing():
    s = play(state({"P": board()}, ["P", "Q", "R"]), {"Q": "water A1"}, {"R": "fire A1, water A1"},
             {"R": "fire A1"})
    assert breaks(s, "P") == {"A1": ("advantage", ["Q"])} and len(s.tile_breaks) == 1
    assert tiles_broken_by(s, "R") == 0 and unbroken_tiles(s, "P") == 63


# ---- ruling 5: wards break down --------------------------------------------------------------------


def test_a_ward_breaks_at_the_end_of_the_round_of_its_third_broken_tile():
    s = play(state({"P": board()}, ["P", "Q"]), {"Q": "water A1, water A2"})
    assert broken_wards(s, "P") == {} and unbroken_tiles(s, "P") == 62
    s = strike_round(s, {"Q": [bolt("water A3")]}, 3)
    (wb,) = broken_wards(s, "P").values()
    assert wb.round == 3 and wb.ward.label == "W1" and wb.shares == {"Q": 6}
    # its other tiles are broken too, by nobody
    assert broken_tiles(s, "P")["A4"] == broken_tiles(s, "P")["A5"] == WITH_WARD
    assert unbroken_tiles(s, "P") == 64 - 5 and tiles_broken_by(s, "Q") == 3
    # a later bolt there does nothing
    after = strike_round(s, {"Q": [bolt("water A4"), bolt("fire A5")]}, 4)
    assert after.tile_breaks == s.tile_breaks and after.ward_breaks == s.ward_breaks


def test_tiles_breaking_in_the_round_their_ward_breaks_all_count():
    s = play(state({"P": board()}, ["P", "Q", "R"]),
             {"Q": "water A1, water A2", "R": "water A3, water A4"})  # 4 tiles at once
    (wb,) = broken_wards(s, "P").values()
    assert len(wb.strikes) == 4 and wb.shares == {"Q": 3, "R": 3}
    assert sorted(breaks(s, "P").items()) == [("A1", ("advantage", ["Q"])), ("A2", ("advantage", ["Q"])),
                                              ("A3", ("advantage", ["R"])), ("A4", ("advantage", ["R"])),
                                              ("A5", WITH_WARD)]


def test_shares_are_exact_fractions():
    s = play(state({"P": board()}, ["P", "Q", "R"]),
             {"Q": "water A1, water A2", "R": "water A1"}, {"R": "water A3"})  # A1 by both: 2 bolts each
    (wb,) = broken_wards(s, "P").values()
    assert wb.shares == {"Q": 3, "R": 3}
    s = play(state({"P": board(points=(4,) + POINTS_CYCLE[1:])}, ["P", "Q", "R"]),
             {"Q": "water A1, water A2", "R": "water A3"})
    assert broken_wards(s, "P")[s.boards["P"].wards[0]].shares == {"Q": Fraction(8, 3), "R": Fraction(4, 3)}
    assert shares(2, [strike("a", FIRE)] * 2 + [strike("b", FIRE)]) == {"a": Fraction(4, 3), "b": Fraction(2, 3)}


def test_the_neutral_ward_breaks_at_three_broken_tiles_for_one_point():
    s = state({"D": board()}, ["D", "A", "B", "C"])
    s = play(s, {p: "fire H1, water H2" for p in "ABC"}, {p: "earth H3" for p in "ABC"})
    (wb,) = broken_wards(s, "D").values()
    assert wb.ward.element is NEUTRAL and wb.round == 3 and len(wb.strikes) == 9
    assert wb.shares == {p: Fraction(1, 3) for p in "ABC"}
    assert broken_tiles(s, "D")["H4"] == WITH_WARD and unbroken_tiles(s, "D") == 60
    assert score(s, "D") == 48 and score(s, "A") == Fraction(1, 3)


# ---- bolts strike every other board ----------------------------------------------------------------


def test_one_bolt_contributes_on_every_other_board():
    fire_a = board()
    earth_a = board(elements=(EARTH,) + ELEMENT_CYCLE[1:])
    s = play(state({"P": fire_a, "Q": fire_a, "S": earth_a}, ["P", "Q", "R", "S"]),
             {"R": "water A1, water A2"}, {"R": "water A3"})
    for owner in "PQ":
        (wb,) = broken_wards(s, owner).values()
        assert wb.shares == {"R": 6}
    assert broken_tiles(s, "S") == {}  # water does nothing to earth
    assert score(s, "R") == 12 and tiles_broken_by(s, "R") == 6


def test_firing_never_hits_the_firers_own_board():
    s = play(state({"P": board(), "Q": board()}), {"P": "water A1, water A2", "Q": "fire H1"}, {"P": "water A3"})
    assert broken_tiles(s, "P") == {}  # neither P's own bolts nor Q's one on a neutral tile
    assert set(broken_tiles(s, "Q")) == {"A1", "A2", "A3", "A4", "A5"}
    assert all(x.firer != tb.board for tb in s.tile_breaks for x in tb.strikes)
    assert score(s, "P") == 49 + 6 and score(s, "Q") == 49 - 6


# ---- the score and its tie chain --------------------------------------------------------------------


def test_the_score_then_unbroken_tiles_then_tiles_broken_then_the_gamewide_tiebreak():
    fire_a = board()
    earth_a = board(elements=(EARTH,) + ELEMENT_CYCLE[1:])
    bo = board(points=(2, 4, 6) + POINTS_CYCLE[3:])  # A1-A5 worth 2, B2-B6 worth 6
    s = state({"Ann": fire_a, "Bo": bo, "Cy": earth_a, "Di": earth_a})
    tiebreak = ["Bo", "Ann", "Di", "Cy"]
    assert [p.player for p in placements(s, tiebreak)] == tiebreak  # all tied: the Gamewide Tiebreak

    s = play(s, {"Cy": "water A1"})  # breaks A1 on Ann's and Bo's boards; nothing on Di's earth
    assert {p: tie_chain(s, p) for p in s.participants} == {
        "Ann": (49, 63, 0), "Bo": (49, 63, 0), "Cy": (49, 64, 2), "Di": (49, 64, 0)}
    ranked = placements(s, tiebreak)
    # Cy over Di by tiles broken, both over Bo and Ann by unbroken tiles, Bo over Ann by the tiebreak
    assert [(p.player, p.place) for p in ranked] == [("Cy", 1), ("Di", 2), ("Bo", 3), ("Ann", 4)]
    assert ranked[0].score == 49 and ranked[0].figures == {"unbroken tiles": 64, "tiles broken": 2}

    s = strike_round(s, {"Cy": [bolt("water A2"), bolt("water A3")]}, 3)  # Ann's 6 and Bo's 2 break down
    # Di over Bo by the score, with fewer tiles broken and later in the tiebreak
    assert [(p.player, p.score) for p in placements(s, tiebreak)] == [("Cy", 57), ("Di", 49), ("Bo", 47),
                                                                      ("Ann", 43)]


# ---- properties --------------------------------------------------------------------------------------

PLAYERS = ("Ann", "Bo", "Cy", "Di", "Ed")
# two wards and (half the bolts) three neutral cells, so that all three break often
TARGETS = st.one_of(st.sampled_from(SNAKE[:10]), st.sampled_from(NEUTRAL_CELLS[:3]))


@st.composite
def games(draw):
    players = PLAYERS[:draw(st.integers(2, 5))]
    boards = {p: board(draw(st.permutations(ELEMENT_CYCLE)), draw(st.permutations(POINTS_CYCLE)))
              for p in players}
    bolts = st.builds(Bolt, TARGETS, st.sampled_from(ELEMENTS))
    rounds = [{p: draw(st.lists(bolts, max_size=2)) for p in players} for _ in range(2, 7)]
    return state(boards), rounds


@settings(max_examples=60, deadline=None)
@given(games())
def test_shares_tiles_wards_and_scores_stay_consistent(game):
    s, rounds = game
    for number, fired in enumerate(rounds, 2):
        s = strike_round(s, fired, number)
    assert s.rounds_played == 6 and len(s.bolts) == sum(len(b) for r in rounds for b in r.values())
    for wb in s.ward_breaks:
        assert sum(wb.shares.values()) == wb.ward.points  # exactly
    tiles = [(tb.board, tb.cell) for tb in s.tile_breaks]
    assert len(tiles) == len(set(tiles))  # a tile never breaks twice
    for tb in s.tile_breaks:
        assert tb.strikes and all(x.firer != tb.board and x.bolt.cell == tb.cell and x.round <= tb.round
                                  for x in tb.strikes)
        ward = s.boards[tb.board].ward_at(tb.cell)
        gone = broken_wards(s, tb.board).get(ward)
        assert gone is None or gone.round >= tb.round  # nothing breaks in a broken ward
    total = Fraction(0)
    for p, b in s.boards.items():
        gone = broken_wards(s, p)
        for ward in b.wards:
            broken = sum(tb.board == p and tb.cell in ward.cells for tb in s.tile_breaks)
            assert (ward in gone) == (broken >= 3)
        total += sum(w.points for w in b.wards if w not in gone or gone[w].strikes)
        assert unbroken_tiles(s, p) == 64 - len(broken_tiles(s, p))
    assert sum(score(s, p) for p in s.participants) == total
