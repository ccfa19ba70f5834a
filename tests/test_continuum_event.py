"""Elemental Continuum as a festival event: reading boards and bolts as people type them, round 1
resolved (boards set, the missing drawn from the event's generator), the state tabs (dump, load,
host edits refused), privacy over simulated festivals, and a festival played by hand through xlsx
books (check, resolve, undo, replay).

The rules themselves: tests/test_continuum_rules.py; boards: tests/test_continuum_board.py."""

from __future__ import annotations

import random
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from sheets_host import engine, play
from sheets_host.backends.xlsx import XlsxBackend
from sheets_host.cells import SubmitRow
from sheets_host.delivery import submit_frames
from sheets_host.errors import SchemaErrors
from sheets_host.events.continuum import EVENT, read, rules, tabs, views
from sheets_host.events.continuum.board import NEUTRAL_LABEL, grid_labels, random_board
from sheets_host.events.continuum.read import BOARD, BOLTS, WARDS
from sheets_host.events.continuum.state import (CELLS, ELEMENTS, FILES, RANKS, Board, Bolt, ContinuumState,
                                                ContinuumSubmission, Element, Ward)
from sheets_host.festival.rules import generators
from sheets_host.game import rng_for
from sheets_host.games import get_game

from .conftest import fixed_clock
from .test_continuum_board import GRID  # a valid board as a player types it

F, W, G, E = Element.FIRE, Element.WATER, Element.WIND, Element.EARTH
ACADEMY = "academy-of-witchcraft-arts"
GAME = get_game(ACADEMY)

# The wards tab: label, element, points.
WARD_ROWS = (("F1", "fire", 6), ("F2", "fire", 4), ("F3", "fire", 2), ("W1", "water", 2), ("W2", "water", 6),
             ("W3", "water", 4), ("G1", "wind", 4), ("G2", "wind", 2), ("G3", "wind", 6), ("E1", "earth", 6),
             ("E2", "earth", 2), ("E3", "earth", 4))
ELEMENT = {e.value: e for e in Element}


def typed_grid(**changes: str | None) -> dict[str, str | None]:
    """GRID as cell -> what is typed there, with `changes` (None: a blank cell)."""
    return grid_labels([row.split() for row in GRID]) | changes


def expected_board(labels: dict[str, str | None] | None = None) -> Board:
    """The board GRID and WARD_ROWS make: wards in wards-tab order, then the neutral ward."""
    labels = typed_grid() if labels is None else labels
    wards = [Ward(label, ELEMENT[element], points, tuple(c for c in CELLS if labels[c] == label))
             for label, element, points in WARD_ROWS]
    return Board((*wards, Ward(NEUTRAL_LABEL, Element.NEUTRAL, 1, tuple(c for c in CELLS if labels[c] == "n"))))


def board_rows(grid: dict[str, object] | None = None, wards=WARD_ROWS, player: str = "Ada") -> list[SubmitRow]:
    """The board and wards tabs as the engine hands them to the event: the grid's rows (sheet rows
    2 to 9, rank 8 first) and the wards tab's rows."""
    grid = typed_grid() if grid is None else grid
    rows = [SubmitRow(player, n, BOARD.header, {"rank": rank, **{f: grid.get(f + rank) for f in FILES}}, BOARD.name)
            for n, rank in enumerate(reversed(RANKS), 2)]
    return rows + [SubmitRow(player, n, WARDS.header, dict(zip(WARDS.header, w)), WARDS.name)
                   for n, w in enumerate(wards, 2)]


def bolt_rows(*typed, player: str = "Ada") -> list[SubmitRow]:
    """Rows of the continuum tab, from sheet row 2: (cell, element) each."""
    return [SubmitRow(player, n, BOLTS.header, dict(zip(BOLTS.header, r)), BOLTS.name) for n, r in enumerate(typed, 2)]


def said(parsed) -> list[str]:
    """The problems as the status tab shows them (without the player's name)."""
    return [str(p).split(": ", 1)[1] for p in parsed.problems]


def set_up(players=("Ada", "Bo", "Cy", "Di")) -> ContinuumState:
    return EVENT.setup(players, {}, {}, random.Random(0))


def boards_set(players=("Ada", "Bo", "Cy", "Di"), seed: int = 1) -> ContinuumState:
    state = set_up(players)
    return EVENT.resolve(state, {p: ContinuumSubmission() for p in players}, 1, random.Random(seed))[0]


# ---- 1. reading: the board -------------------------------------------------------------------------------


def test_a_board_typed_with_stray_spaces_and_odd_case_is_read_as_the_wards_tab_spells_it():
    grid = typed_grid(A1=" f1 ", A2="F1  ", B2="f1", H8="  e3", G1="F2 ", F1="N", F2=" Neutral ", F3="neutral")
    wards = [(" F1 ", " FIRE ", " 6 "), ("F2", "Fire", "4.0"), ("F3", "fire", 2.0), *WARD_ROWS[3:9],
             ("E1", "EARTH", "6.0"), ("e2", "earth", 2), ("E3", " earth", 4)]
    parsed = EVENT.parse(set_up(), "Ada", board_rows(grid, wards))
    assert parsed.problems == () and parsed.kept == "your board of 12 wards and 4 neutral cells"
    expected = expected_board()
    expected = Board(tuple(replace(w, label="e2") if w.label == "E2" else w for w in expected.wards))
    assert parsed.submission == ContinuumSubmission(board=expected)
    assert parsed.submission.board.wards[-1] == Ward(NEUTRAL_LABEL, Element.NEUTRAL, 1, ("F1", "F2", "F3", "F4"))


def test_grid_labels_match_the_wards_tab_as_its_duplicates_are_found():
    """Regression: the wards tab found "Fire 1" and "fire1" the same ward ("listed already"), but
    the grid matched labels by case and outer spaces only, so "fire1" typed on the grid for a
    ward listed as "Fire 1" was an unknown label. Now both ignore case, spaces and width."""
    wards = [("Fire 1", "fire", 6), *WARD_ROWS[1:]]
    grid = {c: ({"A1": "fire1", "A2": "FIRE 1", "B2": "ｆｉｒｅ１"}.get(c, "Fire 1") if label == "F1" else label)
            for c, label in typed_grid().items()}
    parsed = EVENT.parse(set_up(), "Ada", board_rows(grid, wards))
    assert parsed.problems == ()
    assert parsed.submission.board.wards[0] == Ward("Fire 1", F, 6, ("A1", "A2", "B2", "A3", "B3"))
    twice = EVENT.parse(set_up(), "Ada", board_rows(grid, [*wards, ("fire1", "water", 2)]))
    assert said(twice) == ["tab 'wards', row 14, column 'ward' (A): 'fire1' is listed already; row dropped"]
    assert twice.submission is not None


