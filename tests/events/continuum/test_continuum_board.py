"""Elemental Continuum's boards: every kind of bad board named in chess notation, a valid board,
and random boards (always valid, deterministic by seed, never restarting without end)."""

import random
from collections import Counter

from hypothesis import given, settings, strategies as st

from sheets_host.events.continuum.board import (MAX_ATTEMPTS, NEUTRAL_LABEL, board_cells, board_problems, grid_labels,
                                                grid_rows, random_board, random_tiling, wards_tab)
from sheets_host.events.continuum.state import CELLS, ELEMENTS, POINTS, Board, Element, Ward, neighbours

F, W, G, E = Element.FIRE, Element.WATER, Element.WIND, Element.EARTH

# A valid board as a player would type it: rank 8 first, files A..H; "n" marks a neutral cell.
GRID = ("W3 W3 W3 G3 G3 E3 E3 E3",
        "G2 W3 E2 G3 G3 F3 F3 E3",
        "G2 W3 E2 E2 G3 F3 F3 E3",
        "G2 E2 E2 G1 E1 F3 W2 W2",
        "G2 G2 W1 G1 E1 n  W2 F2",
        "F1 F1 W1 G1 E1 n  W2 F2",
        "F1 F1 W1 G1 E1 n  W2 F2",
        "F1 W1 W1 G1 E1 n  F2 F2")
WARDS = {"F1": (F, 6), "F2": (F, 4), "F3": (F, 2), "W1": (W, 2), "W2": (W, 6), "W3": (W, 4),
         "G1": (G, 4), "G2": (G, 2), "G3": (G, 6), "E1": (E, 6), "E2": (E, 2), "E3": (E, 4)}
POINTS_HINT = "need four wards of each of 2, 4 and 6"


def grid(**changes):
    labels = grid_labels([row.split() for row in GRID])
    return labels | changes


def problems(labels=None, wards=None):
    board, found = board_problems(grid() if labels is None else labels, WARDS if wards is None else wards)
    assert (board is None) == bool(found)
    return found


# ---- a valid board -------------------------------------------------------------------------------


def test_a_valid_board_gives_its_wards_in_wards_tab_order_then_the_neutral_ward():
    board, found = board_problems(grid(), WARDS)
    assert found == []
    assert [w.label for w in board.wards] == list(WARDS) + [NEUTRAL_LABEL]
    assert board.wards[0] == Ward("F1", F, 6, ("A1", "A2", "B2", "A3", "B3"))
    assert board.wards[-1] == Ward(NEUTRAL_LABEL, Element.NEUTRAL, 1, ("F1", "F2", "F3", "F4"))
    assert board.ward_at("H1").label == "F2" and board.ward_at("H1").cells == ("G1", "H1", "H2", "H3", "H4")
    for ward in board.wards:
        assert list(ward.cells) == sorted(ward.cells, key=CELLS.index)


def test_labels_match_the_wards_tab_ignoring_case_and_spaces_and_keep_its_spelling():
    board, found = board_problems(grid(A1="f1", A2=" F1 ", B1="w1"), WARDS)
    assert found == []
    assert board.ward_at("A1").label == "F1" and board.ward_at("B1").label == "W1"


def test_neutral_is_spelled_neutral_n_or_dash_in_any_case_or_by_a_neutral_wards_tab_label():
    for spellings in (("neutral",) * 4, ("N", "Neutral", "-", "n"), ("Gray",) * 4):
        board, found = board_problems(grid(**dict(zip(("F1", "F2", "F3", "F4"), spellings))),
                                      WARDS | {"gray": (Element.NEUTRAL, None)})
        assert found == []
        assert board.wards[-1] == Ward(NEUTRAL_LABEL, Element.NEUTRAL, 1, ("F1", "F2", "F3", "F4"))


