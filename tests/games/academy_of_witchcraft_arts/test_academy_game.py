"""The Academy of Witchcraft Arts played by hand through real xlsx books: the pregame's lists,
an Alchemy round typed badly, undo, redo and replay, the events hosted by hand and their rankings,
the endgame (and the sole winner's choice of Elimination Candidate), and settings refused.

A module fixture plays the game once and keeps a copy of the folder at each stage; a test that
changes books works on its own copy of a stage."""

from __future__ import annotations

import random
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.cli.main import app
from sheets_host.engine import commands as engine
from sheets_host.engine.announcements_tab import announced, announcement_rows
from sheets_host.engine.play import bots_submit
from sheets_host.festival import rules
from sheets_host.festival.endgame import listed
from sheets_host.festival.event import Placement
from sheets_host.festival.state import FestivalSubmission
from sheets_host.games import get_game
from sheets_host.kit.errors import RoundError, SchemaErrors, SheetsHostError
from sheets_host.kit.game import rng_for
from sheets_host.kit.layout import unkeyed

from tests.conftest import fixed_clock, without_commitments

NAME = "academy-of-witchcraft-arts"
GAME = get_game(NAME)
# These festivals host Elemental Continuum by hand too, as a host may: the rankings typed by hand
# are what they test. Continuum run by the tool: tests/test_continuum_*.py.
BY_HAND = {"hosted by hand": "Elemental Continuum, Summoner's Dream"}
PLAYERS = ["Ada", "Blaise", "Cora", "Dmitri", "Emmy", "Felix", "Grace", "Hedy", "Isaac", "Jun"]
SEED = 11
BOT_SEED = 5

# What the host types into the `garnets` tab before the pregame (blank for the others: 0).
GARNETS = {"Ada": 3, "Cora": 2, "Emmy": 1, "Grace": 5, "Jun": 4}

# Each player's `preferences` tab (first, second, garnets); Felix types nothing.
PREFERENCES = {
    "Ada": [["Alchemy", "Summoner's Dream", 2]],
    "Blaise": [["Quidditch", "Alchemy", None]],  # an unknown event
    "Cora": [["alchemy", "ALCHEMY", 1]],  # the same event twice
    "Dmitri": [["Elemental Continuum", "Alchemy", 3]],  # holds none
    "Emmy": [["summoning", "continuum", 1], ["alchemy", "continuum", 0]],  # an extra row
    "Grace": [["=A1", "Alchemy", "lots"]],  # a formula
    "Hedy": [["Ｅｌｅｍｅｎｔａｌ Continuum", "alchemy", "1" + "0" * 40]],  # full-width letters, a huge number
    "Isaac": [[None, "Alchemy", None]],  # a blank first choice
    "Jun": [["Summoner’s Dream", "Alchemy", 4]],  # a curly apostrophe; everything held
}
# (row, column, words of the message) of every problem `check` must name in the player's book.
PREFERENCE_PROBLEMS = {
    "Ada": [],
    "Blaise": [(2, "first", "'Quidditch' is not an event")],
    "Cora": [(2, "second", "your first choice too")],
    "Dmitri": [(2, "garnets", "3 is more than the 0 garnets you hold; nothing spent")],
    "Emmy": [(3, None, "only the first row of the preferences tab counts")],
    "Felix": [],
    "Grace": [(2, "first", "'=A1' is a formula")],
    "Hedy": [(2, "garnets", "is out of range")],
    "Isaac": [(2, "first", "the cell is empty")],
    "Jun": [],
}
DRAWN = {"Blaise", "Cora", "Felix", "Grace", "Isaac"}  # no valid list: drawn, nothing spent
SPENT = {"Ada": 2, "Emmy": 1, "Jun": 4}
LETTERS = {"first": "A", "second": "B", "garnets": "C", "action": "A", "item": "B", "quantity": "C", "priority": "D"}

ALCHEMY_HEADER = ["action", "item", "quantity", "priority"]
# Round 1 of Alchemy, typed by the participants in seating order (the seventh, if any, is silent):
# (rows, [(row, column, words of the message)]).
ALCHEMY_ROWS = [
    ([["harvest", "quartz", None, None], ["harvest", "unobtainium", None, None], ["engineer", "luck charm", 1, 1]],
     [(3, "item", "'unobtainium' is not a material")]),
    ([["harvest", "gold", None, None], ["harvest", "silverleaf", None, None],
      ["harvest", "starlight dust", None, None], ["harvest", "pearl", None, None]],
     [(row, "item", "costs 19 energy and you have 17: nothing is harvested") for row in (2, 3, 4, 5)]),
    ([["buy", "gold", 5, None], ["machine", "ley line tap", None, None]],
     [(3, "item", "ley line tap costs 200 coins and you will have 50 after your purchases")]),
    ([["=A1", "quartz", None, None], ["buy", "=SUM(B1:B9)", 2, None], ["harvest", "moonpetal", None, None]],
     [(2, "action", "'=A1' is a formula"), (3, "item", "'=SUM(B1:B9)' is a formula")]),
    ([["buy", "sea salt", "9" * 900, None], ["buy", "pearl", 10**30, None], ["engineer", "tin bird", 10**9, None],
      ["harvest", "iron ore", None, None]],
     [(2, "quantity", "out of range"), (3, "quantity", "out of range"), (4, "quantity", "out of range")]),
    ([["ｈａｒｖｅｓｔ", "ｑｕａｒｔｚ", None, None], ["harvest", "moon\u200bpetal", None, None],
      ["engineer", "🧪 ポーション", None, None], ["BUY", "ſea salt", "２", None]],
     [(4, "item", "is not a construct")]),
]


