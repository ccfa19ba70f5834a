"""Every book knows whose it is (issue 25): a book in another's place, a stray copy beside a book,
and the tabs an undone round made, on xlsx books and on the Google fake."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from sheets_host.backends import ENGINE_TAB
from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.host import frame
from sheets_host.engine.play import bot_names, bots_submit
from sheets_host.fakes.google import fake_backend
from sheets_host.kit.errors import BookError

from tests.conftest import fixed_clock

PLAYERS = bot_names(7)  # Ada, Blaise, Cora...
ACADEMY = "academy-of-witchcraft-arts"
FIVE = PLAYERS[:5]


def wind(backend):
    return engine.new_game(backend, "wind-guide-me", PLAYERS, 7, clock=fixed_clock)


def swap(a, b) -> None:
    tmp = a.with_name("swapping")
    os.replace(a, tmp)
    os.replace(b, a)
    os.replace(tmp, b)


# ---- a book in another's place --------------------------------------------------------------------


def test_swapped_player_books_stop_every_command_naming_the_file_and_both_owners(folder_backend):
    wind(folder_backend)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    players = folder_backend.folder / "players"
    swap(players / "Ada.xlsx", players / "Blaise.xlsx")
    host = (folder_backend.folder / "host.xlsx").read_bytes()
    for command in (engine.check, engine.status, engine.lock,
                    lambda b, c: engine.resolve(b, early=True, clock=c), engine.undo):
        with pytest.raises(BookError) as caught:
            command(folder_backend, fixed_clock)
        message = str(caught.value)
        assert "players/Ada.xlsx" in message and "Blaise's book" in message and "Ada's" in message, message
    assert (folder_backend.folder / "host.xlsx").read_bytes() == host  # nothing committed
    swap(players / "Ada.xlsx", players / "Blaise.xlsx")
    assert engine.resolve(folder_backend, early=True, clock=fixed_clock).round == 1


def test_a_book_made_before_books_knew_their_owner_is_read_and_learns_it(folder_backend):
    wind(folder_backend)
    book = folder_backend.book("player:Ada")
    mark = book.read([ENGINE_TAB])[ENGINE_TAB]
    old = mark[~mark["key"].isin(["book", "tabs"])].reset_index(drop=True)
    assert len(old) < len(mark)
    book.write({ENGINE_TAB: old}, hidden=(ENGINE_TAB,))
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    assert engine.resolve(folder_backend, early=True, clock=fixed_clock).round == 1
    mark = book.read([ENGINE_TAB])[ENGINE_TAB]
    assert dict(zip(mark["key"], mark["value"]))["book"] == "player:Ada"


def test_a_players_book_names_no_other_player(folder_backend):
    wind(folder_backend)
    mark = folder_backend.book("player:Ada").read([ENGINE_TAB])[ENGINE_TAB]
    text = " ".join(str(v) for v in [*mark["key"], *mark["value"]])
    assert not [p for p in PLAYERS if p != "Ada" and p in text], text


def test_swapped_spreadsheet_ids_in_the_books_tab_stop_the_command_on_google(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    backend, fake = fake_backend()
    session = engine.new_game(backend, "wind-guide-me", PLAYERS, 7, clock=fixed_clock)
    host = session.host.ref
    books = session.host.read(["books"])["books"]
    ids = dict(zip(books["role"], books["book"]))
    ids["player:Ada"], ids["player:Blaise"] = ids["player:Blaise"], ids["player:Ada"]
    session.host.write({"books": frame([{"role": r, "book": b} for r, b in ids.items()], ["role", "book"])})
    with pytest.raises(BookError, match=r"where Ada's book should be, is Blaise's book"):
        engine.check(fake_backend(host, fake=fake)[0], fixed_clock)


# ---- stray files ----------------------------------------------------------------------------------


@pytest.mark.parametrize("stray", ["Ada.ods", "Ada (1).xlsx", "Ada copy.xlsx", "Copy of Ada.xlsx", "Ada-2.xlsx",
                                   "ada.xlsx", "Ada.numbers", "Ada - Copy.xlsm"])
def test_a_stray_file_beside_an_empty_book_is_named_never_read_as_no_submission(folder_backend, stray):
    wind(folder_backend)
    (folder_backend.folder / "players" / stray).write_bytes(b"typed elsewhere")
    with pytest.raises(BookError) as caught:
        engine.check(folder_backend, fixed_clock)
    message = str(caught.value)
    assert f"players/{stray}" in message and "players/Ada.xlsx" in message and "remove" in message, message


@pytest.mark.parametrize("role, stray", [("host", "host (1).xlsx"), ("host", "Copy of host.xlsx"), ("host", "host.ods"),
                                         ("public", "public (1).xlsx"), ("public", "public - Copy.xlsx")])
def test_a_stray_copy_of_the_host_or_the_public_book_is_refused_as_a_players_is(folder_backend, role, stray):
    """Issue 34: `host (1).xlsx` beside the host book was ignored in silence, while a player's stray
    copy stopped every command: both stop it, with the same message."""
    wind(folder_backend)
    (folder_backend.folder / stray).write_bytes(b"a download, or an older copy")
    with pytest.raises(BookError) as caught:
        engine.check(folder_backend, fixed_clock)
    message = str(caught.value)
    assert message.startswith(f"{stray} lies beside {role}.xlsx, the {role} book, which is the only file read: "
                              f"if {stray} holds "), message
    assert f"save it as {role}.xlsx" in message and "otherwise remove it" in message, message
    assert stray in folder_backend.existing()  # so `new --force` removes it with the old game
    engine.new_game(folder_backend, "wind-guide-me", PLAYERS, 7, clock=fixed_clock, force=True)
    assert not (folder_backend.folder / stray).exists() and engine.check(folder_backend, fixed_clock).round == 1


def test_a_stray_file_instead_of_the_book_is_named(folder_backend):
    wind(folder_backend)
    players = folder_backend.folder / "players"
    os.replace(players / "Ada.xlsx", players / "Ada (1).xlsx")
    with pytest.raises(BookError, match=r"players/Ada \(1\)\.xlsx.*players/Ada\.xlsx"):
        engine.resolve(folder_backend, early=True, allow_empty=True, clock=fixed_clock)


def test_a_stray_beside_a_book_holding_a_submission_stops_the_command_too(folder_backend):
    wind(folder_backend)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 7)
    (folder_backend.folder / "players" / "Ada (1).xlsx").write_bytes(b"an older download, or a newer one")
    with pytest.raises(BookError, match=r"players/Ada \(1\)\.xlsx"):
        engine.resolve(folder_backend, early=True, clock=fixed_clock)


def test_another_players_book_and_files_of_no_player_are_no_strays(tmp_path):
    backend = XlsxBackend(tmp_path / "game")
    engine.new_game(backend, "wind-guide-me", ["Ada", "Ada 2", *PLAYERS[1:6]], 7, clock=fixed_clock)
    folder = backend.folder / "players"
    for name in ("notes.txt", "Zed.ods", "Adam.xlsx", ".Ada.ods"):
        (folder / name).write_bytes(b"")
    for name in ("hostess.xlsx", "publication.ods", "record.json", "~$host.xlsx", ".~lock.host.xlsx#"):
        (backend.folder / name).write_bytes(b"")
    assert engine.check(backend, fixed_clock).round == 1


def test_new_force_removes_stray_copies_of_an_old_game(folder_backend):
    wind(folder_backend)
    stray = folder_backend.folder / "players" / "Ada.ods"
    stray.write_bytes(b"old")
    assert "players/Ada.ods" in folder_backend.existing()
    engine.new_game(folder_backend, "wind-guide-me", PLAYERS, 7, clock=fixed_clock, force=True)
    assert not stray.exists() and engine.check(folder_backend, fixed_clock).round == 1


# ---- undo tidies the books ------------------------------------------------------------------------


def academy(backend):
    engine.new_game(backend, ACADEMY, FIVE, 7, clock=fixed_clock)
    for player in FIVE:
        backend.book(f"player:{player}").write({"preferences": pd.DataFrame(
            [["Elemental Continuum", "Alchemy", None]], columns=["first", "second", "garnets"], dtype=object)})


def other_books(backend) -> dict[str, dict[str, pd.DataFrame]]:
    """Every book but the host's, as read, the status (its time) and engine tab (its number) aside."""
    roles = ["public", *(f"player:{p}" for p in FIVE)]
    return {role: {t: f for t, f in backend.book(role).read(formulas=True).items() if t not in ("status", ENGINE_TAB)}
            for role in roles}