def test_a_wards_tab_label_wins_over_a_neutral_spelling():
    wards = {("N" if label == "F3" else label): v for label, v in WARDS.items()}
    labels = {cell: ("N" if label == "F3" else label) for cell, label in grid().items()}
    assert problems(labels, wards)[0].startswith("ward N has 9 cells: F1 F2 F3 F4")  # "n" is now ward N
    labels |= dict.fromkeys(("F1", "F2", "F3", "F4"), "neutral")
    board, found = board_problems(labels, wards)
    assert found == [] and board.ward_at("F7") == Ward("N", F, 2, ("F5", "F6", "G6", "F7", "G7"))
    assert problems(labels | {"F5": "n"}, wards) == []  # still ward N, not neutral
    assert problems(labels | {"F4": "N"}, wards) == ["ward N has 6 cells: F4 F5 F6 G6 F7 G7; a ward has 5",
                                                     "3 neutral cells: F1 F2 F3; need 4"]


# ---- bad boards ----------------------------------------------------------------------------------


def test_a_ward_of_six_cells_and_one_of_four_are_named():
    assert problems(grid(H4="W2")) == ["ward F2 has 4 cells: G1 H1 H2 H3; a ward has 5",
                                       "ward W2 has 6 cells: G2 G3 G4 H4 G5 H5; a ward has 5"]


def test_a_disconnected_ward_lists_its_parts():
    assert problems(grid(A1="W1", B1="F1")) == ["ward W1 is not connected: A1 | C1 C2 C3 C4"]


def test_a_ward_can_be_both_too_big_and_disconnected():
    assert problems(grid(H8="F1")) == ["ward F1 has 6 cells: A1 A2 B2 A3 B3 H8; a ward has 5",
                                       "ward F1 is not connected: A1 A2 B2 A3 B3 | H8",
                                       "ward E3 has 4 cells: H6 H7 F8 G8; a ward has 5",
                                       "ward E3 is not connected: H6 H7 | F8 G8"]


def test_wrong_counts_of_elements_are_named_with_their_wards():
    assert problems(wards=WARDS | {"W1": (F, 2)}) == ["fire has 4 wards (F1, F2, F3, W1); each element needs 3",
                                                      "water has 2 wards (W2, W3); each element needs 3"]


def test_wrong_counts_of_points_are_named_with_their_wards():
    assert problems(wards=WARDS | {"W1": (W, 6)}) == [f"3 wards are worth 2 (F3, G2, E2); {POINTS_HINT}",
                                                      f"5 wards are worth 6 (F1, W1, W2, G3, E1); {POINTS_HINT}"]


def test_three_or_five_neutral_cells():
    assert problems(grid(F4="F3")) == ["ward F3 has 6 cells: F4 F5 F6 G6 F7 G7; a ward has 5",
                                       "3 neutral cells: F1 F2 F3; need 4"]
    assert problems(grid(H1="n")) == ["ward F2 has 4 cells: G1 H2 H3 H4; a ward has 5",
                                      "ward F2 is not connected: G1 | H2 H3 H4",
                                      "5 neutral cells: F1 H1 F2 F3 F4; need 4"]
    assert "0 neutral cells; need 4" in problems(grid(F1="F2", F2="F2", F3="F2", F4="F2"))


def test_blank_cells_are_named():
    assert problems(grid(C3=None))[0] == "cell C3 is blank: every cell holds a ward's label or 'neutral'"
    assert problems(grid(C3="", D3="  "))[0] == "cells C3 D3 are blank: every cell holds a ward's label or 'neutral'"
    assert problems({}, WARDS)[0].startswith("cells A1 B1 C1")


def test_an_unknown_label_is_named_with_its_cells():
    assert problems(grid(C3="X", C4="x"))[0] == "label 'X' in C3 C4 is not in the wards tab"


def test_a_wards_tab_label_with_no_cells_is_named_and_not_counted():
    assert problems(wards=WARDS | {"Z1": (F, 2)}) == ["ward Z1 is in the wards tab but no cell holds it"]


def test_a_ward_with_no_element_or_no_points_or_odd_points():
    found = problems(wards=WARDS | {"W1": (None, None), "W2": (W, 5)})
    assert found[:3] == ["ward W1 has no element: give it fire, water, wind or earth in the wards tab",
                         "ward W1 has no points: give it 2, 4 or 6 in the wards tab",
                         "ward W2 is worth 5 points; a ward is worth 2, 4 or 6"]
    assert "water has 2 wards (W2, W3); each element needs 3" in found


