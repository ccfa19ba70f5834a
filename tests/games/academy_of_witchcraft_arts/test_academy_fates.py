"""What a player of the Academy reads after a round ("counted", "not counted", "what counted") is
the resolver's own record (issue 34): each event tells what its round did with each part of each
submission, the festival keys the parts by event ("alchemy: buy 2"), and `my submissions` agrees
with the events' own private tabs.

The contract over bot festivals (every part told, every row kept gave one):
tests/games/test_fates.py."""

from __future__ import annotations

import random
from dataclasses import replace

import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bot_states, bots, default_settings
from sheets_host.events.alchemy import EVENT as ALCHEMY
from sheets_host.events.alchemy import tabs as alchemy_tabs, views
from sheets_host.events.alchemy.state import (AlchemyState, AlchemySubmission, Attempt, Holdings, Report, RoundResult,
                                              Turn)
from sheets_host.events.summoning import EVENT as SUMMONING
from sheets_host.events.summoning.state import SummoningSubmission, Unit
from sheets_host.games import get_game
from sheets_host.kit.game import rng_for

from tests.conftest import fixed_clock
from tests.events.summoning.test_summoning_rules import PLAYERS as SUMMONERS, holding, start

NAME = "academy-of-witchcraft-arts"
GAME = get_game(NAME)
PLAYERS = ["Ada", "Blaise", "Cora", "Dmitri", "Emmy", "Felix"]
# Only Alchemy run by the tool: what its round refuses is what these books must say.
BY_HAND = {"hosted by hand": "Elemental Continuum, Summoner's Dream"}
LISTS = {"Ada": ["Alchemy", "Summoner's Dream", 1], "Blaise": ["Alchemy", "Elemental Continuum", None],
         "Cora": ["Summoner's Dream", "Elemental Continuum", None]}  # the others silent: drawn
ALCHEMY_HEADER = ["action", "item", "quantity", "priority"]


def history(backend, player: str) -> pd.DataFrame:
    return backend.book(f"player:{player}").read(["my submissions"])["my submissions"]


def said(frame: pd.DataFrame, row: int) -> str:
    """What `my submissions` says of sheet row `row` of the player's `alchemy` tab."""
    mine = frame[(frame["tab"] == "alchemy") & (frame["row"].astype(str) == str(row))]
    assert len(mine) == 1, frame.to_string()
    return mine["what happened"].iloc[0]


def counted_line(frame: pd.DataFrame, label: str) -> str:
    lines = [t for r, t in zip(frame["round"].astype(str), frame["what happened"])
             if r == label and str(t).startswith("what counted: ")]
    assert len(lines) == 1, frame.to_string()
    return lines[0].removeprefix("what counted: ")


@pytest.fixture(scope="module")
def festival(tmp_path_factory):
    """The pregame resolved (three lists typed, three drawn), then round 1 of Alchemy: its first
    participant harvests quartz, buys a machine whose pearl they will not hold after the harvest
    and tries a construct without its materials; the others type nothing."""
    backend = XlsxBackend(tmp_path_factory.mktemp("fates") / "game")
    engine.new_game(backend, NAME, PLAYERS, 3, clock=fixed_clock, settings=BY_HAND)
    host = backend.book("host")
    garnets = host.read(["garnets"])["garnets"]
    garnets["garnets"] = [2 if p == "Ada" else None for p in garnets["player"]]
    host.write({"garnets": garnets})
    for player, row in LISTS.items():
        backend.book(f"player:{player}").write(
            {"preferences": pd.DataFrame([row], columns=["first", "second", "garnets"], dtype=object)})
    engine.resolve(backend, early=True, clock=fixed_clock)
    state = engine.open_session(backend, fixed_clock).state
    alchemist = state.assignment["alchemy"][0]
    typed = [["harvest", "quartz", None, None], ["machine", "starlight prism", None, None],
             ["engineer", "healing draught", None, None]]
    backend.book(f"player:{alchemist}").write({"alchemy": pd.DataFrame(typed, columns=ALCHEMY_HEADER, dtype=object)})
    engine.resolve(backend, early=True, clock=fixed_clock)
    return backend, alchemist, engine.open_session(backend, fixed_clock).state


