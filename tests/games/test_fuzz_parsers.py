"""Fuzzing what players and hosts type: every game's `parse` on random submit tabs, and the host
tabs' readers on random cells. Nothing may crash: a bad cell is a message that names the player,
says what is allowed and quotes the cell shortened; what parses must be accepted by `resolve`.

The states are real mid-game states (bots played the earlier rounds), built once per module. A
player with several submit tabs this round (a festival: the pregame's `preferences`, then each
event's, e.g. `alchemy`) gets rows in each, every row naming its tab as the engine reads them.
"""

from __future__ import annotations

import functools
import math
import random
import re
from dataclasses import replace
from datetime import date, datetime, time, timedelta, timezone

import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from sheets_host.engine.play import bot_names, default_settings
from sheets_host.events.alchemy.read import ACTION_ALIASES as ALCHEMY_ALIASES
from sheets_host.events.alchemy.read import ACTIONS as ALCHEMY_ACTIONS
from sheets_host.games import get_game
from sheets_host.games.magicians_market.read import ACTION_ALIASES, ACTIONS
from sheets_host.games.pyramid_superiority.read import CORNER_NAMES, PIECE_NAMES, POSITION_NAMES, ROW_KINDS
from sheets_host.games.pyramid_superiority.rules import BY_NAME, CORNERS
from sheets_host.games.spirit_chain.read import NO_WORDS, YES_WORDS, _times
from sheets_host.games.wind_guide_me.read import KIND_ALIASES
from sheets_host.kit import cells
from sheets_host.kit.cells import CellError, SubmitRow, as_choice, as_int, as_time
from sheets_host.kit.errors import SchemaErrors
from sheets_host.kit.game import Game, Parsed, Window, rng_for
from sheets_host.kit.table import KINDS, Column, TabSchema

ACADEMY = "academy-of-witchcraft-arts"
GAMES = ("wind-guide-me", "magicians-market", "pyramid-superiority", "spirit-chain", ACADEMY)
SEED = 11
OPENED = datetime(2026, 11, 23, 18, 0, tzinfo=timezone.utc)
WINDOWS = (Window(), Window(OPENED, OPENED + timedelta(seconds=200)), Window(None, OPENED))
HUGE = 10**5000 - 1  # int("9" * 5000), which Python refuses to convert
CLIP = 60  # no message may hold this much of a long cell (they quote about 40 characters)

# ---- cells ----------------------------------------------------------------------------------------

ODD = ("\u0301", "\u0338", "\u200b", "\u200e", "\u202e", "\u2066", "\ufeff", "\u00a0", "\u3000", "\x00", "\x07",
       "\x1b", "\r", "\n", "\t", "١٢", "１２", "³", "Ⅻ", "½", "💥", "👩‍👩‍👧", "🇫🇷", "ǅ", "ß", "İ", "ﬁ", "Ω", "שלום",
       "مرحبا", "\U0001d7d9", "'", '"', "\\", "%s", "{0}", "*", "?", "’")
SPECIAL = (HUGE, -HUGE, "9" * 5000, "-" + "9" * 5000, "#" + "9" * 5000, "9" * 5000 + ".0", "x" * 5000,
           1e308, -1e308, math.inf, -math.inf, math.nan, -0.0, 0.0, 0, -1, -7, 2**63, 2**53 + 1, 1e-300, 5e-324,
           3.0, 2.5, True, False, None, "", " ", "\t\n", "\u00a0", "\u200b", "=A1", "=A1+1", '=HYPERLINK("x")',
           " =SUM(1)", "+1", "@x", "-", "--1", "'7", "1e3", "1_000", "0x1F", "0b1", "1,000", "3.5", "NaN", "inf",
           "-0", "+-3", "3 4", "#", "site #", "site 3 4", "٣", "３", "\u200b3", "3\u200b", "\u202e7", "7\u0338", "e\u0301",
           "0001-01-01 00:00:00+01:00", "9999-12-31 23:59:59-01:00", "2026-11-23 18:00:05", "2026-11-23T18:01Z",
           "23/11/2026 18:00", "18:00", "2026-13-45 25:61", "2026-11-23 18:00 UTC", "2026-11-23 18:00 +05:00 UTC",
           datetime.min, datetime.max, datetime.min.replace(tzinfo=timezone(timedelta(hours=5))),
           datetime.max.replace(tzinfo=timezone(timedelta(hours=-5))), date(2026, 11, 23), time(18, 0),
           timedelta(days=1), OPENED, OPENED + timedelta(seconds=50), OPENED + timedelta(seconds=300))
