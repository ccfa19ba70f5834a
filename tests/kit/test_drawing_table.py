"""Tables drawn as pictures (sheets_host.kit.drawing.table, tables): real pixels checked with Pillow."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from sheets_host.kit import drawing
from sheets_host.kit.drawing import LINE, MARGIN, PAD_X, PAD_Y, table, tables

ROW = 2 * PAD_Y + LINE  # a one-line row's height


def image(png: bytes) -> Image.Image:
    picture = Image.open(io.BytesIO(png))
    assert picture.format == "PNG"
    return picture.convert("RGB")


def size(png: bytes) -> tuple[int, int]:
    return image(png).size


def ink(picture: Image.Image, top: int, bottom: int) -> list[int]:
    """The x of every dark pixel (text, not grid or shading) in rows top <= y < bottom."""
    return sorted({x for y in range(top, bottom) for x in range(picture.width)
                   if sum(picture.getpixel((x, y))) < 3 * 130})


def test_a_table_is_a_png_on_white():
    picture = image(table("Scores", ["Player", "Points"], [["Ann", 12], ["Bo", 7]]))
    assert picture.getpixel((1, 1)) == (255, 255, 255)
    assert picture.getpixel((picture.width - 2, picture.height - 2)) == (255, 255, 255)


def test_width_grows_with_a_longer_cell():
    short = size(table(None, ["Player"], [["Ann"]]))
    long = size(table(None, ["Player"], [["Annabelle of the Northern Reaches"]]))
    assert long[0] > short[0] + 100 and long[1] == short[1]


def test_height_grows_one_row_at_a_time():
    heights = [size(table("T", ["a", "b"], [["x", 1]] * k))[1] for k in (1, 2, 5)]
    assert heights[1] - heights[0] == ROW and heights[2] - heights[0] == 4 * ROW


def test_a_line_break_makes_a_taller_row():
    one, two = (size(table(None, ["a"], [[text]]))[1] for text in ("moved up", "moved up\nfrom 3rd"))
    assert two - one == LINE


def test_a_very_long_cell_wraps_within_max_width():
    note = " ".join(["lorem ipsum dolor sit amet"] * 20)  # 539 characters
    wide = size(table(None, ["Player", "Note", "Points"], [["Ann", "short", 3]]))
    wrapped = size(table(None, ["Player", "Note", "Points"], [["Ann", note, 3]], max_width=500))
    assert wrapped[0] <= 500 and wrapped[1] >= wide[1] + 3 * LINE
    unbounded = size(table(None, ["Note"], [[note]]))  # the default max_width, 1600
    assert unbounded[0] <= 1600 and unbounded[1] > wide[1]


def test_a_word_longer_than_its_column_is_cut_and_many_columns_share_the_room():
    rows = [["x" * 300, "word " * 60, 12345, "y" * 80, "z" * 80, -3]]
    width, height = size(table("A title " * 40, ["a", "b", "c", "d", "e", "f"], rows, max_width=700))
    assert width <= 700 and height < 400


def test_a_number_column_is_right_aligned_and_text_left_aligned():
    header, rows = ["Name", "Points this round"], [["Al", 7]]
    band = (MARGIN + ROW + PAD_Y, MARGIN + 2 * ROW - PAD_Y)  # the first row, no title
    right = image(table(None, header, rows))
    xs = ink(right, *band)
    column_end = right.width - MARGIN
    assert column_end - PAD_X - 3 <= xs[-1] < column_end - PAD_X + 1  # "7" ends at the right padding
    assert xs[0] < MARGIN + PAD_X + 3  # "Al" starts at the left padding
    left = image(table(None, header, rows, right=[False, False]))
    assert ink(left, *band)[-1] < column_end - 60  # the same "7" left-aligned: far from the edge
    forced = image(table(None, header, [["Al", "x"]], right=[False, True]))
    assert column_end - PAD_X - 3 <= ink(forced, *band)[-1] < column_end - PAD_X + 1


@pytest.mark.parametrize("values", [["12", "-3", "4.50", "", None], [1, 2.5, "1,200", "50%", "+4"]])
def test_columns_of_numbers_are_right_aligned_by_default(values):
    picture = image(table(None, ["A long header"], [[v] for v in values]))
    xs = ink(picture, MARGIN + ROW + PAD_Y, MARGIN + 2 * ROW - PAD_Y)  # the first value's ink
    assert xs[0] > MARGIN + 40 and xs[-1] >= picture.width - MARGIN - PAD_X - 5  # "1" has room on its right


def test_text_that_merely_holds_digits_is_left_aligned():
    picture = image(table(None, ["A long header for it"], [["5 → 2"], ["12"], ["3rd"]]))
    xs = ink(picture, MARGIN + ROW + PAD_Y, MARGIN + 2 * ROW - PAD_Y)
    assert xs[0] < MARGIN + PAD_X + 3 and xs[-1] < picture.width - MARGIN - 40


def test_the_header_row_is_dark_and_the_rows_are_shaded_every_other_one():
    picture = image(table(None, ["Player", "Points"], [["Ann", 1], ["Bo", 2], ["Cy", 3]]))
    x = MARGIN + 3
    assert sum(picture.getpixel((x, MARGIN + 3))) < 3 * 80  # the header
    first, second = (picture.getpixel((x, MARGIN + k * ROW + 3)) for k in (1, 2))
    assert first == (255, 255, 255) and 3 * 230 < sum(second) < 3 * 255


def test_the_same_input_gives_the_same_bytes():
    args = ("Round 2", ["Player", "Δ", "Note"], [["Zoë", -3, "moved\nup"], ["李", 12, None]])
    once = table(*args)
    drawing._width.cache_clear()
    assert table(*args) == once


ODD = [None, "", "\n", "\n\n\n", " ", "\t", "x" * 500, "word " * 100, "😀🎉 party", "@everyone", "<@123>",
       "漢字テスト", "Zoë Ćírílo", "\u202eevil", "\ud800", "\x00\x07\x1b[31m", "a\r\nb", "→", "…", 10 ** 30, -1.5,
       True, "x" * 200_000, ("ab " * 50_000)]


@pytest.mark.parametrize("max_width", [1600, 300, 1])
def test_odd_input_never_raises(max_width):
    png = table("😀 " + "x" * 300 + " \n @everyone", ODD[:8], [ODD, ODD[::-1], [], [None]], max_width=max_width)
    assert image(png).width > 0
    assert image(table(None, [], [])).size == (2 * MARGIN, 2 * MARGIN)
    assert image(table(None, ["a"], [["b", "c", "d"]], right=[True, True, True, True, True])).width > 0
    assert image(table("", ["a", "b", "c"], [["x"]], right=[True])).width > 0
    assert image(table("only a title", [], [["x", 1]], max_width=max_width)).width > 0


def test_a_typical_table_has_the_expected_size():
    header = ["Player", "Points", "Coins", "Wins", "Losses", "Rank", "Bid", "Change"]
    rows = [[f"Player {i}", 10 * i, f"{i * 1.25:.2f}", i % 4, 3 - i % 4, i + 1, i * 7, f"{i} → {i + 1}"]
            for i in range(15)]
    width, height = size(table("Standings after round 3", header, rows))
    assert 400 < width < 1000 and 420 < height < 500


def test_tables_stacks_blocks_and_none_for_none():
    assert tables([]) is None
    block = ("Scores", ["Player", "Points"], [["Ann", 12]])
    assert tables([block]) == table(*block)
    one, two = size(tables([block])), size(tables([block, ("Bids", ["Player", "Bid", "Note"], [["Bo", 3, "hi"]] * 3)]))
    assert two[1] > one[1] + size(table(*block))[1] and two[0] >= one[0]


def test_the_shipped_font_draws_names_and_signs_beyond_ascii():
    from sheets_host.kit.drawing import FONT, font

    assert FONT.is_file() and (FONT.parent / "LICENSE_DEJAVU").is_file()
    face = font(30)

    def ink(text: str) -> bytes:
        image = Image.new("L", (40, 40))
        ImageDraw.Draw(image).text((5, 0), text, font=face, fill=255)
        return image.tobytes()

    missing = ink("\ue000")  # a private-use character: the font's empty box
    for text in ("ë", "ø", "Ł", "×", "→", "é"):
        assert ink(text) != missing, text
