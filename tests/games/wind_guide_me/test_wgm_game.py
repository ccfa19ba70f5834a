"""Wind Guide Me as the engine sees it: submissions, the round, state tabs, views, standings."""

import random
from dataclasses import replace

import pandas as pd
import pytest

from sheets_host.engine.play import bot_states, play_in_memory
from sheets_host.games.wind_guide_me.state import Placement, WindState, WindSubmission
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaErrors
from sheets_host.kit.game import rng_for
from sheets_host.kit.layout import lay_out
from sheets_host.kit.result import POWER_OF_DARK, POWER_OF_LIGHT, TOKEN, Owed

from tests.conftest import PLAYERS

HEADER = ["kind", "site", "position", "stone", "light"]


def rows(player, *specs):
    return [SubmitRow(player, n, HEADER, dict(zip(HEADER, spec))) for n, spec in enumerate(specs, start=2)]


def seated(state, player, k=0):
    return [n for n, seats in enumerate(state.sites, 1) if player in seats][k]


def not_seated(state, player):
    return next(n for n, seats in enumerate(state.sites, 1) if player not in seats)


def test_a_tidy_submission_counts_as_typed(wgm, state):
    a, b = seated(state, "Cora"), seated(state, "Cora", 1)
    parsed = wgm.parse(state, "Cora", rows("Cora", ("stone", a, 2, 7, None), (None, b, 5, 1, None)))
    assert parsed.problems == ()
    assert parsed.submission == WindSubmission((Placement(a, 2, 7, 7), Placement(b, 5, 1, 1)))
    assert parsed.kept == f"stone 7 at site {a}, position 2; stone 1 at site {b}, position 5"


def test_stray_spaces_wrong_case_words_and_floats_are_read(wgm, state):
    a, b = seated(state, "Cora"), seated(state, "Cora", 1)
    parsed = wgm.parse(state, "Cora", rows("Cora", ("  STONE ", f" Site #{a} ", "two", " 7.0", ""),
                                           ("Real", float(b), "pos 5", "1", None)))
    assert parsed.problems == () and len(parsed.submission.stones) == 2


def test_a_site_the_player_does_not_sit_at_is_dropped_with_the_open_sites(wgm, state):
    a, bad = seated(state, "Cora"), not_seated(state, "Cora")
    parsed = wgm.parse(state, "Cora", rows("Cora", ("stone", bad, 1, 3, None), ("stone", a, 1, 4, None)))
    (problem,) = parsed.problems
    assert problem.row == 2 and problem.column == "site" and problem.letter == "B"
    assert f"you do not sit at site {bad}" in problem.message and "row dropped" in problem.message
    assert parsed.submission.stones == (Placement(a, 1, 4, 4),)


def test_typos_and_out_of_range_values_name_the_cell_and_what_is_allowed(wgm, state):
    a = seated(state, "Cora")
    parsed = wgm.parse(state, "Cora", rows("Cora", ("stome", a, 1, 3, None), ("stone", "x", 9, 3, None),
                                           ("stone", a, 2, 3, None)))
    messages = [str(p) for p in parsed.problems]
    assert "Cora: row 2, column 'kind' (A): 'stome' is not a kind (did you mean 'stone'?)" in messages[0]
    assert "row 3, column 'site' (B): 'x' is not a whole number (a site: 1 to 21)" in messages[1]
    assert "row 3, column 'position' (C): '9' is out of range (a position: 1 to 5)" in messages[2]
    assert parsed.submission.stones == (Placement(a, 2, 3, 3),)


def test_a_formula_is_not_evaluated_but_reported(wgm, state):
    a = seated(state, "Cora")
    parsed = wgm.parse(state, "Cora", rows("Cora", ("stone", "=B3+1", 1, 3, None), ("stone", a, 2, 3, None)))
    assert "'=B3+1' is a formula; type the value itself" in parsed.problems[0].message


def test_overspending_a_stone_is_dropped(wgm, state):
    a, b = seated(state, "Cora"), seated(state, "Cora", 1)
    parsed = wgm.parse(state, "Cora", rows("Cora", ("stone", a, 1, 7, None), ("stone", b, 1, 7, None)))
    assert "no stone of power 7 left; your stones: 1 1 1 2 2 3 3 4 4 5 5 6 6" in parsed.problems[0].message
    assert parsed.submission.stones == (Placement(a, 1, 7, 7),)