SPECIAL_TEXT = tuple(str(v) for v in SPECIAL if v not in (HUGE, -HUGE))  # str() refuses those two

offsets = st.builds(timezone, st.timedeltas(timedelta(hours=-23, minutes=-59), timedelta(hours=23, minutes=59)))
some_datetimes = st.one_of(
    st.datetimes(), st.datetimes(timezones=st.just(timezone.utc)), st.datetimes(timezones=offsets),
    st.integers(-600, 900).map(lambda s: OPENED + timedelta(seconds=s)))
odd_text = st.lists(st.sampled_from(ODD) | st.characters() | st.sampled_from("0123456789 .,+-/:#x"),
                    max_size=12).map("".join)
junk = st.one_of(
    st.sampled_from(SPECIAL), st.text(max_size=30), odd_text, st.integers(), st.integers(-20, 30),
    st.floats(), st.booleans(), st.none(), some_datetimes, some_datetimes.map(str), st.dates(), st.times(),
    st.from_regex(r"\s*[=+@-][A-Z]{1,2}[0-9]{1,3}\s*", fullmatch=True))


def cell(valid: list) -> st.SearchStrategy:
    """A cell: junk, a valid value, or a valid value with something stuck to it."""
    good = st.sampled_from(valid)
    glued = st.builds(lambda a, sep, b: f"{a}{sep}{b}", good, st.sampled_from(["", " ", ", ", " + ", "\u200b", " x"]),
                      good | st.sampled_from(SPECIAL_TEXT) | odd_text)
    case = st.builds(lambda v, f: f(str(v)), good, st.sampled_from([str.upper, str.title, lambda t: f"  {t} "]))
    return st.one_of(junk, good, good, glued, case)


def short(raw: object) -> str:
    """A cell's text as far as a message may quote it, or '' for a short cell."""
    t = cells.text(raw)
    return t[:CLIP] if len(t) > CLIP else ""


def check_message(message: str, raws) -> None:
    assert message.strip(), "an empty message"
    for raw in raws:
        long = short(raw)
        assert not long or long not in message, f"a long cell quoted whole: {message[:200]}"


# ---- states and valid values -----------------------------------------------------------------------

CONFIG = {"wind-guide-me": {"light holders": "Ada, Blaise, Cora", "dark holders": "Cora, Dmitri, Emmy"}}
# What the host types before round 1: the academy's players hold garnets 0, 1, 2... to spend in the pregame.
START = {ACADEMY: lambda state: replace(state, garnets={p: i for i, p in enumerate(state.players)})}


@functools.cache
def trail(name: str) -> tuple[Game, tuple]:
    """The game and every state of a bot game before it ends: each round's rules get fuzzed."""
    game = get_game(name)
    defaults = default_settings(game)
    config = {**defaults["config"], **CONFIG.get(name, {})}
    names = bot_names(game.default_players or game.max_players)
    state, states = game.setup(names, SEED, config, defaults["data"]), []
    state = START.get(name, lambda s: s)(state)
    while not game.is_over(state):
        r = game.round(state)
        state = game.host_bot(state, rng_for(SEED, r, "host"))  # a festival's last round: hand rankings typed
        states.append(state)
        subs = {p: game.bot(state, p, rng_for(SEED, r, f"bot/{p}")) for p in game.players(state)}
        state = game.resolve(state, subs, rng_for(SEED, r, "resolve")).state
    return game, tuple(states)


