"""Host operations as sequences: redo, undo, lock and new never lose a submission (regression tests
for the defects of issue 8, each failing before its fix)."""

from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.commands import HISTORY
from sheets_host.engine.play import bots_submit, demo
from sheets_host.kit.errors import BookError, SchemaErrors, SheetsHostError
from sheets_host.kit.layout import unkeyed

from tests.conftest import PLAYERS, fixed_clock

HEADER = ["kind", "site", "position", "stone", "light"]


def new(backend, **kw):
    return engine.new_game(backend, "wind-guide-me", PLAYERS, 7, clock=fixed_clock, **kw)


def submit_all(backend, seed=7):
    bots_submit(backend, engine.open_session(backend, fixed_clock), seed, messy=False)


def resolve(backend, **kw):
    return engine.resolve(backend, early=True, clock=fixed_clock, **kw)


def host(backend, tab):
    return backend.book("host").read([tab])[tab]


def submit_tab(backend, player):
    """The player's submit tab as read, its key left out (`layout.keyed`): what they typed."""
    return unkeyed(backend.book(f"player:{player}").read(["submit"]).get("submit", pd.DataFrame()))


def archive_keys(backend):
    archive = host(backend, "archive")
    return list(zip(archive["round"], archive["attempt"], archive["player"], archive["row"]))


def placed(backend):
    return engine.open_session(backend, fixed_clock).state.placed