def test_two_stones_at_one_site_and_a_third_stone_are_dropped(wgm, state):
    a, b, c = (seated(state, "Cora", k) for k in range(3))
    parsed = wgm.parse(state, "Cora", rows("Cora", ("stone", a, 1, 1, None), ("stone", a, 2, 2, None),
                                           ("stone", b, 3, 3, None), ("stone", c, 4, 4, None)))
    assert [p.row for p in parsed.problems] == [3, 5]
    assert "already used by another row" in parsed.problems[0].message
    assert "only 2 stones a round" in parsed.problems[1].message
    assert [s.site for s in parsed.submission.stones] == [a, b]


def test_a_site_used_in_an_earlier_round_is_refused(wgm, state):
    a, b = seated(state, "Cora"), seated(state, "Cora", 1)
    after = wgm.resolve(state, {"Cora": WindSubmission((Placement(a, 1, 1, 1),))}, random.Random(0)).state
    parsed = wgm.parse(after, "Cora", rows("Cora", ("stone", a, 1, 2, None), ("stone", b, 1, 2, None)))
    assert f"you already placed a stone at site {a}" in parsed.problems[0].message


def test_an_empty_tab_is_a_missed_round_without_messages(wgm, state):
    parsed = wgm.parse(state, "Cora", [])
    assert parsed.submission is None and parsed.problems == ()


def test_a_wholly_invalid_submission_places_nothing_and_says_so(wgm, state):
    parsed = wgm.parse(state, "Cora", rows("Cora", ("stone", 99, 1, 1, None)))
    assert parsed.submission is None
    assert "nothing is placed this round and the missed-round penalty applies" in parsed.problems[-1].message


def test_power_of_light_rewrites_one_stone_within_reach(wgm, state):
    a, b = seated(state, "Ada"), seated(state, "Ada", 1)
    parsed = wgm.parse(state, "Ada", rows("Ada", ("stone", a, 1, 4, 7), ("stone", b, 1, 2, 5)))
    assert parsed.submission.stones[0] == Placement(a, 1, 4, 7)
    assert "Power of Light is used on one stone only" in parsed.problems[0].message
    assert parsed.submission.stones[1] == Placement(b, 1, 2, 2)


def test_power_of_light_beyond_reach_or_without_the_artefact_is_refused(wgm, state):
    a = seated(state, "Ada")
    far = wgm.parse(state, "Ada", rows("Ada", ("stone", a, 1, 1, 5)))
    assert "changes a stone's power by up to 3 (1 can become 1 to 4)" in far.problems[0].message
    assert far.submission.stones[0].power == 1
    b = seated(state, "Cora")
    none = wgm.parse(state, "Cora", rows("Cora", ("stone", b, 1, 1, 2)))
    assert "you do not hold Power of Light" in none.problems[0].message


def test_power_of_light_is_used_once_a_game(wgm, state):
    a, b = seated(state, "Ada"), seated(state, "Ada", 1)
    after = wgm.resolve(state, {"Ada": WindSubmission((Placement(a, 1, 4, 6),))}, random.Random(0)).state
    assert not after.light_ready("Ada")
    parsed = wgm.parse(after, "Ada", rows("Ada", ("stone", b, 1, 2, 3)))
    assert "already used Power of Light" in parsed.problems[0].message


def test_power_of_dark_places_one_fake_at_another_site(wgm, state):
    a, b, c = (seated(state, "Blaise", k) for k in range(3))
    parsed = wgm.parse(state, "Blaise", rows("Blaise", ("stone", a, 1, 1, None), ("stone", b, 1, 2, None),
                                             ("dark", c, 3, 7, None), ("fake", c, 4, 7, None)))
    assert parsed.submission.fake == Placement(c, 3, 0, 7)
    assert "one fake stone only" in parsed.problems[0].message
    clash = wgm.parse(state, "Blaise", rows("Blaise", ("stone", a, 1, 1, None), ("fake", a, 3, 7, None)))
    assert clash.submission.fake is None and "fake dropped" in clash.problems[0].message
    nobody = wgm.parse(state, "Cora", rows("Cora", ("stone", seated(state, "Cora"), 1, 1, None),
                                           ("fake", seated(state, "Cora", 1), 1, 1, None)))
    assert "you do not hold Power of Dark" in nobody.problems[0].message


def full_round(wgm, state, seed=3):
    return {p: wgm.bot(state, p, rng_for(seed, state.round, f"bot/{p}")) for p in state.players}


