"""What a Wind Guide Me book tells its player: how to submit, the dropdowns, the seating, colours."""

import random
import re
import subprocess
import sys

import pytest

from sheets_host.engine.play import bot_names, bot_states
from sheets_host.kit.cells import SubmitRow

from tests.conftest import PLAYERS
from tests.games.how_to import lines as how_lines, words
from .test_wgm_game import full_round, secret_twin

HEADER = ["kind", "site", "position", "stone", "light"]


def rows(player, *specs):
    return [SubmitRow(player, n, HEADER, dict(zip(HEADER, spec))) for n, spec in enumerate(specs, start=2)]


def states(wgm, wgm_defaults, seed=3):
    """Every state of a bot game where Ada and Blaise hold Power of Light and Cora and Ada Power of Dark."""
    config = {**wgm_defaults["config"], "light holders": "Ada, Blaise", "dark holders": "Ada, Cora"}
    return list(bot_states(wgm, PLAYERS, seed, config, wgm_defaults["data"]))


@pytest.fixture(scope="module")
def game_states():
    from sheets_host.games import get_game
    from sheets_host.engine.play import default_settings

    wgm = get_game("wind-guide-me")
    return states(wgm, default_settings(wgm))


def test_the_instructions_are_short_lines_with_the_settings(wgm, wgm_defaults):
    config = {**wgm_defaults["config"], "stones per round": 3, "missed round penalty": 2.5}
    state = wgm.setup(PLAYERS, 1, config, wgm_defaults["data"])
    for player in PLAYERS:
        lines = how_lines(wgm.how_to_submit(state, player))
        assert 5 <= len(lines) <= 14 and all(isinstance(line, str) and 0 < len(line) <= 160 for line in lines)
        text = words(wgm.how_to_submit(state, player))
        assert "3 stone(s)" in text and "a penalty of 2.5" in text
        assert "kind: stone" in text  # what goes in `kind` for an ordinary stone
        assert "seated first clockwise" in text  # the seating decides contested positions


def test_the_examples_use_the_players_own_stones_and_sites_and_parse_cleanly(wgm, game_states):
    for state in game_states[:-1]:
        for player in PLAYERS:
            (block,) = wgm.how_to_submit(state, player)
            found = [(e.note, e.rows) for e in block.examples]
            assert all(e.header == tuple(HEADER) for e in block.examples) and found, block
            main = found[0][1]
            assert len(main) == min(state.settings.per_round, len(state.open_sites(player)))
            hand = state.hand(player)
            for kind, site, position, stone, _ in main:
                assert kind == "stone" and int(site) in state.open_sites(player) and hand[int(stone)] > 0
                assert 1 <= int(position) <= 5
            fake = [r for note, shown in found if "fake" in note for r in shown]
            light = [r for note, shown in found if "Light" in note for r in shown]
            assert bool(fake) == state.dark_ready(player)
            parsed = wgm.parse(state, player, rows(player, *main, *fake))
            assert parsed.problems == () and len(parsed.submission.stones) == len(main)
            assert (parsed.submission.fake is not None) == bool(fake)
            if light:
                assert state.light_ready(player)
                parsed = wgm.parse(state, player, rows(player, *light, *main[1:]))
                assert parsed.problems == ()
                assert parsed.submission.stones[0].power != parsed.submission.stones[0].from_hand


def test_the_instructions_name_no_one_outside_the_game(wgm, game_states):
    outsiders = [n for n in bot_names(20) if n not in PLAYERS]
    for state in game_states:
        for player in PLAYERS:
            text = words(wgm.how_to_submit(state, player))
            assert not [n for n in outsiders if re.search(rf"\b{n}\b", text)]


def test_the_instructions_and_choices_tell_nothing_of_another_players_stones(wgm, wgm_defaults):
    config = {**wgm_defaults["config"], "light holders": "Ada", "dark holders": "Blaise"}
    state = wgm.setup(PLAYERS, 4, config, wgm_defaults["data"])
    compared = 0
    for _ in range(4):
        state = wgm.resolve(state, full_round(wgm, state, 4), random.Random(0)).state
        for player in PLAYERS:
            twin = secret_twin(state, player)
            if twin == state:
                continue
            compared += 1
            for other in PLAYERS:
                if other != player:
                    assert wgm.how_to_submit(state, other) == wgm.how_to_submit(twin, other)
                    assert wgm.submit_choices(state, other) == wgm.submit_choices(twin, other)
                    assert wgm.private_view(state, other)["private"].equals(wgm.private_view(twin, other)["private"])
    assert compared


