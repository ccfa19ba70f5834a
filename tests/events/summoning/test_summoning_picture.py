"""Issue 26: Summoner's Dream's private picture reads without the rules at hand: a legend of its
colours and marks, Towers and Familiars by name beside each map (what only this player may know);
and a player's stacked private picture (the Academy's events one under the other) has no white
gap beside a narrower part nor a band of empty rows between the parts."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from sheets_host.engine import play
from sheets_host.events.summoning.picture import LEGEND, draw_battles, panels
from sheets_host.events.summoning.state import Tile
from sheets_host.games import get_game

from .test_summoning_event import played
from .test_summoning_rules import PLAYERS

GAME = get_game("academy-of-witchcraft-arts")


def image(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def test_the_legend_names_every_tile_and_mark_in_the_game_s_words():
    texts = " ".join(text for _, text in LEGEND)
    for tile in Tile:
        assert tile in {swatch for swatch, _ in LEGEND} or f"{tile.value}," in texts or f"{tile.value}:" in texts, tile
    for mark in ("Tower", "in range", "Familiars killed", "stolen"):
        assert mark in texts


def test_each_map_s_lines_name_the_towers_and_familiars_the_player_may_know():
    state = played(rounds=3)
    number = state.round - 1
    turns = state.turns[-1]
    for player in PLAYERS:
        (title, whose, mine, lines), *invading = panels(state, player, number)
        assert whose == player and title == f"Your territory: {turns[player].map}"
        text = "\n".join(lines)
        for stand in turns[player].stands:  # every Tower of theirs by its unit's name, with its cell
            assert any(line.startswith(f"{stand.tower} (level ") for line in lines), stand
        assert all(inv.invader not in text for inv in mine if inv.invader != player)  # no invader named
        assert all(f.unit not in text for inv in mine for f in inv.fates)  # nor their Familiars
        assert len(invading) == sum(i.invader == player and i.round == number for i in state.invasions)
        for _, defender, (invasion,), lines in invading:
            text = "\n".join(lines)
            assert all(f"slot {f.slot} {f.unit}:" in text for f in invasion.fates)  # their own Familiars
            assert invasion.fates or "You sent no Familiars." in text  # not a bare list of Towers
            assert all(s.tower not in text for s in turns[defender].stands)  # the defender's units: kinds only


def test_the_picture_is_one_image_with_one_title():
    state = played(rounds=2)
    png = draw_battles(state, PLAYERS[0])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and image(png).width == 800


@pytest.fixture(scope="module")
def stacked():
    """(a player's stacked private picture, its parts) for a few players in two events at once."""
    defaults = play.default_settings(GAME)
    states = list(play.bot_states(GAME, play.bot_names(7), 3, defaults["config"], defaults["data"]))
    out = []
    for state in states[2:]:
        events = GAME._just_played(state)
        for player, png in GAME.private_pictures(state).items():
            parts = [part for e in events if player in e.players(state.events[e.name])
                     and (part := e.private_picture(state.events[e.name], player))]
            if len(parts) > 1:
                out.append((png, parts))
    assert out
    return out[:4]


def test_a_stacked_private_picture_has_no_white_gap_beside_a_narrower_part(stacked):
    for png, parts in stacked:
        whole, y = image(png), 0
        widths = {image(p).width for p in parts}
        assert len(widths) > 1  # parts of different widths: the case that left white gaps
        for part in map(image, parts):
            background = part.getpixel((part.width - 1, 0))
            beside = whole.crop((part.width, y, whole.width, y + part.height))
            assert beside.width == 0 or beside.getcolors(1) == [(beside.width * beside.height, background)]
            assert whole.crop((0, y, part.width, y + part.height)).tobytes() == part.tobytes()
            y += part.height
        assert y == whole.height


def _inked(whole: Image.Image, row: int) -> bool:
    """Whether a row of the picture holds anything but its background (more than one colour)."""
    return whole.crop((0, row, whole.width, row + 1)).getcolors(1) is None


def test_a_stacked_private_picture_has_no_band_of_empty_rows_between_its_parts(stacked):
    for png, parts in stacked:
        whole, y = image(png), 0
        for part in map(image, parts[:-1]):
            y += part.height
            above = y - 1 - next(r for r in range(y - 1, -1, -1) if _inked(whole, r))
            below = next(r for r in range(y, whole.height) if _inked(whole, r)) - y
            assert above + below <= 60, (above, below)  # the parts' own margins, no more