# Bad boards: (what, grid changes, wards tab, every problem the player is told, in order).
BAD_BOARDS = [
    ("a ward of 6 cells and 3 neutral cells", {"F4": "W2"}, WARD_ROWS,
     ["tab 'board': ward W2 has 6 cells: G2 G3 F4 G4 G5 H5; a ward has 5",
      "tab 'board': 3 neutral cells: F1 F2 F3; need 4"]),
    ("5 neutral cells", {"A1": "n"}, WARD_ROWS,
     ["tab 'board': ward F1 has 4 cells: A2 B2 A3 B3; a ward has 5",
      "tab 'board': 5 neutral cells: A1 F1 F2 F3 F4; need 4"]),
    ("disconnected wards", {"A1": "E3", "H8": "F1"}, WARD_ROWS,
     ["tab 'board': ward F1 is not connected: A2 B2 A3 B3 | H8",
      "tab 'board': ward E3 is not connected: A1 | H6 H7 | F8 G8"]),
    ("4 water wards and 2 fire", {}, (("F1", "water", 6), *WARD_ROWS[1:]),
     ["tab 'board': fire has 2 wards (F2, F3); each element needs 3",
      "tab 'board': water has 4 wards (F1, W1, W2, W3); each element needs 3"]),
    ("5 wards worth 4", {}, (("F1", "fire", 4), *WARD_ROWS[1:]),
     ["tab 'board': 5 wards are worth 4 (F1, F2, W3, G1, E3); need four wards of each of 2, 4 and 6",
      "tab 'board': 3 wards are worth 6 (W2, G3, E1); need four wards of each of 2, 4 and 6"]),
    ("an unknown label", {"A1": "X9"}, WARD_ROWS,
     ["tab 'board': label 'X9' in A1 is not in the wards tab",
      "tab 'board': ward F1 has 4 cells: A2 B2 A3 B3; a ward has 5"]),
    ("a blank cell", {"A1": None}, WARD_ROWS,
     ["tab 'board': cell A1 is blank: every cell holds a ward's label or 'neutral'",
      "tab 'board': ward F1 has 4 cells: A2 B2 A3 B3; a ward has 5"]),
    # Regression: a formula's cell was also said to be blank, which the player can see it is not.
    ("formulas", {"H8": "=A1", "A1": "=SUM(B1:B9)", "B1": None}, WARD_ROWS,
     ["tab 'board', row 2, column 'H' (I): '=A1' is a formula; type the value itself (a ward's label, or neutral)",
      "tab 'board', row 9, column 'A' (B): '=SUM(B1:B9)' is a formula; type the value itself (a ward's label, "
      "or neutral)",
      "tab 'board': cell B1 is blank: every cell holds a ward's label or 'neutral'",
      "tab 'board': ward F1 has 4 cells: A2 B2 A3 B3; a ward has 5",
      "tab 'board': ward W1 has 4 cells: C1 C2 C3 C4; a ward has 5",
      "tab 'board': ward E3 has 4 cells: H6 H7 F8 G8; a ward has 5",
      "tab 'board': ward E3 is not connected: H6 H7 | F8 G8"]),
    ("points typed 5", {}, (*WARD_ROWS[:1], ("F2", "fire", 5), *WARD_ROWS[2:]),
     ["tab 'wards', row 3, column 'points' (C): '5' is not points; allowed: 2, 4, 6; the ward has no points",
      "tab 'board': ward F2 has no points: give it 2, 4 or 6 in the wards tab",
      "tab 'board': 3 wards are worth 4 (W3, G1, E3); need four wards of each of 2, 4 and 6"]),
    ("an element not a ward's", {}, (("F1", "plasma", 6), *WARD_ROWS[1:]),
     ["tab 'wards', row 2, column 'element' (B): 'plasma' is not an element; allowed: fire, water, wind, earth, "
      "neutral; the ward has no element",
      "tab 'board': ward F1 has no element: give it fire, water, wind or earth in the wards tab",
      "tab 'board': fire has 2 wards (F2, F3); each element needs 3"]),
]


@pytest.mark.parametrize("what, changes, wards, expected", BAD_BOARDS, ids=[b[0] for b in BAD_BOARDS])
def test_every_kind_of_bad_board_reaches_the_player_naming_its_cells(what, changes, wards, expected):
    parsed = EVENT.parse(set_up(), "Ada", board_rows(typed_grid(**changes), wards))
    assert parsed.submission is None and parsed.kept == "nothing valid: a board will be drawn for you"
    assert said(parsed) == expected
    assert all(p.player == "Ada" and p.tab in (BOARD.name, WARDS.name) for p in parsed.problems)


def test_the_formula_fix_keeps_the_blank_cells_that_are_blank():
    parsed = EVENT.parse(set_up(), "Ada", board_rows(typed_grid(A1="=B1", A2=None, B2=None)))
    assert "tab 'board': cells A2 B2 are blank: every cell holds a ward's label or 'neutral'" in said(parsed)
    assert not [m for m in said(parsed) if "blank" in m and "A1" in m]


LONG = "9" * 5000


@pytest.mark.parametrize("what, rows, expected", [
    ("a label listed twice", board_rows(None, [*WARD_ROWS, (LONG, "fire", 2), (LONG, "fire", 2)]),
     "tab 'wards', row 14, column 'ward' (A): '999999999999999999999999999999999999999…' is longer than a label "
     "(40 characters at most); row dropped"),
    ("a label too long", board_rows(None, [(LONG, "fire", 6), *WARD_ROWS[1:]]),
     "tab 'wards', row 2, column 'ward' (A): '999999999999999999999999999999999999999…' is longer than a label "
     "(40 characters at most); row dropped"),
    ("an unknown label typed on the grid", board_rows(typed_grid(A1=LONG)),
     "tab 'board': label '999999999999999999999999999999999999999…' in A1 is not in the wards tab"),
])
def test_a_long_cell_is_quoted_shortened(what, rows, expected):
    """Regression (found by tests/test_fuzz_parsers.py): a pasted essay in the wards tab or on the
    grid was quoted whole by "listed already" and by the board's messages naming labels."""
    parsed = EVENT.parse(set_up(), "Ada", rows)
    assert expected in said(parsed)
    assert not [m for m in said(parsed) if LONG[:60] in m]


def test_a_label_of_40_characters_is_a_label():
    label = "The ward of fire that guards the hearth!"
    assert len(label) == 40
    grid = {c: (label if v == "F1" else v) for c, v in typed_grid().items()}
    parsed = EVENT.parse(set_up(), "Ada", board_rows(grid, [(label, "fire", 6), *WARD_ROWS[1:]]))
    assert parsed.problems == () and parsed.submission.board.wards[0].label == label


def test_a_grid_whose_rank_column_was_changed_says_so_and_reads_the_other_rows():
    rows = board_rows()
    rows[0] = replace(rows[0], values={**rows[0].values, "rank": "eight"})
    parsed = EVENT.parse(set_up(), "Ada", rows)
    assert said(parsed)[0] == ("tab 'board', row 2, column 'rank' (A): 'eight' is not a rank (1 to 8): the first "
                               "column is fixed; row not read")
    assert said(parsed)[1] == ("tab 'board': cells A8 B8 C8 D8 E8 F8 G8 H8 are blank: every cell holds a ward's "
                               "label or 'neutral'")


def test_a_silent_player_submits_nothing_and_is_told_a_board_will_be_drawn():
    parsed = EVENT.parse(set_up(), "Ada", [])
    assert parsed.submission is None and parsed.problems == ()
    assert parsed.kept == "nothing: a board will be drawn for you"
    assert EVENT.default(set_up(), "Ada") == ContinuumSubmission()
    # The tabs of round 1 are the board and the wards; bolts' rows typed then are not read.
    assert [t.name for t in EVENT.submit_tabs(set_up(), "Ada")] == ["board", "wards"]
    assert EVENT.parse(set_up(), "Ada", bolt_rows(("A1", "fire"))).submission is None


