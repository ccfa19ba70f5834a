"""What Wind Guide Me's round did with each part of a submission (issue 34): a stone by its site,
the fake stone, or the missed round of a player without a valid stone. Every "counted" and "not
counted" in a player's `my submissions` is this record, and agrees with their `my stones`."""

import random

import pandas as pd

from sheets_host.engine import commands as engine
from sheets_host.engine.commands import HISTORY
from sheets_host.games.wind_guide_me.state import Placement, WindSubmission
from sheets_host.kit.game import Fate

from tests.conftest import PLAYERS, fixed_clock
from tests.games.wind_guide_me.test_wgm_game import HEADER, rows, seated


def test_a_fake_at_the_site_of_a_real_stone_is_a_problem_of_the_fake_s_row(wgm, state):
    a, b = seated(state, "Blaise"), seated(state, "Blaise", 1)
    parsed = wgm.parse(state, "Blaise", rows("Blaise", ("stone", a, 1, 1, None), ("fake", a, 3, 7, None),
                                             ("stone", b, 1, 2, None)))
    (problem,) = parsed.problems
    assert (problem.row, problem.column) == (3, "site") and "fake dropped" in problem.message
    assert parsed.parts == {f"stone at site {a}": ((None, 2),), f"stone at site {b}": ((None, 4),)}


def test_a_fake_without_a_valid_stone_is_a_problem_of_the_fake_s_row(wgm, state):
    parsed = wgm.parse(state, "Blaise", rows("Blaise", ("stone", 99, 1, 1, None),
                                             ("fake", seated(state, "Blaise", 1), 3, 7, None)))
    assert parsed.submission is None
    assert any(p.row == 3 and "the fake is not placed either" in p.message for p in parsed.problems)


def test_each_stone_and_the_fake_are_parts_of_their_rows(wgm, state):
    a, b, c = (seated(state, "Ada", k) for k in range(3))
    parsed = wgm.parse(state, "Ada", rows("Ada", ("fake", c, 2, 5, None), ("stone", a, 1, 4, 6),
                                          ("stone", b, 3, 2, None)))
    assert parsed.parts == {"fake stone": ((None, 2),), f"stone at site {a}": ((None, 3),),
                            f"stone at site {b}": ((None, 4),)}


def test_the_round_tells_where_each_stone_landed_and_a_missed_round(wgm, state):
    site = seated(state, "Cora")
    others = [p for p in state.sites[site - 1] if p != "Cora"]
    cora_seat = state.sites[site - 1].index("Cora") + 1
    # Someone seated before Cora clockwise from Cora's seat asks for it too: Cora moves on.
    rival = next(p for p in others if state.sites[site - 1].index(p) + 1 == cora_seat % 5 + 1)
    subs = {"Cora": WindSubmission((Placement(site, cora_seat % 5 + 1, 3, 3),)),
            rival: WindSubmission((Placement(site, cora_seat % 5 + 1, 2, 2),)),
            "Emmy": wgm.default(state, "Emmy")}
    fates = wgm.resolve(state, subs, random.Random(0)).fates
    landed = (cora_seat + 1) % 5 + 1
    assert fates["Cora"] == (Fate(f"stone at site {site}", f"stone 3 at site {site}, position {cora_seat % 5 + 1}, "
                                                           f"moved on to position {landed}"),)
    assert fates["Emmy"] == (Fate("missed round", "nothing placed: a penalty of 1 off your final score"),)


def test_a_fake_that_stands_counts_and_says_when_it_goes(wgm, state):
    site = seated(state, "Blaise")
    others = [p for p in state.sites[site - 1] if p != "Blaise"][:3]
    subs = {"Blaise": WindSubmission((Placement(seated(state, "Blaise", 1), 1, 1, 1),), Placement(site, 5, 0, 7)),
            **{p: WindSubmission((Placement(site, 1 + i, 1, 1),)) for i, p in enumerate(others)}}
    (stone, fake) = wgm.resolve(state, subs, random.Random(0)).fates["Blaise"]
    assert stone.counted and fake.counted
    assert fake.what == (f"fake stone of power 7 at site {site}, position 5; gone at the end of the round: "
                         "its site holds 4 stones")


def _type(backend, player, *typed):
    backend.book(f"player:{player}").write({"submit": pd.DataFrame(list(typed), columns=HEADER)})


def test_a_fake_that_finds_no_room_says_not_counted_as_my_stones_shows(folder_backend):
    session = engine.new_game(folder_backend, "wind-guide-me", PLAYERS, 7, clock=fixed_clock,
                              settings={"dark holders": "Ada, Blaise"})
    sites = session.state.sites
    site = next(n for n, seats in enumerate(sites, 1) if {"Ada", "Blaise"} <= set(seats))
    elsewhere = {p: next(n for n, seats in enumerate(sites, 1) if p in seats and n != site) for p in PLAYERS}
    # Round 1: four stones at the site, Blaise's elsewhere.
    free = 5
    for position, player in enumerate([p for p in sites[site - 1] if p != "Blaise"], 1):
        _type(folder_backend, player, ["stone", site, position, 1, None])
    _type(folder_backend, "Blaise", ["stone", elsewhere["Blaise"], 1, 1, None])
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    # Round 2: Blaise's stone takes the last position; Ada's fake asks for it too and finds no room.
    _type(folder_backend, "Blaise", ["stone", site, free, 2, None])
    _type(folder_backend, "Ada", ["stone", elsewhere["Ada"], 1, 2, None], ["fake", site, free, 7, None])
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    book = folder_backend.book("player:Ada").read([HISTORY, "my stones"])
    history = book[HISTORY]
    fake = history[history["what you typed"].astype(str).str.startswith("kind: fake")]
    assert fake["what happened"].tolist() == [f"not counted: site {site} was full: no position was left for it"]
    assert "fake" not in book["my stones"]["kind"].tolist()
    stones = history[history["what you typed"].astype(str).str.startswith("kind: stone")]
    assert stones["what happened"].tolist() == ["counted", "counted"]