# ---- helpers --------------------------------------------------------------------------------------


def backend_at(folder: Path) -> XlsxBackend:
    return XlsxBackend(folder)


def copy_stage(stage: Path, tmp_path: Path) -> XlsxBackend:
    target = tmp_path / "game"
    shutil.copytree(stage, target)
    return XlsxBackend(target)


def session(backend):
    return engine.open_session(backend, fixed_clock)


def dumped(backend) -> dict:
    s = session(backend)
    return s.game.dump(s.state)


def version(backend, role: str) -> int:
    tab = backend.book(role).read(["sheets-host"])["sheets-host"]
    return int(dict(zip(tab["key"], tab["value"]))["version"])


def pairs(frame: pd.DataFrame) -> dict:
    return dict(zip(frame["what"], frame["value"]))


def problems_in_book(backend, player: str) -> list[str]:
    status = backend.book(f"player:{player}").read(["status"])["status"]
    return [str(v) for v in status.loc[status["what"] == "problem", "value"]]


def to_do(backend, player: str) -> str:
    status = backend.book(f"player:{player}").read(["status"])["status"]
    return str(pairs(status)["to do"])


def text_of(frames) -> str:
    return " ".join(str(v) for f in frames.values() for v in [*f.columns, *f.to_numpy().ravel()])


def shown(frame: pd.DataFrame) -> list[list[str | None]]:
    """Cells as text (blank: None), so what was typed compares with what is read back."""
    return [[None if v is None or (isinstance(v, float) and pd.isna(v)) or v == "" else str(v) for v in row]
            for row in unkeyed(frame).to_numpy().tolist()]


def where(tab: str, row: int | None, column: str | None) -> str:
    """Where a problem is, as the status tab says it: the column with its letter (a problem about
    the whole harvest names no row)."""
    parts = [f"tab {tab!r}"] + ([f"row {row}"] if row is not None else [])
    letter = f" ({LETTERS[column]})" if column else ""
    return ", ".join(parts + ([f"column {column!r}{letter}"] if column else []))


def type_garnets(backend, garnets: dict[str, int]) -> None:
    host = backend.book("host")
    tab = host.read(["garnets"])["garnets"]
    tab["garnets"] = [garnets.get(p) for p in tab["player"]]
    host.write({"garnets": tab})


def type_preferences(backend, player: str, rows: list[list]) -> None:
    backend.book(f"player:{player}").write(
        {"preferences": pd.DataFrame(rows, columns=["first", "second", "garnets"], dtype=object)})


def type_alchemy(backend, player: str, rows: list[list]) -> None:
    backend.book(f"player:{player}").write({"alchemy": pd.DataFrame(rows, columns=ALCHEMY_HEADER, dtype=object)})


def type_ranking(backend, event: str, rows: list[list]) -> None:
    header = ["player", "place", "score", "tiebreak"] + (["gold held"] if event == "alchemy" else [])
    backend.book("host").write({f"{event} ranking": pd.DataFrame([r + [None] * (len(header) - len(r)) for r in rows],
                                                                  columns=header, dtype=object)})


def type_setting(backend, key: str, value: object) -> None:
    host = backend.book("host")
    config = host.read(["config"])["config"]
    config.loc[config["key"] == key, "value"] = value
    host.write({"config": config})


def announcement_file(backend, number: int) -> str:
    return (backend.output_dir() / f"round-{number:02d}.md").read_text()


def ranking_rows(members, scores=None) -> list[list]:
    return [[p, place, (scores or {}).get(p, 10 * (len(members) - place)), None] for place, p in enumerate(members, 1)]


