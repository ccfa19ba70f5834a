"""The README and each game's doc show what players get (issue 26): every picture they link exists,
and each game's doc shows a player's status and submit tabs, made by
`scripts/render_books.py GAME --stage mid --docs`, and the picture its announcements carry as the
game draws it, every colour that carries meaning kept (issue 34: the Academy's lost its colour key),
or says plainly that it draws none."""

from __future__ import annotations

import functools
import importlib.util
import io
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from PIL import Image, ImageDraw

from sheets_host.games import names

ROOT = Path(__file__).resolve().parent.parent
PICTURE = re.compile(r"!\[[^\]]*\]\(([^)]+)\)")

_spec = importlib.util.spec_from_file_location("render_books", ROOT / "scripts" / "render_books.py")
render_books = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(render_books)


@functools.cache
def drawn(game: str) -> Image.Image | None:
    """The announcement picture `game`'s doc shows, as the game draws it (None: it draws none)."""
    png = render_books.docs_announcement(game, render_books.SEED)
    return None if png is None else Image.open(io.BytesIO(png))


def pictures(doc: Path) -> list[Path]:
    return [(doc.parent / link).resolve() for link in PICTURE.findall(doc.read_text())]


def test_every_linked_picture_exists():
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    assert [f"{d.relative_to(ROOT)}: {p.relative_to(ROOT)}" for d in docs for p in pictures(d) if not p.is_file()] == []


@pytest.mark.parametrize("game", names())
def test_each_games_doc_shows_a_players_status_and_submit_tabs(game):
    shown = {p.name for p in pictures(ROOT / "docs" / "games" / f"{game}.md")}
    assert {f"{game}-status.png", f"{game}-submit.png"} <= shown


@pytest.mark.slow(4)
@pytest.mark.parametrize("game", names())
def test_each_games_doc_shows_its_announcement_picture_as_the_game_draws_it(game):
    doc = ROOT / "docs" / "games" / f"{game}.md"
    shown = {p.name for p in pictures(doc)}
    picture = drawn(game)
    if picture is None:
        assert f"{game}-announcement.png" not in shown
        assert "draws no announcement picture" in doc.read_text()
        return
    assert f"{game}-announcement.png" in shown
    copy = Image.open(render_books.DOCS / f"{game}-announcement.png")
    assert copy.size == render_books.shrink(picture).size, "another picture: make it again with --docs"
    assert render_books.lost_colours(picture, copy) == {}


def test_a_copy_that_loses_the_colour_key_is_seen():
    """The Academy's docs copy reduced to 64 colours by median cut lost its key's fire, water and
    earth (the boards' colours): the check names them."""
    picture = drawn("academy-of-witchcraft-arts")
    lost = render_books.lost_colours(picture, render_books.shrink(picture).quantize(colors=64))
    assert {(220, 60, 50), (50, 110, 220), (230, 190, 40)} <= lost.keys()


colour = st.tuples(*[st.integers(0, 255)] * 3)
patch = st.tuples(st.integers(0, 580), st.integers(0, 150), st.integers(12, 40), st.integers(12, 40), colour)


@pytest.mark.slow(8)
@settings(max_examples=10, deadline=None)
@given(colour, st.one_of(st.lists(patch, min_size=1, max_size=20), st.lists(patch, min_size=250, max_size=300)))
def test_a_docs_copy_keeps_every_colour_that_carries_meaning(background, patches):
    """Whatever a picture holds (a few colours, or more than a palette takes): its docs copy keeps
    each colour that covers enough of it, in few colours when they do, else in all."""
    picture = Image.new("RGB", (600, 160), background)  # wider than the docs: made smaller
    draw = ImageDraw.Draw(picture)
    for x, y, w, h, fill in patches:
        draw.rectangle((x, y, x + w, y + h), fill=fill)
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "copy.png"
        render_books.small(picture, copy)
        assert render_books.lost_colours(picture, Image.open(copy)) == {}


def test_the_season_picture_in_the_docs_is_what_the_tool_draws_for_the_sample_season():
    from sheets_host.season import picture
    from sheets_host.season.books import seen
    from tests.season.seasons import sample

    drawn_now = Image.open(io.BytesIO(picture.draw(seen(sample()))))
    # The README shows the demo's season instead (tests/season/test_season_demo.py checks it).
    assert render_books.DOCS / "season.png" in pictures(ROOT / "docs" / "season.md")
    copy = Image.open(render_books.DOCS / "season.png")
    assert copy.size == render_books.shrink(drawn_now).size, "another picture: make it again: python -m tests.season.seasons"
    assert render_books.lost_colours(drawn_now, copy) == {}