# ---- 1. reading: the bolts -------------------------------------------------------------------------------


def test_two_bolts_typed_untidily_are_fired():
    parsed = EVENT.parse(boards_set(), "Ada", bolt_rows((" a1 ", "FIRE"), ("h 8", " Water  ")))
    assert parsed.problems == () and parsed.kept == "bolts fire at A1, water at H8"
    assert parsed.submission == ContinuumSubmission(bolts=(Bolt("A1", F), Bolt("H8", W)))
    assert [t.name for t in EVENT.submit_tabs(boards_set(), "Ada")] == ["continuum"]
    assert EVENT.submit_choices(boards_set(), "Ada", "continuum") == {"cell": list(CELLS),
                                                                      "element": ["fire", "water", "wind", "earth"]}


def test_a_third_bolt_is_not_fired_and_the_player_is_told():
    parsed = EVENT.parse(boards_set(), "Ada", bolt_rows(("A1", "fire"), ("B2", "wind"), ("C3", "earth")))
    assert parsed.submission == ContinuumSubmission(bolts=(Bolt("A1", F), Bolt("B2", G)))
    assert said(parsed) == ["tab 'continuum', row 4: 2 bolts a round: this row is not fired"]


CELLS_ALLOWED = "allowed: A1 to H8"  # not the 64 cells one by one


@pytest.mark.parametrize("row, expected", [
    (("I9", "fire"), f"column 'cell' (A): 'I9' is not a cell; {CELLS_ALLOWED}; bolt not fired"),
    (("A1", "neutral"), "column 'element' (B): 'neutral' is not an element; allowed: fire, water, wind, earth; "
                        "bolt not fired"),
    (("A1", "plasma"), "column 'element' (B): 'plasma' is not an element; allowed: fire, water, wind, earth; "
                       "bolt not fired"),
    (("=B7", "fire"), f"column 'cell' (A): '=B7' is a formula; type the value itself (a cell; {CELLS_ALLOWED}); "
                      "bolt not fired"),
    (("A1", "=C2"), "column 'element' (B): '=C2' is a formula; type the value itself (an element; allowed: fire, "
                    "water, wind, earth); bolt not fired"),
    ((None, "fire"), f"column 'cell' (A): the cell is empty (a cell; {CELLS_ALLOWED}); bolt not fired"),
    (("A1", "  "), "column 'element' (B): the cell is empty (an element; allowed: fire, water, wind, earth); "
                   "bolt not fired"),
])
def test_a_bad_bolt_is_not_fired_and_the_player_is_told_what_is_allowed(row, expected):
    parsed = EVENT.parse(boards_set(), "Ada", bolt_rows(("D4", "earth"), row, ("E5", "wind")))
    assert said(parsed) == [f"tab 'continuum', row 3, {expected}"]
    assert parsed.submission == ContinuumSubmission(bolts=(Bolt("D4", E), Bolt("E5", G)))  # the next row fires instead


def test_no_valid_bolt_fires_nothing():
    assert EVENT.parse(boards_set(), "Ada", []).kept == "nothing: no bolt fired"
    parsed = EVENT.parse(boards_set(), "Ada", bolt_rows(("Z0", "fire"), ("A1", "light")))
    assert parsed.submission is None and len(parsed.problems) == 2 and parsed.kept == "nothing: no bolt fired"


# ---- 2. round 1 resolved: boards set, the missing drawn ---------------------------------------------------


def grid_of(board: Board, broken=frozenset()) -> list[list[str]]:
    """`my board` as it must read: rank 8 first, each cell its ward's element and points (and
    whether the tile is broken)."""
    at = {c: w for w in board.wards for c in w.cells}
    return [[rank, *(views.tile_text(at[f + rank].element, at[f + rank].points, f + rank in broken) for f in FILES)]
            for rank in reversed(RANKS)]


def test_round_one_sets_the_typed_boards_and_draws_the_missing_from_the_events_generator():
    players = ("Ada", "Bo", "Cy", "Di")
    state = set_up(players)
    typed = EVENT.parse(state, "Ada", board_rows()).submission
    assert EVENT.parse(state, "Cy", board_rows(typed_grid(A1="n"), player="Cy")).submission is None  # invalid
    own = random_board(random.Random(99))
    subs = {"Ada": typed, "Bo": EVENT.default(state, "Bo"), "Cy": EVENT.default(state, "Cy"),
            "Di": ContinuumSubmission(board=own)}
    after, log = EVENT.resolve(state, subs, 1, random.Random(5))
    rng = random.Random(5)  # drawn in seating order from the event's generator
    drawn = {"Bo": random_board(rng), "Cy": random_board(rng)}
    assert after.boards == {"Ada": expected_board(), **drawn, "Di": own}
    assert after.defaulted == ("Bo", "Cy") and after.rounds_played == 1 and after.bolts == ()
    assert log == ["Continuum Ada: board set", "Continuum Bo: board drawn", "Continuum Cy: board drawn",
                   "Continuum Di: board set"]
    assert EVENT.announcement(state, after, over=False) == [
        "**Elemental Continuum**, round 1: every participant's board is set.",
        "Drawn from the seed (no valid board): Bo, Cy."]
    for player, board in after.boards.items():
        mine = EVENT.private_view(after, player)
        assert mine["my board"].to_numpy().tolist() == grid_of(board), player
        wards = mine["my wards"]
        assert wards["ward"].tolist() == [w.label for w in board.wards]
        assert wards["cells"].tolist() == [" ".join(w.cells) for w in board.wards]
        assert set(wards["status"]) == {"standing"} and set(wards["tiles broken"]) == {0}
        status = dict(mine["my continuum"].to_numpy().tolist())["board"]
        assert status == ("drawn from the seed (none valid in round 1)" if player in drawn else "yours")
    public = EVENT.public_view(after, over=False)
    assert all(frame.empty for frame in public.values())  # nothing broken, nothing of any board shown
    # Everyone typed a board: no line of drawn boards.
    all_typed = EVENT.resolve(state, {p: ContinuumSubmission(board=own) for p in players}, 1, random.Random(5))[0]
    assert EVENT.announcement(state, all_typed, over=False) == [
        "**Elemental Continuum**, round 1: every participant's board is set."]


def test_the_same_seed_draws_the_same_boards_and_another_seed_others():
    players = ("Ada", "Bo", "Cy")
    state = set_up(players)
    silent = {p: ContinuumSubmission() for p in players}
    once, again = (EVENT.resolve(state, silent, 1, random.Random(17)) for _ in range(2))
    assert once == again
    other = EVENT.resolve(state, silent, 1, random.Random(18))[0]
    assert all(other.boards[p] != once[0].boards[p] for p in players)
    assert len({once[0].boards[p] for p in players}) == 3  # each draw its own board


# ---- 3. the state tabs --------------------------------------------------------------------------------