def play_by_hand(folder: Path, stages: dict[str, Path] | None = None) -> dict:
    """The game as the module's tests play it: the host types garnets, the players their lists,
    check, resolve; then the Alchemy participants type round 1, check, resolve. With `stages`,
    a copy of the folder is kept after each step (name -> folder). Returns the reports."""
    backend = backend_at(folder)

    def keep(name: str) -> None:
        if stages is not None:
            stages[name] = folder.parent / f"stage-{name}"
            shutil.copytree(folder, stages[name])

    engine.new_game(backend, NAME, PLAYERS, SEED, clock=fixed_clock, settings=BY_HAND)
    type_garnets(backend, GARNETS)
    for player, rows in PREFERENCES.items():
        type_preferences(backend, player, rows)
    out = {"pregame check": engine.check(backend, fixed_clock)}
    keep("pregame-checked")
    out["pregame"] = engine.resolve(backend, early=True, clock=fixed_clock)
    keep("pregame")
    alchemists = session(backend).state.assignment["alchemy"]
    for player, (rows, _) in zip(alchemists, ALCHEMY_ROWS):
        type_alchemy(backend, player, rows)
    outsider = next(p for p in PLAYERS if p not in alchemists)
    type_alchemy(backend, outsider, [["harvest", "quartz", None, None]])  # a tab of their own making: not read
    out["round 1 check"] = engine.check(backend, fixed_clock)
    keep("round1-checked")
    out["round 1"] = engine.resolve(backend, early=True, clock=fixed_clock)
    keep("round1")
    out["alchemists"], out["outsider"] = alchemists, outsider
    return out


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Stage name -> a folder holding the books at that stage; and the reports."""
    root = tmp_path_factory.mktemp("academy")
    stages: dict[str, Path] = {}
    reports = play_by_hand(root / "game", stages)
    backend = backend_at(root / "game")
    for _ in range(4):  # festival rounds 2 to 5, by bots
        bots_submit(backend, session(backend), BOT_SEED)
        engine.resolve(backend, early=True, clock=fixed_clock)
    stages["round6-open"] = root / "stage-round6-open"
    shutil.copytree(root / "game", stages["round6-open"])
    return {"stages": stages, **reports}


# ---- 1. the pregame, by hand ------------------------------------------------------------------------


def test_check_names_every_problem_of_the_lists_in_the_players_own_book(played):
    backend = backend_at(played["stages"]["pregame-checked"])
    report = played["pregame check"]
    for player, expected in PREFERENCE_PROBLEMS.items():
        in_book = problems_in_book(backend, player)
        assert len(in_book) == len(expected), (player, in_book)
        for (row, column, words), line in zip(expected, in_book):
            assert line.startswith(where("preferences", row, column) + ": ") and words in line, (player, line)
        assert [str(p).split(": ", 1)[1] for p in report.readings[player].parsed.problems] == in_book
    states = {p: r.state for p, r in report.readings.items()}
    assert states["Ada"] == states["Jun"] == "valid" and states["Felix"] == "empty"
    assert {p for p, s in states.items() if s == "errors"} == {"Blaise", "Cora", "Grace", "Isaac"}
    assert {p for p, s in states.items() if s == "problems"} == {"Dmitri", "Emmy", "Hedy"}
    # Each book tells only its reader's problems, and the lists still to be drawn say so.
    assert not problems_in_book(backend, "Ada") and "Quidditch" not in text_of(backend.book("player:Ada").read())
    assert report.readings["Blaise"].parsed.kept == "nothing: your choices will be drawn"
    assert report.readings["Hedy"].parsed.kept == "first Elemental Continuum, then Alchemy; 0 garnets spent"


def test_the_garnets_column_has_no_dropdown_laid_out_before_the_host_typed_the_garnets(tmp_path):
    """Regression: the preferences tab is laid out by `new_game`, when everyone holds 0 garnets
    (the host types them afterwards), so a dropdown of 0 to what is held offered only "0" and
    warned a player spending the garnets they hold."""
    import openpyxl

    backend = backend_at(tmp_path / "game")
    engine.new_game(backend, NAME, PLAYERS, 1, clock=fixed_clock)
    sheet = openpyxl.load_workbook(backend.book("player:Ada").path)["preferences"]
    lists = {str(v.sqref)[0]: v.formula1 for v in sheet.data_validations.dataValidation}
    assert lists == {"A": '"Alchemy,Elemental Continuum,Summoner\'s Dream"',
                     "B": '"Alchemy,Elemental Continuum,Summoner\'s Dream"'}
    type_garnets(backend, {"Ada": 3})
    type_preferences(backend, "Ada", [["Alchemy", "Summoner's Dream", 2]])
    assert engine.check(backend, fixed_clock).readings["Ada"].state == "valid"
    how = [str(v) for v in backend.book("player:Ada").read(["status"])["status"]["value"]]
    assert any("how many of your 3 garnets you spend" in line for line in how)


def test_the_garnets_setting_gives_what_each_holds_and_the_tab_typed_over_it_is_refused(tmp_path):
    """A season gives each player's garnets in config 'garnets' (every player named, 0 too): the
    host's garnets tab is then not a second say, so a count typed over the setting's is refused in
    the pregame, naming the cell and the setting; and check no longer asks the host for garnets."""
    backend = backend_at(tmp_path / "game")
    given = ", ".join(f"{p}: {2 if p == 'Ada' else 0}" for p in PLAYERS)
    engine.new_game(backend, NAME, PLAYERS, 1, clock=fixed_clock, settings={"garnets": given})
    assert engine.open_session(backend, fixed_clock).state.garnets["Ada"] == 2
    assert engine.check(backend, fixed_clock).host_todo == []
    type_garnets(backend, {"Ada": 5})
    with pytest.raises(SchemaErrors, match=r"tab 'garnets', row 2, column 'garnets': 5 is not 2, as config "
                                           r"'garnets' gives Ada \(change the setting, not the tab\)"):
        engine.open_session(backend, fixed_clock)


def test_the_pregame_places_everyone_and_the_public_book_shows_who_plays_what(played):
    backend = backend_at(played["stages"]["pregame"])
    state = session(backend).state
    assert state.festival_round == 1 and set(state.drawn) == DRAWN
    assert {p: u.garnets for p, u in state.preferences.items() if u.garnets} == SPENT
    assert (state.preferences["Emmy"].first, state.preferences["Emmy"].second) == ("summoning", "continuum")
    assert (state.preferences["Hedy"].first, state.preferences["Jun"].first) == ("continuum", "summoning")
    sizes = sorted(len(m) for m in state.assignment.values())
    assert sizes == [6, 7, 7] and all(len(state.plays(p)) == 2 for p in PLAYERS)

    host_version = version(backend, "host")
    assert all(version(backend, role) == host_version for role in ["public", *(f"player:{p}" for p in PLAYERS)])
    public = backend.book("public").read()
    table = public["festival"]
    assert list(table.columns) == ["player", "Alchemy", "Elemental Continuum", "Summoner's Dream"]
    assert table["player"].tolist() == PLAYERS
    titles = {"alchemy": "Alchemy", "continuum": "Elemental Continuum", "summoning": "Summoner's Dream"}
    for event, title in titles.items():
        assert table.loc[table[title] == "plays", "player"].tolist() == list(state.assignment[event])
    assert public["alchemy participants"]["participant"].tolist() == list(state.assignment["alchemy"])
    text = announcement_file(backend, 1)
    assert "**Who plays which event**" in text and announced(GAME, public["announcements"]) == {1: announcement_rows("pregame", text)}
    for event, title in titles.items():
        assert f"- {title} ({len(state.assignment[event])}): {', '.join(state.assignment[event])}" in text
    # The lists and the garnets are private: nothing public speaks of them, but that the host typed
    # the garnets tab before the pregame (each player's garnets from the season), which is announced.
    told = "The host changed the state since the game was set up: tab(s) 'garnets'."
    assert told in text
    everything_public = text_of(public).replace(told, "").replace('"edits":["garnets"]', "")
    assert "garnet" not in everything_public.casefold() and "drawn" not in everything_public
    assert "first " not in everything_public and "preferences" not in public


def test_each_player_sees_their_garnets_left_and_their_list_and_nobody_else_s(played):
    backend = backend_at(played["stages"]["pregame"])
    state = session(backend).state
    host = backend.book("host").read(["garnets"])["garnets"]
    expected = {p: GARNETS.get(p, 0) - SPENT.get(p, 0) for p in PLAYERS}
    assert dict(zip(host["player"], host["garnets"].astype(int))) == expected
    titles = {"alchemy": "Alchemy", "continuum": "Elemental Continuum", "summoning": "Summoner's Dream"}
    for player in PLAYERS:
        book = backend.book(f"player:{player}").read()
        mine = pairs(book["my festival"])
        assert int(mine["garnets held"]) == expected[player]
        assert int(mine["garnets spent on it"]) == SPENT.get(player, 0)
        assert mine["my events"] == ", ".join(titles[e] for e in state.plays(player))
        used = state.preferences[player]
        assert mine["my list"].endswith(f"first {titles[used.first]}, then {titles[used.second]}")
        assert mine["my list"].startswith("drawn") == (player in DRAWN)
        others = [p for p in PLAYERS if p != player and re.search(rf"\b{p}\b", text_of(book))]
        assert not others, (player, others)
        assert pairs(book["status"])["round open"] == "round 1"


def test_an_alchemy_round_typed_badly_is_checked_in_each_participant_s_own_book(played):
    backend = backend_at(played["stages"]["round1-checked"])
    report, alchemists = played["round 1 check"], played["alchemists"]
    assert len(alchemists) in (6, 7)
    for player, (_, expected) in zip(alchemists, ALCHEMY_ROWS):
        in_book = problems_in_book(backend, player)
        assert len(in_book) == len(expected), (player, in_book)
        for (row, column, words), line in zip(expected, in_book):
            assert line.startswith(where("alchemy", row, column) + ": ") and words in line, (player, line)
        assert all(p.tab == "alchemy" for p in report.readings[player].parsed.problems)
    first, energy, machine, formula, huge, odd = alchemists[:6]
    kept = {p: report.readings[p].parsed.kept for p in alchemists}
    assert kept[first] == "Alchemy: harvest quartz (2 of 17 energy); engineer 1. luck charm"
    assert report.readings[energy].state == "errors"
    assert "drop row 5 (pearl) to fit" in problems_in_book(backend, energy)[0]
    assert kept[machine] == "Alchemy: no harvest; buy gold ×5 (450 coins)"
    assert kept[formula] == "Alchemy: harvest moonpetal (2 of 17 energy)"
    assert kept[huge] == "Alchemy: harvest iron ore (3 of 17 energy)"
    assert kept[odd] == "Alchemy: harvest quartz, moonpetal (4 of 17 energy); buy sea salt ×2 (30 coins)"
    for player in PLAYERS:
        if player in alchemists:
            assert to_do(backend, player).startswith("fill in the ") and "'alchemy'" in to_do(backend, player)
            assert to_do(backend, player).endswith(" for round 1 by the deadline")
            continue
        reading = report.readings[player]
        assert not reading.due and reading.state == "nothing due" and not reading.parsed.problems
        assert to_do(backend, player) == "nothing this round: you have nothing to submit for round 1"
        assert not problems_in_book(backend, player)
    # The outsider's own `alchemy` tab is not theirs to submit: never read.
    assert report.readings[played["outsider"]].rows == []


def test_resolving_the_alchemy_round_writes_every_book(played):
    backend = backend_at(played["stages"]["round1"])
    alchemists, state = played["alchemists"], session(backend).state
    host_version = version(backend, "host")
    assert state.festival_round == 2 and state.events["alchemy"].round == 1
    assert all(version(backend, role) == host_version for role in ["public", *(f"player:{p}" for p in PLAYERS)])
    first, energy, machine, _, _, odd = alchemists[:6]
    for player in PLAYERS:
        book = backend.book(f"player:{player}").read()
        assert pairs(book["my festival"])["round open"] == "round 2"
        if player not in alchemists:
            assert "my alchemy" not in book and to_do(backend, player).startswith("nothing this round")
            continue
        me = pairs(book["my alchemy"])
        rounds = book["my alchemy rounds"]
        assert int(me["rounds played"]) == 1 and rounds["round"].astype(int).tolist() == [1]
        assert book["alchemy"].empty  # a fresh tab for round 2
        if player == first:
            assert "quartz" in str(rounds["harvest"].iloc[0])
        if player == energy:
            assert rounds["harvest"].isna().all() and int(me["coins"]) == 500
        if player == machine:
            assert int(me["coins"]) == 50 and me["machines"] == "none" and "gold ×5" in str(rounds["bought"].iloc[0])
        if player == odd:
            assert int(me["coins"]) == 470
    public = backend.book("public").read()
    assert "gems" not in public["alchemy participants"]  # revealed only at the end
    assert "**Alchemy**, round 1" in announcement_file(backend, 2)
    assert "**Now open: round 2** of 6" in announcement_file(backend, 2)


def test_nine_players_are_placed_in_two_events_each(tmp_path):
    players = PLAYERS[:9]
    backend = backend_at(tmp_path / "game")
    engine.new_game(backend, NAME, players, 3, clock=fixed_clock, settings=BY_HAND)
    type_garnets(backend, {p: 1 for p in players})
    for player in players[:6]:  # six spend a garnet on Alchemy first
        type_preferences(backend, player, [["Alchemy", "Elemental Continuum", 1]])
    for player in players[6:8]:  # two want it first too, spending nothing; the last is silent
        type_preferences(backend, player, [["alchemy", "continuum", None]])
    engine.resolve(backend, early=True, clock=fixed_clock)
    state = session(backend).state
    assert all(len(state.plays(p)) == 2 for p in players)
    assert all(len(m) <= 7 for m in state.assignment.values()) and sum(map(len, state.assignment.values())) == 18
    assert len(state.assignment["alchemy"]) == 7 and set(players[:6]) <= set(state.assignment["alchemy"])
    assert state.drawn == (players[8],)
    held = backend.book("host").read(["garnets"])["garnets"]
    assert held["garnets"].astype(int).tolist() == [0] * 6 + [1] * 3
    table = backend.book("public").read(["festival"])["festival"]
    assert table["player"].tolist() == players and ((table.iloc[:, 1:] == "plays").sum(axis=1) == 2).all()
    for player in state.assignment["alchemy"]:
        assert "alchemy" in backend.book(f"player:{player}").read()


# ---- 2. undo, redo, replay ---------------------------------------------------------------------------


def test_undoing_the_pregame_gives_back_the_lists_and_resolving_again_gives_the_same(played, tmp_path):
    backend = copy_stage(played["stages"]["pregame"], tmp_path)
    after = dumped(backend)
    assert engine.resolve(backend, redo=True, clock=fixed_clock).action == "redone"
    assert dumped(backend) == after
    assert engine.undo(backend, fixed_clock).name == "pregame"
    state = session(backend).state
    assert state.assignment is None and dict(state.garnets) == {p: GARNETS.get(p, 0) for p in PLAYERS}
    for player, rows in PREFERENCES.items():
        typed = backend.book(f"player:{player}").read(["preferences"])["preferences"]
        assert shown(typed) == shown(pd.DataFrame(rows, dtype=object)), player
        assert pairs(backend.book(f"player:{player}").read(["my festival"])["my festival"])["round open"] == "pregame"
    assert not (backend.output_dir() / "round-01.md").exists()
    engine.resolve(backend, early=True, clock=fixed_clock)
    assert dumped(backend) == after


def test_undoing_an_alchemy_round_gives_back_its_rows_and_redo_gives_the_same(played, tmp_path):
    backend = copy_stage(played["stages"]["round1"], tmp_path)
    after, alchemists = dumped(backend), played["alchemists"]
    books = {p: backend.book(f"player:{p}").read(["my alchemy"]) for p in alchemists}
    engine.resolve(backend, redo=True, clock=fixed_clock)
    assert dumped(backend) == after
    assert all(backend.book(f"player:{p}").read(["my alchemy"])["my alchemy"].equals(books[p]["my alchemy"])
               for p in alchemists)
    assert engine.undo(backend, fixed_clock).name == "round 1"
    assert session(backend).state.festival_round == 1
    for player, (rows, _) in zip(alchemists, ALCHEMY_ROWS):
        book = backend.book(f"player:{player}").read(["alchemy", "my alchemy rounds"], formulas=True)
        assert shown(book["alchemy"]) == shown(pd.DataFrame(rows, dtype=object)), player
        assert book["my alchemy rounds"].empty
    engine.resolve(backend, early=True, clock=fixed_clock)
    assert dumped(backend) == after


def test_replay_into_new_books_reproduces_the_host_state(played, tmp_path):
    source = backend_at(played["stages"]["round1"])
    target = backend_at(tmp_path / "replayed")
    assert engine.replay(source, target, fixed_clock) == 2
    assert dumped(target) == dumped(source)
    for role in ["public", "player:Ada", f"player:{played['alchemists'][2]}"]:
        views = [b.book(role).read() for b in (source, target)]
        for tab in ("festival", "my festival", "my alchemy", "my alchemy rounds"):
            if tab in views[0]:
                assert views[0][tab].equals(views[1][tab]), (role, tab)
    assert announcement_file(target, 2) == announcement_file(source, 2)


def test_the_same_seed_and_submissions_give_the_same_festival(played, tmp_path):
    reports = play_by_hand(tmp_path / "again")
    assert dumped(backend_at(tmp_path / "again")) == dumped(backend_at(played["stages"]["round1"]))
    for name in ("round 1", "pregame"):  # salted by each game afresh: the commitments differ
        assert without_commitments(reports[name].announcement) == without_commitments(played[name].announcement)


def test_another_seed_may_draw_the_silent_players_lists_otherwise(tmp_path):
    # The pregame's draws depend on the seed alone: over a few seeds the silent players' lists vary.
    lists = set()
    for seed in range(4):
        backend = backend_at(tmp_path / f"seed{seed}")
        engine.new_game(backend, NAME, PLAYERS, seed, clock=fixed_clock, settings=BY_HAND)
        type_preferences(backend, "Ada", [["Alchemy", "Summoner's Dream", None]])
        engine.resolve(backend, early=True, clock=fixed_clock)
        state = session(backend).state
        lists.add(tuple((state.preferences[p].first, state.preferences[p].second) for p in PLAYERS[1:]))
        assert state.preferences["Ada"].first == "alchemy" and "Ada" not in state.drawn
    assert len(lists) > 1


# ---- 3. the events hosted by hand ----------------------------------------------------------------------


@pytest.fixture
def last_round(played, tmp_path):
    """A copy of the game with the last round open and every Alchemy participant's round typed."""
    backend = copy_stage(played["stages"]["round6-open"], tmp_path)
    bots_submit(backend, session(backend), BOT_SEED)
    return backend