@functools.cache
def phases(name: str) -> dict[tuple[str, ...], list]:
    """The trail's states by the submit tabs players have in them."""
    game, states = trail(name)
    out: dict[tuple[str, ...], list] = {}
    for state in states:
        names = sorted({t.name for p in game.players(state) for t in game.submit_tabs(state, p)})
        out.setdefault(tuple(names), []).append(state)
    return out


def valid_values(name: str, game: Game, state) -> list:
    """What players of this game really type (and the numbers around it)."""
    players = game.players(state)
    numbers = [*range(0, 23), *map(str, range(0, 23)), 3.0, "7.0", "#3", "site 4", "three", "13 coins"]
    if name == "wind-guide-me":
        return [*numbers, "stone", "fake", *KIND_ALIASES, *players]
    if name == "magicians-market":
        s = state.settings
        goods = [*s.goods, *s.good_aliases]
        return [*numbers, *ACTIONS, *ACTION_ALIASES, *goods, *s.magician_names, *s.magician_aliases, *players,
                ", ".join(s.goods[:3]), " and ".join(s.goods[-3:]), 10**6, 10**6 + 1]
    if name == "pyramid-superiority":
        return [*numbers, *ROW_KINDS, *(a for names in ROW_KINDS.values() for a in names), *CORNERS, *CORNER_NAMES,
                "red", "green", *PIECE_NAMES, *BY_NAME, *POSITION_NAMES, "90", "180 degrees", "90 counter-clockwise",
                "ccw 270", "none", "45", 360, 10_000, 10_001, *players]
    if name == ACADEMY:
        events = [v for e in state.plan.events for v in (e.name, e.title)]
        out = [*numbers, *events, *(e.upper() for e in events), "Alchemy, Summoner's Dream", "none", "-",
               *players, 10**6, 10**6 + 1, *(str(n) for n in state.garnets.values())]
        if "alchemy" in state.events:
            a = state.events["alchemy"].alchemy
            out += [*ALCHEMY_ACTIONS, *ALCHEMY_ALIASES, *a.materials, *a.machines, *a.constructs, "moonpetal ×2",
                    "2x quartz", "tin bird, hand mirror", "gold 3", "99", "100", 10**6 * 99]
        if "summoning" in state.events:
            sd = state.events["summoning"]
            c = sd.catalogue
            out += [*c.maps, *c.towers, *c.familiars, "Yi 1", "fox 2", "Gan 1", "Fox 23", "C4", "a1", "Z99", "N",
                    "east", "up", "1-6", "7-12", "12-7", "1 to 22", "0-3", "5", *(u.name for h in sd.holdings.values()
                                                                                  for u in (*h.towers, *h.familiars))]
        return out
    book = state.rules.cards
    return [*range(0, 11), *map(str, range(0, 11)), *NO_WORDS, *YES_WORDS, "empty", "-", *players,
            *(c.title for c in book.cards), *(c.name for c in book.cards), "FIRE II x2", "2x EARTH II",
            "WIND IV from WIND III + FIRE III", "EARTH II, WATER II and FIRE II", "earth1", "Pixie | FIRE II",
            "9" * 5000 + "x FIRE II", "FIRE II x" + "9" * 5000, "0x FIRE II",
            *(OPENED + timedelta(seconds=s) for s in (-5, 0, 30, 60, 100, 150, 250))]