def test_a_part_the_round_refused_is_not_counted_as_the_alchemy_rounds_tab_says(festival):
    """Regression (issue 34): the machine row was read as counting (its coins were there), the
    round refused it (its pearl was not held after the harvest) and `my alchemy rounds` said so,
    while `my submissions` said the row counted; so did the engineer row whose attempt failed.
    Now each says what the round did, in the words of `my alchemy rounds`."""
    backend, alchemist, state = festival
    mine = history(backend, alchemist)
    rounds = backend.book(f"player:{alchemist}").read(["my alchemy rounds"])["my alchemy rounds"]
    refused, failed = rounds["refused"].iloc[0], rounds["failed attempts"].iloc[0]
    assert refused == ("machine starlight prism: not a machine you can pay (starlight prism also costs 1 pearl; you "
                       "held 0 after the harvest)")
    assert said(mine, 3) == f"not counted: {refused}"
    assert failed == "healing draught"
    assert said(mine, 4) == ("not counted: the attempt failed: the materials its recipe needs were not held when it "
                             "was tried (nothing lost)")
    assert said(mine, 2) == "counted"
    harvested = state.events["alchemy"].history[-1].reports[alchemist].harvested["quartz"]
    assert counted_line(mine, "1") == f"Alchemy: harvest quartz ×{harvested}"


def test_the_pregame_tells_each_list_and_what_came_of_it_as_my_festival_does(festival):
    backend, _, state = festival
    for player in PLAYERS:
        book = backend.book(f"player:{player}").read(["my festival", "my submissions"])
        festival_tab = dict(zip(book["my festival"]["what"], book["my festival"]["value"]))
        line = counted_line(book["my submissions"], "pregame")
        for what in ("my events", "my list", "garnets spent on it", "turned away from"):
            if what in festival_tab:
                assert f"{what}: {festival_tab[what]}" in line, (player, line)
        assert ("drawn (no valid list)" in line) == (player not in LISTS)
    ada = history(backend, "Ada")
    assert ada[ada["tab"] == "preferences"]["what happened"].tolist() == ["counted"]


def test_a_participant_with_nothing_valid_is_told_nothing_counted(festival):
    backend, alchemist, state = festival
    silent = next(p for p in state.assignment["alchemy"] if p != alchemist)
    assert counted_line(history(backend, silent), "1") == "nothing"  # Alchemy's default does nothing


# ---- the events' records -------------------------------------------------------------------------


def alchemy_round(submission: AlchemySubmission, held: dict[str, int], seed: int = 0):
    """Ada's round of Alchemy alone, holding `held`: the state after and the fates told."""
    alchemy = alchemy_tabs.alchemy({}, alchemy_tabs.sample_data())
    before = Report(Turn(), alchemy.energy, 0, {}, (), None, {}, (), (), (), (),
                    Holdings(alchemy.starting_coins, materials=held))
    state = AlchemyState(alchemy, ("Ada",), (RoundResult(0, {"Ada": before}),))
    played = ALCHEMY.resolve(state, {"Ada": submission}, 1, random.Random(seed))
    return played.state, played.account()["Ada"]


def test_every_part_the_round_drops_is_told_as_my_alchemy_rounds_says_it():
    """The round's own refusals (`drops`): a harvest over the energy refuses each material of it,
    a purchase the coins left cannot pay refuses that purchase, and nothing else."""
    sub = AlchemySubmission(harvest=("gold", "phoenix ash", "kraken ink", "starlight dust"),
                            buy=(("gold", 5), ("sea salt", 2), ("gold", 1)))
    after, fates = alchemy_round(sub, {})
    refused = views.private_view(after, "Ada")["my alchemy rounds"]["refused"].iloc[0]
    told = {f.part: f.refused for f in fates}
    assert [p for p, why in told.items() if why] == ["harvest gold", "harvest phoenix ash", "harvest kraken ink",
                                                    "harvest starlight dust", "buy 3"]
    assert refused == "; ".join(dict.fromkeys(why for why in told.values() if why))  # in its words, each once
    assert told["buy 1"] == told["buy 2"] == ""


