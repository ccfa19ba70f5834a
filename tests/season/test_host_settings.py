"""The host's own settings for games the season makes later (`season plan --add --set`, the season
setting 'death match settings'): checked when typed, not when the game is made, and a first
deadline written as hours after the game is made becomes a time only then."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, strategies as st

from sheets_host.kit.errors import SheetsHostError
from sheets_host.season.takes import DEATH_MATCH_GAME, SEASON_GIVES, dated, host_settings, making, pairs, pairs_text


def test_settings_are_checked_by_key_and_value_naming_what_is_allowed():
    assert host_settings(DEATH_MATCH_GAME, {"Max  Cycles": " 3 ", "round hours": "24"}, "x") == {
        "max cycles": "3", "round hours": "24"}
    with pytest.raises(SheetsHostError) as e:
        host_settings(DEATH_MATCH_GAME, {"max cycles": "0", "colour": "red", "death match opponent": "Ann"}, "--set")
    words = str(e.value)
    assert words.startswith("--set: ")
    assert "max cycles='0': a whole number >= 1" in words.replace("A whole", "a whole")
    assert "'colour' is not a Spirit Chain setting (settings: max cycles," in words
    assert "'death match opponent' is given by the season from its ledger, not by hand" in words


def test_a_first_deadline_for_every_death_match_is_hours_after_each_is_made():
    assert host_settings(DEATH_MATCH_GAME, {"first deadline": "+24h"}, "x", later=True) == {"first deadline": "+24h"}
    with pytest.raises(SheetsHostError, match=r"first deadline='2026-12-01 18:00': hours after the game is made, "
                                              r"e.g. \+24 \(a time would be the same for every game\)"):
        host_settings(DEATH_MATCH_GAME, {"first deadline": "2026-12-01 18:00"}, "x", later=True)
    # A Main Match planned takes either; a time must be one.
    assert host_settings("wind-guide-me", {"first deadline": "2026-12-01 18:00"}, "x")["first deadline"]
    with pytest.raises(SheetsHostError, match="first deadline='next friday': a UTC time"):
        host_settings("wind-guide-me", {"first deadline": "next friday"}, "x")


@given(st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2040, 1, 1), timezones=st.just(timezone.utc)),
       st.decimals(min_value=0, max_value=500, places=2))
def test_a_first_deadline_after_the_making_is_never_sooner_than_said_and_on_a_whole_minute(made, hours):
    at = datetime.strptime(dated({"first deadline": f"+{hours}"}, made)["first deadline"], "%Y-%m-%d %H:%M")
    at = at.replace(tzinfo=timezone.utc)
    assert made + timedelta(hours=float(hours)) <= at < made + timedelta(hours=float(hours), minutes=1)


@given(st.dictionaries(st.sampled_from(["max cycles", "round hours", "time controls", "early close"]),
                       st.text("0123456789yesno.", min_size=1, max_size=4)))
def test_settings_written_in_one_cell_read_back_as_written(settings):
    assert pairs(pairs_text(settings)) == settings


def test_the_table_of_what_the_season_gives_is_what_making_gives():
    """`SEASON_GIVES` (what the host may not set) is each Main Match's `making`, key for key."""
    from sheets_host.kit.result import ELIMINATION
    from sheets_host.season.ledger import BY_SEASON, Entry
    from sheets_host.season.state import Season, SeasonSettings
    from sheets_host.season.takes import _making

    cast = tuple("ABCDEFGHIJ")
    out = tuple(Entry(n, "t", "1", "settled", p, ELIMINATION, 1, "lost", BY_SEASON) for n, p in enumerate("HIJ", 1))
    season = Season("s", 1, cast, SeasonSettings(tiebreak=cast), entries=out)
    for game, gives in SEASON_GIVES.items():
        blue = ("A", "B", "C") if game == "pyramid-superiority" else ()
        made = _making(season, game, blue, (), ("x", "y", "z") if blue else ())
        assert set(made.given) - {"tie winner"} == set(gives) - {"tie winner"}, game  # the tie winner: when one is