@st.composite
def tabs(draw, name: str):
    """(game, state, player, rows, window): the bot's rows with some cells replaced, plus junk rows,
    in each of the player's submit tabs this round."""
    game, states = trail(name)
    by_tabs = phases(name)  # the pregame as often as the festival's rounds; a game with one tab: any round
    state = draw(st.sampled_from(by_tabs[draw(st.sampled_from(sorted(by_tabs)))]))
    player = draw(st.sampled_from([p for p in game.players(state) if game.submit_tabs(state, p)]))
    any_cell = cell(valid_values(name, game, state))
    bot_rows = game.submit_rows(game.bot(state, player, random.Random(draw(st.integers(0, 2**32)))))
    odds = draw(st.integers(1, 6))  # one cell in `odds + 1` replaced, so that some rows stay valid
    rows = []
    for tab in game.submit_tabs(state, player):
        header, key = tab.header, game.tab_key(tab.name)
        values = [{c: r.get(c) for c in header} for r in bot_rows if r.get("tab", key) == key]
        for row in values:
            for c in header:  # a blank cell more rarely: filling an unused column often voids the row
                if draw(st.integers(0, odds * (4 if row[c] is None else 1))) == 0:
                    row[c] = draw(any_cell)
        values += draw(st.lists(st.fixed_dictionaries({c: any_cell for c in header}), max_size=4))
        values = draw(st.permutations(values)) if draw(st.booleans()) else values
        numbers = sorted(draw(st.lists(st.integers(2, 1000), min_size=len(values), max_size=len(values), unique=True)))
        rows += [SubmitRow(player, n, header, v, key) for n, v in zip(numbers, values)
                 if any(not cells.is_blank(x) for x in v.values())]  # the engine passes non-blank rows only
    return game, state, player, rows, draw(st.sampled_from(WINDOWS))


def says_what(message: str) -> bool:
    """More than a quoted cell: a few words of explanation outside the quotes."""
    return len(re.sub(r"'[^']*'|\"[^\"]*\"", "", message).split()) >= 3


# ---- the games' parsers ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [g for g in GAMES if g != ACADEMY])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_parse_survives_any_submit_tab(name, data):
    parses_whatever_is_typed(name, data)


# An Academy example is a player's tabs of up to three events, each parsed: five times a single
# game's (20 s for 100 on the 2-core machine). Half as many keep the suite within its time.
@pytest.mark.slow(8)
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_the_academys_parse_survives_any_submit_tab(data):
    parses_whatever_is_typed(ACADEMY, data)


def parses_whatever_is_typed(name: str, data) -> None:
    game, state, player, rows, window = data.draw(tabs(name))
    parsed = game.parse(state, player, rows, window)
    assert isinstance(parsed, Parsed) and isinstance(parsed.kept, str)
    raws = [v for r in rows for v in r.values.values()]
    tabs_named = {game.tab_key(t.name) for t in game.submit_tabs(state, player)}
    for problem in parsed.problems:
        assert problem.player == player and str(problem).startswith(f"{player}: "), problem
        assert problem.tab in tabs_named, problem  # the tab the row is in, when the player has several
        assert says_what(problem.message), problem
        check_message(problem.message, raws)
    check_message(parsed.kept or "nothing", raws)
    event("a submission" if parsed.submission is not None else "no submission")  # --hypothesis-show-statistics
    event("tabs: " + ", ".join(t.name for t in game.submit_tabs(state, player)))
    if parsed.submission is not None:
        r = game.round(state)
        subs = {p: game.bot(state, p, rng_for(SEED, r, f"bot/{p}")) for p in game.players(state)}
        outcome = game.resolve(state, {**subs, player: parsed.submission}, rng_for(SEED, r, "resolve"))
        game.dump(outcome.state)


def test_the_academy_is_fuzzed_in_its_pregame_and_in_each_events_rounds():
    game, states = trail(ACADEMY)
    rounds = {key: [game.round_name(game.round(s)) for s in group] for key, group in phases(ACADEMY).items()}
    # The fuzzed player's tabs: continuum's board and wards in round 1 then bolts, with Alchemy's and
    # Summoner's Dream's four.
    summoning = ("summoning", "summoning attack", "summoning defence", "summoning shop")
    assert rounds[("preferences",)] == ["pregame"]
    assert rounds[tuple(sorted(("alchemy", "board", "wards", *summoning)))] == ["round 1"]
    assert rounds[tuple(sorted(("alchemy", "continuum", *summoning)))] == [f"round {n}" for n in range(2, 7)]
    assert sorted(states[0].garnets.values()) == list(range(10))  # garnets to spend, and to overspend


# ---- the host tabs' readers --------------------------------------------------------------------------

