"""The preferences tab read into a list: every ruling, and bad input never raises."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheets_host.festival.pregame import PREFERENCES, Preference, parse_preferences
from sheets_host.kit.cells import SubmitRow

EVENTS = {"alchemy": "Alchemy", "continuum": "Elemental Continuum", "summoning": "Summoner's Dream"}


def rows(*typed):
    return [SubmitRow("Ann", 2 + i, PREFERENCES.header, dict(zip(PREFERENCES.header, values)))
            for i, values in enumerate(typed)]


def test_titles_names_and_untidy_typing_are_understood():
    parsed = parse_preferences("Ann", rows((" elemental continuum ", "ALCHEMY", "1")), EVENTS, 1)
    assert parsed.submission == Preference("continuum", "alchemy", 1) and not parsed.problems


def test_an_empty_tab_is_silence_and_the_choices_are_drawn():
    parsed = parse_preferences("Ann", [], EVENTS, 0)
    assert parsed.submission is None and "drawn" in parsed.kept


@pytest.mark.parametrize("typed, message", [
    (("alchemy", "Alchemy", None), "'Alchemy' is your first choice too"),
    (("alchemy", None, None), "column 'second' (B): the cell is empty (an event; allowed: Alchemy, Elemental Continuum, Summoner's Dream)"),
    (("alchmey", "summoning", None), "'alchmey' is not an event (did you mean 'Alchemy'?)"),
    (("=B2", "summoning", None), "'=B2' is a formula"),
])
def test_a_list_without_two_different_events_does_not_count(typed, message):
    parsed = parse_preferences("Ann", rows(typed), EVENTS, 5)
    assert parsed.submission is None and any(message in str(p) for p in parsed.problems), parsed.problems


def test_garnets_beyond_what_the_player_holds_are_not_spent_but_the_list_counts():
    parsed = parse_preferences("Ann", rows(("alchemy", "summoning", 4)), EVENTS, 3)
    assert parsed.submission == Preference("alchemy", "summoning", 0)
    assert "4 is more than the 3 garnets you hold; nothing spent" in str(parsed.problems[0])


def test_only_the_first_row_counts():
    parsed = parse_preferences("Ann", rows(("alchemy", "summoning", None), ("continuum", "alchemy", None)), EVENTS, 0)
    assert parsed.submission == Preference("alchemy", "summoning", 0)
    assert "row 3" in str(parsed.problems[0]) and "ignored" in str(parsed.problems[0])


cell = st.one_of(st.none(), st.text(max_size=12), st.integers(-10**30, 10**30), st.floats(allow_nan=True),
                 st.sampled_from(["Alchemy", "summoning", "ＡＬＣＨＥＭＹ", "3", "=A1", "\u200b"]))


@given(st.lists(st.tuples(cell, cell, cell), max_size=3), st.integers(0, 5))
def test_anything_typed_is_read_or_refused_never_raised(typed, held):
    parsed = parse_preferences("Ann", rows(*typed), EVENTS, held)
    if parsed.submission is not None:
        assert parsed.submission.first != parsed.submission.second and 0 <= parsed.submission.garnets <= held
