"""The offline backend on its own: lenient tab names, hidden tabs, failures as one-line BookErrors,
cell limits, huge numbers, book file names, the game folder's lock, and replacing an old game."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import textwrap
import time
import unicodedata
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from openpyxl.chart import BarChart, Reference

from sheets_host.backends import role_file, rows_from_frame
from sheets_host.backends.xlsx.backend import XlsxBackend, XlsxBook
from sheets_host.kit.errors import BookError, BusyError


def frame(*rows, columns=("a", "b")) -> pd.DataFrame:
    return pd.DataFrame([list(r) for r in rows], columns=list(columns), dtype=object)


@pytest.fixture
def book(tmp_path) -> XlsxBook:
    b = XlsxBook(tmp_path / "host.xlsx", "host.xlsx")
    b.write({"config": frame([1, "x"]), "log": frame(["l", 2])})
    return b


def titles(path: Path) -> list[tuple[str, str]]:
    wb = openpyxl.load_workbook(path)
    return [(ws.title, ws.sheet_state) for ws in wb.worksheets]


# ---- tab names and hidden tabs ---------------------------------------------------------------


def test_a_renamed_tab_is_read_under_its_wanted_name_and_replaced_in_place(book):
    wb = openpyxl.load_workbook(book.path)
    wb["config"].title = "Config "
    wb.save(book.path)
    assert list(book.read(["config", "missing"])) == ["config"]
    book.write({"config": frame([9, "y"]), "new": frame()})
    assert [t for t, _ in titles(book.path)] == ["Config ", "log", "new"]
    assert book.read(["config"])["config"].to_dict("records") == [{"a": 9, "b": "y"}]


def test_hidden_tabs_are_written_hidden_and_stay_hidden_when_replaced(book):
    book.write({"sheets-host": frame([1, 2])}, hidden=("sheets-host",))
    book.write({"sheets-host": frame([3, 4]), "log": frame()})
    assert titles(book.path) == [("config", "visible"), ("log", "visible"), ("sheets-host", "hidden")]


def test_a_book_never_has_every_sheet_hidden_and_its_active_sheet_is_visible(tmp_path, book):
    only = XlsxBook(tmp_path / "p.xlsx", "p.xlsx")
    only.write({"sheets-host": frame()}, hidden=("sheets-host",))
    assert titles(only.path) == [("sheets-host", "visible")]

    wb = openpyxl.load_workbook(book.path)
    wb.active = 1  # log
    wb.save(book.path)
    book.write({"log": frame()}, hidden=("log",))
    wb = openpyxl.load_workbook(book.path)
    assert wb.active.title == "config" and wb.active.sheet_view.tabSelected
    assert not wb["log"].sheet_view.tabSelected


def test_a_chart_sheet_is_left_alone(book):
    wb = openpyxl.load_workbook(book.path)
    chart = BarChart()
    chart.add_data(Reference(wb["log"], min_col=2, min_row=1, max_row=2))
    wb.create_chartsheet("chart").add_chart(chart)
    wb.save(book.path)
    assert list(book.read()) == ["config", "log"]
    book.write({"log": frame([5, 6])}, hidden=("log",))
    assert openpyxl.load_workbook(book.path).sheetnames == ["config", "log", "chart"]


# ---- failures --------------------------------------------------------------------------------


def one_line(e: pytest.ExceptionInfo) -> str:
    # No chained traceback behind the message either.
    assert "\n" not in str(e.value) and (e.value.__context__ is None or e.value.__suppress_context__)
    return str(e.value)


def test_a_file_held_by_another_program_is_a_book_error_and_the_book_is_unchanged(book, monkeypatch):
    before = book.path.read_bytes()

    def refuse(*args):
        raise PermissionError(13, "The process cannot access the file")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(BookError) as e:
        book.write({"config": frame()})
    assert str(book.path) in one_line(e) and "close it there and run again" in str(e.value)
    assert book.path.read_bytes() == before
    assert not list(book.path.parent.glob("*.tmp"))


def test_a_read_only_folder_is_a_book_error(tmp_path, book, monkeypatch):
    def refuse(*args, **kw):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("tempfile.mkstemp", refuse)
    with pytest.raises(BookError) as e:
        book.write({"config": frame()})
    assert "make the folder writable" in one_line(e)
    with pytest.raises(BookError, match="make the folder writable"):
        book.check_writable()
    with pytest.raises(BookError, match="make the folder writable"):
        XlsxBook(tmp_path / "players" / "Ann.xlsx", "players/Ann.xlsx").check_writable()


def test_a_read_only_file_is_refused_before_anything_is_written(book):
    before = book.path.read_bytes()
    book.path.chmod(0o444)
    try:
        with pytest.raises(BookError, match="is read-only: make it writable"):
            book.check_writable()
        with pytest.raises(BookError, match="is read-only"):
            book.write({"config": frame()})
        assert book.path.read_bytes() == before
    finally:
        book.path.chmod(0o644)
    book.check_writable()


def test_a_corrupt_file_is_a_book_error_for_read_and_write(tmp_path):
    bad = XlsxBook(tmp_path / "host.xlsx", "host.xlsx")
    bad.path.write_bytes(b"PK\x03\x04 not really a zip")
    for attempt in (bad.read, lambda: bad.write({"a": frame()})):
        with pytest.raises(BookError) as e:
            attempt()
        assert "not a valid .xlsx file" in one_line(e) and str(bad.path) in str(e.value)
    assert bad.path.read_bytes() == b"PK\x03\x04 not really a zip"


def test_a_spreadsheet_programs_lock_file_stops_writes_naming_program_and_user(book):
    excel = book.path.with_name("~$host.xlsx")
    excel.write_bytes(bytes([3]) + b"Ann" + b" " * 51)
    with pytest.raises(BookError) as e:
        book.check_writable()
    assert "Excel (user Ann" in one_line(e) and "has " + str(book.path) + " open: close it there" in str(e.value)
    with pytest.raises(BookError, match="Excel"):
        book.write({"config": frame()})
    excel.unlink()

    libre = book.path.with_name(".~lock.host.xlsx#")
    libre.write_text(r"Lee\, Bo,bo,laptop,22.11.2026 12:00,file:///home/bo/.config/libreoffice/4;")
    with pytest.raises(BookError) as e:
        book.check_writable()
    assert "LibreOffice (user Lee, Bo on laptop since 22.11.2026 12:00" in one_line(e)
    libre.unlink()
    book.check_writable()


# ---- cell contents ---------------------------------------------------------------------------


def test_a_text_longer_than_a_cell_holds_is_cut_saying_how_much_and_the_rest_is_written(book):
    """Issue 34: a refusal here came after the host's commit and stopped every later command."""
    book.write({"log": frame(["x" * 32_767, "y" * 40_000], ["😀" * 20_000, "fits"])})
    (kept, cut), (emoji, fits) = book.read(["log"])["log"].values.tolist()
    assert kept == "x" * 32_767 and fits == "fits"
    assert len(cut) == 32_766 and cut.endswith("y… (7,258 characters cut)")
    # Programs count UTF-16 units: an emoji is two.
    assert emoji.startswith("😀" * 16_000) and emoji.endswith("😀… (3,629 characters cut)")
    assert len(emoji.encode("utf-16-le")) // 2 <= 32_767