def aimed(state: ContinuumState, player: str, rng: random.Random) -> ContinuumSubmission:
    """Two bolts of the element that beats a standing ward of the next participant's board, at two
    of its cells not broken yet: wards break (random bolts seldom break whole wards)."""
    seats = state.participants
    target = seats[(seats.index(player) + 1) % len(seats)]
    broken = rules.broken_cells(state, target)
    for ward in state.boards[target].wards:
        left = [c for c in ward.cells if c not in broken]
        if ward.element is not Element.NEUTRAL and len(left) >= 2:
            return ContinuumSubmission(bolts=tuple(Bolt(c, ward.element.beaten_by) for c in rng.sample(left, 2)))
    return ContinuumSubmission(bolts=(Bolt(rng.choice(CELLS), rng.choice(ELEMENTS)),))


def played(players=("Ada", "Bo", "Cy", "Di", "Ed"), seed: int = 3, rounds: int = 6) -> list[ContinuumState]:
    """Every state of the event: boards (one drawn), then bolts, half aimed and half random."""
    state = set_up(players)
    states = [state]
    for number in range(1, rounds + 1):
        bot = {p: (aimed if i % 2 and number > 1 else EVENT.bots()["random"]) for i, p in enumerate(players)}
        subs = {p: bot[p](state, p, random.Random(f"{seed}/{number}/{p}")) for p in players}
        if number == 1:
            subs[players[-1]] = ContinuumSubmission()
        state = EVENT.resolve(state, subs, number, random.Random(f"{seed}/{number}"))[0]
        states.append(state)
    return states


