"""The host's commands end to end on offline books (the same engine runs on Google Sheets)."""

from datetime import timedelta

import openpyxl
import pandas as pd
import pytest

from sheets_host.backends import ENGINE_TAB
from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.announcements_tab import announced
from sheets_host.engine.commands import HISTORY
from sheets_host.engine.play import bots_submit, demo
from sheets_host.games import get_game
from sheets_host.kit.errors import RoundError, SchemaErrors, SheetsHostError

from tests.conftest import FIXED, PLAYERS, fixed_clock


def new(backend, **kw):
    return engine.new_game(backend, "wind-guide-me", PLAYERS, 7, clock=fixed_clock, **kw)


def play_round(backend, seed=7, **kw):
    bots_submit(backend, engine.open_session(backend, fixed_clock), seed)
    return engine.resolve(backend, early=True, clock=fixed_clock, **kw)


def tabs(backend, role):
    return backend.book(role).read()


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A whole game by bots, played once for the tests that only read it (or are refused)."""
    backend = XlsxBackend(tmp_path_factory.mktemp("finished") / "g")
    demo("wind-guide-me", backend, 5, say=lambda s: None, clock=fixed_clock)
    return backend


def all_books(backend):
    roles = ["host", "public"] + [f"player:{p}" for p in PLAYERS]
    return {r: tabs(backend, r) for r in roles}


def test_new_creates_host_public_and_one_book_per_player(folder_backend):
    new(folder_backend)
    assert {"config", "players", "hand", "sites", "stones", "missed", "rounds", "archive", "snapshots", "log",
            "books", "commitments"} <= set(tabs(folder_backend, "host"))
    assert set(tabs(folder_backend, "public")) == {"sites", "status", "commitments", ENGINE_TAB}
    for p in PLAYERS:
        assert set(tabs(folder_backend, f"player:{p}")) == {"submit", "private", "my stones", "status", HISTORY,
                                                             "my commitments", ENGINE_TAB}


def test_new_refuses_a_wrong_number_of_players_or_duplicate_names(folder_backend):
    with pytest.raises(SheetsHostError, match="takes 7 players; got 3"):
        engine.new_game(folder_backend, "wind-guide-me", ["a", "b", "c"], 1)
    with pytest.raises(SheetsHostError, match="distinct"):
        engine.new_game(folder_backend, "wind-guide-me", ["a", "A"] + PLAYERS[:5], 1)


def test_check_reports_and_tells_each_player_without_changing_the_state(folder_backend):
    new(folder_backend)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    folder_backend.book("player:Ada").write({"submit": pd.DataFrame(
        [["stone", "99", "1", "1", None]], columns=["kind", "site", "position", "stone", "light"])})
    before = {k: v for k, v in tabs(folder_backend, "host").items()}
    report = engine.check(folder_backend, fixed_clock)
    assert report.readings["Ada"].state == "errors" and report.readings["Blaise"].state == "valid"
    after = tabs(folder_backend, "host")
    assert all(before[k].equals(after[k]) for k in before)
    status = tabs(folder_backend, "player:Ada")["status"]
    problems = [v for w, v in zip(status["what"], status["value"]) if w == "problem"]
    assert any("row 2, column 'site' (B): '99' is out of range" in p for p in problems)
    assert "Ada" not in str(tabs(folder_backend, "player:Blaise")["status"].values)


def test_resolve_writes_state_snapshot_archive_log_public_and_private(folder_backend):
    new(folder_backend)
    report = play_round(folder_backend)
    host = tabs(folder_backend, "host")
    assert report.round == 1 and len(host["stones"]) == 14
    assert list(host["rounds"]["status"]) == ["resolved", "open"]
    assert set(host["snapshots"]["round"]) == {1} and len(host["archive"]) >= 14
    assert "freeze" in set(host["log"]["kind"])
    assert list(announced(get_game("wind-guide-me"), tabs(folder_backend, "public")["announcements"])) == [1]
    assert tabs(folder_backend, "player:Ada")["submit"].empty
    assert [f.name for f in report.files] == ["round-01.md", "round-01.png"]


def test_a_second_resolve_straight_after_the_first_is_refused(folder_backend):
    new(folder_backend)
    play_round(folder_backend)
    with pytest.raises(RoundError, match="nobody has submitted anything for round 2"):
        engine.resolve(folder_backend, early=True, clock=fixed_clock)


def test_resolving_after_the_game_is_over_is_refused(finished):
    with pytest.raises(RoundError, match="the game is over"):
        engine.resolve(finished, early=True, clock=fixed_clock)


def test_a_missing_submission_gets_the_default_and_the_penalty(folder_backend):
    new(folder_backend)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    folder_backend.book("player:Cora").write({"submit": pd.DataFrame(columns=["kind", "site", "position", "stone", "light"])})
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    host = tabs(folder_backend, "host")
    assert list(host["missed"]["player"]) == ["Cora"]
    log = host["log"]
    assert "no valid submission" in log[(log["player"] == "Cora") & (log["kind"] == "default")]["message"].iloc[0]


def test_deadlines_refuse_an_early_resolve_and_roll_forward(folder_backend):
    new(folder_backend, settings={"first deadline": "2026-11-23 18:00", "round hours": "24"})
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    with pytest.raises(RoundError, match="deadline is 2026-11-23 18:00:00 UTC, still to come"):
        engine.resolve(folder_backend, clock=fixed_clock)
    late = lambda: FIXED + timedelta(days=2)  # noqa: E731
    engine.resolve(folder_backend, clock=late)
    rounds = tabs(folder_backend, "host")["rounds"]
    assert list(rounds["deadline"]) == ["2026-11-23 18:00:00 UTC", "2026-11-24 18:00:00 UTC"]


def test_lock_protects_submit_tabs_and_the_next_round_unprotects_them(folder_backend):
    new(folder_backend)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    engine.lock(folder_backend, fixed_clock)
    path = folder_backend.book("player:Ada").path
    assert openpyxl.load_workbook(path)["submit"].protection.sheet is True
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    assert openpyxl.load_workbook(path)["submit"].protection.sheet is False
    assert "lock" in set(tabs(folder_backend, "host")["log"]["kind"])


def test_a_formula_typed_by_a_player_is_archived_as_text_never_as_a_formula(folder_backend):
    new(folder_backend)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    path = folder_backend.book("player:Ada").path
    wb = openpyxl.load_workbook(path)
    wb["submit"]["B4"] = "=B2+1"  # a real formula cell, as a spreadsheet program would save it
    wb["submit"]["A4"] = "stone"
    wb.save(path)
    report = engine.resolve(folder_backend, early=True, clock=fixed_clock)
    assert any("'=B2+1' is a formula" in p.message for p in report.readings["Ada"].parsed.problems)
    host = openpyxl.load_workbook(folder_backend.book("host").path)["archive"]
    cell = next(c for row in host.iter_rows() for c in row if c.value == "=B2+1")
    assert cell.data_type == "s"


def test_a_host_edit_that_breaks_a_tab_stops_resolve_before_anything_is_written(folder_backend):
    new(folder_backend)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    host = folder_backend.book("host")
    config = host.read(["config"])["config"]
    config.loc[config["key"] == "collapse over", "value"] = "lots"
    host.write({"config": config})
    before = {r: b for r, b in all_books(folder_backend).items()}
    with pytest.raises(SchemaErrors, match="tab 'config', row 10, column 'collapse over': 'lots' is not a whole number >= 1"):
        engine.resolve(folder_backend, early=True, clock=fixed_clock)
    after = all_books(folder_backend)
    assert all(before[r][t].equals(after[r][t]) for r in before for t in before[r])


def test_undo_restores_the_state_and_the_submissions(folder_backend):
    new(folder_backend)
    play_round(folder_backend)
    before_round_2 = all_books(folder_backend)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    submitted = tabs(folder_backend, "player:Ada")["submit"]
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    assert engine.undo(folder_backend, fixed_clock).round == 2
    after = all_books(folder_backend)
    for tab in ("sites", "stones", "missed"):
        assert before_round_2["host"][tab].equals(after["host"][tab])
    assert list(after["host"]["rounds"]["status"]) == ["resolved", "open"]
    assert after["player:Ada"]["submit"].astype(str).equals(submitted.astype(str))
    assert after["player:Ada"]["my stones"].equals(before_round_2["player:Ada"]["my stones"])
    engine.resolve(folder_backend, early=True, clock=fixed_clock)  # the round plays again
    assert list(tabs(folder_backend, "host")["rounds"]["attempt"])[:2] == [1, 2]


def test_undo_with_nothing_resolved_is_refused(folder_backend):
    new(folder_backend)
    with pytest.raises(RoundError, match="nothing to undo"):
        engine.undo(folder_backend, fixed_clock)


def test_redo_re_resolves_from_the_snapshot_with_the_host_s_correction(folder_backend):
    new(folder_backend)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    folder_backend.book("player:Ada").write({"submit": pd.DataFrame(
        [["stone", "99", "1", "1", None]], columns=["kind", "site", "position", "stone", "light"])})
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    host = folder_backend.book("host")
    assert list(host.read(["missed"])["missed"]["player"]) == ["Ada"]
    session = engine.open_session(folder_backend, fixed_clock)
    good_site = next(n for n, seats in enumerate(session.state.sites, 1) if "Ada" in seats)
    archive = host.read(["archive"])["archive"]
    archive.loc[(archive["player"] == "Ada"), "site"] = good_site  # the host fixes Ada's typo
    host.write({"archive": archive})
    report = engine.resolve(folder_backend, redo=True, clock=fixed_clock)
    assert report.action == "redone" and report.round == 1
    state = engine.open_session(folder_backend, fixed_clock).state
    assert state.missed == () and state.round == 2
    assert any(p.stone.player == "Ada" and p.site == good_site for p in state.placed)
    assert list(host.read(["rounds"])["rounds"]["attempt"]) == [2, 0]


def test_a_crash_after_the_host_write_is_finished_by_the_next_resolve(folder_backend, monkeypatch):
    new(folder_backend)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    from sheets_host.backends.xlsx import backend as xlsx

    original = xlsx.XlsxBook.write

    def crash_on_players(self, tabs, **kw):
        if "players" in str(self.path) and "Cora" in str(self.path):
            raise OSError("disk gone")
        return original(self, tabs, **kw)

    monkeypatch.setattr(xlsx.XlsxBook, "write", crash_on_players)
    with pytest.raises(OSError):
        engine.resolve(folder_backend, early=True, clock=fixed_clock)
    monkeypatch.setattr(xlsx.XlsxBook, "write", original)
    assert not tabs(folder_backend, "player:Cora")["submit"].empty  # Cora's book was not reached
    ada_submit_typed = pd.DataFrame([["stone", "1", "1", "1", None]], columns=["kind", "site", "position", "stone", "light"])
    folder_backend.book("player:Ada").write({"submit": ada_submit_typed})  # Ada already types round 2
    report = engine.resolve(folder_backend, early=True, clock=fixed_clock)
    assert report.action == "delivered" and report.round == 1
    assert tabs(folder_backend, "player:Cora")["submit"].empty
    assert not tabs(folder_backend, "player:Ada")["submit"].empty  # delivered books are left alone


def test_replay_from_the_host_book_gives_identical_books(finished, tmp_path):
    original, copy = finished, XlsxBackend(tmp_path / "b")
    assert engine.replay(original, copy, fixed_clock) == 7
    a, b = all_books(original), all_books(copy)
    for role in a:
        assert a[role].keys() == b[role].keys()
        for tab in a[role]:
            left, right = a[role][tab].astype(str), b[role][tab].astype(str)
            assert left.equals(right), (role, tab)


def test_books_are_routed_only_to_their_reader(finished):
    backend = finished
    host_stones = tabs(backend, "host")["stones"]
    public = tabs(backend, "public")
    assert set(public) == {"sites", "status", "announcements", "standings", "commitments", ENGINE_TAB}
    for p in PLAYERS:
        book = tabs(backend, f"player:{p}")
        mine = host_stones[host_stones["player"] == p]
        assert list(book["my stones"]["site"]) == list(mine["site"])
        assert list(book["my stones"]["power"]) == list(mine["power"])
        others = [q for q in PLAYERS if q != p]
        assert not any(q in str(v) for q in others for v in book["status"]["value"])


def test_blank_rows_are_skipped_and_messages_name_the_row_the_player_sees(folder_backend):
    new(folder_backend)
    session = engine.open_session(folder_backend, fixed_clock)
    site = next(n for n, seats in enumerate(session.state.sites, 1) if "Ada" in seats)
    folder_backend.book("player:Ada").write({"submit": pd.DataFrame(
        [["stone", site, 1, 3, None], [None] * 5, ["  ", " ", None, None, None], ["stone", site + 100, 2, 4, None]],
        columns=["kind", "site", "position", "stone", "light"], dtype=object)})
    report = engine.check(folder_backend, fixed_clock)
    reading = report.readings["Ada"]
    assert [r.row for r in reading.rows] == [2, 5]
    (problem,) = reading.parsed.problems
    assert problem.row == 5 and problem.column == "site" and reading.parsed.kept.startswith("stone 3 at site")


def test_the_seating_may_be_edited_before_round_1_but_not_after(folder_backend):
    new(folder_backend)
    host = folder_backend.book("host")
    sites = host.read(["sites"])["sites"]
    rotated = sites.copy()
    for k in range(1, 6):  # one rotation of positions for every site keeps every rule of the seating
        rotated[f"position {k}"] = sites[f"position {k % 5 + 1}"]
    host.write({"sites": rotated})
    play_round(folder_backend)
    assert list(engine.open_session(folder_backend, fixed_clock).state.sites[0]) == list(rotated.iloc[0, 1:6])
    host.write({"sites": sites})
    with pytest.raises(SchemaErrors, match=r"tab 'sites', row 2, column 'position 1': .* as round 1 was resolved "
                                           r"with it \(the sites tab is editable only before round 1: put it back"):
        engine.open_session(folder_backend, fixed_clock)


def test_submit_columns_are_matched_by_name_in_any_case_spacing_or_underscores(folder_backend):
    new(folder_backend)
    session = engine.open_session(folder_backend, fixed_clock)
    site = next(n for n, seats in enumerate(session.state.sites, 1) if "Ada" in seats)
    folder_backend.book("player:Ada").write({"submit": pd.DataFrame(
        [[" 3", site, "stone", "", 1]], columns=["STONE", "Site", "kind", "Light_", " position "], dtype=object)})
    reading = engine.check(folder_backend, fixed_clock).readings["Ada"]
    assert reading.parsed.problems == () and reading.parsed.kept == f"stone 3 at site {site}, position 1"