def test_the_last_round_waits_for_the_rankings_typed_by_hand(last_round):
    backend = last_round
    state = session(backend).state
    assert state.festival_round == 6 == state.plan.rounds
    alchemist = backend.book("player:" + state.assignment["alchemy"][0])
    before, typed = version(backend, "host"), alchemist.read(["alchemy"])["alchemy"]
    assert not typed.empty
    with pytest.raises(RoundError) as refused:
        engine.resolve(backend, early=True, clock=fixed_clock)
    assert str(refused.value) == ("round 6 is the last: first type the final ranking of Elemental Continuum and "
                                  "Summoner's Dream (hosted by hand) into the host book's tabs 'continuum ranking' "
                                  "and 'summoning ranking': a row per participant with its place")
    assert version(backend, "host") == before and session(backend).state.festival_round == 6
    assert alchemist.read(["alchemy"])["alchemy"].equals(typed)  # the rows typed stay
    # One typed, the other still missing: refused, naming only the missing one.
    type_ranking(backend, "continuum", ranking_rows(state.assignment["continuum"]))
    with pytest.raises(RoundError, match="Summoner's Dream") as refused:
        engine.resolve(backend, early=True, clock=fixed_clock)
    assert "tab 'summoning ranking'" in str(refused.value) and "continuum" not in str(refused.value)
    assert version(backend, "host") == before