def test_engineer_rows_are_told_the_attempts_that_made_their_construct_priority_first():
    """A construct's attempts succeed first to last while its materials last: the row with a
    priority is tried first, so it is told what was made; the row without, what failed."""
    need = {"moonpetal": 2, "sea salt": 1}  # a healing draught's recipe: enough for one
    sub = AlchemySubmission(engineer=(Attempt("healing draught", 1), Attempt("healing draught", 1, priority=1)))
    after, fates = alchemy_round(sub, need)
    assert after.history[-1].reports["Ada"].made == ("healing draught",)
    assert [(f.part, f.counted) for f in fates] == [("engineer 1", False), ("engineer 2", True)]
    assert fates[1].what == "engineer healing draught: 1 made"
    twice = AlchemySubmission(engineer=(Attempt("healing draught", 3),))
    _, fates = alchemy_round(twice, {m: 2 * n for m, n in need.items()})
    assert fates[0].what == "engineer healing draught ×3: 2 made, 1 failed" and fates[0].counted


def test_parties_split_again_by_the_round_are_not_counted_and_say_why():
    """Regression (issue 34): Familiars bought this round without a slot join the nearer party;
    when that breaks the half rule the round splits the parties at the middle, silently, while
    the parties typed read as counting. The fate says so, with the parties played."""
    state = holding(start(), "Ann", familiars=tuple(Unit("Fox", n) for n in range(1, 6)))
    slots = {1: "Fox 1", 3: "Fox 2", 4: "Fox 3", 5: "Fox 4"}  # Fox 5 has no slot: slot 2 or 6, drawn
    typed = SummoningSubmission(slots=slots, parties={"A": (1, 1), "B": (3, 5)}, target="Bo")
    seen = set()
    for seed in range(20):
        played = SUMMONING.resolve(state, {p: typed if p == "Ann" else None for p in SUMMONERS}, 1,
                                   random.Random(seed))
        turn = played.state.turns[-1]["Ann"]
        parties = next(f for f in played.account()["Ann"] if f.part == "parties")
        shown = ", ".join(f"Party {p} slot {a}" if a == b else f"Party {p} slots {a}-{b}"
                          for p, (a, b) in turn.parties.items())
        if turn.slots.get(6) == "Fox 5":  # Party B grew to 4 Familiars, Party A has 1: split again
            assert parties.refused == ("Party A has 1 Familiar: at least half of Party B's 4, rounded down (2); "
                                       f"the parties played: {shown}")
        else:
            assert turn.slots[2] == "Fox 5" and parties.counted and parties.what == shown == \
                "Party A slots 1-2, Party B slots 3-5"
        seen.add(parties.counted)
    assert seen == {True, False}


def test_a_silent_summoner_is_told_the_default_s_parts():
    played = SUMMONING.resolve(start(), {p: None for p in SUMMONERS}, 1, random.Random(2))
    turn = played.state.turns[-1]["Ann"]
    fates = played.account()["Ann"]
    assert [f.part for f in fates] == ["map", "towers", "familiars", "target"] and all(f.counted for f in fates)
    assert fates[-1].what == f"invade {turn.target}, drawn at random"


def test_a_festival_player_is_told_each_event_s_default_only_when_nothing_of_theirs_counted():
    """A player with nothing valid anywhere is told each event's default; one whose submission
    counts in one event is told its parts only (no row of theirs gave another event's default)."""
    game, defaults = GAME, default_settings(GAME)
    states = bot_states(game, bots(game, None), 4, defaults["config"], defaults["data"])
    state = next(s for s in states if s.festival_round == 1)
    summoners = [p for p in state.assignment["summoning"] if p in state.assignment["alchemy"]]
    both, silent = summoners[:2]
    moves = {p: game.bot(state, p, rng_for(4, state.round, f"bot/{p}")) for p in state.players}
    moves[both] = replace(moves[both], events={"alchemy": moves[both].events["alchemy"], "summoning": None})
    moves[silent] = game.default(state, silent)
    fates = game.resolve(state, moves, rng_for(4, state.round, "resolve")).fates
    assert not [f for f in fates[both] if f.part.startswith("summoning: ")]
    assert {f.part for f in fates[silent] if f.part.startswith("summoning: ")} == {
        "summoning: map", "summoning: towers", "summoning: familiars", "summoning: target"}
    told = [f.what for f in fates[silent] if f.part.startswith("summoning: ")]
    assert told[0].startswith("Summoner's Dream: map ") and not any("Dream" in w for w in told[1:])  # heads them