PLAYERS = bot_names(7)
host_cell = cell([*PLAYERS, "yes", "no", "x", "light", "dark", "1", 1, 7, 7.0, "7", "-3", "1.5", "[1, 2]", "{}"])
columns = st.builds(
    Column, st.just("x"), st.sampled_from(KINDS), st.sampled_from([(), ("light", "dark"), ("only",)]),
    st.none() | st.integers(-5, 5) | st.floats(-10, 10), st.none() | st.integers(0, 100) | st.floats(0, 1e6),
    st.booleans())


@settings(max_examples=400, deadline=None)
@given(columns, host_cell, st.sampled_from([(), tuple(PLAYERS)]))
def test_a_column_reads_any_cell_or_says_what_it_expects(column, raw, players):
    expected = column.expected(players)
    assert expected.strip() and not expected.rstrip().endswith(":"), expected
    try:
        value = column.parse(raw, players)
    except ValueError:
        return
    if value is None:
        assert column.optional and cells.is_blank(raw)
    elif column.kind in ("int", "float"):
        assert type(value) is int if column.kind == "int" else type(value) is float and math.isfinite(value)
        assert (column.lo is None or value >= column.lo) and (column.hi is None or value <= column.hi)
    elif column.kind in ("choice", "player"):
        assert value in (players if column.kind == "player" else column.choices)


SCHEMAS = tuple({id(s): s for name in GAMES for g in [get_game(name)]
                 for s in (*g.data_tabs, *g.state_tabs, *(t.schema for t in g.every_submit_tab()),
                           TabSchema("config", g.settings))}.values())


@st.composite
def frames(draw):
    schema = draw(st.sampled_from(SCHEMAS))
    spelled = [draw(st.sampled_from([c, c.upper(), f" {c} ", c.replace(" ", "_")])) for c in schema.header]
    kept = [c for c in spelled if draw(st.integers(0, 9))]  # now and then a column is missing
    if draw(st.booleans()):
        kept.append(draw(st.sampled_from(["extra", "", "note"])))
    count = draw(st.integers(0, 4))
    numbers = sorted(draw(st.lists(st.integers(2, 500), min_size=count, max_size=count, unique=True)))
    body = [[draw(host_cell) for _ in kept] for _ in numbers]
    return schema, pd.DataFrame(body, columns=kept, index=numbers, dtype=object)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames(), st.sampled_from([(), tuple(PLAYERS)]))
def test_a_tab_reads_any_frame_or_lists_what_is_wrong(case, players):
    schema, frame = case
    try:
        records = schema.records(frame, players)
    except SchemaErrors as e:
        raws = frame.to_numpy().ravel().tolist()
        for error in e.errors:
            check_message(str(error), raws)
            assert not error.expected.rstrip().endswith(":"), error
        return
    assert [r["_row"] for r in records] == list(frame.index)


# ---- crashes the fuzzing found, as examples ------------------------------------------------------------

LONG = ("9" * 5000, HUGE, "#" + "9" * 5000, "site " + "9" * 5000, "-" + "9" * 5000)


@pytest.mark.parametrize("raw", LONG, ids=["text", "int", "hash", "site", "negative"])
def test_a_5000_digit_number_is_out_of_range_and_quoted_short(raw):
    # int() and str() refuse more than 4,300 digits: as_int crashed with Python's ValueError
    with pytest.raises(CellError, match="is out of range") as e:
        as_int(raw, 1, 21, "a site")
    assert len(str(e.value)) < 80 and "…'" in str(e.value)


@pytest.mark.parametrize("raw", ["x" * 5000, "=" + "A" * 5000, "2026-11-23 18:00:05" + "9" * 5000])
def test_messages_quote_a_long_cell_cut_to_about_40_characters(raw):
    for read in (lambda: as_int(raw, 1, 7, "a power"), lambda: as_choice(raw, ["light", "dark"], "an artefact"),
                 lambda: as_time(raw, "a time")):
        with pytest.raises(CellError) as e:
            read()
        assert len(str(e.value)) < 150 and "…'" in str(e.value)


@pytest.mark.parametrize("raw", ["0001-01-01 00:00:00+01:00", "9999-12-31T23:59:59-01:00",
                                 datetime.max.replace(tzinfo=timezone(timedelta(hours=-5)))])