@pytest.mark.parametrize("mistake, expected", [
    ("missing", "column 'player': '{last}' is not listed: every participant of continuum once"),
    ("place twice", "row 2, column 'place': '{places}' is not the places 1 to {n}, each once"),
    ("not a participant", "row 2, column 'player': '{outsider}' is not a participant of continuum"),
])
def test_a_ranking_typed_wrong_is_refused_naming_tab_row_and_column(last_round, mistake, expected):
    backend = last_round
    state = session(backend).state
    members = list(state.assignment["continuum"])
    outsider = next(p for p in PLAYERS if p not in members)
    rows = ranking_rows(members)
    if mistake == "missing":
        rows = rows[:-1]
    elif mistake == "place twice":
        rows[1][1] = 1
    else:
        rows[0][0] = outsider
    type_ranking(backend, "continuum", rows)
    type_ranking(backend, "summoning", ranking_rows(state.assignment["summoning"]))
    before = version(backend, "host")
    with pytest.raises(SchemaErrors) as refused:
        engine.resolve(backend, early=True, clock=fixed_clock)
    places = ", ".join(map(str, [1, 1, *range(3, len(members) + 1)]))  # the second row's place typed as 1
    assert "tab 'continuum ranking', " + expected.format(last=members[-1], outsider=outsider, places=places,
                                                          n=len(members)) in str(refused.value)
    with pytest.raises(SchemaErrors):
        engine.check(backend, fixed_clock)  # every command stops on it, so the host sees it at once
    assert version(backend, "host") == before
    assert backend.book("host").read(["festival"])["festival"]["round open"].astype(int).tolist() == [6]