def sheet(dumped: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """Dumped rows as the host book gives them back: each with its sheet row."""
    return {tab: [dict(r, _row=n) for n, r in enumerate(rows, 2)] for tab, rows in dumped.items()}


def test_dump_then_load_gives_the_same_state_after_rounds_of_bolts():
    states = played()
    last = states[-1]
    assert len(last.ward_breaks) >= 3 and len(last.tile_breaks) > 20 and last.defaulted == ("Ed",)
    assert any(len(w.shares) > 1 for w in last.ward_breaks)  # shared between firers
    for state in states:
        dumped = tabs.dump(state)
        loaded = tabs.load(state.participants, sheet(dumped))
        assert loaded == state and tabs.dump(loaded) == dumped
        assert (loaded.tile_breaks, loaded.ward_breaks) == (state.tile_breaks, state.ward_breaks)
    dumped = tabs.dump(last)
    assert [r["round"] for r in dumped["continuum bolts"]] == [n for n in range(2, 7) for _ in range(5)]
    assert len(dumped["continuum boards"]) == 5 * 13 and sum(r["drawn"] for r in dumped["continuum boards"]) == 13
    # A host retyping the bolts in any case and order, the ward cells in any order, changes nothing.
    typed = sheet(dumped)
    for r in typed["continuum bolts"]:
        for column in ("bolt 1", "bolt 2"):
            if r[column]:
                element, cell = r[column].split()
                r[column] = f"  {cell.lower()}   {element.upper()} "
    for r in typed["continuum boards"]:
        r["cells"] = " " + " ".join(reversed(r["cells"].lower().split())) + " "
    assert tabs.load(last.participants, typed) == last


def test_load_before_any_board_is_the_state_before_round_one():
    state = set_up()
    assert tabs.dump(state) == {"continuum boards": [], "continuum bolts": []}
    assert tabs.load(state.participants, tabs.dump(state)) == state


def edit(rows: dict[str, list[dict]], tab: str, index: int, **values) -> None:
    rows[tab][index].update(values)


def cells_moved(rows):
    """The first ward's last cell given to the second ward of the same board."""
    first, second = rows["continuum boards"][0], rows["continuum boards"][1]
    moved = first["cells"].split()[-1]
    first["cells"] = " ".join(first["cells"].split()[:-1])
    second["cells"] += " " + moved


HOST_EDITS = [
    ("a cell off the board", lambda rows: edit(rows, "continuum boards", 2, cells=rows["continuum boards"][2]["cells"]
                                                + " i9"),
     ["tab 'continuum boards', row 4, column 'cells': 'I9' is not a cell, A1 to H8"]),
    ("a cell moved to another ward", cells_moved,
     ["tab 'continuum boards': \"Ada's board\" is not valid (ward {w0} has 4 cells: {c0}; a ward has 5)",
      "tab 'continuum boards': \"Ada's board\" is not valid (ward {w1} has 6 cells: "]),
    ("points 3", lambda rows: edit(rows, "continuum boards", 13, points=3),
     ["tab 'continuum boards': \"Bo's board\" is not valid (ward {w13} is worth 3 points; a ward is worth 2, 4 or 6)"]),
    ("4 water wards", lambda rows: edit(rows, "continuum boards", 0, element="water"),
     ["tab 'continuum boards': \"Ada's board\" is not valid (fire has 2 wards ("]),
    ("a board of a non-participant", lambda rows: edit(rows, "continuum boards", 0, player="Zed"),
     ["tab 'continuum boards', row 2, column 'player': 'Zed' is not a participant: Ada, Bo, Cy, Di, Ed"]),
    ("a bolt at I9", lambda rows: edit(rows, "continuum bolts", 1, **{"bolt 1": "fire I9"}),
     ["tab 'continuum bolts', row 3, column 'bolt 1': 'fire I9' is not a bolt: an element and a cell, like fire A1 "
      "('I9' is not a cell; allowed: A1 to H8)"]),
    # Regression: "plasma A1" was read as a cell 'plasma', and the message named the player as the value.
    ("a bolt of plasma", lambda rows: edit(rows, "continuum bolts", 2, **{"bolt 2": "plasma A1"}),
     ["tab 'continuum bolts', row 4, column 'bolt 2': 'plasma A1' is not a bolt: an element and a cell, like fire "
      "A1 ('plasma' is not an element; allowed: fire, water, wind, earth)"]),
    ("a neutral bolt", lambda rows: edit(rows, "continuum bolts", 2, **{"bolt 1": "B2 neutral"}),
     ["tab 'continuum bolts', row 4, column 'bolt 1': 'B2 neutral' is not a bolt: an element and a cell, like fire "
      "A1 ('neutral' is not an element; allowed: fire, water, wind, earth)"]),
    ("a bolt of one word", lambda rows: edit(rows, "continuum bolts", 0, **{"bolt 1": "fire"}),
     ["tab 'continuum bolts', row 2, column 'bolt 1': 'fire' is not a bolt: an element and a cell, like fire A1 "
      "(1 word, not 2)"]),
    # Regression: a row of a player not in the event, a second row, a row missing were read
    # silently: bolts dropped, overwritten, or never fired.
    ("bolts of a non-participant", lambda rows: rows["continuum bolts"].append(
        {"round": 2, "player": "Fay", "bolt 1": "fire A1", "bolt 2": None, "_row": 99}),
     ["tab 'continuum bolts', row 99, column 'player': 'Fay' is not a participant: Ada, Bo, Cy, Di, Ed"]),
    ("a second row", lambda rows: rows["continuum bolts"].append(
        {"round": 3, "player": "Bo", "bolt 1": "fire A1", "bolt 2": None, "_row": 99}),
     ["tab 'continuum bolts', row 99, column 'player': 'Bo' is not a participant without another row in round 3"]),
    ("a row missing", lambda rows: rows["continuum bolts"].pop(6),
     ["tab 'continuum bolts', column 'player': 'round 3: no row for Bo' is not one row for every participant every "
      "round"]),
    ("a round skipped", lambda rows: rows.update({"continuum bolts": [r for r in rows["continuum bolts"]
                                                                       if r["round"] != 3]}),
     ["tab 'continuum bolts', column 'round': '2, 4, 5, 6' is not rounds 2, 3, 4... in turn, after the boards "
      "are set"]),
    ("bolts before the boards", lambda rows: rows.update({"continuum boards": []}),
     ["tab 'continuum bolts', column 'round': '2, 3, 4, 5, 6' is not rounds 2, 3, 4... in turn, after the boards "
      "are set"]),
]


@pytest.mark.parametrize("what, change, expected", HOST_EDITS, ids=[e[0] for e in HOST_EDITS])
def test_a_host_edit_the_rules_cannot_play_is_refused_naming_the_tab(what, change, expected):
    last = played()[-1]
    rows = sheet(tabs.dump(last))
    boards = rows["continuum boards"]
    names = {f"w{i}": r["ward"] for i, r in enumerate(boards)} | {f"c{i}": r["cells"] for i, r in enumerate(boards)}
    change(rows)
    names |= {"c0": rows["continuum boards"][0]["cells"] if rows["continuum boards"] else ""}
    with pytest.raises(SchemaErrors) as refused:
        tabs.load(last.participants, rows)
    lines = str(refused.value).splitlines()
    for words in expected:
        assert any(line.startswith(words.format(**names)) for line in lines), (words, lines)
    if what.startswith(("a bolt", "bolts", "a second", "a row", "a round")):  # nothing else is wrong
        assert len(lines) == len(expected), lines


# ---- 4. privacy over simulated festivals ------------------------------------------------------------------
# Whole bot festivals in memory. In round 1 each Continuum participant lays a board whose ward
# labels are theirs alone ("Q3x5y": participant 3, ward 5) and one stays silent (drawn). Then the
# public (views, standings, announcements) and every other reader are searched for what is private:
# the firers, the bolts that broke nothing, the wards not broken, another's board and bolts.

PRIVACY_FESTIVALS = ((3, 10), (8, 8))


def label(i: int, k: int) -> str:
    return f"Q{i}x{k}y"


def relabelled(board: Board, i: int) -> Board:
    return Board(tuple(w if w.element is Element.NEUTRAL else replace(w, label=label(i, k))
                       for k, w in enumerate(board.wards)))


def festival(seed: int, count: int) -> list:
    """Every state of a bot festival (the pregame, then after each round), round 1 as above."""
    names = play.bot_names(count)
    defaults = play.default_settings(GAME)
    config, data = defaults["config"], defaults["data"]
    states = play.bot_states(GAME, names, seed, config, data)
    start, first = next(states), next(states)
    members = first.assignment["continuum"]
    moves = {p: GAME.bot(first, p, rng_for(seed, first.round, f"bot/{p}")) for p in names}
    for i, p in enumerate(members):
        board = None if i == 1 else relabelled(moves[p].events["continuum"].board, i)
        continuum = board and ContinuumSubmission(board=board)
        moves[p] = replace(moves[p], events={**moves[p].events, "continuum": continuum})
    after = GAME.resolve(first, moves, rng_for(seed, first.round, "resolve")).state
    return [start, first, *play.bot_states(GAME, names, seed, config, data, state=after)]


@pytest.fixture(scope="module")
def festivals():
    return [festival(*f) for f in PRIVACY_FESTIVALS]


def continuum(state) -> ContinuumState | None:
    return state.events.get("continuum") if state.assignment else None


def with_continuum(state, c: ContinuumState):
    return replace(state, events={**state.events, "continuum": c})


def counted(c: ContinuumState) -> set[tuple[str, int, Bolt]]:
    """The bolts that count in some tile's break."""
    return {(s.firer, s.round, s.bolt) for t in c.tile_breaks for s in t.strikes}


def idle(c: ContinuumState) -> list[tuple[str, int, Bolt]]:
    """The bolts that broke nothing (so far)."""
    count = counted(c)
    return [b for b in c.bolts if b not in count]


def standing(c: ContinuumState, player: str) -> list[Ward]:
    gone = rules.broken_wards(c, player)
    return [w for w in c.boards[player].wards if w not in gone]


def hidden(c: ContinuumState, owners) -> ContinuumState:
    """Twin: what `owners` keep to themselves otherwise. Their bolts that broke nothing are not
    fired; their standing wards are relabelled and pass their elements and points round (the
    same multiset: scores, and so the ranking, stay)."""
    boards = dict(c.boards)
    for owner in owners:
        up = [w for w in standing(c, owner) if w.element is not Element.NEUTRAL]
        turned = {w: replace(w, label=w.label + "-twin", element=n.element, points=n.points)
                  for w, n in zip(up, up[1:] + up[:1])}
        boards[owner] = Board(tuple(turned.get(w, w) for w in c.boards[owner].wards))
    gone = {b for b in idle(c) if b[0] in owners}
    return replace(c, boards=boards, bolts=tuple(b for b in c.bolts if b not in gone))


def swapped(c: ContinuumState, a: str, b: str) -> ContinuumState:
    """Twin: every bolt `a` fired fired by `b` and the other way round (before the end: shares
    decide the final ranking)."""
    def who(p):
        return {a: b, b: a}.get(p, p)

    def strikes(ss):
        return tuple(replace(s, firer=who(s.firer)) for s in ss)

    return replace(c, bolts=tuple((who(f), n, bolt) for f, n, bolt in c.bolts),
                   tile_breaks=tuple(replace(t, strikes=strikes(t.strikes)) for t in c.tile_breaks),
                   ward_breaks=tuple(replace(w, strikes=strikes(w.strikes),
                                             shares={who(p): s for p, s in w.shares.items()}) for w in c.ward_breaks))


def public_of(before, state) -> tuple:
    return (GAME.public_view(state), GAME.standings(state), before and GAME.announcement(before, state))


def strings(frames: dict[str, pd.DataFrame]) -> list[str]:
    """Every cell of the frames (their names and headers too), each its own text."""
    return [str(v) for name, f in frames.items() for v in (name, *f.columns, *f.to_numpy().ravel())]


class Texts(list):
    """What a reader is shown, each cell or line its own text; `in` looks inside each one."""

    def __contains__(self, needle: object) -> bool:
        return any(str(needle).casefold() in text.casefold() for text in self)


def public_text(before, state) -> Texts:
    views_, standings, told = public_of(before, state)
    return Texts(strings({**views_, "standings": standings}) + (told.splitlines() if told else []))


def reader_of(state, player: str) -> tuple:
    tabs_ = GAME.submit_tabs(state, player)
    return (GAME.private_view(state, player), GAME.how_to_submit(state, player),
            [GAME.submit_choices(state, player, t.name) for t in tabs_])


def reader_text(state, player: str) -> Texts:
    frames, how, choices = reader_of(state, player)
    return Texts(strings(frames) + list(how) + [v for c in choices for vs in c.values() for v in vs])


def same(a: tuple, b: tuple) -> bool:
    def eq(x, y):
        if isinstance(x, dict):
            return x.keys() == y.keys() and all(eq(x[k], y[k]) for k in x)
        if isinstance(x, pd.DataFrame):
            return x.equals(y)
        return x == y
    return len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b))


