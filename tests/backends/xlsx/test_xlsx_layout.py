"""How the offline backend renders a layout and keeps what it is not asked to write: bold shaded
frozen headers, widths, number formats, shaded input rows with dropdowns (inline, or from a
hidden tab when too long or holding commas), notes, fills; rows appended after the last; every
other tab kept exactly (values, formulas, styles, hidden state, protection), whether the book's XML
is edited in place or first rewritten by openpyxl; text stays text and typed formulas read as typed."""

from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from datetime import datetime
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl.comments import Comment
from openpyxl.styles import Font, PatternFill
from openpyxl.utils import range_boundaries

from sheets_host.backends.xlsx.backend import LISTS_TAB, XlsxBook
from sheets_host.backends.xlsx.ooxml import _excel_width
from sheets_host.kit.errors import BookError
from sheets_host.kit.layout import HEADER_FILL, INPUT_FILL, ColumnLayout, TabLayout, lay_out


def frame(*rows, columns=("a", "b")) -> pd.DataFrame:
    return pd.DataFrame([list(r) for r in rows], columns=list(columns), dtype=object)


def fill(cell) -> str:
    return (cell.fill.fgColor.rgb or "")[-6:] if cell.fill and cell.fill.fill_type == "solid" else ""


def options(wb, validation) -> list[str]:
    formula = validation.formula1
    if formula.startswith('"'):
        return formula[1:-1].split(",")
    sheet, _, cells = formula.rpartition("!")
    ws = wb[sheet.strip("'").replace("''", "'")]
    lo_col, lo_row, hi_col, hi_row = range_boundaries(cells.replace("$", ""))
    return [str(c.value) for row in ws.iter_rows(min_row=lo_row, max_row=hi_row, min_col=lo_col, max_col=hi_col)
            for c in row]


def validations(ws) -> dict[str, object]:
    """First column letter of each validation's range -> the validation."""
    return {str(v.sqref).split(":")[0].rstrip("0123456789"): v for v in ws.data_validations.dataValidation}


@pytest.fixture
def book(tmp_path) -> XlsxBook:
    return XlsxBook(tmp_path / "p.xlsx", "p.xlsx")


SUBMIT = frame(["stone", 3, "=A1+1"], ["fake", 2500.5, None], columns=("kind", "site", "note"))
LONG = [f"option number {i}" for i in range(40)]  # 40 options, far past 255 characters inline


def submit_layout() -> TabLayout:
    return lay_out(SUBMIT, choices={"kind": ["stone", "fake"], "site": LONG, "note": ["a, b", 'say "hi"', "c"]},
                   notes={"kind": "what you play", "site": "where it goes\nsecond line"}, input_rows=10,
                   highlight={1: "F8D7DA"})


# ---- rendering a layout -------------------------------------------------------------------------


def test_header_is_bold_shaded_and_frozen_with_widths_number_formats_and_alignment(book):
    layout = TabLayout((ColumnLayout(width=12), ColumnLayout(width=9, number_format="#,##0.00", align="right"),
                        ColumnLayout(width=40, wrap=True)), frozen_rows=1)
    book.write({"t": frame(["Ada", 1234.5, "a long text " * 10], columns=("player", "score", "story"))},
               layouts={"t": layout})
    ws = openpyxl.load_workbook(book.path)["t"]
    assert ws.freeze_panes == "A2"
    for c in "ABC":
        assert ws[f"{c}1"].font.b and fill(ws[f"{c}1"]) == HEADER_FILL
        assert not ws[f"{c}2"].font.b and fill(ws[f"{c}2"]) == ""
    assert [ws.column_dimensions[c].width for c in "ABC"] == [_excel_width(12), _excel_width(9), _excel_width(40)]
    assert 12 < ws.column_dimensions["A"].width < 13
    assert ws["B2"].number_format == "#,##0.00" and ws["B2"].alignment.horizontal == "right"
    assert ws["A2"].alignment.horizontal == "left" and not ws["A2"].alignment.wrap_text
    assert ws["C2"].alignment.wrap_text and ws["C2"].alignment.vertical == "top"


def test_without_a_layout_a_tab_is_laid_out_from_its_frame(book):
    book.write({"t": frame(["Ada", 12], ["Blaise", 3], columns=("player", "garnets"))})
    ws = openpyxl.load_workbook(book.path)["t"]
    expected = lay_out(frame(["Ada", 12], ["Blaise", 3], columns=("player", "garnets")))
    assert ws.freeze_panes == "A2" and ws["A1"].font.b and fill(ws["B1"]) == HEADER_FILL
    assert ws.column_dimensions["A"].width == _excel_width(expected.columns[0].width)
    assert ws["B2"].number_format == "#,##0" and ws["B3"].alignment.horizontal == "right"