def test_control_characters_are_removed_on_write(book):
    book.write({"log": frame(["bell\x07 and\x1b escape", "tab\tnewline\n kept"])})
    assert book.read(["log"])["log"].to_dict("records") == [{"a": "bell and escape", "b": "tab\tnewline\n kept"}]


def huge_number_book(path: Path, digits: str) -> None:
    """A book whose `t` tab holds a number of `digits` in A2, as a file another program could write."""
    wb = openpyxl.Workbook()
    wb.active.title = "t"
    wb.active.append(["n", "m"])
    wb.active.append([424242, 5])
    wb.save(path)
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    parts["xl/worksheets/sheet1.xml"] = parts["xl/worksheets/sheet1.xml"].replace(b">424242<", f">{digits}<".encode())
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)


def test_a_number_of_5000_digits_reads_as_its_digits_and_survives_writes(tmp_path):
    digits = "9" * 5000
    book = XlsxBook(tmp_path / "host.xlsx", "host.xlsx")
    huge_number_book(book.path, digits)
    assert sys.get_int_max_str_digits() == 4300
    assert book.read()["t"].to_dict("records") == [{"n": digits, "m": 5}]
    book.write({"other": frame([1, 2])})  # `t` is kept as it was
    assert book.read(["t"])["t"].iloc[0, 0] == digits
    assert sys.get_int_max_str_digits() == 4300


