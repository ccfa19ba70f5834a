"""What a Spirit Chain book tells its player: how to submit in the phase part open now, the
dropdowns, and the elements' colours."""

import re
from collections import Counter
from dataclasses import replace

import pytest

from sheets_host.engine.play import bot_states
from sheets_host.games.spirit_chain import colours
from sheets_host.games.spirit_chain.cards import Element
from sheets_host.games.spirit_chain.read import SUBMIT_TAB
from sheets_host.games.spirit_chain.state import Phase
from sheets_host.kit.cells import SubmitRow, fold
from sheets_host.kit.layout import tint

from tests.games.how_to import lines as how_lines
from .test_spirit_chain_game import DEFAULTS, GAME, PLAYERS, setup

HEADER = SUBMIT_TAB.header


@pytest.fixture(scope="module")
def duels():
    """Every state of two bot duels, phase part by phase part."""
    return [state for seed in (1, 2) for state in bot_states(GAME, PLAYERS, seed, DEFAULTS["config"],
                                                               DEFAULTS["data"], setup(seed))]


def row(player, cells):
    return [SubmitRow(player, 2, HEADER, {h: cells.get(h) for h in HEADER})]


def example(blocks):
    """The example row of the instructions as column -> value, blanks left out."""
    (block,) = blocks
    (shown,) = block.examples
    (typed,) = shown.typed()
    assert set(shown.header) <= set(HEADER)
    return typed


def test_the_instructions_are_short_lines_for_the_phase_part_open_now(duels):
    phases = Counter()
    for state in duels:
        for player in PLAYERS:
            lines = how_lines(GAME.how_to_submit(state, player))
            assert 1 <= len(lines) <= 14 and all(0 < len(line) <= 160 for line in lines)
            if GAME.is_over(state):
                assert lines == ["The duel is over: nothing to submit."]
            elif not GAME.submits(state, player):
                assert len(lines) == 1 and "nothing to submit" in lines[0]
            else:
                phases[state.phase] += 1
                assert lines[0].startswith(f"Cycle {state.cycle}, {state.phase.label}")
                assert any("submitted at" in line for line in lines)
    assert set(phases) == set(Phase)


def test_the_examples_are_the_players_own_options_and_parse_cleanly(duels):
    for state in duels:
        for player in PLAYERS:
            if GAME.is_over(state) or not GAME.submits(state, player):
                continue
            seat = state.seat(player)
            cells = example(GAME.how_to_submit(state, player))
            assert set(cells) <= set(state.phase.columns)
            if state.phase is Phase.AUCTION:
                assert sum(int(v) for v in cells.values()) <= state.lights[seat]
            if state.phase is Phase.SLOTS:
                played = Counter(v for v in cells.values() if v != "empty")
                assert not played - state.free(seat)  # cards the player holds, free this summoning
            parsed = GAME.parse(state, player, row(player, cells))
            assert parsed.problems == () and parsed.submission is not None, (cells, parsed.problems)


def test_the_other_players_deck_never_reaches_the_instructions_or_choices(duels):
    checked = 0
    for state in duels:
        if GAME.is_over(state):
            continue
        for seat, player in enumerate(PLAYERS):
            other = 1 - seat
            decks, locked = list(state.decks), list(state.locked)
            decks[other] = Counter({"FIRE III": 2, "WIND III": 1, "EARTH I": 3})
            locked[other] = Counter({"EARTH I": 1})
            twin = replace(state, decks=tuple(decks), locked=tuple(locked))
            assert GAME.how_to_submit(state, player) == GAME.how_to_submit(twin, player)
            assert GAME.submit_choices(state, player) == GAME.submit_choices(twin, player)
            checked += 1
    assert checked


def test_every_choice_parses_and_is_the_players_own(duels):
    seen = set()
    for state in duels:
        for player in PLAYERS:
            choices = GAME.submit_choices(state, player)
            if GAME.is_over(state) or not GAME.submits(state, player):
                assert choices == {}
                continue
            seat = state.seat(player)
            assert set(choices) <= set(state.phase.columns)
            if state.phase is Phase.SLOTS:
                for values in choices.values():
                    assert set(values) - {"empty"} == {t for t, n in state.free(seat).items() if n}
            for column, values in choices.items():
                seen.add(column)
                for value in values:
                    parsed = GAME.parse(state, player, row(player, {column: value}))
                    assert not [p for p in parsed.problems if p.column == column], (column, value, parsed.problems)
                    assert parsed.submission is not None
    assert {"upgrade", "slot 1"} <= seen


def test_the_palette_colours_elements_and_spirits_as_the_picture_does_and_the_views_show_them(duels):
    palette = {text: colour for rule in GAME.palettes() for text, colour in rule.colours.items()}
    assert palette["fire"] == palette["FIRE II"] == tint(colours.COLOURS[Element.FIRE])
    assert palette["neutral"] == tint(colours.COLOURS[None])
    from sheets_host.games.spirit_chain import picture

    assert picture.COLOURS is colours.COLOURS
    state = duels[4]
    shown = set()
    for book in (GAME.public_view(state), *(GAME.private_view(state, p) for p in PLAYERS)):
        for frame in book.values():
            shown |= {fold(str(v)) for v in frame.to_numpy().ravel()}
    assert {fold(k) for k in palette} <= shown


def test_the_submit_columns_say_what_goes_there():
    for column in GAME.submit_tab.columns:
        assert column.doc
    assert GAME.round_word == "round" and DEFAULTS["config"]["time controls"]
    assert re.search(r"\bno, yes\b", {c.name: c.doc for c in GAME.submit_tab.columns}["upgrade"])


def test_a_rank_iv_upgrade_is_offered_by_name_and_yes_only_when_it_chooses_nothing():
    from .test_spirit_chain_game import at

    state = at(setup(), Phase.UPGRADES, decks=({"FIRE III": 1, "WIND III": 1, "EARTH I": 3}, {}))
    choices = GAME.submit_choices(state, "Ada")["upgrade"]
    assert choices[0] == "no" and "yes" not in choices  # 'yes' cannot choose the Rank IV's element
    assert "EARTH II" in choices and any(c.startswith("FIRE IV from ") for c in choices)
    assert any(c.startswith("WIND IV from ") for c in choices)
    for value in choices:
        parsed = GAME.parse(state, "Ada", row("Ada", {"upgrade": value}))
        assert parsed.problems == () and parsed.submission is not None, (value, parsed.problems)
    lines = how_lines(GAME.how_to_submit(state, "Ada"))
    assert any(line.startswith("Upgrades your cards allow: ") and "FIRE IV from" in line for line in lines)
    assert GAME.submit_choices(state, "Blaise") == {} and len(how_lines(GAME.how_to_submit(state, "Blaise"))) == 1