def test_a_ranking_typed_for_alchemy_which_the_tool_runs_is_refused(last_round):
    backend = last_round
    state = session(backend).state
    type_ranking(backend, "alchemy", ranking_rows(state.assignment["alchemy"]))
    before = version(backend, "host")
    with pytest.raises(SchemaErrors) as refused:
        engine.resolve(backend, early=True, clock=fixed_clock)
    message = str(refused.value)
    assert message.startswith(f"tab 'alchemy ranking', row 2: '{state.assignment['alchemy'][0]}' is not in this tab")
    assert "the tool runs Alchemy and ranks it" in message and "'hosted by hand'" in message
    assert version(backend, "host") == before


def test_with_the_rankings_typed_the_festival_ends_and_every_book_shows_the_endgame(last_round):
    backend = last_round
    state = session(backend).state
    continuum, summoning = list(state.assignment["continuum"]), list(state.assignment["summoning"])[::-1]
    type_ranking(backend, "continuum", ranking_rows(continuum))
    type_ranking(backend, "summoning", ranking_rows(summoning))
    left = dict(state.garnets)
    report = engine.resolve(backend, early=True, clock=fixed_clock)
    assert report.over and report.name == "round 6"
    final = session(backend).state
    result = rules.endgame(final)
    assert final.over and final.rankings["continuum"][0].player == continuum[0]
    garnets = backend.book("host").read(["garnets"])["garnets"]
    earned = {p: left[p] + result.garnets.get(p, 0) for p in PLAYERS}
    assert dict(zip(garnets["player"], garnets["garnets"].astype(int))) == earned
    gold = sum(1 for _, _, why in result.garnet_reasons if "gold" in why)
    assert sum(result.garnets.values()) == 3 * 4 + (result.sole_winner is not None) + gold  # 2 + 1 + 1 an event

    table = backend.book("public").read(["festival"])["festival"]
    assert list(table.columns) == ["rank", "player", "Alchemy", "Elemental Continuum", "Summoner's Dream",
                                   "average ranking", "result", "garnets earned"]
    assert table["player"].tolist() == list(result.average)
    first = table.iloc[0]
    assert first["result"] in ("sole winner", "winner") and first["player"] in result.winners
    row = table.loc[table["player"] == continuum[0]].iloc[0]
    assert row["Elemental Continuum"] == "1st" and float(row["average ranking"]) == float(result.average[continuum[0]])
    assert table.loc[table["player"] == summoning[0], "Summoner's Dream"].tolist() == ["1st"]
    assert (table["result"] == "Elimination Candidate").sum() == (0 if result.candidate_awaited else 1)
    assert table["garnets earned"].astype(int).tolist() == [result.garnets.get(p, 0) for p in result.average]

    text = announcement_file(backend, 7)
    assert text == report.announcement
    assert announced(GAME, backend.book("public").read(["announcements"])["announcements"])[7] == announcement_rows(GAME.round_name(7), text)
    assert "**The festival's endgame**" in text and "Alchemy's final gems:" in text and "**Garnets**" in text
    assert all(f"- {p}: " in text for p in PLAYERS)
    assert ("**Sole winner: " in text) == (result.sole_winner is not None)
    assert f"**Elimination Candidate: {result.candidate}**" in text or result.candidate_awaited
    for player in PLAYERS:
        book = backend.book(f"player:{player}").read()
        mine = pairs(book["my festival"])
        assert mine["round open"] == "over" and int(mine["garnets held"]) == earned[player]
        assert int(mine["garnets earned"]) == result.garnets.get(player, 0)
        assert to_do(backend, player) == "nothing: the game is over"
    assert "gems" in backend.book("public").read(["alchemy participants"])["alchemy participants"]


