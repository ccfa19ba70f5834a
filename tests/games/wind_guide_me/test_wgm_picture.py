"""Wind Guide Me's announcement picture: valid, deterministic PNGs that show only what is public."""

from __future__ import annotations

import io
import math
import random

import pytest
from PIL import Image, ImageChops

from sheets_host.games.wind_guide_me import picture
from sheets_host.games.wind_guide_me.picture import SiteView, draw_sites, position_angle
from sheets_host.games.wind_guide_me.seating import seat_sites

PLAYERS = ["Ann", "Bartholomew", "Cy", "Di", "Ed", "Flo", "Gus"]
SEATS = seat_sites(PLAYERS, random.Random(1))


def image(png: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(png))
    assert im.format == "PNG"
    return im.convert("RGB")


def views(powers: bool, **extra) -> list[SiteView]:
    """Every site with stones at positions 1 and 4 (powers 5 and 7 when public)."""
    stones = {1: 5, 4: 7} if powers else {1: None, 4: None}
    return [SiteView(i + 1, seats, stones, None, **extra) for i, seats in enumerate(SEATS)]


def disc_box(site_index: int, position: int, inset: float = 0.0) -> tuple[int, int, int, int]:
    """The box around a position's disc in the final image, shrunk by `inset` pixels."""
    row, column = divmod(site_index, picture.COLUMNS)
    cx = column * picture.CELL_W + picture.CELL_W / 2
    cy = picture.HEADER_H + row * picture.CELL_H + picture.SITE_CY
    x = cx + picture.RADIUS * math.cos(position_angle(position))
    y = cy - picture.RADIUS * math.sin(position_angle(position))
    r = picture.DISC - inset
    return math.floor(x - r), math.floor(y - r), math.ceil(x + r), math.ceil(y + r)


def test_png_size_and_determinism():
    png = draw_sites(views(False), "Wind Guide Me - round 2")
    im = image(png)
    assert im.size == (1400, picture.HEADER_H + 3 * picture.CELL_H + 8)
    assert draw_sites(views(False), "Wind Guide Me - round 2") == png


def test_resultants_panel_adds_height_and_is_deterministic():
    resultants = {name: (i - 3.0, 0.5 * i) for i, name in enumerate(PLAYERS)}
    png = draw_sites(views(True), "final", resultants)
    assert image(png).size == (1400, picture.HEADER_H + 3 * picture.CELL_H + picture.PANEL_H + 8)
    assert draw_sites(views(True), "final", dict(resultants)) == png
    assert draw_sites(views(True), "final", resultants, players=PLAYERS[::-1]) != png  # other colours


def test_hidden_powers_are_not_drawn():
    hidden = image(draw_sites(views(False), "t"))
    shown = image(draw_sites(views(True), "t"))
    diff = ImageChops.difference(hidden, shown)
    assert diff.getbbox() is not None  # the powers show when public...
    # ...and only inside the stones' discs: everything else is the same picture
    mask = Image.new("L", hidden.size, 255)
    for site in range(21):
        for position in (1, 4):
            mask.paste(0, disc_box(site, position))
    assert ImageChops.multiply(diff.convert("L"), mask).getbbox() is None
    # a hidden stone is a plain disc, no text inside: its interior is a single colour
    for site in (0, 10, 20):
        for position in (1, 4):
            inside = hidden.crop(disc_box(site, position, inset=4))
            assert inside.getcolors() == [(inside.width * inside.height, picture.STONE)]
            assert len(shown.crop(disc_box(site, position, inset=4)).getcolors()) > 1


def test_occupation_is_public():
    empty = [SiteView(v.number, v.seats, {}, None) for v in views(False)]
    assert draw_sites(empty, "t") != draw_sites(views(False), "t")


def test_failed_site_is_greyed_and_vector_drawn():
    sites = views(True)
    sites[0] = SiteView(1, SEATS[0], {1: 7, 2: 7, 3: 6, 4: 6, 5: 2}, 28, failed="over 25")
    sites[1] = SiteView(2, SEATS[1], {1: 5, 4: 7}, 12, vector=(0.0, 3.0))
    im = image(draw_sites(sites, "t"))
    assert im.getpixel((10, picture.HEADER_H + 10)) == picture.FAILED_BG  # site 1's cell
    assert im.getpixel((picture.CELL_W + 10, picture.HEADER_H + 10)) == picture.BACKGROUND
    # site 2's vector points up from its centre, in the vector colour
    cx = picture.CELL_W + picture.CELL_W // 2
    cy = picture.HEADER_H + picture.SITE_CY
    assert im.getpixel((cx, cy - picture.RADIUS // 2)) == picture.VECTOR


def test_any_number_of_sites_and_long_names():
    seats = ("A very long player name", "Another very long player name", "C", "D", "E")
    im = image(draw_sites([SiteView(3, seats, {2: 4}, None)], "one site"))
    assert im.size == (1400, picture.HEADER_H + picture.CELL_H + 8)
    assert image(draw_sites([], "nothing yet")).size[0] == 1400


def test_site_view_rejects_unknown_positions():
    with pytest.raises(ValueError, match="position 6"):
        SiteView(1, SEATS[0], {6: None}, None)


def test_position_angle():
    assert position_angle(1) == math.pi / 2
    assert position_angle(2) == pytest.approx(math.pi / 2 - math.radians(72))  # 72 degrees clockwise
    assert math.degrees(position_angle(1) - position_angle(2)) == pytest.approx(72)
    x, y = math.cos(position_angle(2)), math.sin(position_angle(2))
    assert x > 0 and y > 0  # right of and above the centre: clockwise from the top
    assert position_angle(6) == pytest.approx(position_angle(1) - 2 * math.pi)
    assert position_angle(2, positions=4) == pytest.approx(0.0)
