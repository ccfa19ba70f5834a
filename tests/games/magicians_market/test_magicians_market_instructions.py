"""What a Magician's Market book tells its player: how to submit, the dropdowns, the word 'day';
and the rules data validated once per distinct data, not once per game."""

import random
import re

import pytest

from sheets_host.engine.play import BOT_NAMES, bot_states
from sheets_host.games.magicians_market import tabs as market
from sheets_host.games.magicians_market.market import Bid, MarketSubmission
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaErrors

from tests.games.how_to import example_rows, lines as how_lines, words

HEADER = ["action", "good", "to", "amount"]
SIX = ["Ada", "Blaise", "Cora", "Dmitri", "Emmy", "Felix"]


@pytest.fixture(scope="module")
def days(mm, mm_defaults):
    """Every state of a bot game of six, day by day."""
    return list(bot_states(mm, SIX, 5, mm_defaults["config"], mm_defaults["data"]))


def rows(player, *specs):
    return [SubmitRow(player, n, HEADER, dict(zip(HEADER, spec))) for n, spec in enumerate(specs, start=2)]




def test_the_instructions_are_short_lines_with_the_settings_and_say_day(mm, days):
    s = days[0].settings
    for player in SIX:
        lines = how_lines(mm.how_to_submit(days[0], player))
        assert 5 <= len(lines) <= 14 and all(0 < len(line) <= 160 for line in lines)
        text = words(mm.how_to_submit(days[0], player))
        assert f"{s.goods_generated} different goods" in text and f"{s.extra_cost} coins" in text
        assert f"you hold {days[0].now.coins[player]} coins" in text
        assert not re.search(r"\bround", text, re.IGNORECASE)
    assert mm.round_word == "day"
    assert how_lines(mm.how_to_submit(days[-1], "Ada")) == ["The game is over: nothing to submit."]


def test_the_examples_are_the_players_own_options_and_parse_cleanly(mm, days):
    for state in days[:-1]:
        s = state.settings
        for player in SIX:
            found = example_rows(mm.how_to_submit(state, player))
            kinds = [r[0] for r in found]
            assert kinds[0] == "generate" and "bid" in kinds
            for r in found:
                if r[0] == "gift":
                    assert r[2] in SIX and r[2] != player and state.now.goods[player][r[1]] >= int(r[3])
                if r[0] == "bid":
                    assert r[2] in s.magician_names
            parsed = mm.parse(state, player, rows(player, *found))
            assert not [p for p in parsed.problems if "dropped" in p.message or p.column is None], parsed.problems
            assert len(parsed.submission.generate) == s.goods_generated and parsed.submission.bid


def test_the_instructions_name_no_one_outside_the_game(mm, days):
    outsiders = [n for n in BOT_NAMES if n not in SIX]
    for state in days:
        for player in SIX:
            text = words(mm.how_to_submit(state, player)) + str(mm.submit_choices(state, player))
            assert not [n for n in outsiders if re.search(rf"\b{n}\b", text)]


def test_another_players_coins_never_reach_the_instructions_or_choices(mm, mm_defaults):
    """Blaise wins Flavio's show alone with 3 coins or with 4: the public sees the same day, and only
    Blaise's coins differ."""
    start = mm.setup(SIX, 1, mm_defaults["config"], mm_defaults["data"])
    one, other = (mm.resolve(start, {"Blaise": MarketSubmission(bid=Bid("Flavio", coins))}, random.Random(0)).state
                  for coins in (3, 4))
    assert one.now.coins["Blaise"] != other.now.coins["Blaise"]
    assert mm.public_view(one).keys() == mm.public_view(other).keys()
    for player in SIX:
        same = mm.how_to_submit(one, player) == mm.how_to_submit(other, player)
        assert same == (player != "Blaise")
        assert mm.submit_choices(one, player) == mm.submit_choices(other, player)


