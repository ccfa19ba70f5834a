"""What a Pyramid Superiority book tells its participant: how to submit today, the dropdowns, the
word 'day', and the colours of types and meadows."""

import re

import pytest

from sheets_host.engine.play import BOT_NAMES, default_settings
from sheets_host.games.pyramid_superiority import colours
from sheets_host.games.pyramid_superiority.meadows import DAYS, ROUNDS, Meadow
from sheets_host.games.pyramid_superiority.rules import ROTATION_COST, Corner, buildable
from sheets_host.kit.cells import SubmitRow, fold
from sheets_host.kit.layout import tint

from tests.games.how_to import example_rows, lines as how_lines, words
from .test_pyramid_superiority_game import GAME, NAMES, bot_game
from .test_pyramid_superiority_privacy import during, losing_bid_twin, meadow_twin, transfers_twin

HEADER = ["what", "value", "to"]


@pytest.fixture(scope="module")
def histories():
    config = {**default_settings(GAME)["config"], "garnets": "Ada: 4, Blaise: 0, Cora: 9"}
    return [bot_game(seed, config=config) for seed in range(2)]


def rows(player, *specs):
    return [SubmitRow(player, n, HEADER, dict(zip(HEADER, spec))) for n, spec in enumerate(specs, start=2)]




def test_the_instructions_are_short_lines_for_today_and_count_days(histories):
    assert GAME.round_word == "day"
    for state in histories[0]:
        for name in NAMES:
            lines = how_lines(GAME.how_to_submit(state, name))
            assert 1 <= len(lines) <= 14 and all(0 < len(line) <= 160 for line in lines)
            if GAME.is_over(state):
                assert lines == ["The game is over: nothing to submit."]
            elif GAME.submits(state, name):
                assert lines[0].startswith(f"Day {state.day} of {DAYS}: the ")
                stage = "proposal" if state.is_guest(name) else "construction"
                assert f"{stage} stage of round {state.day if stage == 'proposal' else state.day - 1}" in lines[0]
                assert GAME.how_to_submit(state, name)[0].examples
            else:
                assert "nothing to submit" in lines[0]


def test_the_examples_are_the_participants_own_options_and_parse_cleanly(histories):
    for state in histories[0][:-1]:
        for name in NAMES:
            if not GAME.submits(state, name):
                continue
            found = example_rows(GAME.how_to_submit(state, name))
            kinds = {r[0] for r in found}
            purse = state.ledger.purses[name]
            if state.is_guest(name):
                assert kinds == {"bid", "star"}
                star = Corner(next(r[1] for r in found if r[0] == "star"))
                assert state.pieces[(state.day, name)].cell(star) is state.types[name]  # a cell of their own type
            else:
                bid = int(next(r[1] for r in found if r[0] == "bid"))
                can_send = state.day < DAYS and purse.chips - min(purse.chips, bid) >= 1
                assert {"bid", "piece", "position"} <= kinds and ("send" in kinds) == can_send
                position = next(r[1] for r in found if r[0] == "position")
                assert position in [p.name for p in buildable(state.ledger.pyramid)]
                assert all(r[2] in state.settings.guests for r in found if r[0] == "send")
            assert int(next(r[1] for r in found if r[0] == "bid")) <= max(purse.total, 0)
            parsed = GAME.parse(state, name, rows(name, *found))
            assert parsed.problems == () and parsed.submission is not None


def test_the_instructions_name_no_one_outside_the_game(histories):
    outsiders = [n for n in BOT_NAMES if n not in NAMES]
    for state in histories[0]:
        for name in NAMES:
            text = words(GAME.how_to_submit(state, name)) + str(GAME.submit_choices(state, name))
            assert not [n for n in outsiders if re.search(rf"\b{n}\b", text)]


