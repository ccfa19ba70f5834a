"""Alchemy as a festival event: the sample data, whole games by bots, privacy, tabs and the sample's balance."""

import random
from collections import Counter

import pandas as pd
import pytest

from sheets_host.events.alchemy import EVENT
from sheets_host.events.alchemy import tabs
from sheets_host.events.alchemy.state import AlchemyState, AlchemySubmission
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaErrors

DATA = tabs.sample_data()


def play(players, bots=("greedy", "random"), seed=0):
    """Six rounds; returns the state before the last round and after it."""
    state = EVENT.setup(players, {}, DATA, random.Random(seed))
    before = state
    for number in range(1, 7):
        subs = {p: EVENT.bots()[bots[i % len(bots)]](state, p, random.Random(f"{seed}/{number}/{p}"))
                for i, p in enumerate(players)}
        before, state = state, EVENT.resolve(state, subs, number, random.Random(f"{seed}/{number}")).state
    return before, state


def cells_of(frames):
    return " ".join(str(v) for f in frames.values() for v in [*f.columns, *f.to_numpy().ravel()])


def test_the_sample_is_labelled_checks_clean_and_has_21_constructs_in_7_sets_of_3():
    assert EVENT.check_data(DATA) == []
    assert all(r["note"] == "sample" for rows in DATA.values() for r in rows)
    state = EVENT.setup(["Ada"], {}, DATA, random.Random(0))
    sets = Counter(c.set for c in state.alchemy.constructs.values())
    assert len(sets) == 7 and set(sets.values()) == {3} and "gold" in state.alchemy.materials
    assert all(len(t.name) <= 31 for t in (*EVENT.data_tabs, *EVENT.state_tabs, EVENT.submit_tab))
    assert {c.name for c in EVENT.settings} == {"alchemy starting coins", "alchemy energy", "alchemy harvest base"}


def test_settings_change_the_numbers():
    state = EVENT.setup(["Ada"], {"alchemy starting coins": 50, "alchemy energy": 9, "alchemy harvest base": 2},
                        DATA, random.Random(0))
    assert (state.alchemy.starting_coins, state.alchemy.energy, state.alchemy.harvest_base) == (50, 9, 2)
    assert state.holdings("Ada").coins == 50


@pytest.mark.parametrize("count", [5, 7])
def test_six_rounds_by_bots_round_trip_and_place_everyone(count):
    players = [f"P{i}" for i in range(count)]
    before, after = play(players)
    assert after.round == 6
    dumped = EVENT.dump(after)
    assert EVENT.load(players, dumped, {}, DATA) == after
    placed = EVENT.placements(after, list(reversed(players)))
    assert [p.place for p in placed] == list(range(1, count + 1)) and sorted(p.player for p in placed) == players
    assert placed[0].score == max(after.holdings(p).gems for p in players)
    assert any("Alchemy's final gems" in line for line in EVENT.announcement(before, after, over=True))
    assert not any("gems:" in line for line in EVENT.announcement(before, after, over=False))
    summary = EVENT.summary(after)
    assert summary["gems min"] <= summary["gems mean"] <= summary["gems max"]


def test_a_private_view_holds_only_its_readers_values():
    players = ["Ada", "Bo", "Cy", "Di", "Ed"]
    _, state = play(players)
    for p in players:
        frames = EVENT.private_view(state, p)
        text = cells_of(frames)
        assert all(q not in text for q in players if q != p)
        me = dict(frames["my alchemy"].to_numpy())
        assert me["coins"] == state.holdings(p).coins
        assert len(frames["my alchemy rounds"]) == 6
    # another participant's purchases and machine change nothing in Ada's view (their harvest may: yields)
    state = EVENT.setup(players, {}, DATA, random.Random(0))
    quiet = {"Ada": AlchemySubmission(("quartz",))}
    busy = dict(quiet, Bo=AlchemySubmission(buy=(("gold", 5),), machine="ley line tap"))
    views = [EVENT.private_view(EVENT.resolve(state, subs, 1, random.Random(1)).state, "Ada") for subs in (quiet, busy)]
    assert all(views[0][k].equals(views[1][k]) for k in views[0])


def test_the_public_view_and_announcements_say_nothing_of_locations_constructs_or_sales_before_the_end():
    players = ["Ada", "Bo", "Cy", "Di", "Ed", "Fay", "Gus"]
    before, state = play(players)
    alchemy = state.alchemy
    secret = [*alchemy.materials, *(loc.name for loc in alchemy.locations), *alchemy.constructs, *alchemy.sets]
    during = cells_of(EVENT.public_view(state, over=False)) + " ".join(EVENT.announcement(before, state, over=False)[:1])
    assert not [s for s in secret if s in during] and "gems" not in cells_of(EVENT.public_view(state, over=False))
    final = EVENT.public_view(state, over=True)["alchemy participants"]
    assert list(final.columns) == ["participant", "gems"] and len(final) == 7
    assert not [s for s in secret if s in cells_of(EVENT.public_view(state, over=True))]