def test_a_fake_stands_and_counts_in_the_public_total_then_disappears_at_4_stones(wgm, state):
    site = seated(state, "Blaise")
    seats = state.sites[site - 1]
    fake = WindSubmission((Placement(seated(state, "Blaise", 1), 1, 1, 1),), Placement(site, 1, 0, 7))
    others = [p for p in seats if p != "Blaise"][:2]
    subs = {"Blaise": fake, **{p: WindSubmission((Placement(site, 2 + i, 1, 1),)) for i, p in enumerate(others)}}
    after = wgm.resolve(state, subs, random.Random(0)).state
    assert len(after.boards[site]) == 3 and any(s.fake for s in after.boards[site].values())
    public = wgm.public_view(after)["sites"].set_index("site")
    assert public.loc[site, "total power"] == 9  # 7 (fake) + 1 + 1
    third = [p for p in seats if p not in others and p != "Blaise"][0]
    later = wgm.resolve(after, {third: WindSubmission((Placement(site, 5, 2, 2),))}, random.Random(0)).state
    assert not any(s.fake for s in later.boards[site].values())
    assert [p.gone for p in later.placed if p.stone.fake] == [2]


def test_fakes_disappear_at_the_start_of_the_last_round(wgm, state):
    site = seated(state, "Blaise")
    subs = {"Blaise": WindSubmission((Placement(seated(state, "Blaise", 1), 1, 1, 1),), Placement(site, 1, 0, 7))}
    s = wgm.resolve(state, subs, random.Random(0)).state
    assert any(p.stone.fake and not p.gone for p in s.placed)
    last = replace(s, settings=replace(s.settings, rounds=2))
    end = wgm.resolve(last, {}, random.Random(0))
    assert all(p.gone == 2 for p in end.state.placed if p.stone.fake)
    assert any("start of the last round" in line for line in end.log)


def test_missed_rounds_cost_the_configured_penalty_in_the_standings(wgm, wgm_defaults):
    config = {**wgm_defaults["config"], "missed round penalty": 2.5}
    state = wgm.setup(PLAYERS, 5, config, wgm_defaults["data"])
    while not wgm.is_over(state):
        subs = full_round(wgm, state)
        if state.round in (2, 4):
            subs["Emmy"] = wgm.default(state, "Emmy")
        state = wgm.resolve(state, subs, random.Random(0)).state
    row = wgm.standings(state).set_index("player").loc["Emmy"]
    assert row["missed rounds"] == 2 and row["penalty"] == 5.0
    assert float(row["score"]) == pytest.approx(row["distance"] - 5.0, abs=0.01)
    assert sum(wgm.scores(state)["Emmy"][:1]) - 5.0 == pytest.approx(wgm.scores(state)["Emmy"][2])


def test_a_full_game_places_14_stones_on_14_of_15_sites(wgm, wgm_defaults):
    state = play_in_memory(wgm, PLAYERS, 9, wgm_defaults["config"], wgm_defaults["data"])
    for p in PLAYERS:
        assert sum(state.hand(p).values()) == 0
        assert len(state.open_sites(p)) == 1
    assert not any(s.fake for board in state.boards.values() for s in board.values())


def test_standings_rank_on_full_precision_score_numbers_in_hundredths_and_name_the_result(wgm, wgm_defaults):
    state = play_in_memory(wgm, PLAYERS, 2, wgm_defaults["config"], wgm_defaults["data"])
    table = wgm.standings(state)
    assert list(table["rank"]) == sorted(table["rank"])
    # Numbers, not text: a book shows the column in one format (16.10 beside 26.31), `lay_out`'s.
    assert all(isinstance(s, float) and s == round(s, 2) for s in table["score"])
    assert lay_out(table).columns[list(table.columns).index("score")].number_format == "#,##0.00"
    assert table.iloc[0]["result"].startswith("winner")
    assert table.iloc[-1]["result"] == "Elimination Candidate"


def test_a_tie_for_lowest_is_left_to_the_winners_and_the_host_records_it(wgm, wgm_defaults):
    state = play_in_memory(wgm, PLAYERS, 2, wgm_defaults["config"], wgm_defaults["data"])
    blank = replace(state, placed=(), missed=())  # nobody placed anything: all seven tie at 0
    assert set(wgm.standings(blank)["result"]) == {"winner (more than 3 tied: immunity negated)"}
    two = replace(blank, missed=((1, "Ada"), (1, "Cora")))  # Ada and Cora tie for lowest at -1
    table = wgm.standings(two).set_index("player")
    assert table.loc["Ada", "result"] == table.loc["Cora", "result"] == \
        "tied for lowest: the winners choose the Elimination Candidate"
    decided = replace(two, settings=replace(two.settings, elimination_candidate="Cora"))
    table = wgm.standings(decided).set_index("player")
    assert table.loc["Cora", "result"] == "Elimination Candidate" and table.loc["Ada", "result"] == ""


# ---- state tabs ------------------------------------------------------------------------------