def test_headers_are_left_aligned_over_number_columns_and_every_body_cell_is_top_aligned(book):
    """Issue 26: a right-aligned header beside a left-aligned one read as one word ("rowwhat"),
    and a label beside wrapped text sat at the bottom of its row."""
    book.write({"t": frame([3, "stone " * 20], columns=("row", "what"))})
    ws = openpyxl.load_workbook(book.path)["t"]
    assert ws["A1"].alignment.horizontal == ws["B1"].alignment.horizontal == "left"
    assert ws["A2"].alignment.horizontal == "right"  # the numbers stay right-aligned
    assert ws["A2"].alignment.vertical == ws["B2"].alignment.vertical == "top"
    # Text right of a number column steps in: the number flush right never touches it.
    assert ws["B1"].alignment.indent == ws["B2"].alignment.indent == 1 and not ws["A2"].alignment.indent


def test_input_rows_are_shaded_and_offer_dropdowns_inline_or_from_a_hidden_tab(book):
    layout = submit_layout()
    book.write({"submit": SUBMIT}, layouts={"submit": layout})
    wb = openpyxl.load_workbook(book.path)
    ws = wb["submit"]
    assert layout.rows(2) == 10
    for r in range(2, 12):  # the data rows and the empty input rows
        assert all(fill(ws.cell(r, c)) == INPUT_FILL for c in (1, 2)) or r == 3
    assert fill(ws.cell(12, 1)) == ""
    found = validations(ws)
    assert set(found) == {"A", "B", "C"}
    for v in found.values():
        assert v.type == "list" and v.errorStyle == "warning" and not v.showDropDown
        assert str(v.sqref).endswith(":" + str(v.sqref).split(":")[0][0] + "11")
        assert range_boundaries(str(v.sqref))[1] == 2
    assert found["A"].formula1 == '"stone,fake"'
    assert options(wb, found["B"]) == LONG  # longer than Excel's 255 characters inline
    assert options(wb, found["C"]) == ["a, b", 'say "hi"', "c"]  # commas and quotes cannot go inline
    assert wb[LISTS_TAB].sheet_state == "hidden"
    assert "submit" in wb.sheetnames and wb.sheetnames.index(LISTS_TAB) > wb.sheetnames.index("submit")


def test_notes_are_comments_on_header_cells_and_fills_colour_cells(book):
    layout = submit_layout()
    layout = TabLayout(layout.columns, input_rows=layout.input_rows, fills={**layout.fills, (0, 2): "00FF00", (4, 5): "0000FF"})
    book.write({"submit": SUBMIT}, layouts={"submit": layout})
    ws = openpyxl.load_workbook(book.path)["submit"]
    assert ws["A1"].comment.text == "what you play" and ws["B1"].comment.text == "where it goes\nsecond line"
    assert ws["C1"].comment is None
    assert fill(ws["A3"]) == fill(ws["C3"]) == "F8D7DA"  # highlighted body row 1 (row 3 of the sheet)
    assert fill(ws["C1"]) == "00FF00" and ws["C1"].font.b  # a fill on the header
    assert fill(ws["F5"]) == "0000FF"  # beyond the data
    assert fill(ws["A4"]) == INPUT_FILL


def test_rewriting_a_tab_again_and_again_does_not_grow_the_book(book):
    for _ in range(3):
        book.write({"submit": SUBMIT, "status": frame(["x", 1])}, layouts={"submit": submit_layout()})
    sizes = zipfile.ZipFile(book.path).namelist(), len(zipfile.ZipFile(book.path).read("xl/styles.xml"))
    for _ in range(3):
        book.write({"submit": SUBMIT, "status": frame(["x", 1])}, layouts={"submit": submit_layout()})
    assert (zipfile.ZipFile(book.path).namelist(), len(zipfile.ZipFile(book.path).read("xl/styles.xml"))) == sizes
    assert sum(n.startswith("xl/comments") for n in sizes[0]) == 1


# ---- appending ---------------------------------------------------------------------------------