def same_books(before, after) -> None:
    """The same tabs holding the same, but that the commitments an undo withdrew stay, marked so,
    and the public one gains the undo's link."""
    for role in before:
        assert list(after[role]) == list(before[role]), role
        for tab in before[role]:
            now = after[role][tab]
            if tab in ("commitments", "my commitments"):
                note = "superseded" if tab == "commitments" else "note"
                withdrawn = now[note].astype(str).str.startswith("undone at")
                assert withdrawn.any(), (role, tab)
                if tab == "commitments":
                    assert (now["what"] == "undo").sum() == 1
                    withdrawn |= now["what"] == "undo"
                now = now[~withdrawn]
            a, b = (f.astype(str).reset_index(drop=True) for f in (now, before[role][tab]))
            assert a.equals(b), (role, tab)


@pytest.mark.slow(8)
def test_undo_gives_every_book_the_tabs_it_had_before_the_resolve(folder_backend):
    academy(folder_backend)
    engine.resolve(folder_backend, early=True, clock=fixed_clock)  # the pregame: boards are due
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 3)
    folder_backend.book("player:Ada").write({"my notes": frame([{"note": "mine"}], ["note"])})
    before = other_books(folder_backend)
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    grown = other_books(folder_backend)["player:Ada"]
    assert {"my board", "my wards", "continuum"} <= set(grown) and "my notes" in grown
    engine.undo(folder_backend, fixed_clock)
    same_books(before, other_books(folder_backend))