def records(wgm, state):
    return {name: [{"_row": i + 2, **r} for i, r in enumerate(rs)] for name, rs in wgm.dump(state).items()}


def test_state_tabs_round_trip(wgm, wgm_defaults):
    state = play_in_memory(wgm, PLAYERS, 4, wgm_defaults["config"], wgm_defaults["data"])
    loaded = wgm.load(PLAYERS, records(wgm, state), wgm_defaults["config"], wgm_defaults["data"])
    assert loaded == state and loaded.round == 8


def test_a_stone_on_the_position_of_a_fake_gone_before_reads_back_from_the_tabs(wgm, wgm_defaults):
    """A fake stone that disappeared frees its position: a stone placed there in a later round
    stands alone (the `stones` tab was refused, so no command could read the host book again)."""
    config = {**wgm_defaults["config"], "light holders": "Ada, Blaise, Cora", "dark holders": "Cora, Dmitri, Emmy"}
    game = list(bot_states(wgm, PLAYERS, 0, config, wgm_defaults["data"]))
    reused = [(p.site, p.position) for p in game[-1].placed if p.stone.fake and p.gone and any(
        q.site == p.site and q.position == p.position and q.stone.round > p.gone for q in game[-1].placed)]
    assert reused  # seed 0 has one
    for state in game:
        assert wgm.load(PLAYERS, records(wgm, state), config, wgm_defaults["data"]) == state


def test_a_host_edit_that_breaks_the_stones_tab_names_tab_row_and_column(wgm, wgm_defaults):
    state = play_in_memory(wgm, PLAYERS, 4, wgm_defaults["config"], wgm_defaults["data"])
    tabs = records(wgm, state)
    row = tabs["stones"][3]
    outsider = next(p for p in PLAYERS if p not in state.sites[row["site"] - 1])
    row["player"] = outsider
    with pytest.raises(SchemaErrors) as e:
        wgm.load(PLAYERS, tabs, wgm_defaults["config"], wgm_defaults["data"])
    assert f"tab 'stones', row 5, column 'player': '{outsider}' is not seated at site {row['site']}" in str(e.value)


def test_an_edited_seating_that_breaks_the_position_rule_is_refused(wgm, state, wgm_defaults):
    tabs = records(wgm, state)
    first = tabs["sites"][0]
    first["position 1"], first["position 2"] = first["position 2"], first["position 1"]
    with pytest.raises(SchemaErrors) as e:
        wgm.load(PLAYERS, tabs, wgm_defaults["config"], wgm_defaults["data"])
    assert "tab 'sites'" in str(e.value)


# ---- bots and privacy --------------------------------------------------------------------------


def test_what_a_bot_types_parses_back_to_the_same_submission(wgm, state):
    for seed in range(30):
        s = state
        while not wgm.is_over(s):
            subs = full_round(wgm, s, seed)
            for p, orders in subs.items():
                typed = [SubmitRow(p, n, HEADER, r) for n, r in enumerate(wgm.submit_rows(orders), start=2)]
                parsed = wgm.parse(s, p, typed)
                assert parsed.problems == () and parsed.submission == orders
            s = wgm.resolve(s, subs, random.Random(0)).state


def secret_twin(state: WindState, player: str) -> WindState:
    """The same public information with `player`'s secrets changed: powers of their stones at
    sites with fewer than 3 stones (totals there are not public) and, everywhere, which of two
    seated players owns which stone."""
    placed = list(state.placed)
    for i, p in enumerate(placed):
        site_stones = len(state.boards[p.site])
        if p.stone.player == player and not p.gone and site_stones < 3 and not p.stone.fake:
            new = 1 if p.stone.power != 1 else 2
            placed[i] = replace(p, stone=replace(p.stone, power=new, from_hand=new))
    return replace(state, placed=tuple(placed))


def frames_equal(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame]) -> bool:
    return a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a)


def test_no_private_value_reaches_the_public_or_another_player(wgm, wgm_defaults):
    for seed in range(15):
        state = wgm.setup(PLAYERS, seed, wgm_defaults["config"], wgm_defaults["data"])
        while not wgm.is_over(state):
            state = wgm.resolve(state, full_round(wgm, state, seed), random.Random(0)).state
            if wgm.is_over(state):
                break
            for player in PLAYERS:
                twin = secret_twin(state, player)
                if twin == state:
                    continue
                assert frames_equal(wgm.public_view(state), wgm.public_view(twin))
                assert wgm.announcement(state, state) == wgm.announcement(twin, twin)
                for other in PLAYERS:
                    if other != player:
                        assert frames_equal(wgm.private_view(state, other), wgm.private_view(twin, other))
                assert not frames_equal(wgm.private_view(state, player), wgm.private_view(twin, player))