def pairs_of(festivals):
    for states in festivals:
        for before, state in zip([None, *states], states):
            if continuum(state) is not None and continuum(state).boards:
                yield before, state


def test_the_festivals_have_what_privacy_is_checked_on(festivals):
    for states in festivals:
        last = continuum(states[-1])
        assert states[-1].over and last.rounds_played == 6 and len(last.defaulted) == 1
        assert len(last.ward_breaks) >= 2 and len(last.tile_breaks) > 30 and len(idle(last)) > 10
        assert all(any(w.label.startswith("Q") for w in last.boards[p].wards) != (p in last.defaulted)
                   for p in last.participants)


def test_the_public_never_names_a_firer_nor_a_bolt_that_broke_nothing(festivals):
    looked = 0
    for before, state in pairs_of(festivals):
        c = continuum(state)
        text = public_text(before, state)
        for firer, n, bolt in c.bolts:  # no bolt as the host's log or the tabs write one
            for shown in (f"{bolt.element.value} at {bolt.cell}", f"{bolt.element.value} {bolt.cell}",
                          f"{bolt.cell} {bolt.element.value}", f"{bolt.cell} | {bolt.element.value}"):
                assert shown not in text, (firer, n, bolt)
        assert not [line for line in views.log(c) if line in text]
        for word in ("fired by", "share", "contribut", "bolts of", "helped", "advantage", "singularity"):
            assert word not in text, word
        # The tiles shown broken are exactly those broken: a bolt that broke nothing shows nowhere
        # (its cell only where another broke that very tile in that round).
        tiles = GAME.public_view(state)["continuum tiles broken"]
        shown_tiles = set(zip(tiles["round"], tiles["board"], tiles["cell"]))
        broken = {(t.round, t.board, t.cell) for t in c.tile_breaks}
        assert shown_tiles == broken
        for firer, n, bolt in idle(c):
            for board in c.participants:
                if board != firer:
                    assert ((n, board, bolt.cell) in shown_tiles) == ((n, board, bolt.cell) in broken)
                    looked += 1
        if before is not None and continuum(before) is not None and continuum(before).rounds_played:
            # the round's announcement: the tiles broken that round, board by board, and no others
            lines = re.finditer(r"^- (\S+)'s board: (.*) broken$", GAME.announcement(before, state), re.M)
            told = {(m.group(1), cell) for m in lines for cell in m.group(2).split(", ")}
            assert told == {(t.board, t.cell) for t in c.tile_breaks if t.round == c.rounds_played}
    assert looked > 300  # hundreds of idle bolts looked at (425 with these seeds)


def test_no_public_text_shows_a_ward_not_broken(festivals):
    looked = 0
    for before, state in pairs_of(festivals):
        c = continuum(state)
        text = public_text(before, state)
        broken_cells = {" ".join(w.ward.cells) for w in c.ward_breaks}
        shown = GAME.public_view(state)["continuum wards broken"]
        assert sorted(map(tuple, shown.to_numpy().tolist())) == sorted(
            (w.round, w.board, w.ward.element.value, w.ward.points, " ".join(w.ward.cells)) for w in c.ward_breaks)
        for owner in c.participants:
            for ward in standing(c, owner):
                cells_text = " ".join(ward.cells)
                assert ward.label == NEUTRAL_LABEL or ward.label not in text, (owner, ward)
                assert cells_text in broken_cells or cells_text not in text, (owner, ward)
                assert f"{owner}'s {ward.element.value} ward worth {ward.points}" not in text or any(
                    w.board == owner and (w.ward.element, w.ward.points) == (ward.element, ward.points)
                    for w in c.ward_breaks)
                looked += 1
    assert looked > 500


def test_the_public_stays_the_same_whatever_the_firers_and_the_idle_bolts_and_the_standing_wards(festivals):
    """Twins of each state keeping the public facts: the bolts that broke nothing left out, the
    standing wards passing their elements and points round, and (before the end) two participants'
    bolts fired by each other. The public view, the standings, the announcements and their picture
    of the boards stay."""
    checked = pictured = 0
    for states in festivals:
        for before, state, after in zip([None, *states], states, [*states[1:], None]):
            c = continuum(state)
            if c is None or not c.boards:
                continue

            def twin(s):
                t = continuum(s)
                if t is None or not t.boards:
                    return s
                t = hidden(t, t.participants)
                if not (after or state).over:
                    t = swapped(t, *t.participants[:2])
                return with_continuum(s, t)

            assert same(public_of(before and twin(before), twin(state)), public_of(before, state))
            if state.round % 2:  # the announcement's picture of the boards (some states: it takes a while)
                picture = GAME.picture(state)
                assert GAME.picture(twin(state)) == picture
                pictured += picture is not None
            if after is not None:
                assert GAME.announcement(twin(state), twin(after)) == GAME.announcement(state, after)
            # the twin is no copy: the owners' own books change
            assert not same(reader_of(twin(state), c.participants[0]), reader_of(state, c.participants[0]))
            checked += 1
    assert checked >= 12 and pictured >= 4


def test_another_players_book_never_holds_this_players_board_or_bolts(festivals):
    looked = 0
    for _, state in pairs_of(festivals):
        c = continuum(state)
        for reader in state.players:
            frames, _, _ = reader_of(state, reader)
            text = reader_text(state, reader)
            if reader not in c.participants:
                assert not {"my board", "my wards", "my bolts", "my continuum"} & set(frames)
            else:
                # Their own board, wards and bolts, nobody else's.
                board = c.boards[reader]
                broken = rules.broken_cells(c, reader)
                assert frames["my board"].to_numpy().tolist() == grid_of(board, broken)
                assert frames["my wards"]["cells"].tolist() == [" ".join(w.cells) for w in board.wards]
                mine = frames["my bolts"]
                assert sorted(zip(mine["round"], mine["cell"], mine["element"])) == sorted(
                    (n, b.cell, b.element.value) for f, n, b in c.bolts if f == reader)
                for word in ("advantage", "singularity", "neutral break"):
                    assert word not in Texts(strings({"my bolts": mine}))
                # what a bolt did: the tiles and wards it counts in, never how a tile broke
                did = re.compile(r"no tile broken by it so far|broke \S+'s [A-H][1-8](, \S+'s [A-H][1-8])*"
                                 r"(; helped break \S+'s (fire|water|wind|earth|neutral) ward worth [1246]"
                                 r"(, \S+'s (fire|water|wind|earth|neutral) ward worth [1246])*)?")
                assert all(did.fullmatch(v) for v in mine["what it did"]), mine["what it did"].tolist()
            own = {" ".join(w.cells) for w in c.boards[reader].wards} if reader in c.participants else set()
            public = {" ".join(w.ward.cells) for w in c.ward_breaks}
            for owner in c.participants:
                if owner == reader:
                    continue
                for ward in standing(c, owner):
                    cells_text = " ".join(ward.cells)
                    assert ward.label == NEUTRAL_LABEL or ward.label not in text, (reader, owner, ward)
                    assert cells_text in own | public or cells_text not in text, (reader, owner, ward)
                    looked += 1
    assert looked > 2000