@pytest.mark.slow(8)
def test_undo_of_the_pregame_removes_the_event_tabs_on_google(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    backend, fake = fake_backend()
    session = engine.new_game(backend, ACADEMY, FIVE, 7, clock=fixed_clock)
    host = session.host.ref
    again = fake_backend(host, fake=fake)[0]
    engine.open_session(again, fixed_clock)
    for player in FIVE:
        again.book(f"player:{player}").write({"preferences": pd.DataFrame(
            [["Elemental Continuum", "Alchemy", None]], columns=["first", "second", "garnets"], dtype=object)})
    ada = again.book("player:Ada").id
    before = fake.tabs(ada)
    engine.resolve(fake_backend(host, fake=fake)[0], early=True, clock=fixed_clock)
    assert len(fake.tabs(ada)) > len(before)
    start = len(fake.requests)
    engine.undo(fake_backend(host, fake=fake)[0], fixed_clock)
    assert fake.tabs(ada) == before
    writes = [c for c in fake.requests[start:] if c.sid == ada]
    assert len(writes) == 2  # one read, one write


def test_a_tab_removed_offline_takes_its_own_names_and_leaves_the_others_on_their_sheets(tmp_path):
    import openpyxl
    from openpyxl.workbook.defined_name import DefinedName

    from sheets_host.backends.xlsx.backend import XlsxBook

    wb = openpyxl.Workbook()
    wb.active.title = "a"
    for name in ("b", "c"):
        wb.create_sheet(name)["A1"] = "=1+1"
    wb["b"].defined_names["only_b"] = DefinedName("only_b", attr_text="b!$A$1")
    wb["c"].defined_names["only_c"] = DefinedName("only_c", attr_text="c!$A$1")
    wb.active = 2
    wb.save(tmp_path / "book.xlsx")
    XlsxBook(tmp_path / "book.xlsx", "book.xlsx").write({}, remove=["B", "missing"])
    again = openpyxl.load_workbook(tmp_path / "book.xlsx")
    assert again.sheetnames == ["a", "c"] and again.active.title == "c"
    assert list(again["c"].defined_names) == ["only_c"] and not list(again["a"].defined_names)