def test_a_time_outside_the_years_1_to_9999_in_utc_is_not_a_time(raw):
    # converting it to UTC overflowed: an OverflowError escaped as_time
    with pytest.raises(CellError, match="is not a time"):
        as_time(raw, "when you submitted")


def test_an_upgrade_count_of_5000_digits_is_refused_not_a_crash():
    from tests.games.spirit_chain.test_spirit_chain_game import upgrade

    assert _times("9" * 5000 + "x FIRE II") == (10**6 + 1, "FIRE II")  # int() refused the digits
    for text in ("9" * 5000 + "x FIRE II", "FIRE II x" + "9" * 5000):
        parsed = upgrade(text, ({"FIRE I": 6}, {}))
        assert parsed.submission is None and "FIRE II needs 3 FIRE I" in parsed.problems[0].message
        assert len(parsed.problems[0].message) < 200


def test_a_long_to_cell_on_a_bid_row_is_quoted_short():
    game, states = trail("pyramid-superiority")
    state = states[1]
    player = game.players(state)[0]
    parsed = game.parse(state, player, [SubmitRow(player, 2, game.submit_tab.header,
                                                  {"what": "bid", "value": 1, "to": "y" * 5000})])
    assert parsed.submission is not None and "'yyyyyyyyyyyy" in parsed.problems[0].message
    assert len(parsed.problems[0].message) < 120


def test_an_int_column_reads_huge_numbers_and_a_float_column_refuses_inf_nan_and_huge():
    # float(10**5000) overflowed in Column.parse; 'inf' and 'nan' were read as numbers
    assert Column("n", "int", lo=0).parse(HUGE) == HUGE
    with pytest.raises(ValueError):
        Column("n", "int", hi=7).parse(HUGE)
    for raw in ("inf", "-inf", "nan", math.inf, HUGE, "9" * 5000):
        with pytest.raises(ValueError):
            Column("x", "float", lo=0).parse(raw)
    assert Column("x", "float").parse(2) == 2.0 and isinstance(Column("x", "float").parse(2), float)


def test_a_tab_with_huge_or_long_cells_lists_them_quoted_short():
    # the message's str() of a 5000-digit int raised ValueError out of TabSchema.records
    schema = TabSchema("stones", (Column("power", "int", lo=1, hi=7), Column("who", "player")))
    frame = pd.DataFrame({"power": [HUGE, "9" * 5000], "who": ["Ada", "x" * 5000]}, index=[2, 3], dtype=object)
    with pytest.raises(SchemaErrors) as e:
        schema.records(frame, ["Ada"])
    assert [(x.row, x.column) for x in e.value.errors] == [(2, "power"), (3, "power"), (3, "who")]
    assert all(len(str(x)) < 120 for x in e.value.errors)


def test_a_player_or_choice_column_says_what_it_expects_without_a_list():
    assert Column("who", "player").expected() == "one of the game's players (none are listed in the players tab)"
    assert Column("who", "player").expected(["Ada", "Cora"]) == "one of the players: Ada, Cora"
    assert Column("kind", "choice").expected() == "one of the column's choices (none are defined)"
    with pytest.raises(SchemaErrors, match="'Ada' is not one of the game's players"):
        TabSchema("missed", (Column("player", "player"),)).records(pd.DataFrame({"player": ["Ada"]}, index=[2]))


@pytest.mark.parametrize("blank", [None, math.nan, "  ", "\u00a0"])
def test_a_blank_kind_cell_is_a_stone_whatever_blank_it_holds(blank):
    # NaN and spaces were read as the text '' ("'' is not a kind") instead of the blank that means stone
    game, states = trail("wind-guide-me")
    state, player = states[0], "Ada"
    site, power = state.open_sites(player)[0], state.settings.hand[0]
    row = SubmitRow(player, 2, game.submit_tab.header, {"kind": blank, "site": site, "position": 1, "stone": power})
    assert game.parse(state, player, [row]).submission.stones[0].site == site