def test_long_ints_are_written_as_their_digits():
    rows = rows_from_frame(frame([10**5000, 2**60], [123456789012345, -(10**15)]))
    assert rows[1] == ["1" + "0" * 5000, "1152921504606846976"]
    assert rows[2] == [123456789012345, "-1000000000000000"]


def test_a_20_digit_seed_comes_back_exactly(book):
    book.write({"config": frame(["seed", 12345678901234567890])})
    assert book.read(["config"])["config"].iloc[0, 1] == "12345678901234567890"


# ---- book files ------------------------------------------------------------------------------


def test_distinct_names_get_distinct_files_keeping_their_letters():
    names = ["Zoë", "Zoe\u0308", "李", "a/b", "a\\b", "a_b", "a:b", "CON", "con.x", "nul ", "..", ".", "", "x" * 300]
    files = {n: role_file(f"player:{n}") for n in names}
    assert files["Zoë"] == files["Zoe\u0308"] == "players/Zoë" and files["李"] == "players/李"
    assert files["a_b"] == "players/a_b"
    distinct = [n for n in names if n != "Zoe\u0308"]
    assert len({files[n] for n in distinct}) == len(distinct)
    for name, path in files.items():
        stem = path.split("/", 1)[1]
        assert stem and not re.search(r'[/\\:*?"<>|\x00-\x1f]', stem) and stem.strip(". ") == stem
        assert stem.split(".")[0].upper() not in ("CON", "NUL") and len((stem + ".xlsx").encode()) <= 255
        assert re.fullmatch(r".*-[0-9a-f]{6}", stem) or stem == unicodedata.normalize("NFC", name)


def test_bind_finds_books_named_before(tmp_path):
    backend = XlsxBackend(tmp_path)
    old = XlsxBook(tmp_path / "players" / "Zo_.xlsx", "players/Zo_.xlsx")  # how Zoë's book was named
    old.write({"submit": frame()})
    XlsxBook(tmp_path / "host.xlsx", "host.xlsx").write({"books": frame()})
    with pytest.raises(BookError, match="does not exist"):
        backend.book("player:Zoë")
    backend.bind({"host": "elsewhere.xlsx", "player:Zoë": "players/Zo_.xlsx"})
    assert backend.book("player:Zoë").path == old.path
    assert backend.book("host").path == tmp_path / "host.xlsx"
    assert backend.refs()["player:Zoë"] == "players/Zo_.xlsx"


def test_existing_lists_the_books_new_would_replace_and_discard_removes_only_those(tmp_path):
    backend = XlsxBackend(tmp_path)
    for ref in ("host.xlsx", "public.xlsx", "players/Ann.xlsx", "players/Bo.xlsx", "meadows/red.xlsx"):
        backend.create(ref.removesuffix(".xlsx").replace("players/", "player:").replace("meadows/", "meadow:"),
                       "t").write({"a": frame()})
    mine = ["notes.xlsx", "players/notes.txt", "data/table.xlsx"]
    for ref in mine:
        (tmp_path / ref).parent.mkdir(exist_ok=True)
        (tmp_path / ref).write_text("keep")
    (tmp_path / "announcements").mkdir()
    (tmp_path / "announcements" / "round-01.md").write_text("old")
    excel = tmp_path / "players" / "~$Ann.xlsx"  # Excel has Ann's book open
    excel.write_bytes(b"\x03Ann")
    assert backend.existing() == ["host.xlsx", "public.xlsx", "meadows/red.xlsx", "players/Ann.xlsx", "players/Bo.xlsx"]
    with pytest.raises(BookError, match="already exists: `new --force`"):
        backend.create("player:Ann", "Ann")
    with pytest.raises(BookError, match="Excel .*Ann.xlsx open"):
        backend.discard()
    assert len(backend.existing()) == 5  # nothing removed

    excel.unlink()
    backend.discard()
    assert backend.existing() == [] and not list((tmp_path / "announcements").iterdir())
    assert all((tmp_path / ref).exists() for ref in mine)


