"""Issue 26: Pyramid Superiority's piece notation (`fire water / grass fire*`: the top row, then the
bottom row, `*` the star) and the star mark `★` have a legend wherever a book shows them: in the
same tab (a header or a row), in the same status line, in the same announcement."""

import re

import pytest

from sheets_host.games.pyramid_superiority.rules import NOTATION
from sheets_host.games.pyramid_superiority.views import STAR_MARK

from sheets_host.engine.play import default_settings

from .test_pyramid_superiority_game import GAME, NAMES, bot_game

PIECE = re.compile(r"\b(grass|fire|water)\*? (grass|fire|water)\*? / (grass|fire|water)\*? (grass|fire|water)\*?")


@pytest.fixture(scope="module")
def states():
    return bot_game(0, defaults=default_settings(GAME))


def tabs(state):
    """Every tab of every book a reader has, named by book and tab."""
    books = {"public": GAME.public_view(state)}
    books |= {f"player:{n}": GAME.private_view(state, n) for n in NAMES}
    books |= {role: GAME.group_view(state, role) for role in GAME.groups(state)}
    for book, views in books.items():
        for name, frame in views.items():
            yield f"{book} {name}", [str(c) for c in frame.columns], [str(v) for v in frame.to_numpy().ravel()]


def test_every_tab_writing_pieces_in_the_notation_says_how_it_reads(states):
    seen = set()
    for state in states:
        for name, header, cells in tabs(state):
            if any(PIECE.search(c) for c in cells):
                seen.add(name.split(" ", 1)[1])
                assert any(NOTATION in text for text in header + cells), name
    assert seen >= {"me", "proposals"}  # a player's and a guest's pieces, and each meadow's proposals


def test_every_tab_marking_stars_says_what_the_mark_is(states):
    seen = set()
    for state in states:
        for name, header, cells in tabs(state):
            if any(STAR_MARK in c for c in cells):
                seen.add(name.split(" ", 1)[1])
                # the mark explained in a header, or the tab's `star` column names the starred cell
                assert "star" in header or any(STAR_MARK in h for h in header), name
    assert seen >= {"from the top", "pyramid", "proposed pieces"}


def test_how_to_submit_and_announcements_explain_the_pieces_they_write(states):
    shown = 0
    for before, after in zip(states, states[1:]):
        texts = [GAME.announcement(before, after)] + [
            "\n".join(h.words() for h in GAME.how_to_submit(before, n)) for n in NAMES]
        for text in texts:
            if PIECE.search(text):
                shown += 1
                assert NOTATION in text, text
    assert shown