def test_too_many_wards_on_the_grid():
    found = problems(grid(H1="F4"), WARDS | {"F4": (F, 2)})
    assert "13 wards on the grid (F1, F2, F3, W1, W2, W3, G1, G2, G3, E1, E2, E3, F4); need 12" in found
    assert "ward F4 has 1 cell: H1; a ward has 5" in found


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(CELLS), st.sampled_from(["F1", "W2", "n", "-", "X", "", None, "e1 "])),
       st.dictionaries(st.sampled_from(["F1", "W2", "E1", "N"]),
                       st.tuples(st.sampled_from([*Element, None]), st.sampled_from([*POINTS, None, 3]))))
def test_any_typed_board_gives_either_a_board_or_problems(changes, wards):
    board, found = board_problems(grid(**changes), wards)
    assert (board is None) == bool(found)


# ---- writing boards back -------------------------------------------------------------------------


def test_grid_rows_read_rank_eight_first_and_grid_labels_reads_them_back():
    board, _ = board_problems(grid(), WARDS)
    rows = grid_rows(board)
    assert len(rows) == 8 and all(len(row) == 8 for row in rows)
    assert rows[0][:3] == ["W3", "W3", "W3"] and rows[7][:2] == ["F1", "W1"] and rows[4][5] == NEUTRAL_LABEL
    assert board_problems(grid_labels(rows), wards_tab(board)) == (board, [])


def test_board_cells_maps_every_cell_to_its_ward_in_cells_order():
    board, _ = board_problems(grid(), WARDS)
    cells = board_cells(board)
    assert list(cells) == list(CELLS)
    assert all(cells[c] == board.ward_at(c) for c in CELLS)


# ---- random boards -------------------------------------------------------------------------------


def _valid(board: Board):
    assert board_problems(grid_labels(grid_rows(board)), wards_tab(board)) == (board, [])
    assert Counter(w.element for w in board.wards[:-1]) == {e: 3 for e in ELEMENTS}
    assert Counter(w.points for w in board.wards[:-1]) == {p: 4 for p in POINTS}


def test_random_boards_are_valid_over_many_seeds():
    for seed in range(300):
        _valid(random_board(random.Random(seed)))


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=2**64))
def test_random_boards_are_valid_for_any_seed(seed):
    _valid(random_board(random.Random(seed)))


def test_random_boards_are_deterministic_by_seed_and_vary_between_seeds():
    assert random_board(random.Random(11)) == random_board(random.Random(11))
    assert len({random_board(random.Random(s)) for s in range(20)}) == 20


def test_random_boards_have_neutral_cells_both_joined_and_scattered():
    def joined(cells):
        reached, todo = {cells[0]}, [cells[0]]
        while todo:
            for n in neighbours(todo.pop()):
                if n in cells and n not in reached:
                    reached.add(n)
                    todo.append(n)
        return len(reached) == len(cells)

    shapes = Counter(joined(random_board(random.Random(s)).wards[-1].cells) for s in range(100))
    assert shapes[True] > 20 and shapes[False] > 20


def test_random_tilings_take_few_attempts():
    attempts = [random_tiling(random.Random(seed))[2] for seed in range(300)]
    assert 0 not in attempts  # the fallback was never needed
    # dead pockets pruned (`_regions_fit` at every node): a tiling is nearly always found at once
    assert max(attempts) <= 5 and sum(attempts) / len(attempts) < 1.2


def test_the_fallback_tiling_makes_a_valid_board():
    neutral, pieces, attempts = random_tiling(random.Random(1), max_attempts=0)
    assert attempts == 0 and len(pieces) == 12 and sorted(neutral + sum(pieces, ())) == sorted(CELLS)
    labels = {c: NEUTRAL_LABEL for c in neutral} | {c: f"P{i}" for i, p in enumerate(pieces) for c in p}
    wards = {f"P{i}": (ELEMENTS[i % 4], POINTS[i % 3]) for i in range(12)}
    assert board_problems(labels, wards)[1] == []
    assert MAX_ATTEMPTS > 30
