"""Elemental Continuum's announcement picture: valid, deterministic PNGs that show only what is
public (tiles and wards broken), never the standing wards nor who fired; and the festival's picture."""

from __future__ import annotations

import io
import random
from dataclasses import replace
from fractions import Fraction

import pytest
from PIL import Image

from sheets_host.engine import play
from sheets_host.events.alchemy import EVENT as ALCHEMY
from sheets_host.events.continuum import picture, rules
from sheets_host.events.continuum.board import random_board
from sheets_host.events.continuum.picture import cell_box, draw_boards, layout, public_boards
from sheets_host.events.continuum.state import CELLS, ELEMENTS, Board, Bolt, ContinuumState, Element, Strike, TileBreak
from sheets_host.events.continuum.views import COLOURS
from sheets_host.games import get_game

PNG = b"\x89PNG\r\n\x1a\n"
NAMES = ("Ann", "Bartholomew", "Cy", "Di", "Ed", "Flo", "Gus")
GAME = get_game("academy-of-witchcraft-arts")


def image(png: bytes) -> Image.Image:
    assert png[:8] == PNG
    im = Image.open(io.BytesIO(png))
    assert im.format == "PNG"
    return im.convert("RGB")


def played(seed: int, players: int = 7, rounds: int = 4) -> ContinuumState:
    """Boards drawn from the seed, then `rounds` rounds of random bolts aimed at the lower ranks
    (so that wards break), resolved by the real rules."""
    names = NAMES[:players]
    rng = random.Random(seed)
    state = ContinuumState(names, {p: random_board(random.Random(seed * 100 + i)) for i, p in enumerate(names)},
                           rounds_played=1)
    for r in range(2, 2 + rounds):
        bolts = {p: [Bolt(rng.choice(CELLS[:24]), rng.choice(ELEMENTS)) for _ in range(2)] for p in names}
        state = rules.strike_round(state, bolts, r)
    return state


def twin(state: ContinuumState, seed: int) -> ContinuumState:
    """The same public information, everything secret changed: every standing ward of every board
    gets another element and points (validity does not matter to the picture), the bolts are
    forgotten, the strikes are put on other firers, and the shares are changed."""
    rng = random.Random(seed)
    boards = {}
    for p, board in state.boards.items():
        gone = rules.broken_wards(state, p)
        boards[p] = Board(tuple(w if w in gone else replace(w, label=f"x{k}", element=rng.choice(list(Element)),
                                                             points=rng.choice((1, 2, 4, 6, 9)))
                                for k, w in enumerate(board.wards)))
    other = {p: state.participants[(i + 1) % len(state.participants)] for i, p in enumerate(state.participants)}

    def moved(strikes):
        return tuple(Strike(other[s.firer], s.round, Bolt(s.bolt.cell, rng.choice(ELEMENTS))) for s in strikes)

    tiles = tuple(replace(t, kind="neutral", strikes=moved(t.strikes)) for t in state.tile_breaks)
    wards = tuple(replace(w, strikes=moved(w.strikes), shares={"nobody": Fraction(w.ward.points)})
                  for w in state.ward_breaks)
    return replace(state, boards=boards, bolts=(), tile_breaks=tiles, ward_breaks=wards, defaulted=state.participants)


@pytest.fixture(scope="module")
def states() -> list[ContinuumState]:
    return [played(seed) for seed in (1, 2, 3)]


def test_nothing_before_the_boards_are_set():
    assert draw_boards(ContinuumState(NAMES)) is None


def test_png_size_and_determinism(states):
    for state in states:
        png = draw_boards(state)
        im = image(png)
        assert im.size == (layout(7).width, layout(7).height)
        assert 1000 <= im.width <= 1600 and 600 <= im.height <= 1000
        assert draw_boards(replace(state, boards=dict(state.boards))) == png
    assert image(draw_boards(played(1, players=2))).width <= 800  # few boards: a narrow picture


def test_the_sample_has_broken_tiles_and_wards(states):
    for state in states:  # else the properties below test little
        assert len(state.tile_breaks) >= 20 and len(state.ward_breaks) >= 3


def test_standing_wards_and_firers_do_not_show(states):
    for k, state in enumerate(states):
        other = twin(state, k)
        assert other.boards != state.boards and other.tile_breaks != state.tile_breaks
        assert draw_boards(other) == draw_boards(state)


def test_public_information_shows(states):
    state = states[0]
    png = draw_boards(state)
    owner = state.participants[0]
    standing = next(c for c in CELLS if c not in rules.broken_cells(state, owner))
    one_more = replace(state, tile_breaks=state.tile_breaks + (TileBreak(owner, standing, 5, "neutral", ()),))
    assert draw_boards(one_more) != png
    assert draw_boards(replace(state, ward_breaks=state.ward_breaks[:-1])) != png  # a ward less revealed
    last = state.ward_breaks[-1]
    points = replace(last, ward=replace(last.ward, points=last.ward.points + 2))
    assert draw_boards(replace(state, ward_breaks=state.ward_breaks[:-1] + (points,))) != png
    assert draw_boards(replace(state, rounds_played=state.rounds_played + 1)) != png  # the title
    assert draw_boards(replace(state, participants=state.participants[::-1])) != png