def test_appended_rows_go_after_the_last_row_and_the_header_is_left_alone(book):
    book.write({}, append={"log": frame([1, "one"], columns=("n", "what"))})
    ws = openpyxl.load_workbook(book.path)["log"]
    assert [[c.value for c in r] for r in ws.iter_rows()] == [["n", "what"], [1, "one"]]
    assert ws["A1"].font.b and ws.freeze_panes == "A2"  # a tab not there yet: created, laid out
    book.write({}, append={"log": frame([2, "two"], [3, "=three"], columns=("N", "WHAT"))})
    book.write({}, append={"log": frame([4, "four"], columns=("x", "y"))})
    wb = openpyxl.load_workbook(book.path)
    ws = wb["log"]
    assert [[c.value for c in r] for r in ws.iter_rows()] == [["n", "what"], [1, "one"], [2, "two"], [3, "=three"], [4, "four"]]
    assert ws["B4"].data_type == "s" and ws["A5"].number_format == ws["A2"].number_format == "#,##0"
    assert book.read(["log"])["log"].to_dict("records")[-1] == {"n": 4, "what": "four"}


def test_a_write_reuses_what_was_read_only_of_the_very_same_file(book):
    """A book reuses the rows it read when it writes the same bytes (issue 38: a resolve read every
    book, then parsed it again to append); a file saved in between (a player's spreadsheet
    program) is read anew, so the rows go under what it holds now."""
    book.write({}, append={"log": frame([1, "one"], columns=("n", "what"))})
    assert book.read(["log"])["log"].to_dict("records") == [{"n": 1, "what": "one"}]
    XlsxBook(book.path, book.ref).write({}, append={"log": frame([2, "two"], columns=("n", "what"))})  # saved meanwhile
    book.write({}, append={"log": frame([3, "three"], columns=("n", "what"))})
    assert book.read(["log"])["log"].to_dict("records") == [{"n": 1, "what": "one"}, {"n": 2, "what": "two"},
                                                            {"n": 3, "what": "three"}]
    book.write({}, append={"log": frame([4, "four"], columns=("n", "what"))})  # its own write: read again too
    assert [r["n"] for r in XlsxBook(book.path, book.ref).read(["log"])["log"].to_dict("records")] == [1, 2, 3, 4]


def test_appending_after_a_tab_with_shaded_input_rows_fills_them_in_order(book):
    book.write({"submit": SUBMIT}, layouts={"submit": submit_layout()})
    book.write({}, append={"submit": frame(["stone", 9, None], columns=("kind", "site", "note"))})
    ws = openpyxl.load_workbook(book.path)["submit"]
    assert [c.value for c in ws[4]] == ["stone", 9, None] and fill(ws["A4"]) == INPUT_FILL
    assert [c.value for c in ws[3]][:2] == ["fake", 2500.5] and fill(ws["A5"]) == INPUT_FILL
    assert ws["B4"].number_format == "#,##0.0" and len(validations(ws)) == 3  # dropdowns kept


def test_an_appended_string_too_long_for_a_cell_is_cut_saying_so(book):
    book.write({"log": frame([1, "x"], [2, "y"])})
    book.write({"other": frame()}, append={"log": frame([3, "ok"], [4, "x" * 32_768])})
    rows = book.read(["log"])["log"].to_dict("records")
    assert rows[2] == {"a": 3, "b": "ok"} and rows[3]["b"].endswith("x… (26 characters cut)")


def test_a_whole_tab_and_rows_appended_to_it_in_one_write(book):
    book.write({"log": frame([1, "x"])}, append={"log": frame([2, "y"])})
    assert book.read(["log"])["log"].to_dict("records") == [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]


# ---- what a write leaves alone ---------------------------------------------------------------------


def players_own_tabs(path: Path) -> None:
    """A book as a spreadsheet program leaves it: a formula, styles, a comment, a hidden tab, a protected tab."""
    wb = openpyxl.load_workbook(path)
    ws = wb.create_sheet("mine")
    ws.append(["item", "price", "total"])
    ws.append(["tea", 3, "=B2*2"])
    ws.append(["cake", 4.25, "=SUM(B2:B3)"])
    ws["A1"].font = Font(italic=True, color="FF0000")
    ws["B2"].fill = PatternFill("solid", fgColor="FFAA00")
    ws["A2"].comment = Comment("my note", "me")
    secret = wb.create_sheet("secret")
    secret.append(["k", "v"])
    secret.append(["seed", 1234567890123456])  # 16 digits: past what a float keeps exactly
    secret.sheet_state = "hidden"
    locked = wb.create_sheet("locked")
    locked.append(["x"])
    locked.protection.sheet = True
    locked.protection.password = "pw"
    wb.save(path)