def test_the_last_round_is_redone_and_undone_with_the_rankings_typed(last_round):
    """Regression: the snapshot of the state before the last round holds the rankings, and
    reading them back from it failed (records from a snapshot have no sheet row)."""
    backend = last_round
    state = session(backend).state
    type_ranking(backend, "continuum", ranking_rows(state.assignment["continuum"]))
    type_ranking(backend, "summoning", ranking_rows(state.assignment["summoning"]))
    typed = dumped(backend)
    engine.resolve(backend, early=True, clock=fixed_clock)
    after, text = dumped(backend), announcement_file(backend, 7)
    assert engine.resolve(backend, redo=True, clock=fixed_clock).over
    assert dumped(backend) == after  # garnets earned added once
    redone = announcement_file(backend, 7)  # the same results, the redo's new commitments
    assert without_commitments(redone) == without_commitments(text) and redone != text
    assert engine.undo(backend, fixed_clock).name == "round 6"
    undone = session(backend).state
    assert not undone.over and dumped(backend) == typed  # the rankings typed are back, the garnets as they were
    assert [p.player for p in undone.rankings["continuum"]] == list(state.assignment["continuum"])
    assert not (backend.output_dir() / "round-07.md").exists()
    engine.resolve(backend, early=True, clock=fixed_clock)
    assert dumped(backend) == after


def test_replay_of_a_finished_festival_reproduces_it_with_the_rankings_the_host_typed(last_round, tmp_path):
    backend = last_round
    state = session(backend).state
    type_ranking(backend, "continuum", ranking_rows(state.assignment["continuum"]))
    type_ranking(backend, "summoning", ranking_rows(state.assignment["summoning"]))
    engine.resolve(backend, early=True, clock=fixed_clock)
    target = backend_at(tmp_path / "replayed")
    assert engine.replay(backend, target, fixed_clock) == 7
    assert dumped(target) == dumped(backend)


# ---- 4. the sole winner's choice of Elimination Candidate ----------------------------------------------


def rankings_awaiting_a_choice(state, seed: int):
    """Rankings of the events hosted by hand after which the Elimination Candidate is still tied
    with a sole winner, given Alchemy's final ranking when nobody submits in the last round (as
    the engine will resolve it); found by a seeded search."""
    def ranking(members):
        return tuple(Placement(p, i, None) for i, p in enumerate(members, 1))

    typed = replace(state, rankings={e: ranking(state.assignment[e]) for e in ("continuum", "summoning")})
    after = GAME.resolve(typed, {p: FestivalSubmission() for p in PLAYERS}, rng_for(seed, state.round, "resolve")).state
    rng = random.Random(0)
    for _ in range(5000):
        orders = {e: rng.sample(state.assignment[e], len(state.assignment[e])) for e in ("continuum", "summoning")}
        result = rules.endgame(replace(after, rankings={e: ranking(o) for e, o in orders.items()}))
        if result.sole_winner is not None and result.candidate_awaited:
            return orders, result
    raise AssertionError("no rankings leave the candidate to the sole winner")


