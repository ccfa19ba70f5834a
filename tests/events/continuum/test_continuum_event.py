"""Elemental Continuum as a festival event: reading boards and bolts as people type them, round 1
resolved (boards set, the missing drawn from the event's generator), and the state tabs (dump, load,
host edits refused).

The rules themselves: tests/events/continuum/test_continuum_rules.py; boards: tests/events/continuum/test_continuum_board.py; privacy:
tests/events/continuum/test_continuum_privacy.py; a festival by hand through books: tests/events/continuum/test_continuum_books.py."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from sheets_host.events.continuum import EVENT
from sheets_host.events.continuum import rules, tabs, views
from sheets_host.events.continuum.board import NEUTRAL_LABEL, grid_labels, random_board
from sheets_host.events.continuum.read import BOARD, BOLTS, DROPPED, WARDS
from sheets_host.events.continuum.state import (CELLS, ELEMENTS, FILES, RANKS, Board, Bolt, ContinuumState,
                                                ContinuumSubmission, Element, Ward)
from sheets_host.games import get_game
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaErrors
from sheets_host.kit.game import generators

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
    return EVENT.resolve(state, {p: ContinuumSubmission() for p in players}, 1, random.Random(seed)).state


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


def test_a_rank_typed_twice_is_read_once_and_the_second_row_named():
    """Regression (issue 34): a second row of a rank overwrote the cells it filled of the first,
    and both rows counted. The first row of a rank is read; a later one is named, not read."""
    rows = board_rows()
    again = SubmitRow("Ada", 10, BOARD.header, {**rows[0].values, "A": "W1"}, BOARD.name)  # rank 8 again
    parsed = EVENT.parse(set_up(), "Ada", [*rows, again])
    assert parsed.submission == EVENT.parse(set_up(), "Ada", rows).submission
    assert said(parsed) == ["tab 'board', row 10, column 'rank' (A): rank 8 is in row 2 already; row not read"]
    assert again.ref not in {ref for refs in parsed.parts.values() for ref in refs}


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


def dropped_with_the_board(expected: list[str], wards: int) -> list[str]:
    """What each row read for an invalid board says when no problem of its own does: the wards
    tab's rows, then the grid's 8 (every row the board drops is named, so `my submissions` can
    say why nothing came of it)."""
    named = {m.groups() for m in map(re.compile(r"tab '(\w+)', row (\d+)").match, expected) if m}
    return [f"tab '{tab}', row {row}: {DROPPED}" for tab, rows in ((WARDS.name, wards), (BOARD.name, 8))
            for row in range(2, rows + 2) if (tab, str(row)) not in named]


@pytest.mark.parametrize("what, changes, wards, expected", BAD_BOARDS, ids=[b[0] for b in BAD_BOARDS])
def test_every_kind_of_bad_board_reaches_the_player_naming_its_cells(what, changes, wards, expected):
    parsed = EVENT.parse(set_up(), "Ada", board_rows(typed_grid(**changes), wards))
    assert parsed.submission is None and parsed.kept == "nothing valid: a board will be drawn for you"
    assert said(parsed) == expected + dropped_with_the_board(expected, len(wards))
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
    """Regression (found by tests/games/test_fuzz_parsers.py): a pasted essay in the wards tab or on the
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
    played = EVENT.resolve(state, subs, 1, random.Random(5))
    after, log = played.state, played.log
    draw = generators(random.Random(5))  # each drawn from its owner's generator, made from the event's
    drawn = {"Bo": random_board(draw("Bo")), "Cy": random_board(draw("Cy"))}
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
    all_typed = EVENT.resolve(state, {p: ContinuumSubmission(board=own) for p in players}, 1, random.Random(5)).state
    assert EVENT.announcement(state, all_typed, over=False) == [
        "**Elemental Continuum**, round 1: every participant's board is set."]


def test_the_same_seed_draws_the_same_boards_and_another_seed_others():
    players = ("Ada", "Bo", "Cy")
    state = set_up(players)
    silent = {p: ContinuumSubmission() for p in players}
    once, again = (EVENT.resolve(state, silent, 1, random.Random(17)) for _ in range(2))
    assert once == again
    other = EVENT.resolve(state, silent, 1, random.Random(18)).state
    assert all(other.boards[p] != once.state.boards[p] for p in players)
    assert len({once.state.boards[p] for p in players}) == 3  # each draw its own board


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
        state = EVENT.resolve(state, subs, number, random.Random(f"{seed}/{number}")).state
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