def test_each_tile_is_drawn_from_public_information_only(states):
    """A standing tile of a standing ward is the blank colour, a tile broken by bolts is the dark
    one while its ward stands, and a broken ward's tiles take its element's colour."""
    for state in states:
        im = image(draw_boards(state))
        at = layout(len(state.participants))
        for view, corner in zip(public_boards(state), at.boards):
            revealed = {c: w.element for w in view.revealed for c in w.cells}
            for cell in CELLS:
                x0, y0, _, y1 = cell_box(corner, cell)
                pixel = im.getpixel((int(x0) + 6, int((y0 + y1) / 2)))  # clear of the cross and the disc
                if cell in revealed:
                    assert pixel == COLOURS[revealed[cell]], (view.owner, cell)
                elif cell in view.struck:
                    assert pixel == picture.STRUCK, (view.owner, cell)
                else:
                    assert pixel == picture.BLANK, (view.owner, cell)


def test_round_one_boards_are_all_blank():
    state = played(4, rounds=0)
    im = image(draw_boards(state))
    for corner in layout(7).boards:
        for cell in CELLS:
            x0, y0, _, y1 = cell_box(corner, cell)
            assert im.getpixel((int(x0) + 6, int((y0 + y1) / 2))) == picture.BLANK
    shuffled = replace(state, boards={p: random_board(random.Random(i + 50)) for i, p in enumerate(state.participants)})
    assert draw_boards(shuffled) == draw_boards(state)


# ---- the festival ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def festival() -> list:
    """Every state of a bot festival of 7: before the pregame, after it, after each round."""
    defaults = play.default_settings(GAME)
    return list(play.bot_states(GAME, play.bot_names(7), 3, defaults["config"], defaults["data"]))


def test_festival_picture_after_continuum_rounds(festival):
    start, pregame, *rounds = festival
    assert GAME.picture(start) is None and GAME.picture(pregame) is None
    assert pregame.assignment["continuum"]
    assert len(rounds) == pregame.plan.rounds
    for state in rounds:
        png = GAME.picture(state)
        im = image(png)
        assert 700 <= im.width <= 1600 and 400 <= im.height <= 1000
        assert png == draw_boards(state.events["continuum"])  # one event with a picture: its own
    assert rounds[0].events["continuum"].rounds_played == 1  # the first picture: the boards just set


def test_festival_stacks_the_pictures_of_several_events(festival, monkeypatch):
    small = Image.new("RGB", (200, 50), (10, 20, 30))
    buffer = io.BytesIO()
    small.save(buffer, format="PNG")
    monkeypatch.setattr(ALCHEMY, "picture", lambda state: buffer.getvalue())
    pregame, state = festival[1], festival[2]
    assert GAME.picture(pregame) is None  # the events' pictures come with their rounds only
    continuum = image(draw_boards(state.events["continuum"]))
    both = image(GAME.picture(state))
    assert both.size == (continuum.width, 50 + continuum.height)
    # alchemy first, widened in its own colour: no white gap beside it (issue 26)
    assert both.getpixel((5, 5)) == (10, 20, 30) and both.getpixel((300, 25)) == (10, 20, 30)
    assert both.crop((0, 50, continuum.width, 50 + continuum.height)).tobytes() == continuum.tobytes()


# ---- each player's own board (private) -------------------------------------------------------------


def test_own_board_shows_the_whole_board_and_its_damage(states):
    """Issue 11: "privately, each player's own full board with its damage": every standing ward in
    its element's paler colour, broken tiles dark, broken wards in full colour."""
    from sheets_host.events.continuum.picture import _pale, draw_own_board, own_board

    state = states[0]
    for player in state.participants:
        im = image(draw_own_board(state, player))
        corner = layout(1).boards[0]
        view = own_board(state, player)
        revealed = {c: w.element for w in view.revealed for c in w.cells}
        for ward in state.boards[player].wards:
            for cell in ward.cells:
                x0, y0, _, y1 = cell_box(corner, cell)
                pixel = im.getpixel((int(x0) + 6, int((y0 + y1) / 2)))
                if cell in revealed:
                    assert pixel == COLOURS[revealed[cell]], (player, cell)
                elif cell in view.struck:
                    assert pixel == picture.STRUCK, (player, cell)
                else:
                    assert pixel == _pale(COLOURS[ward.element]), (player, cell)


def test_own_board_shows_nothing_of_another_board(states):
    """A player's picture is drawn from their own board alone: changing every other board's secrets
    leaves it byte for byte the same."""
    from sheets_host.events.continuum.picture import draw_own_board

    state = states[1]
    owner = state.participants[2]
    other = twin(state, 9)
    other = replace(other, boards={**other.boards, owner: state.boards[owner]},
                    tile_breaks=state.tile_breaks, ward_breaks=state.ward_breaks)
    assert other.boards != state.boards
    assert draw_own_board(other, owner) == draw_own_board(state, owner)
    assert draw_own_board(ContinuumState(NAMES), owner) is None


def test_festival_writes_each_player_their_own_picture(festival):
    """The festival stacks each player's private pictures; only Continuum's participants get one."""
    from sheets_host.events.continuum.picture import draw_own_board

    state = festival[3]
    pictures = GAME.private_pictures(state)
    continuum = state.events["continuum"]
    assert set(pictures) >= set(continuum.participants)
    for player in continuum.participants:
        assert draw_own_board(continuum, player) in (pictures[player],) or image(pictures[player]).height > \
            image(draw_own_board(continuum, player)).height
    assert GAME.private_pictures(festival[1]) == {}  # the pregame: nothing to draw