def test_every_choice_parses_and_is_the_players_own(mm, days):
    for state in days[:-1]:
        s, now = state.settings, state.now
        for player in SIX:
            choices = mm.submit_choices(state, player)
            assert set(choices) <= set(HEADER)
            assert ("extra" in choices["action"]) == (now.coins[player] >= s.extra_cost)
            assert set(choices["to"]) == (set(SIX) - {player}) | set(s.magician_names)
            assert choices["good"] == list(s.goods)
            held = next(g for g in s.goods if now.goods[player][g])
            neighbour = next(p for p in SIX if p != player)
            three = ", ".join(s.goods[:s.goods_generated])
            for column, values in choices.items():
                for value in values:
                    if column == "action":
                        row = {"generate": ("generate", three), "extra": ("extra", held),
                               "gift": ("gift", held, neighbour, 1), "bid": ("bid", None, s.magician_names[0], 1)}[value]
                    elif column == "good":
                        others = [g for g in s.goods if g != value][:s.goods_generated - 1]
                        row = ("generate", ", ".join([value, *others]))
                    else:
                        row = ("gift", held, value, 1) if value in SIX else ("bid", None, value, 1)
                    parsed = mm.parse(state, player, rows(player, row))
                    assert not [p for p in parsed.problems if p.column in (column, None)], (column, value, parsed.problems)
                    assert parsed.submission is not None


def test_the_submit_columns_say_what_goes_there_and_there_are_no_colours(mm):
    for column in mm.submit_tab.columns:
        assert column.doc
    assert "generate, extra, gift or bid" in mm.submit_tab.columns[0].doc
    assert mm.palettes() == ()  # no picture, nothing coloured


def test_the_views_count_days(mm, days):
    state = days[3]
    tabs = {**mm.public_view(state), **mm.private_view(state, "Ada")}
    words = " ".join(str(c) for frame in tabs.values() for c in frame.columns)
    words += " ".join(str(v) for v in mm.private_view(state, "Ada")["private"]["what"])
    assert "day" in words and not re.search(r"\bround", words)


# ---- the rules data, validated once --------------------------------------------------------------


@pytest.fixture
def validations(monkeypatch):
    calls = []
    real = market._validate_rules_data

    def counted(data, goods_generated):
        calls.append(goods_generated)
        return real(data, goods_generated)

    market._validated.cache_clear()
    monkeypatch.setattr(market, "_validate_rules_data", counted)
    yield calls
    market._validated.cache_clear()


def test_the_same_rules_data_is_validated_once_for_many_games(mm, mm_defaults, validations):
    states = [mm.setup(SIX, seed, mm_defaults["config"], mm_defaults["data"]) for seed in range(5)]
    tabs = mm.dump(mm.resolve(states[0], {}, random.Random(0)).state)
    loaded = mm.load(SIX, tabs, mm_defaults["config"], mm_defaults["data"])
    assert len(validations) == 1
    assert loaded.settings.tastes == states[0].settings.tastes
    assert loaded.settings.good_aliases is not states[1].settings.good_aliases  # each game its own copy


def test_rules_data_that_changes_or_breaks_is_validated_every_time(mm, mm_defaults, validations):
    data = {**mm_defaults["data"], "tastes": [dict(r) for r in mm_defaults["data"]["tastes"]]}
    data["tastes"][0]["good"] = "unicorn"
    for _ in range(2):
        with pytest.raises(SchemaErrors, match="unicorn"):
            mm.setup(SIX, 1, mm_defaults["config"], data)
        with pytest.raises(SchemaErrors, match="unicorn"):
            mm.load(SIX, {"orders": [], "gifts": [], "sales": []}, mm_defaults["config"], data)
    assert len(validations) == 4
    data["tastes"][0]["good"] = "cape"
    mm.setup(SIX, 1, mm_defaults["config"], data)
    mm.setup(SIX, 1, {**mm_defaults["config"], "goods generated": 2}, data)
    assert len(validations) == 6