def test_a_candidate_still_tied_is_awaited_then_named_by_the_winner_s_choice(played, tmp_path):
    backend = copy_stage(played["stages"]["round6-open"], tmp_path)
    state = session(backend).state
    orders, expected = rankings_awaiting_a_choice(state, SEED)
    for event, order in orders.items():
        type_ranking(backend, event, ranking_rows(order))
    report = engine.resolve(backend, early=True, allow_empty=True, clock=fixed_clock)
    winner, tied = expected.sole_winner, expected.candidate_tied
    assert report.over and len(tied) >= 2 and winner not in tied
    text = announcement_file(backend, 7)
    assert f"**Elimination Candidate: {winner} chooses {listed(tied, 'or')}.**" in text
    assert f"the sole winner, {winner}, chooses among them." in text
    table = backend.book("public").read(["festival"])["festival"]
    assert sorted(table.loc[table["result"] == "may be chosen as Elimination Candidate", "player"]) == sorted(tied)
    assert "Elimination Candidate" not in table["result"].tolist()
    garnets = backend.book("host").read(["garnets"])["garnets"]

    # A name that is nobody's is refused, naming the setting; nothing is redone.
    before = version(backend, "host")
    type_setting(backend, "candidate choice", "Zed")
    with pytest.raises(SheetsHostError, match="config 'candidate choice': 'Zed' is not a player; allowed: Ada, "):
        engine.resolve(backend, redo=True, clock=fixed_clock)
    assert version(backend, "host") == before
    # A name not among the tied (the winner's own) leaves it awaited.
    type_setting(backend, "candidate choice", winner)
    engine.resolve(backend, redo=True, clock=fixed_clock)
    assert f"the sole winner, {winner}, chooses among them." in announcement_file(backend, 7)

    chosen = tied[-1]
    type_setting(backend, "candidate choice", f"  {chosen.upper()} ")
    report = engine.resolve(backend, redo=True, clock=fixed_clock)
    text = announcement_file(backend, 7)
    assert text == report.announcement and f"**Elimination Candidate: {chosen}**" in text
    assert f"the sole winner, {winner}, chose {chosen}." in text
    assert announced(GAME, backend.book("public").read(["announcements"])["announcements"])[7] == announcement_rows(GAME.round_name(7), text)
    table = backend.book("public").read(["festival"])["festival"]
    assert table.loc[table["result"] == "Elimination Candidate", "player"].tolist() == [chosen]
    assert table.loc[table["result"] == "sole winner", "player"].tolist() == [winner]
    assert "may be chosen as Elimination Candidate" not in table["result"].tolist()
    # The redo starts from the state before the round: garnets earned are added once.
    assert backend.book("host").read(["garnets"])["garnets"].equals(garnets)


# ---- 5. settings refused ----------------------------------------------------------------------------


@pytest.mark.parametrize("settings, words", [
    ({"hosted by hand": "Elemental Continuum, Summoner's Dream, Quidditch"},
     "config 'hosted by hand': 'Quidditch' is not an event"),
    ({"hosted by hand": "continuum, summoning, Elemental Continuum"},
     "config 'hosted by hand': 'continuum' is named twice"),
    ({"gamewide tiebreak": "Ada, Zed"}, "config 'gamewide tiebreak': 'Zed' is not a player"),
    ({"gamewide tiebreak": "Ada, jun, ADA"}, "config 'gamewide tiebreak': 'Ada' is named twice"),
    ({"candidate choice": "Zed"}, "config 'candidate choice': 'Zed' is not a player"),
    ({"candidate choice": "Ada, Jun"}, "config 'candidate choice': name one player"),
    ({"players per event": 6}, "config 'players per event': 10 players in 2 events each need 20 places; "
                               "3 events of 6 hold 18"),
    ({"festival size": 3}, "unknown setting 'festival size'"),
])
def test_settings_the_festival_cannot_play_are_refused_before_any_book_is_made(tmp_path, settings, words):
    backend = backend_at(tmp_path / "game")
    with pytest.raises(SheetsHostError) as refused:
        engine.new_game(backend, NAME, PLAYERS, 1, settings=settings, clock=fixed_clock)
    assert words in str(refused.value)
    assert backend.existing() == []


def test_an_event_the_tool_does_not_run_must_be_hosted_by_hand():
    """A festival may list an event the tool does not run yet (`HandEvent`); leaving it to the tool
    is refused, naming it."""
    from sheets_host.events.alchemy import EVENT as ALCHEMY
    from sheets_host.festival import tabs as festival_tabs
    from sheets_host.festival.state import HandEvent

    events = (ALCHEMY, HandEvent("summoning", "Summoner's Dream"))
    for by_hand in ("", "Alchemy"):
        config = {"hosted by hand": by_hand, "players per event": 10}
        assert festival_tabs.check_config(events, config, PLAYERS) == [
            "config 'hosted by hand': the tool does not run Summoner's Dream yet; list it there"]
    assert festival_tabs.check_config(events, {"hosted by hand": "summoning", "players per event": 10}, PLAYERS) == []


def test_eleven_players_are_refused_and_the_tiebreak_and_hosting_settings_are_read(tmp_path):
    with pytest.raises(SheetsHostError, match="Academy of Witchcraft Arts takes 4 to 10 players; got 11"):
        engine.new_game(backend_at(tmp_path / "eleven"), NAME, PLAYERS + ["Kurt"], 1, clock=fixed_clock)
    backend = backend_at(tmp_path / "game")
    engine.new_game(backend, NAME, PLAYERS, 1, clock=fixed_clock,
                    settings={"gamewide tiebreak": " jun, Ada ", "hosted by hand": "summoning, CONTINUUM"})
    plan = session(backend).state.plan
    assert plan.tiebreak == ("Jun", "Ada", *PLAYERS[1:-1]) and plan.by_hand == {"continuum", "summoning"}


def test_check_tells_the_host_what_to_type_before_resolving(tmp_path, last_round):
    """In the pregame while every player holds 0 garnets, and in the last round while a ranking
    hosted by hand is missing; nothing once they are typed."""
    backend = backend_at(tmp_path / "new")
    engine.new_game(backend, NAME, PLAYERS, 3, clock=fixed_clock, settings=BY_HAND)
    assert engine.check(backend, fixed_clock).host_todo == [
        "every player holds 0 garnets: type what each holds into the host tab 'garnets' first, if any"]
    type_garnets(backend, {"Ada": 2})
    assert engine.check(backend, fixed_clock).host_todo == []
    todo = engine.check(last_round, fixed_clock).host_todo
    assert len(todo) == 1 and "'continuum ranking' and 'summoning ranking'" in todo[0]
    result = CliRunner().invoke(app, ["check", str(last_round.folder)])
    assert "host, before resolving: type the final ranking of Elemental Continuum and Summoner's Dream" in result.output