def test_redo_twice_keeps_every_stone(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    resolve(folder_backend)
    first = placed(folder_backend)
    resolve(folder_backend, redo=True)
    resolve(folder_backend, redo=True)
    assert placed(folder_backend) == first and len(first) == 14
    keys = archive_keys(folder_backend)
    assert len(keys) == len(set(keys))
    assert sorted({(r, a) for r, a, _, _ in keys}) == [(1, 1), (1, 2), (1, 3)]


def test_undo_after_a_redo_gives_back_the_submissions(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    typed = submit_tab(folder_backend, "Ada").astype(str)
    resolve(folder_backend)
    resolve(folder_backend, redo=True)
    engine.undo(folder_backend, fixed_clock)
    assert submit_tab(folder_backend, "Ada").astype(str).equals(typed)


def test_redo_after_an_undo_keeps_the_undone_round_and_its_attempts(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    resolve(folder_backend)
    submit_all(folder_backend, seed=8)
    resolve(folder_backend)
    engine.undo(folder_backend, fixed_clock)  # round 2 open again, its submissions back in the tabs
    report = resolve(folder_backend, redo=True)
    assert report.round == 1 and "round 2 stays open" in report.note
    resolve(folder_backend)  # round 2 again, as a new attempt
    keys = archive_keys(folder_backend)
    assert len(keys) == len(set(keys))
    assert sorted({(r, a) for r, a, _, _ in keys if r == 2}) == [(2, 1), (2, 2)]
    report = resolve(folder_backend, redo=True)
    problems = [str(p) for r in report.readings.values() for p in r.parsed.problems]
    assert len(problems) == len(set(problems))
    assert len(placed(folder_backend)) == 28


def test_new_over_a_game_refuses_without_force_and_force_removes_the_old_books(tmp_path):
    backend = XlsxBackend(tmp_path / "g")
    new(backend)
    with pytest.raises(SheetsHostError, match=r"a game is already here \(.*host.xlsx.*--force"):
        engine.new_game(backend, "magicians-market", ["Ann", "Bo", "Cy", "Di"], 1, clock=fixed_clock)
    assert (tmp_path / "g" / "players" / "Ada.xlsx").exists()
    engine.new_game(backend, "magicians-market", ["Ann", "Bo", "Cy", "Di"], 1, clock=fixed_clock, force=True)
    assert sorted(p.name for p in (tmp_path / "g" / "players").iterdir()) == ["Ann.xlsx", "Bo.xlsx", "Cy.xlsx", "Di.xlsx"]


def test_after_lock_the_copy_counts_and_later_edits_are_ignored_and_kept(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    locked_at = fixed_clock()
    engine.lock(folder_backend, lambda: locked_at)
    typed = submit_tab(folder_backend, "Ada")
    later = typed.copy()
    later.loc[len(later) + 2] = ["stone", "1", "1", "1", None]
    folder_backend.book("player:Ada").write({"submit": later})
    report = engine.resolve(folder_backend, early=True, clock=lambda: locked_at + pd.Timedelta(hours=5))
    rounds = host(folder_backend, "rounds")
    assert rounds["frozen at"].iloc[0] == "2026-11-22 12:00:00 UTC"
    assert any("edits made after the lock" in p.message for p in report.readings["Ada"].parsed.problems)
    assert [r.row for r in report.readings["Ada"].rows] == [2, 3]
    archive = host(folder_backend, "archive")
    aside = archive[(archive["use"] == "set aside") & (archive["player"] == "Ada")]
    assert len(aside) == len(later)  # the edited tab is kept whole


def test_lock_twice_keeps_the_first_copy(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    engine.lock(folder_backend, fixed_clock)
    engine.lock(folder_backend, lambda: fixed_clock() + pd.Timedelta(hours=1))
    rounds = host(folder_backend, "rounds")
    assert list(rounds["status"]) == ["locked"] and rounds["frozen at"].iloc[0] == "2026-11-22 12:00:00 UTC"


def test_a_header_typed_over_is_said_plainly_and_archived(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    book = folder_backend.book("player:Ada")
    typed = submit_tab(folder_backend, "Ada")
    book.write({"submit": pd.DataFrame(typed.values[1:], columns=list(typed.iloc[0]))})  # row 1 is now data
    report = engine.check(folder_backend, fixed_clock)
    (problem,) = report.readings["Ada"].parsed.problems
    assert "no row naming its columns" in problem.message and "kind, site, position, stone, light" in problem.message
    assert report.readings["Ada"].state == "errors"
    resolve(folder_backend)
    archive = host(folder_backend, "archive")
    assert len(archive[(archive["player"] == "Ada") & (archive["use"] == "set aside")]) == len(typed)


def test_a_title_row_above_the_header_and_a_renamed_tab_are_read(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    path = folder_backend.book("player:Ada").path
    import openpyxl

    wb = openpyxl.load_workbook(path)
    wb["submit"].insert_rows(1)
    wb["submit"]["A1"] = "Ada's stones for round 1"
    wb["submit"].title = "Submit "
    wb.save(path)
    reading = engine.check(folder_backend, fixed_clock).readings["Ada"]
    assert reading.state == "valid" and [r.row for r in reading.rows] == [3, 4]


def test_a_5000_digit_number_is_a_message_not_a_crash(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    typed = submit_tab(folder_backend, "Ada")
    typed.iloc[0, 1] = "9" * 5000
    folder_backend.book("player:Ada").write({"submit": typed})
    reading = engine.check(folder_backend, fixed_clock).readings["Ada"]
    assert any("out of range" in p.message and len(p.message) < 300 for p in reading.parsed.problems)
    resolve(folder_backend)


def test_a_book_that_cannot_be_written_stops_resolve_before_anything_is_written(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    (folder_backend.folder / "players" / "~$Cora.xlsx").write_text("Excel")
    before = host(folder_backend, "rounds")
    with pytest.raises(BookError, match="Cora"):
        resolve(folder_backend)
    assert host(folder_backend, "rounds").equals(before)
    assert not submit_tab(folder_backend, "Ada").empty


def test_a_cell_longer_than_every_backend_keeps_is_cut_when_read(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    typed = submit_tab(folder_backend, "Ada")
    typed.iloc[0, 0] = "stone" + " " * 31_000 + "x"  # xlsx holds it; a replay into Google must too, cut the same
    folder_backend.book("player:Ada").write({"submit": typed})
    report = resolve(folder_backend)
    assert any("only the first 1,000 characters of its 'kind' cell (A) were read: a cell of a submission is read "
               "up to 1,000 characters (it holds 31,006)" in p.message for p in report.readings["Ada"].parsed.problems)
    archive = host(folder_backend, "archive")
    assert archive["kind"].map(lambda v: len(str(v))).max() == 1_000


def test_player_history_keeps_what_counted_and_why_a_row_was_dropped(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    typed = submit_tab(folder_backend, "Ada")
    typed.loc[len(typed) + 2] = ["stone", "99", "1", "1", None]
    folder_backend.book("player:Ada").write({"submit": typed})
    resolve(folder_backend)
    history = folder_backend.book("player:Ada").read([HISTORY])[HISTORY]
    dropped = history[history["what you typed"].astype(str).str.contains("site: 99,")]
    assert "out of range" in dropped["what happened"].iloc[0]
    assert (history["what happened"] == "counted").sum() == 2
    assert history["what happened"].str.startswith("what counted: ").any()
    other = folder_backend.book("player:Blaise").read([HISTORY])[HISTORY]
    assert "99" not in other.astype(str).values


@pytest.mark.parametrize("name", ["=HYPERLINK(\"x\")", "+1", "@everyone", "-Ann"])
def test_a_name_a_spreadsheet_reads_as_a_formula_is_refused(folder_backend, name):
    with pytest.raises(SheetsHostError, match="may not start with"):
        engine.new_game(folder_backend, "wind-guide-me", [name] + PLAYERS[1:], 7)


def test_names_differing_by_accents_or_script_get_their_own_books(tmp_path):
    names = ["Zoë", "Zoé", "李", "王", "Ann", "a/b", "a\\b"]
    backend = XlsxBackend(tmp_path / "g")
    engine.new_game(backend, "wind-guide-me", names, 7, clock=fixed_clock)
    paths = {backend.book(f"player:{n}").path for n in names}
    assert len(paths) == 7
    with pytest.raises(SheetsHostError, match="same name"):
        engine.new_game(XlsxBackend(tmp_path / "h"), "wind-guide-me", ["Zoe\u0308", "ZOË"] + PLAYERS[2:], 7)


def _edit_host(backend, tab, change):
    book = backend.book("host")
    data = book.read([tab])[tab]
    book.write({tab: change(data)})


@pytest.mark.parametrize("tab, change, message", [
    ("rounds", lambda d: pd.concat([d, d.iloc[[-1]]]), "tab 'rounds', row 4, column 'round'"),
    ("rounds", lambda d: d.assign(status=["open", "open"]), "tab 'rounds', row 2, column 'status'"),
    ("config", lambda d: pd.concat([d, d[d["key"] == "seed"].assign(value="8")]), "tab 'config', row .*, column 'key'"),
    ("config", lambda d: d.assign(value=d["value"].where(d["key"] != "first deadline", "next tuesday")),
     "first deadline"),
    ("snapshots", lambda d: d.assign(json="{broken"), "tab 'snapshots'"),
    ("archive", lambda d: d.assign(round="x"), "tab 'archive', row 2, column 'round'"),
    ("players", lambda d: pd.concat([d, d.iloc[[0]]]), "tab 'players', row 9, column 'player'"),
])
def test_host_edits_that_corrupt_the_game_are_named_before_anything_runs(folder_backend, tab, change, message):
    new(folder_backend)
    submit_all(folder_backend)
    resolve(folder_backend)
    _edit_host(folder_backend, tab, change)
    with pytest.raises(SchemaErrors, match=message):
        resolve(folder_backend)


def test_a_deleted_state_or_data_tab_is_named(folder_backend):
    new(folder_backend)
    import openpyxl

    path = folder_backend.book("host").path
    wb = openpyxl.load_workbook(path)
    del wb["hand"]
    wb.save(path)
    with pytest.raises(SchemaErrors, match="tab 'hand'.*present in the host book"):
        engine.check(folder_backend, fixed_clock)


def test_an_old_copy_of_the_host_book_is_refused(folder_backend, tmp_path):
    new(folder_backend)
    submit_all(folder_backend)
    shutil.copy(folder_backend.book("host").path, tmp_path / "old.xlsx")
    resolve(folder_backend)
    shutil.copy(tmp_path / "old.xlsx", folder_backend.book("host").path)  # a program saves its stale copy
    submit_all(folder_backend)
    with pytest.raises(BookError, match="behind the books it wrote"):
        resolve(folder_backend)


def test_recovery_after_a_crash_writes_the_announcement_files(folder_backend, monkeypatch):
    new(folder_backend)
    submit_all(folder_backend)
    from sheets_host.backends.xlsx import backend as xlsx

    original = xlsx.XlsxBook.write

    def crash(self, tabs, **kw):
        if "Cora" in str(self.path):
            raise BookError("disk gone")
        return original(self, tabs, **kw)

    monkeypatch.setattr(xlsx.XlsxBook, "write", crash)
    with pytest.raises(BookError, match="round 1 is resolved and saved in the host book"):
        resolve(folder_backend)
    monkeypatch.setattr(xlsx.XlsxBook, "write", original)
    report = resolve(folder_backend)
    assert report.action == "delivered"
    assert sorted(p.name for p in (folder_backend.folder / "announcements").iterdir()) == ["round-01.md", "round-01.png"]


def test_undo_removes_the_round_s_announcement_files(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    resolve(folder_backend)
    engine.undo(folder_backend, fixed_clock)
    assert not list((folder_backend.folder / "announcements").glob("round-01.*"))


def test_undo_sets_aside_what_players_typed_for_the_next_round(folder_backend):
    new(folder_backend)
    submit_all(folder_backend)
    resolve(folder_backend)
    submit_all(folder_backend, seed=9)
    typed = submit_tab(folder_backend, "Ada")
    engine.undo(folder_backend, fixed_clock)
    archive = host(folder_backend, "archive")
    aside = archive[(archive["round"] == 2) & (archive["use"] == "set aside") & (archive["player"] == "Ada")]
    assert list(aside["site"].astype(str)) == list(typed["site"].astype(str))


def test_demo_refuses_a_folder_holding_a_game(folder_backend):
    new(folder_backend)
    with pytest.raises(SheetsHostError, match="--force"):
        demo("spirit-chain", folder_backend, 1, say=lambda s: None, clock=fixed_clock)
    assert engine.open_session(folder_backend, fixed_clock).game.name == "wind-guide-me"


def test_a_book_that_fails_mid_delivery_is_named_and_finished_by_the_next_resolve(folder_backend, monkeypatch):
    new(folder_backend)
    submit_all(folder_backend)
    original = os.replace

    def held(src, dst):
        if str(dst).endswith("Ada.xlsx"):
            raise PermissionError(13, "Permission denied", str(dst))
        return original(src, dst)

    monkeypatch.setattr(os, "replace", held)
    with pytest.raises(BookError, match=r"round 1 is resolved and saved in the host book.*Ada\.xlsx"):
        resolve(folder_backend)
    monkeypatch.setattr(os, "replace", original)
    assert resolve(folder_backend).action == "delivered"
    assert submit_tab(folder_backend, "Ada").empty


def _resolve_in_a_process(folder: str, results) -> None:
    try:
        report = engine.resolve(XlsxBackend(folder), early=True, clock=fixed_clock)
        results.put(report.action)
    except SheetsHostError as e:
        results.put(type(e).__name__)


def test_two_resolves_at_the_same_moment_never_both_commit(folder_backend):
    import multiprocessing

    new(folder_backend)
    submit_all(folder_backend)
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    runs = [context.Process(target=_resolve_in_a_process, args=(str(folder_backend.folder), results)) for _ in range(2)]
    for run in runs:
        run.start()
    for run in runs:
        run.join(60)
    outcomes = sorted(results.get(timeout=5) for _ in runs)
    # The second waits for the first, then finds round 2 with nothing submitted (or gives up waiting).
    assert outcomes in (["RoundError", "resolved"], ["BusyError", "resolved"])
    log = host(folder_backend, "log")
    assert list(log["message"]).count("round 1 resolved") == 1 and list(log["kind"]).count("freeze") == 1
    assert engine.open_session(folder_backend, fixed_clock).state.round == 2


def test_a_snapshot_longer_than_an_xlsx_cell_is_split_and_read_back_whole(folder_backend):
    from sheets_host.engine.snapshots import CELL_PART, SNAPSHOTS, snapshot_rows, snapshot_tabs

    class Big:
        def dump(self, state):
            return {"log": [{"line": "x" * 1000, "n": n} for n in range(100)]}  # about 100,000 characters

    new(folder_backend)
    rows = snapshot_rows(Big(), None, 3)
    assert len(rows) > 3 and max(len(r["json"]) for r in rows) <= CELL_PART < 32_767
    folder_backend.book("host").write({"snapshots": SNAPSHOTS.frame(rows)})
    back = folder_backend.book("host").read(["snapshots"])["snapshots"]
    assert snapshot_tabs(back) == {3: Big().dump(None)}


def test_a_snapshot_stores_of_a_growing_history_only_what_the_round_added():
    """Issue 9: snapshots appended each round stay flat in size however long the history."""
    import json

    from sheets_host.engine.snapshots import SNAPSHOTS, snapshot_rows, snapshot_tabs

    class History:
        def dump(self, state):
            return {"history": [{"n": n} for n in range(state)], "board": [{"size": state}]}

    first = snapshot_rows(History(), 3, 1)
    second = snapshot_rows(History(), 5, 2, snapshot_tabs(SNAPSHOTS.frame(first)))
    assert {r["tab"]: json.loads(r["json"]) for r in second} == {
        "history": {"after round": 1, "then": [{"n": 3}, {"n": 4}]}, "board": [{"size": 5}]}
    assert snapshot_tabs(SNAPSHOTS.frame(first + second)) == {1: History().dump(3), 2: History().dump(5)}
    # Round 1's rows deleted: round 2's history cannot be rebuilt, and the message says why.
    with pytest.raises(SchemaErrors, match=r"earlier round's snapshot of 'history' \(round 1\)"):
        snapshot_tabs(SNAPSHOTS.frame(second))


def test_resolving_again_from_a_state_the_host_changed_replaces_its_snapshot_and_drops_later_ones(folder_backend):
    from sheets_host.engine.snapshots import snapshot_tabs

    new(folder_backend)
    for _ in range(3):
        submit_all(folder_backend)
        resolve(folder_backend)
    assert set(snapshot_tabs(host(folder_backend, "snapshots"))) == {1, 2, 3}
    engine.undo(folder_backend, fixed_clock)
    engine.undo(folder_backend, fixed_clock)
    # The host corrects the state before round 2 is played again: Ada missed round 1.
    missed = pd.DataFrame([{"round": 1, "player": "Ada"}])
    folder_backend.book("host").write({"missed": missed})
    submit_all(folder_backend)
    resolve(folder_backend)
    snapshots = snapshot_tabs(host(folder_backend, "snapshots"))
    assert set(snapshots) == {1, 2}  # round 3's, of a state that will never be, is gone
    assert snapshots[2]["missed"] == [{"round": 1, "player": "Ada"}]
    engine.undo(folder_backend, fixed_clock)  # back to the corrected state
    assert host(folder_backend, "missed").to_dict("records") == [{"round": 1, "player": "Ada"}]