def test_what_another_participant_keeps_secret_never_reaches_the_instructions_or_choices(histories):
    """Non-interference: wherever a participant's own book is the same for a state and its twin
    (another's secrets changed), so are their instructions and choices."""
    checked = 0
    for before, after in during(histories):
        twins = [meadow_twin(after, m) for m in (Meadow.RED, Meadow.GREEN)]
        if after.days >= 2:
            twins += [t(after, p) for p in after.settings.players for t in (transfers_twin, losing_bid_twin)]
        for twin in (t for t in twins if t is not None):
            for name in NAMES:
                own = GAME.private_view(after, name)
                theirs = GAME.private_view(twin, name)
                if own.keys() == theirs.keys() and all(own[k].equals(theirs[k]) for k in own):
                    checked += 1
                    assert GAME.how_to_submit(after, name) == GAME.how_to_submit(twin, name)
                    assert GAME.submit_choices(after, name) == GAME.submit_choices(twin, name)
    assert checked > 100


def test_every_choice_parses_and_is_the_participants_own(histories):
    for state in histories[0][:-1]:
        for name in NAMES:
            choices = GAME.submit_choices(state, name)
            if not GAME.submits(state, name):
                assert choices == {}
                continue
            guest, purse = state.is_guest(name), state.ledger.purses[name]
            assert set(choices) <= set(HEADER)
            assert ("rotate" in choices["what"]) == ((purse.chips if guest else purse.total) >= ROTATION_COST)
            if guest:
                assert set(choices["what"]) <= {"bid", "star", "rotate"} and "to" not in choices
            else:
                assert set(choices.get("to", [])) <= set(state.settings.guests)
                assert ("send" in choices["what"]) == (state.day < DAYS and purse.chips > 0)
                places = {p.name for p in buildable(state.ledger.pyramid)}
                assert {v for v in choices["value"] if v.startswith(("base", "middle", "apex"))} == places
            for column, values in choices.items():
                for value in values:
                    if column == "what":
                        row = {"bid": ("bid", 0), "star": ("star", "top-left"), "rotate": ("rotate", 90),
                               "piece": ("piece", "red"), "send": ("send", 1, state.settings.guests[0]),
                               "position": ("position", buildable(state.ledger.pyramid)[0].name)}[value]
                    elif column == "value":
                        kind = ("rotate" if value.isdigit() else "star" if "-" in value
                                else "piece" if value in ("red", "green") else "position")
                        row = (kind, value)
                    else:
                        row = ("send", 1, value)
                    parsed = GAME.parse(state, name, rows(name, row))
                    assert not [p for p in parsed.problems if p.column == column], (column, value, parsed.problems)
                    assert parsed.submission is not None


def test_the_palette_colours_types_and_meadows_as_the_picture_does_and_the_views_show_them(histories):
    palette = {text: colour for rule in GAME.palettes() for text, colour in rule.colours.items()}
    assert palette["fire"] == palette["fire ★"] == palette["Red Meadow"] == tint(colours.RED)
    assert palette["grass"] == palette["Green Meadow"] == tint(colours.GREEN)
    assert palette["water"] == palette["Blue Meadow"] == tint(colours.BLUE)
    from sheets_host.games.pyramid_superiority import picture

    assert picture.COLOURS is colours.COLOURS
    shown = set()
    for state in histories[0][::3]:
        tabs = [GAME.public_view(state), *(GAME.private_view(state, n) for n in NAMES),
                *(GAME.group_view(state, g) for g in GAME.groups(state))]
        for book in tabs:
            for frame in book.values():
                shown |= {fold(str(v)) for v in frame.to_numpy().ravel()}
        for name in NAMES:
            shown |= {fold(v) for values in GAME.submit_choices(state, name).values() for v in values}
    assert {fold(k) for k in palette} <= shown


def test_the_submit_columns_say_what_goes_there(histories):
    for column in GAME.submit_tab.columns:
        assert column.doc
    assert "top-left" in GAME.submit_tab.columns[1].doc and "base 1-9" in GAME.submit_tab.columns[1].doc
    assert ROUNDS + 1 == DAYS