# ---- holding the game folder -----------------------------------------------------------------


def test_a_second_hold_refuses_naming_the_holder_and_leftover_temp_files_go(tmp_path):
    folder = tmp_path / "game"
    (folder / "players").mkdir(parents=True)
    leftovers = [folder / "tmpab.xlsx.tmp", folder / "players" / "tmpcd.xlsx.tmp"]
    for f in leftovers:
        f.write_text("half a book")
    (folder / "players" / "Ann.xlsx").write_text("kept")
    with XlsxBackend(folder).hold("resolve"):
        assert not any(f.exists() for f in leftovers) and (folder / "players" / "Ann.xlsx").exists()
        start = time.monotonic()
        with pytest.raises(BusyError) as e:
            with XlsxBackend(folder, wait=0.3).hold("check"):
                pass
        assert time.monotonic() - start >= 0.3
        message = one_line(e)
        assert f"`resolve` (process {os.getpid()} on {socket.gethostname()}, started 20" in message
        assert "wait for it to finish and run again" in message
    assert not (folder / ".sheets-host.holder").exists()
    with XlsxBackend(folder, wait=0).hold("check"):
        pass


def test_a_hold_inside_a_hold_of_the_same_backend_goes_through(tmp_path):
    backend = XlsxBackend(tmp_path, wait=0.1)
    with backend.hold("replay"):
        with backend.hold("resolve"):
            pass
        assert (tmp_path / ".sheets-host.holder").exists()
        with pytest.raises(BusyError, match="`replay`"):
            with XlsxBackend(tmp_path, wait=0.1).hold("check"):
                pass


HOLDER = textwrap.dedent("""
    import sys
    from sheets_host.backends.xlsx.backend import XlsxBackend
    from sheets_host.kit.errors import BusyError
    folder, command, wait = sys.argv[1], sys.argv[2], float(sys.argv[3])
    try:
        with XlsxBackend(folder, wait=wait).hold(command):
            print("held", flush=True)
            sys.stdin.readline()  # until the test lets go
    except BusyError as e:
        print("busy", e, flush=True)
""")


def run_holder(folder: Path, command: str, wait: float) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), command, str(wait)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_processes_at_once_never_both_hold_the_game(tmp_path):
    processes = [run_holder(tmp_path, c, 0.5) for c in ("resolve", "undo")]
    lines = [p.stdout.readline().strip() for p in processes]
    outputs = [p.communicate("\n", timeout=60) for p in processes]
    assert [err for _, err in outputs] == ["", ""]
    assert sorted(line.split(" ")[0] for line in lines) == ["busy", "held"]
    winner, loser = (0, 1) if lines[0] == "held" else (1, 0)
    assert (f"`{('resolve', 'undo')[winner]}` (process {processes[winner].pid} on {socket.gethostname()}"
            in lines[loser])


def test_a_second_process_waits_for_the_first_to_finish(tmp_path):
    first = run_holder(tmp_path, "resolve", 0)
    assert first.stdout.readline() == "held\n"
    second = run_holder(tmp_path, "check", 60)
    time.sleep(3)
    assert second.poll() is None  # waiting, not refused
    first.communicate("\n", timeout=60)
    assert second.communicate("\n", timeout=60)[0] == "held\n"
