"""Elemental Continuum played by hand through xlsx books: boards and bolts typed as people type them,
check, resolve, undo and replay."""

from __future__ import annotations

import random
import shutil
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import submit_frames
from sheets_host.events.continuum import read
from sheets_host.events.continuum.board import random_board
from sheets_host.events.continuum.read import WARDS
from sheets_host.events.continuum.state import FILES, RANKS, Board, ContinuumSubmission
from sheets_host.kit.game import generators, rng_for
from sheets_host.kit.layout import unkeyed

from tests.conftest import fixed_clock, without_commitments
from .test_continuum_event import (ACADEMY, CELLS_ALLOWED, WARD_ROWS, dropped_with_the_board, expected_board, grid_of,
                                  typed_grid)

# ---- a festival by hand through xlsx books ------------------------------------------------------------
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
    """Cells as text (blank: None), the tab's key left out."""
    return [[None if v is None or (isinstance(v, float) and pd.isna(v)) or v == "" else str(v) for v in row]
            for row in unkeyed(frame).to_numpy().tolist()]


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
    assert "lay out your board in the 'board' tab" in how and "one board is drawn for you" in how


def test_check_names_each_players_board_problems_in_their_own_book(by_hand):
    backend = XlsxBackend(by_hand["stages"]["round1-checked"])
    report = by_hand["round 1 check"]
    assert problems_in_book(backend, "Ada") == ADA_PROBLEMS + dropped_with_the_board(ADA_PROBLEMS, len(ADA_WARDS))
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
    # Each drawn from its owner's generator, made from the festival's for Continuum, seeded by the game's seed.
    draw = generators(generators(rng_for(BOOK_SEED, state.round - 1, "resolve"))("continuum"))
    assert [c.boards["Ada"], c.boards["Cora"]] == [random_board(draw("Ada")), random_board(draw("Cora"))]
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
    assert dumped(backend) == after  # the same round, with new commitments (a new attempt)
    assert without_commitments(announcement_file(backend, 3)) == without_commitments(text)


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