def test_changing_the_others_boards_and_bolts_changes_nothing_a_player_reads(festivals):
    checked = 0
    for _, state in pairs_of(festivals):
        c = continuum(state)
        for reader in state.players:
            others = [p for p in c.participants if p != reader]
            twin = with_continuum(state, hidden(c, others))
            assert same(reader_of(twin, reader), reader_of(state, reader)), reader
            checked += 1
        # and the owner's own book does change
        owner = c.participants[-1]
        assert not same(reader_of(with_continuum(state, hidden(c, [owner])), owner), reader_of(state, owner))
    assert checked > 100


# ---- 5. a festival by hand through xlsx books ------------------------------------------------------------
# Five players, every one in Alchemy and Elemental Continuum (nobody in Summoner's Dream). In
# round 1 Ada types a board with problems, Blaise a valid one untidily, Cora nothing, Dmitri and
# Emmy random boards; in round 2 Ada and Blaise type bolts with a bad row, Cora nothing.

BOOK_PLAYERS = ["Ada", "Blaise", "Cora", "Dmitri", "Emmy"]
BOOK_SEED = 7
ADA_BOARD = typed_grid(F4="W2", H8="=A1")  # W2 of 6 cells, 3 neutral cells, a formula
ADA_WARDS = (*WARD_ROWS[:1], ("F2", "fire", 5), *WARD_ROWS[2:])  # F2 worth 5
ADA_PROBLEMS = [
    "tab 'wards', row 3, column 'points' (C): '5' is not points; allowed: 2, 4, 6; the ward has no points",
    "tab 'board', row 2, column 'H' (I): '=A1' is a formula; type the value itself (a ward's label, or neutral)",
    "tab 'board': ward F2 has no points: give it 2, 4 or 6 in the wards tab",
    "tab 'board': ward W2 has 6 cells: G2 G3 F4 G4 G5 H5; a ward has 5",
    "tab 'board': ward E3 has 4 cells: H6 H7 F8 G8; a ward has 5",
    "tab 'board': ward E3 is not connected: H6 H7 | F8 G8",
    "tab 'board': 3 wards are worth 4 (W3, G1, E3); need four wards of each of 2, 4 and 6",
    "tab 'board': 3 neutral cells: F1 F2 F3; need 4",
]
BLAISE_BOARD = typed_grid(A1=" f1", B2="F1 ", F1="N", F2=" Neutral", H1="f2")
BLAISE_WARDS = ((" f1 ", "FIRE", "6.0"), ("F2", " fire ", 4), *WARD_ROWS[2:])
# Round 2: sheet row -> (cell, element); row 3 left blank.
ADA_BOLTS = {2: ("A1", "fire"), 4: ("I9", "water"), 5: (" b2 ", "WIND")}
BLAISE_BOLTS = {2: ("D4", "earth"), 3: ("E5", "water"), 4: ("H8", "fire")}


def book_session(backend):
    return engine.open_session(backend, fixed_clock)


def dumped(backend) -> dict:
    s = book_session(backend)
    return s.game.dump(s.state)


def problems_in_book(backend, player: str) -> list[str]:
    status = backend.book(f"player:{player}").read(["status"])["status"]
    return [str(v) for v in status.loc[status["what"] == "problem", "value"]]


def shown(frame: pd.DataFrame) -> list[list[str | None]]:
    """Cells as text (blank: None)."""
    return [[None if v is None or (isinstance(v, float) and pd.isna(v)) or v == "" else str(v) for v in row]
            for row in frame.to_numpy().tolist()]


def announcement_file(backend, number: int) -> str:
    return (backend.output_dir() / f"round-{number:02d}.md").read_text()


def typing(backend, player: str, rows: list[dict], at: list[int] | None = None) -> None:
    """`rows` typed into the player's submit tabs (each row names its tab), as a person would."""
    s = book_session(backend)
    frames = submit_frames(s.game, s.state, player, rows, at)
    backend.book(f"player:{player}").write({t: f for t, f in frames.items() if t in {r["tab"] for r in rows}})


def board_typed(grid: dict[str, object], wards) -> list[dict]:
    return ([{"tab": "board", "rank": rank, **{f: grid[f + rank] for f in FILES}} for rank in reversed(RANKS)]
            + [{"tab": "wards", **dict(zip(WARDS.header, w))} for w in wards])


def bolts_typed(rows: dict[int, tuple]) -> tuple[list[dict], list[int]]:
    return [{"tab": "continuum", "cell": c, "element": e} for c, e in rows.values()], list(rows)


def copy_stage(stage: Path, tmp_path: Path) -> XlsxBackend:
    shutil.copytree(stage, tmp_path / "game")
    return XlsxBackend(tmp_path / "game")


@pytest.fixture(scope="module")
def by_hand(tmp_path_factory):
    root = tmp_path_factory.mktemp("continuum")
    backend = XlsxBackend(root / "game")
    stages, out = {}, {}

    def keep(name):
        stages[name] = root / f"stage-{name}"
        shutil.copytree(root / "game", stages[name])

    engine.new_game(backend, ACADEMY, BOOK_PLAYERS, BOOK_SEED, clock=fixed_clock)
    for player in BOOK_PLAYERS:
        backend.book(f"player:{player}").write({"preferences": pd.DataFrame(
            [["Elemental Continuum", "Alchemy", None]], columns=["first", "second", "garnets"], dtype=object)})
    engine.resolve(backend, early=True, clock=fixed_clock)
    typing(backend, "Ada", board_typed(ADA_BOARD, ADA_WARDS))
    typing(backend, "Blaise", board_typed(BLAISE_BOARD, BLAISE_WARDS))
    for i, player in enumerate(("Dmitri", "Emmy")):
        typing(backend, player, read.submit_rows(ContinuumSubmission(board=random_board(random.Random(i)))))
    out["round 1 check"] = engine.check(backend, fixed_clock)
    keep("round1-checked")
    out["round 1"] = engine.resolve(backend, early=True, clock=fixed_clock)
    keep("round1")
    typing(backend, "Ada", *bolts_typed(ADA_BOLTS))
    typing(backend, "Blaise", *bolts_typed(BLAISE_BOLTS))
    typing(backend, "Dmitri", [{"tab": "continuum", "cell": "C3", "element": "water"}])
    out["round 2 check"] = engine.check(backend, fixed_clock)
    keep("round2-checked")
    out["round 2"] = engine.resolve(backend, early=True, clock=fixed_clock)
    keep("round2")
    return {"stages": stages, **out}


def test_the_players_are_in_continuum_and_round_one_asks_for_a_board(by_hand):
    backend = XlsxBackend(by_hand["stages"]["round1-checked"])
    state = book_session(backend).state
    assert state.assignment["continuum"] == tuple(BOOK_PLAYERS) and state.festival_round == 1
    book = backend.book("player:Cora").read()
    assert shown(book["board"]) == [[rank] + [None] * 8 for rank in reversed(RANKS)] and book["wards"].empty
    how = " ".join(str(v) for v in book["status"]["value"])
    assert "lay out your board in the `board` tab" in how and "No valid board: one is drawn for you" in how


