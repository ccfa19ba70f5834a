"""The season's picture: drawn from the public season alone, the same bytes for the same season,
landscape for Discord's preview, whatever the names and results."""

from __future__ import annotations

import io
from dataclasses import replace

from hypothesis import given, settings, strategies as st
from PIL import Image

from sheets_host.season import books, picture

from .seasons import hidden_from_public, sample, seasons, twin


def size(png: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(png)).size


def test_the_same_season_draws_the_same_bytes():
    assert picture.draw(books.seen(sample())) == picture.draw(books.seen(sample()))


def test_a_season_of_ten_games_and_ten_players_is_landscape_for_discords_preview():
    """Discord shows a picture in a box about 550 by 350: a tall one would be shrunk past reading."""
    season = sample()
    games = (*season.games, *(replace(g, number=str(int(g.number) + 7)) for g in season.games[:3]))
    cast = (*season.cast, "Ivy", "Jo")
    view = books.seen(replace(season, games=games, cast=cast))
    width, height = size(picture.draw(view))
    assert len(view.games) == 10 and width / height >= 1.4


@settings(max_examples=40, deadline=None)
@given(seasons(), st.data())
def test_the_picture_is_given_only_what_anyone_may_know(season, data):
    """Its input (`books.seen`) is the same whatever an artefact or a private garnet says, so it
    draws the same bytes."""
    other = twin(season, lambda e: hidden_from_public(season, e), data, players=season.cast)
    assert books.seen(season) == books.seen(other)
    if data.draw(st.booleans()):  # drawing costs; half the cases are enough
        assert picture.draw(books.seen(season)) == picture.draw(books.seen(other))


def test_garnets_are_drawn_only_when_public():
    private, public = (picture.draw(books.seen(sample(garnets_public=g))) for g in (False, True))
    assert private != public
    assert all(p.garnets is None for p in books.seen(sample()).cast)


@settings(max_examples=25, deadline=None)
@given(seasons())
def test_any_season_is_drawn(season):
    width, height = size(picture.draw(books.seen(season)))
    assert width == picture.WIDTH and height > 0