def test_every_choice_parses_and_is_the_players_own(wgm, game_states):
    for state in game_states[:-1]:
        for player in PLAYERS:
            choices = wgm.submit_choices(state, player)
            seated = [n for n, seats in enumerate(state.sites, 1) if player in seats]
            hand, open_sites = state.hand(player), state.open_sites(player)
            assert set(choices) <= set(HEADER)
            assert choices["kind"] == (["stone", "fake"] if state.dark_ready(player) else ["stone"])
            assert {int(s) for s in choices["site"]} == set(seated if state.dark_ready(player) else open_sites)
            if not state.dark_ready(player):
                assert {int(p) for p in choices["stone"]} == {p for p in hand if hand[p] > 0}
            assert ("light" in choices) == state.light_ready(player)
            site, power = open_sites[0], max(p for p in hand if hand[p] > 0)
            other = next(n for n in seated if n != site)
            for column, values in choices.items():
                for value in values:
                    if column == "kind":
                        row = (value, site if value == "stone" else other, 1, power, None)
                    elif column == "site":
                        row = ("stone", value, 1, power, None) if int(value) in open_sites else ("fake", value, 1, 3, None)
                    elif column == "position":
                        row = ("stone", site, value, power, None)
                    elif column == "stone":
                        row = ("stone", site, 1, value, None) if hand[int(value)] > 0 else ("fake", other, 1, value, None)
                    else:
                        near = next(h for h in sorted(hand) if hand[h] > 0 and abs(h - int(value)) <= 3)
                        row = ("stone", site, 1, near, value)
                    extra = [("stone", site, 1, power, None)] if row[0] == "fake" else []  # a fake goes with a stone
                    parsed = wgm.parse(state, player, rows(player, row, *extra))
                    assert not [p for p in parsed.problems if p.column == column], (column, value, parsed.problems)


def test_each_book_shows_its_players_seating_and_whether_each_site_is_open(wgm, game_states):
    state = game_states[2]
    for player in PLAYERS:
        private = dict(wgm.private_view(state, player)["private"].values.tolist())
        seating = {k: v for k, v in private.items() if k.startswith("seating, site ")}
        mine = [n for n, seats in enumerate(state.sites, 1) if player in seats]
        assert [int(k.rsplit(" ", 1)[1]) for k in seating] == mine
        for n in mine:
            line = seating[f"seating, site {n}"]
            assert line.startswith(", ".join(f"{k} {p}" + (" (you)" if p == player else "")
                                             for k, p in enumerate(state.sites[n - 1], 1)))
            assert line.endswith("open to you") == (n in state.open_sites(player))
        assert "first clockwise" in private["contested positions"]


def test_no_colour_rule_greys_a_stone(wgm):
    """Every "stone" in a `kind` column was filled dark grey (the picture's stone colour), reading
    as disabled, and the colour said nothing the word did not: the book colours nothing."""
    assert wgm.palettes() == ()


def test_the_submit_columns_say_what_goes_there(wgm):
    for column in wgm.submit_tab.columns:
        assert column.doc and len(column.doc) <= 200
    assert "stone" in wgm.submit_tab.columns[0].doc and "blank" in wgm.submit_tab.columns[0].doc
    assert wgm.round_word == "round"


def test_the_views_and_colours_do_not_import_pillow():
    code = ("import sys\nfrom sheets_host.games import get_game\nfrom sheets_host.engine.play import default_settings\n"
            "for name in ('wind-guide-me', 'magicians-market', 'pyramid-superiority', 'spirit-chain'):\n"
            "    g = get_game(name); d = default_settings(g)\n"
            "    n = g.min_players if name != 'magicians-market' else 6\n"
            "    names = ['Ada', 'Blaise', 'Cora', 'Dmitri', 'Emmy', 'Felix', 'Grace', 'Hedy', 'Isaac'][:n]\n"
            "    s = g.setup(names, 1, d['config'], d['data'])\n"
            "    g.palettes(); g.public_view(s); g.private_view(s, names[0])\n"
            "    g.how_to_submit(s, names[0]); g.submit_choices(s, names[0])\n"
            "assert 'PIL' not in sys.modules, 'PIL imported'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