def test_each_player_sees_only_their_own_stones(wgm, wgm_defaults):
    state = play_in_memory(wgm, PLAYERS, 6, wgm_defaults["config"], wgm_defaults["data"])
    for player in PLAYERS:
        mine = wgm.private_view(state, player)["my stones"]
        own = [(p.site, p.position, p.stone.power) for p in state.placed if p.stone.player == player]
        assert list(zip(mine["site"], mine["placed at"], mine["power"])) == own


def test_the_public_view_hides_totals_below_3_stones_and_never_shows_owners(wgm, state):
    site = seated(state, "Cora")
    after = wgm.resolve(state, {"Cora": WindSubmission((Placement(site, 1, 7, 7),))}, random.Random(0)).state
    public = wgm.public_view(after)["sites"].set_index("site")
    assert pd.isna(public.loc[site, "total power"]) and public.loc[site, "occupied"] == "1"
    assert not {"player", "power", "from hand"} & set(public.columns)


def test_the_instructions_follow_the_settings(wgm, wgm_defaults):
    config = {**wgm_defaults["config"], "stones per round": 3, "missed round penalty": 2.5}
    text = "\n".join(b.words() for b in wgm.how_to_submit(wgm.setup(PLAYERS, 1, config, wgm_defaults["data"]), "Ada"))
    assert "3 stone(s)" in text and "a penalty of 2.5" in text


# ---- what the season gets (`Game.result`) ---------------------------------------------------------


def test_the_result_gives_a_sole_winner_2_tokens_and_4_tied_winners_none(wgm, wgm_defaults):
    """The text: the highest score wins a Token of Life, 2 if alone; more than 3 tied, immunity is
    negated. The lowest is the Elimination Candidate; tied, the winners decide."""
    state = play_in_memory(wgm, PLAYERS, 2, wgm_defaults["config"], wgm_defaults["data"])
    # A game of 2 rounds in which nobody placed anything: the missed rounds alone decide the scores.
    blank = replace(state, placed=(), missed=(), settings=replace(state.settings, rounds=2))
    alone = wgm.result(replace(blank, missed=tuple((1, p) for p in PLAYERS[1:]) + ((2, "Cora"),)))
    assert alone.winners == ("Ada",) and alone.earned("Ada", TOKEN) == 2 and alone.candidates == ("Cora",)
    assert alone.owed == ()
    four = wgm.result(replace(blank, missed=((2, "Emmy"), (2, "Felix"), (2, "Grace"))))
    assert four.winners == ("Ada", "Blaise", "Cora", "Dmitri") and not any(c.what == TOKEN for c in four.changes)
    assert four.candidates == () and four.owed == (
        Owed(("Ada", "Blaise", "Cora", "Dmitri"), "the Elimination Candidate", ("Emmy", "Felix", "Grace"),
             "elimination candidate"),)
    three = wgm.result(replace(blank, missed=tuple((2, p) for p in PLAYERS[3:])))
    assert [three.earned(p, TOKEN) for p in PLAYERS[:3]] == [1, 1, 1]
    chosen = replace(blank, missed=((2, "Emmy"), (2, "Felix"), (2, "Grace")),
                     settings=replace(blank.settings, elimination_candidate="Felix"))
    assert wgm.result(chosen).candidates == ("Felix",) and wgm.result(chosen).owed == ()
    assert wgm.result(replace(blank, missed=((1, "Emmy"),))) is None  # round 2 still to play
    assert wgm.result(wgm.setup(PLAYERS, 2, wgm_defaults["config"], wgm_defaults["data"])) is None


def test_the_result_gives_up_each_artefact_used_naming_its_round(wgm, wgm_defaults):
    config = {**wgm_defaults["config"], "light holders": "Ada, Blaise, Cora", "dark holders": "Cora, Dmitri, Emmy"}
    end = play_in_memory(wgm, PLAYERS, 0, config, wgm_defaults["data"])
    used = {(c.player, c.what): (c.amount, c.why) for c in wgm.result(end).changes if c.what != TOKEN}
    lights = {p.stone.player: p.stone.round for p in end.placed if not p.stone.fake and p.stone.power != p.stone.from_hand}
    fakes = {p.stone.player: p.stone.round for p in end.placed if p.stone.fake}
    assert lights and fakes  # seed 0 uses both
    assert used == {**{(p, POWER_OF_LIGHT): (-1, f"used in round {r}") for p, r in lights.items()},
                    **{(p, POWER_OF_DARK): (-1, f"used in round {r}") for p, r in fakes.items()}}