def test_how_to_submit_and_the_dropdowns_use_the_players_real_options():
    state = EVENT.setup(["Ada", "Bo"], {}, DATA, random.Random(0))
    block = EVENT.how_to_submit(state, "Ada")
    (example,) = block.examples
    assert block.lines[0].startswith("Round 1") and example.rows[0][0] == "harvest" and example.tab == "alchemy"
    parsed = EVENT.parse(state, "Ada", [SubmitRow("Ada", n, example.header, typed, tab="alchemy")
                                        for n, typed in enumerate(example.typed(), start=2)])
    assert parsed.problems == () and parsed.submission is not None
    choices = EVENT.submit_choices(state, "Ada")
    assert choices["action"] == ["harvest", "buy", "machine", "engineer"] and "gold" in choices["item"]


def test_check_data_names_tab_row_and_column_of_each_inconsistency():
    data = {k: [dict(r) for r in rows] for k, rows in DATA.items()}
    data["alchemy recipes"][0]["material"] = "moonpetl"
    data["alchemy materials"][5]["material"] = "gilt"
    data["alchemy recipes"] = [r for r in data["alchemy recipes"] if r["construct"] != "tin bird"]
    data["alchemy machines"][0]["to"] = None
    problems = [str(e) for e in EVENT.check_data(data)]
    assert any(p.startswith("tab 'alchemy recipes', row 2, column 'material': 'moonpetl' is not a material") for p in problems)
    assert any("a list with a material called 'gold'" in p for p in problems)
    assert any(p.startswith("tab 'alchemy constructs', row 14, column 'construct': 'tin bird'") for p in problems)
    assert any(p.startswith("tab 'alchemy machines', row 2, column 'to'") for p in problems)


def test_a_host_edit_of_the_turns_tab_is_read_or_refused_naming_tab_row_and_column():
    players = ["Ada", "Bo"]
    _, state = play(players)
    rows = [dict(r, _row=i) for i, r in enumerate(EVENT.dump(state)["alchemy turns"], 2)]
    rows[0]["harvest"] = "Quartz,  GOLD"  # any case and spacing
    edited = EVENT.load(players, {"alchemy turns": rows}, {}, DATA)
    assert edited.history[0].reports["Ada"].turn.harvest == ("quartz", "gold")
    bad = [dict(r) for r in rows]
    bad[1]["engineer"] = "tin bird ×2, dragon"
    bad[2]["machine"] = "deep drill, cloud loom"
    del bad[3]
    with pytest.raises(SchemaErrors) as caught:
        EVENT.load(players, {"alchemy turns": bad}, {}, DATA)
    text = str(caught.value)
    assert "tab 'alchemy turns', row 3, column 'engineer': 'tin bird ×2, dragon' is not a list of names" in text
    assert "tab 'alchemy turns', row 4, column 'machine'" in text
    assert "one row for every participant every round" in text


def test_resolve_is_deterministic():
    # How quick it is is `sheets-host simulate`'s to measure (a benchmark), never a timed test.
    players = [f"P{i}" for i in range(7)]
    state = EVENT.setup(players, {}, DATA, random.Random(0))
    subs = {p: EVENT.bots()["greedy"](state, p, random.Random(p)) for p in players}
    assert EVENT.resolve(state, subs, 1, random.Random(3)) == EVENT.resolve(state, subs, 1, random.Random(3))


def test_the_sample_plays_well_no_construct_dominates_and_machines_are_bought():
    favourites, machines, made = Counter(), Counter(), Counter()
    games = 30
    for seed in range(games):
        _, state = play([f"P{i}" for i in range(7)], ("greedy",), seed)
        per_game = Counter(c for result in state.history for r in result.reports.values() for c in r.made)
        favourites[per_game.most_common(1)[0][0]] += 1
        made.update(per_game)
        machines.update(r.machine for result in state.history for r in result.reports.values() if r.machine)
    assert favourites.most_common(1)[0][1] <= games // 2  # not the same favourite in nearly every game
    assert len(favourites) >= 4
    assert len(made) == 21  # every construct gets made
    assert sum(machines.values()) >= games and len(machines) >= 5


def test_a_state_is_a_value():
    state = EVENT.setup(["Ada"], {}, DATA, random.Random(0))
    assert isinstance(state, AlchemyState) and EVENT.players(state) == ["Ada"]
    assert EVENT.default(state, "Ada") == AlchemySubmission()
    assert isinstance(EVENT.private_view(state, "Ada")["my alchemy rounds"], pd.DataFrame)