def test_check_names_each_players_board_problems_in_their_own_book(by_hand):
    backend = XlsxBackend(by_hand["stages"]["round1-checked"])
    report = by_hand["round 1 check"]
    assert problems_in_book(backend, "Ada") == ADA_PROBLEMS
    readings = {p: report.readings[p] for p in BOOK_PLAYERS}
    assert readings["Ada"].state == "errors" and readings["Ada"].parsed.kept == (
        "Alchemy: nothing; Elemental Continuum: nothing valid: a board will be drawn for you")
    assert readings["Blaise"].parsed.kept == (
        "Alchemy: nothing; Elemental Continuum: your board of 12 wards and 4 neutral cells")
    assert readings["Cora"].state == "empty" and readings["Cora"].parsed.kept.endswith(
        "Elemental Continuum: nothing: a board will be drawn for you")
    for player in BOOK_PLAYERS[1:]:
        assert problems_in_book(backend, player) == [], player
        assert "=A1" not in " ".join(map(str, backend.book(f"player:{player}").read(["status"])["status"]["value"]))
    assert "W2" not in " ".join(str(v) for f in backend.book("public").read().values() for v in f.to_numpy().ravel())


def test_resolved_the_silent_and_the_invalid_get_drawn_boards_shown_in_their_books_and_announced(by_hand):
    backend = XlsxBackend(by_hand["stages"]["round1"])
    state = book_session(backend).state
    c = state.events["continuum"]
    assert c.defaulted == ("Ada", "Cora") and c.rounds_played == 1 and state.festival_round == 2
    text = announcement_file(backend, 2)
    assert text == by_hand["round 1"].announcement
    assert "**Elemental Continuum**, round 1: every participant's board is set.\n" \
           "Drawn from the seed (no valid board): Ada, Cora.\n" in text
    assert c.boards["Blaise"] == Board(tuple(replace(w, label="f1") if w.label == "F1" else w
                                             for w in expected_board().wards))
    assert c.boards["Dmitri"] == random_board(random.Random(0))
    for player in BOOK_PLAYERS:
        book = backend.book(f"player:{player}").read()
        board = c.boards[player]
        assert shown(book["my board"]) == grid_of(board), player
        assert book["my wards"]["cells"].tolist() == [" ".join(w.cells) for w in board.wards]
        me = dict(zip(book["my continuum"]["what"], book["my continuum"]["value"]))
        assert me["board"] == ("drawn from the seed (none valid in round 1)" if player in ("Ada", "Cora") else "yours")
        assert book["continuum"].empty  # round 2's tab, for the bolts
    # Drawn in seating order from the festival's generator for Continuum, seeded by the game's seed.
    rng = generators(rng_for(BOOK_SEED, state.round - 1, "resolve"))("continuum")
    assert [c.boards["Ada"], c.boards["Cora"]] == [random_board(rng), random_board(rng)]
    public = backend.book("public").read()
    assert public["continuum tiles broken"].empty and public["continuum wards broken"].empty
    assert "my board" not in public and "continuum boards" not in public


def test_a_bolts_round_with_a_bad_row_is_checked_then_fired(by_hand):
    backend = XlsxBackend(by_hand["stages"]["round2-checked"])
    assert problems_in_book(backend, "Ada") == [
        f"tab 'continuum', row 4, column 'cell' (A): 'I9' is not a cell; {CELLS_ALLOWED}; bolt not fired"]
    assert problems_in_book(backend, "Blaise") == ["tab 'continuum', row 4: 2 bolts a round: this row is not fired"]
    report = by_hand["round 2 check"]
    # Ada's board tab of round 1 (its formula, its W2 of 6 cells) is still in her book, and no longer read.
    assert shown(backend.book("player:Ada").read(["board"])["board"])[0][-1] == "=A1"
    assert report.readings["Ada"].parsed.kept == "Alchemy: nothing; Elemental Continuum: bolts fire at A1, wind at B2"
    assert report.readings["Cora"].parsed.kept.endswith("Elemental Continuum: nothing: no bolt fired")
    backend = XlsxBackend(by_hand["stages"]["round2"])
    c = book_session(backend).state.events["continuum"]
    assert [(f, b.cell, b.element.value) for f, n, b in c.bolts if n == 2] == [
        ("Ada", "A1", "fire"), ("Ada", "B2", "wind"), ("Blaise", "D4", "earth"), ("Blaise", "E5", "water"),
        ("Dmitri", "C3", "water")]
    mine = backend.book("player:Ada").read(["my bolts"])["my bolts"]
    assert shown(mine[["round", "cell", "element"]]) == [["2", "B2", "wind"], ["2", "A1", "fire"]]
    public = backend.book("public").read()
    tiles = public["continuum tiles broken"]
    assert sorted(zip(tiles["board"], tiles["cell"])) == sorted((t.board, t.cell) for t in c.tile_breaks)
    text = announcement_file(backend, 3)
    assert "**Elemental Continuum**, round 2: bolts fired." in text and "Ada: fire" not in text


def test_undoing_the_bolts_round_gives_the_rows_back_and_resolving_again_gives_the_same(by_hand, tmp_path):
    backend = copy_stage(by_hand["stages"]["round2"], tmp_path)
    after, text = dumped(backend), announcement_file(backend, 3)
    assert engine.undo(backend, fixed_clock).name == "round 2"
    assert book_session(backend).state.events["continuum"].rounds_played == 1
    typed = backend.book("player:Ada").read(["continuum"])["continuum"]
    assert shown(typed) == [["A1", "fire"], ["I9", "water"], [" b2 ", "WIND"]]  # given back without the blank row
    engine.resolve(backend, early=True, clock=fixed_clock)
    assert dumped(backend) == after and announcement_file(backend, 3) == text


def test_undoing_the_board_round_gives_the_boards_back_and_resolving_again_draws_the_same(by_hand, tmp_path):
    backend = copy_stage(by_hand["stages"]["round1"], tmp_path)
    after = dumped(backend)
    assert engine.undo(backend, fixed_clock).name == "round 1"
    book = backend.book("player:Ada").read(["board", "wards"], formulas=True)
    assert shown(book["board"]) == [[rank, *(ADA_BOARD[f + rank] for f in FILES)] for rank in reversed(RANKS)]
    assert shown(book["wards"]) == [[str(v) for v in w] for w in ADA_WARDS]
    engine.resolve(backend, early=True, clock=fixed_clock)
    assert dumped(backend) == after


def test_replay_reproduces_the_host_state_and_the_books(by_hand, tmp_path):
    source = XlsxBackend(by_hand["stages"]["round2"])
    target = XlsxBackend(tmp_path / "replayed")
    assert engine.replay(source, target, fixed_clock) == 3
    assert dumped(target) == dumped(source)
    for role in ("public", "player:Cora", "player:Ada"):
        views_ = [b.book(role).read() for b in (source, target)]
        for tab in ("my board", "my wards", "my bolts", "continuum tiles broken", "continuum wards broken"):
            if tab in views_[0]:
                assert views_[0][tab].equals(views_[1][tab]), (role, tab)
    assert announcement_file(target, 2) == announcement_file(source, 2)