def assert_own_tabs_kept(path: Path) -> None:
    wb = openpyxl.load_workbook(path)
    ws = wb["mine"]
    assert [[c.value for c in r] for r in ws.iter_rows()] == [["item", "price", "total"], ["tea", 3, "=B2*2"],
                                                             ["cake", 4.25, "=SUM(B2:B3)"]]
    assert ws["C2"].data_type == "f" and ws["A1"].font.i and ws["A1"].font.color.rgb == "00FF0000"
    assert fill(ws["B2"]) == "FFAA00" and ws["A2"].comment.text.strip() == "my note"
    assert wb["secret"].sheet_state == "hidden" and str(wb["secret"]["B2"].value) == "1234567890123456"
    assert wb["locked"].protection.sheet and wb["locked"].protection.password
    assert wb["status"]["A2"].value == "new"


def parts(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def sheet_part(path: Path, title: str) -> str:
    """The zip part of a tab, from workbook.xml and its relationships."""
    p = parts(path)
    rid = re.search(rf'<sheet [^>]*name="{title}"[^>]*r:id="(\w+)"', p["xl/workbook.xml"].decode())[1]
    target = re.search(rf'Id="{rid}"[^>]*Target="([^"]+)"|Target="([^"]+)"[^>]*Id="{rid}"',
                       p["xl/_rels/workbook.xml.rels"].decode())
    return "xl/" + (target[1] or target[2]).removeprefix("/xl/")


def test_other_tabs_are_kept_byte_for_byte_formulas_styles_hidden_and_protection(book):
    book.write({"status": frame(["old", 1]), "submit": SUBMIT}, layouts={"submit": submit_layout()})
    players_own_tabs(book.path)
    before = parts(book.path)
    mine = sheet_part(book.path, "mine")
    book.write({"status": frame(["new", 2])}, append={"log": frame([1, 2])}, hidden=("secret",))
    after = parts(book.path)
    for title in ("mine", "secret", "locked", "submit"):
        assert after[sheet_part(book.path, title)] == before[sheet_part(book.path, title)], title
    assert_own_tabs_kept(book.path)
    assert after[mine] == before[mine] and any(n.startswith("xl/comments") for n in after)
    assert book.read(["mine"], formulas=True)["mine"]["total"].tolist() == ["=B2*2", "=SUM(B2:B3)"]


def prefixed(path: Path) -> None:
    """The same book with its workbook part's elements prefixed (as some programs write them):
    valid, but beyond the text-level editing, so a write goes through openpyxl first."""
    p = parts(path)
    text = p["xl/workbook.xml"].decode()
    text = re.sub(r"<(/?)(?!\?)(\w+)", lambda m: f"<{m[1]}x:{m[2]}", text)
    text = text.replace('xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"',
                        'xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"')
    p["xl/workbook.xml"] = text.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in p.items():
            z.writestr(name, data)


def test_a_book_the_editing_does_not_know_goes_through_openpyxl_and_keeps_the_same(book):
    book.write({"status": frame(["old", 1]), "submit": SUBMIT}, layouts={"submit": submit_layout()})
    players_own_tabs(book.path)
    prefixed(book.path)
    assert "x:sheet " in parts(book.path)["xl/workbook.xml"].decode()
    assert book.read(["status"])["status"].iloc[0, 0] == "old"
    book.write({"status": frame(["new", 2])}, append={"log": frame([1, 2])}, layouts={"submit": submit_layout()})
    assert "x:sheet " not in parts(book.path)["xl/workbook.xml"].decode()
    assert_own_tabs_kept(book.path)
    wb = openpyxl.load_workbook(book.path)
    assert wb["status"]["A1"].font.b and len(validations(wb["submit"])) == 3
    assert book.read(["log"])["log"].to_dict("records") == [{"a": 1, "b": 2}]


def test_protection_of_a_tab_not_written_is_set_and_lifted_in_place(book):
    book.write({"submit": SUBMIT, "status": frame(["x", 1])}, layouts={"submit": submit_layout()})
    book.write({"status": frame(["y", 2])}, protect={"submit": True})
    assert openpyxl.load_workbook(book.path)["submit"].protection.sheet is True
    book.write({"status": frame(["z", 3])}, protect={"submit": False})
    ws = openpyxl.load_workbook(book.path)["submit"]
    assert ws.protection.sheet is False and len(validations(ws)) == 3 and ws["A1"].comment is not None
    book.write({"submit": SUBMIT}, protect={"Submit": True})  # written whole and locked at once
    assert openpyxl.load_workbook(book.path)["submit"].protection.sheet is True


def test_replacing_a_tab_that_held_formulas_drops_the_calculation_chain(book):
    book.write({"a": frame([1, 2]), "b": frame([3, 4])})
    wb = openpyxl.load_workbook(book.path)
    wb["a"]["C2"] = "=A2+B2"
    wb.save(book.path)
    p = parts(book.path)  # openpyxl writes no calcChain: add one as Excel would
    p["xl/calcChain.xml"] = (b'<calcChain xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                             b'<c r="C2" i="1"/></calcChain>')
    p["[Content_Types].xml"] = p["[Content_Types].xml"].replace(
        b"</Types>", b'<Override PartName="/xl/calcChain.xml" ContentType="application/vnd.openxmlformats-'
                     b'officedocument.spreadsheetml.calcChain+xml"/></Types>')
    p["xl/_rels/workbook.xml.rels"] = p["xl/_rels/workbook.xml.rels"].replace(
        b"</Relationships>", b'<Relationship Id="rId99" Type="http://schemas.openxmlformats.org/officeDocument/'
                             b'2006/relationships/calcChain" Target="calcChain.xml"/></Relationships>')
    with zipfile.ZipFile(book.path, "w") as z:
        for name, data in p.items():
            z.writestr(name, data)
    book.write({"b": frame([5, 6])})  # no formula there: the chain stays
    assert "xl/calcChain.xml" in parts(book.path)
    book.write({"a": frame([7, 8])})
    after = parts(book.path)
    assert "xl/calcChain.xml" not in after and b"calcChain" not in after["[Content_Types].xml"]
    assert b"calcChain" not in after["xl/_rels/workbook.xml.rels"]


def test_a_list_another_tab_still_uses_is_kept_when_the_lists_change(book):
    other = [f"other option {i}" for i in range(30)]
    a = lay_out(frame(["x"], columns=("pick",)), choices={"pick": LONG})
    b = lay_out(frame(["y"], columns=("pick",)), choices={"pick": other})
    book.write({"one": frame(["x"], columns=("pick",)), "two": frame(["y"], columns=("pick",))},
               layouts={"one": a, "two": b})
    newer = [f"newer option {i}" for i in range(30)]
    book.write({"two": frame(["y"], columns=("pick",))},
               layouts={"two": lay_out(frame(["y"], columns=("pick",)), choices={"pick": newer})})
    wb = openpyxl.load_workbook(book.path)
    assert options(wb, validations(wb["one"])["A"]) == LONG
    assert options(wb, validations(wb["two"])["A"]) == newer
    assert LISTS_TAB not in book.read() and LISTS_TAB in book.read([LISTS_TAB])


# ---- text stays text, formulas read as typed ----------------------------------------------------------


def test_a_players_text_starting_with_equals_stays_text(book):
    book.write({"submit": frame(["=A1+1", "=HYPERLINK(\"x\")"], ["+1", "@x"])})
    ws = openpyxl.load_workbook(book.path)["submit"]
    assert [(c.value, c.data_type) for c in ws[2]] == [("=A1+1", "s"), ('=HYPERLINK("x")', "s")]
    assert book.read(["submit"], formulas=True)["submit"].iloc[0, 0] == "=A1+1"


def test_a_formula_typed_in_a_submit_tab_reads_back_as_its_text(book):
    book.write({"submit": frame(["stone", 1]), "status": frame(["x", 1])})
    wb = openpyxl.load_workbook(book.path)
    wb["submit"]["B2"] = "=A1+1"  # typed by the player in a spreadsheet program
    wb["submit"]["B3"] = "=B2*2"
    wb.save(book.path)
    assert book.read(["submit"], formulas=True)["submit"]["b"].tolist() == ["=A1+1", "=B2*2"]
    book.write({"status": frame(["y", 2])})
    assert openpyxl.load_workbook(book.path)["submit"]["B2"].data_type == "f"
    assert book.read(["submit"], formulas=True)["submit"]["b"].tolist() == ["=A1+1", "=B2*2"]


def test_values_read_back_as_written(book):
    when = datetime(2026, 11, 23, 18, 30)
    rows = [[" spaced ", 1.5, True, when], ["a_x0041_b", -7, False, None], ["tab\tand\r\nreturn", 2**40, None, "ok"],
            [None, None, None, None], ["after a blank row", 0.1, None, None]]
    book.write({"t": frame(*rows, columns=("text", "number", "flag", "when"))})
    got = book.read(["t"])["t"]
    assert list(got.index) == [2, 3, 4, 6]
    assert got.to_dict("records")[0] == {"text": " spaced ", "number": 1.5, "flag": True, "when": when}
    assert got.iloc[1].tolist() == ["a_x0041_b", -7, False, None]
    assert got.iloc[2].tolist()[:2] == ["tab\tand\r\nreturn", 2**40]
    ws = openpyxl.load_workbook(book.path)["t"]
    assert ws["D2"].value == when and ws["A3"].value == "a_x005F_x0041_b"  # as Excel stores a typed _x0041_


def test_calamine_and_openpyxl_read_a_book_alike(book):
    """A sheet with a formula is read by openpyxl, one without by calamine: same frames."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "t"
    for row in [["name", None, "n"], ["Ada", "x", 3], [None, None, None], ["  ", 2.5, "4"], [True, datetime(2026, 1, 2), -1]]:
        ws.append(row)
    wb.save(book.path)
    plain = book.read(["t"])["t"]
    wb["t"]["F9"] = "=1+1"
    wb.save(book.path)
    with_formula = book.read(["t"])["t"]
    assert list(with_formula.columns) == [*plain.columns, "(D)", "(E)", "(F)"] and list(plain.index) == [2, 4, 5]
    assert with_formula.loc[[2, 4, 5], list(plain.columns)].to_dict("records") == plain.to_dict("records")
    assert with_formula.loc[9, "(F)"] == "=1+1"
    assert plain.to_dict("records") == [{"name": "Ada", "(B)": "x", "n": 3}, {"name": None, "(B)": 2.5, "n": "4"},
                                        {"name": True, "(B)": datetime(2026, 1, 2), "n": -1}]


# ---- spreadsheet programs open the result --------------------------------------------------------------
# (LibreOffice, when installed, each run with a profile of its own so runs in parallel do not collide)


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_libreoffice_opens_the_book_and_keeps_dropdowns_and_notes(book, tmp_path):
    book.write({"submit": SUBMIT, "status": frame(["x", 1])}, layouts={"submit": submit_layout()}, hidden=("status",))
    book.write({}, append={"log": frame([1, "one"])})
    out = tmp_path / "out"
    result = subprocess.run(["soffice", f"-env:UserInstallation={(tmp_path / 'lo').as_uri()}", "--headless",
                             "--convert-to", "xlsx", "--outdir", str(out), str(book.path)],
                            check=False, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    wb = openpyxl.load_workbook(out / book.path.name)
    ws = wb["submit"]
    assert ws["A1"].font.b and fill(ws["A1"]) == HEADER_FILL and fill(ws["A5"]) == INPUT_FILL
    assert ws["A1"].comment is not None and "what you play" in ws["A1"].comment.text
    found = validations(ws)
    assert options(wb, found["A"]) == ["stone", "fake"] and options(wb, found["B"]) == LONG
    assert wb["status"].sheet_state == "hidden" and [c.value for c in wb["log"][2]] == [1, "one"]


# ---- a book as Excel saves it ----------------------------------------------------------------------------

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
XR = "http://schemas.microsoft.com/office/spreadsheetml/2014/revision"
X14AC = "http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac"
ONE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def excel_book(path: Path) -> None:
    """A player's book the way Excel writes one: markup-compatibility namespaces, shared strings, a
    calculation chain, a formula a player typed, and a second tab."""
    sheet = (f'<worksheet xmlns="{MAIN}" xmlns:r="{REL}" xmlns:mc="{MC}" mc:Ignorable="x14ac xr" xmlns:x14ac="{X14AC}" '
             f'xmlns:xr="{XR}" xr:uid="{{8A2F0C8B-0000-0000-0000-000000000001}}"><dimension ref="A1:B3"/>'
             '<sheetViews><sheetView tabSelected="1" workbookViewId="0"><selection activeCell="B3" sqref="B3"/>'
             '</sheetView></sheetViews><sheetFormatPr defaultRowHeight="15" x14ac:dyDescent="0.25"/><sheetData>'
             '<row r="1" spans="1:2" x14ac:dyDescent="0.25"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'
             '<row r="2" spans="1:2" x14ac:dyDescent="0.25"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>4</v></c></row>'
             '<row r="3" spans="1:2" x14ac:dyDescent="0.25"><c r="A3" t="s"><v>3</v></c><c r="B3"><f>B2+1</f><v>5</v></c></row>'
             '</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>')
    notes = (f'<worksheet xmlns="{MAIN}" xmlns:r="{REL}"><dimension ref="A1"/><sheetViews><sheetView workbookViewId="0"/>'
             '</sheetViews><sheetFormatPr defaultRowHeight="15"/><sheetData><row r="1"><c r="A1" t="s"><v>4</v></c></row>'
             '</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>')
    strings = ["kind", "site", "stone", "fake", "my notes"]
    p = {
        "[Content_Types].xml":
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            '<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
            '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
            '<Override PartName="/xl/calcChain.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.calcChain+xml"/>'
            '<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>'
            '</Types>',
        "_rels/.rels":
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{ONE}/officeDocument" Target="xl/workbook.xml"/>'
            f'<Relationship Id="rId2" Type="{ONE}/extended-properties" Target="docProps/app.xml"/></Relationships>',
        "docProps/app.xml":
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Properties xmlns="http://schemas.openxmlformats.org/'
            'officeDocument/2006/extended-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">'
            '<Application>Microsoft Excel</Application><HeadingPairs><vt:vector size="2" baseType="variant"><vt:variant>'
            '<vt:lpstr>Worksheets</vt:lpstr></vt:variant><vt:variant><vt:i4>2</vt:i4></vt:variant></vt:vector></HeadingPairs>'
            '<TitlesOfParts><vt:vector size="2" baseType="lpstr"><vt:lpstr>Submit</vt:lpstr><vt:lpstr>notes</vt:lpstr>'
            '</vt:vector></TitlesOfParts><AppVersion>16.0300</AppVersion></Properties>',
        "xl/workbook.xml":
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="{MAIN}" xmlns:r="{REL}" '
            f'xmlns:mc="{MC}" mc:Ignorable="x15 xr" xmlns:x15="http://schemas.microsoft.com/office/spreadsheetml/2010/11/main" '
            f'xmlns:xr="{XR}"><fileVersion appName="xl" lastEdited="7" lowestEdited="7" rupBuild="27425"/>'
            '<workbookPr defaultThemeVersion="166925"/><mc:AlternateContent><mc:Choice Requires="x15">'
            '<x15ac:absPath url="C:\\Users\\ann\\" xmlns:x15ac="http://schemas.microsoft.com/office/spreadsheetml/2010/11/ac"/>'
            '</mc:Choice></mc:AlternateContent><xr:revisionPtr revIDLastSave="0" documentId="8_{0}"/>'
            '<bookViews><workbookView xWindow="-120" yWindow="-120" windowWidth="29040" windowHeight="15840"/></bookViews>'
            '<sheets><sheet name="Submit" sheetId="1" r:id="rId1"/><sheet name="notes" sheetId="3" r:id="rId2"/></sheets>'
            '<calcPr calcId="191029"/></workbook>',
        "xl/_rels/workbook.xml.rels":
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId3" Type="{ONE}/styles" Target="styles.xml"/>'
            f'<Relationship Id="rId2" Type="{ONE}/worksheet" Target="worksheets/sheet2.xml"/>'
            f'<Relationship Id="rId1" Type="{ONE}/worksheet" Target="worksheets/sheet1.xml"/>'
            f'<Relationship Id="rId5" Type="{ONE}/calcChain" Target="calcChain.xml"/>'
            f'<Relationship Id="rId4" Type="{ONE}/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": sheet,
        "xl/worksheets/sheet2.xml": notes,
        "xl/sharedStrings.xml":
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="{MAIN}" count="{len(strings)}" '
            f'uniqueCount="{len(strings)}">' + "".join(f"<si><t>{s}</t></si>" for s in strings) + "</sst>",
        "xl/calcChain.xml": f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<calcChain xmlns="{MAIN}"><c r="B3" i="1"/></calcChain>',
        "xl/styles.xml":
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="{MAIN}" xmlns:mc="{MC}" '
            f'mc:Ignorable="x14ac" xmlns:x14ac="{X14AC}"><fonts count="1" x14ac:knownFonts="1"><font><sz val="11"/>'
            '<color theme="1"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font></fonts>'
            '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
            '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
            '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
            '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>'
            '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles><dxfs count="0"/>'
            '<tableStyles count="0" defaultTableStyle="TableStyleMedium2" defaultPivotStyle="PivotStyleLight16"/></styleSheet>',
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in p.items():
            z.writestr(name, data)


def test_a_book_excel_saved_is_edited_in_place_keeping_its_namespaces(book, tmp_path):
    excel_book(book.path)
    assert book.read(["submit"], formulas=True)["submit"].to_dict("records") == [
        {"kind": "stone", "site": 4}, {"kind": "fake", "site": "=B2+1"}]
    before = parts(book.path)
    book.write({"status": frame(["to do", "x"])}, append={"notes": frame(["more"], columns=("my notes",))},
               protect={"submit": True}, hidden=("status",))
    after = parts(book.path)
    for kept in ("xl/sharedStrings.xml", "xl/calcChain.xml"):
        assert after[kept] == before[kept]
    app = after["docProps/app.xml"].decode()  # its list of sheet names would be short of the new tab
    assert "TitlesOfParts" not in app and "HeadingPairs" not in app and "<AppVersion>16.0300</AppVersion>" in app
    workbook = after["xl/workbook.xml"].decode()
    assert 'mc:Ignorable="x15 xr"' in workbook and f'xmlns:xr="{XR}"' in workbook and "x15ac:absPath" in workbook
    assert 'mc:Ignorable="x14ac"' in after["xl/styles.xml"].decode() and 'x14ac:knownFonts="1"' in after["xl/styles.xml"].decode()
    assert 'xr:uid="{8A2F0C8B' in after["xl/worksheets/sheet1.xml"].decode()  # the submit tab, only protected
    wb = openpyxl.load_workbook(book.path)
    assert wb.sheetnames == ["Submit", "notes", "status"] and wb["status"].sheet_state == "hidden"
    assert wb["Submit"].protection.sheet and wb["Submit"]["B3"].value == "=B2+1"
    assert [c.value for c in wb["notes"]["A"]] == ["my notes", "more"]
    assert wb.active.title == "Submit" and wb["Submit"].sheet_view.tabSelected and not wb["status"].sheet_view.tabSelected
    book.write({"submit": frame(["stone", 1], columns=("kind", "site"))})  # the formula is replaced: the chain goes
    assert "xl/calcChain.xml" not in parts(book.path) and openpyxl.load_workbook(book.path)["Submit"].protection.sheet
    if shutil.which("soffice"):
        result = subprocess.run(["soffice", f"-env:UserInstallation={(tmp_path / 'lo').as_uri()}", "--headless",
                                 "--convert-to", "pdf", "--outdir", str(tmp_path / "pdf"), str(book.path)], check=False, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0 and (tmp_path / "pdf" / "p.pdf").exists(), result.stderr


def test_frames_become_plain_rows_whatever_their_column_types():
    import numpy as np

    from sheets_host.backends import rows_from_frame

    f = pd.DataFrame({"a": [1, 2], "b": [1.5, np.nan], "c": ["x", None], "d": pd.to_datetime(["2024-01-01", "2024-01-02"]),
                      "e": pd.array([1, None], dtype="Int64"), "f": [True, False], 7: [2**60, 3.0],
                      "g": pd.Categorical(["u", "v"])})
    assert rows_from_frame(f) == [["a", "b", "c", "d", "e", "f", "7", "g"],
                                  [1, 1.5, "x", pd.Timestamp("2024-01-01"), 1, True, float(2**60), "u"],
                                  [2, None, None, pd.Timestamp("2024-01-02"), None, False, 3, "v"]]
    assert rows_from_frame(pd.DataFrame()) == [[]]
    assert rows_from_frame(frame()) == [["a", "b"]]


def test_a_name_no_tab_can_have_is_refused_before_anything_is_written(book):
    book.write({"a": frame([1, 2])})
    before = book.path.read_bytes()
    for name in ("a/b", "x" * 32, "", "'quoted'"):
        with pytest.raises(BookError, match="cannot name a tab"):
            book.write({"a": frame([3, 4]), name: frame()})
    assert book.path.read_bytes() == before


def test_every_part_written_is_well_formed_xml(book):
    import xml.etree.ElementTree as ET

    book.write({"submit": SUBMIT, "status": frame(["<&>\"'", "]]>"])}, layouts={"submit": submit_layout()})
    players_own_tabs(book.path)
    book.write({"status": frame(["x", 1])}, append={"log": frame(["a & b", "<c>"])}, protect={"mine": True},
               hidden=("status",))
    for name, data in parts(book.path).items():
        if name.endswith((".xml", ".rels", ".vml")):
            ET.fromstring(data)  # raises on anything malformed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=40))
def test_any_text_reads_back_as_written_less_what_a_cell_cannot_hold(book, text):
    book.write({"t": frame([text, "end"])})
    got = book.read(["t"])["t"]
    kept = re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]", "", text)
    assert got.iloc[0, 0] == (kept if kept.strip() else None)
