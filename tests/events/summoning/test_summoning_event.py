"""Summoner's Dream as a festival event (issue 12): its tabs read as people type them, each problem
named; the state tabs (dump, load, host edits refused); privacy of maps, targets and Treasures over
simulated festivals; and a festival played by hand through xlsx books (check, resolve, undo).

The rules: tests/events/summoning/test_summoning_rules.py; battles: tests/events/summoning/test_summoning_battle.py; the data tabs:
tests/events/summoning/test_summoning_data.py."""

from __future__ import annotations

import random
import shutil
from dataclasses import replace

import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine, play
from sheets_host.engine.delivery import submit_frames
from sheets_host.events.summoning import EVENT
from sheets_host.events.summoning import read, rules, tabs, views
from sheets_host.events.summoning.picture import draw_battles
from sheets_host.events.summoning.state import Facing, Stand, SummoningSubmission, Unit
from sheets_host.games import get_game
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaErrors

from tests.conftest import fixed_clock
from .test_summoning_rules import CATALOGUE, PLAYERS, holding, start

ACADEMY = "academy-of-witchcraft-arts"
GAME = get_game(ACADEMY)


def rows(tab: str, *typed: dict, player: str = "Ann") -> list[SubmitRow]:
    header = read.TABS[[t.name for t in read.TABS].index(tab)].header
    return [SubmitRow(player, i, header, values, tab) for i, values in enumerate(typed, 2)]


def messages(parsed) -> list[str]:
    return [f"{p.where()}: {p.message}" for p in parsed.problems]


@pytest.fixture
def rich():
    """Ann with a Son, a Gan and four Familiars, 500 coins to spend, in round 2."""
    turns = {p: rules.turn_of(start(), p, SummoningSubmission(), random.Random(0)).turn for p in PLAYERS}
    state = replace(start(), rounds_played=1, turns=(turns,))
    return holding(state, "Ann", coins=400, towers=(Unit("Son", 1), Unit("Gan", 1)),
                   familiars=(Unit("Fox", 1), Unit("Fox", 2), Unit("Cat", 1), Unit("Toad", 1)))


# ---- reading ---------------------------------------------------------------------------------------


def test_silence_is_nothing_and_says_what_stands():
    parsed = EVENT.parse(start(), "Ann", [])
    assert parsed.submission is None and parsed.problems == ()
    assert parsed.kept == "nothing: last round's map, Towers and Familiars stand, target drawn"


def test_shop_rows_typed_untidily_are_bought_and_bad_ones_named(rich):
    parsed = EVENT.parse(rich, "Ann", rows(
        read.SHOP.name, {"item": " geon ", "quantity": None}, {"item": "fox", "quantity": "2"},
        {"item": "son 1"}, {"item": "Dragon"}, {"item": "Fox", "quantity": "10**9"},
        {"item": "=B2"}, {"item": "Yi 7"}, {"item": "CAT", "quantity": 2.0}))
    sub = parsed.submission
    assert sub.orders == (("buy", "Geon"), ("buy", "Fox"), ("buy", "Fox"), ("upgrade", "Son 1"), ("buy", "Cat"),
                          ("buy", "Cat"))
    said = messages(parsed)
    assert "row 5, column 'item' (A): 'Dragon' is not a Tower or Familiar" in said[0]
    assert "quantity" in said[1] and "'10**9'" in said[1] and "row not bought" in said[1]
    assert "row 7" in said[2] and "formula" in said[2]
    assert said[3].endswith("you have no Yi 7; not bought") and len(said) == 4


def test_over_spending_is_named_on_the_row_dropped(rich):
    parsed = EVENT.parse(rich, "Ann", rows(read.SHOP.name, {"item": "Fox", "quantity": 2}, {"item": "Cat"},
                                           {"item": "Geon"}, {"item": "Geon"}))
    assert parsed.submission.orders == (("buy", "Fox"), ("buy", "Fox"), ("buy", "Cat"), ("buy", "Geon"))
    assert messages(parsed) == ["tab 'summoning shop', row 5, column 'item' (A): the spending rule: 240 coins on "
                                "towers would be more than twice the 80 on familiars; not bought"]


def test_orders_row_map_target_and_parties_each_named(rich):
    offered = rich.offers[2]["Ann"]
    parsed = EVENT.parse(rich, "Ann", rows(read.ORDERS.name, {"map": "Nowhere", "target": "Ann",
                                                              "party A": "1-3", "party B": "2-9"}))
    said = messages(parsed)
    assert any("'Nowhere' is not one of your maps this round" in m and "your map will be " in m for m in said)
    assert any("'Ann' is not a participant you have not invaded yet" in m for m in said)
    assert any("overlap Party A's 1-3" in m for m in said)
    head = {"map": offered[2].upper(), "target": " bo ", "party A": "1 - 2", "party B": "3to4"}
    slots = rows(read.ATTACK.name, *({"slot": str(s), "familiar": f} for s, f in
                                     enumerate(("Fox 1", "Fox 2", "Cat 1", "Toad 1"), 1)))
    good = EVENT.parse(rich, "Ann", rows(read.ORDERS.name, head) + slots)
    assert (good.submission.map, good.submission.target) == (offered[2], "Bo")
    assert good.submission.parties == {"A": (1, 2), "B": (3, 4)} and good.problems == ()


def test_a_slot_typed_twice_is_read_once_and_the_second_row_named(rich):
    """Regression (issue 34): a slot's second row replaced its first, silently, and both counted."""
    parsed = EVENT.parse(rich, "Ann", rows(read.ATTACK.name, {"slot": "1", "familiar": "Fox 1"},
                                           {"slot": "1", "familiar": "Fox 2"}))
    assert parsed.submission.slots == {1: "Fox 1"} and parsed.parts == {"slot 1": ((read.ATTACK.name, 2),)}
    assert [m for m in messages(parsed) if "row" in m] == [
        "tab 'summoning attack', row 3, column 'slot' (A): slot 1 is in row 2 already; row not read"]


def test_parties_the_round_would_not_play_are_named_before_the_deadline(rich):
    """Regression (issue 34): parties typed without slots were read as counting, and the round
    played last round's; parties breaking the half rule with every Familiar in a slot were read
    as counting, and the round split them at the middle. Both are named now, on the row."""
    head = {"party A": "5", "party B": "1-4"}
    alone = EVENT.parse(rich, "Ann", rows(read.ORDERS.name, head))
    assert alone.submission is None
    assert messages(alone) == ["tab 'summoning', row 2, column 'party A' (C): ignored: no Familiar is typed in a "
                               "slot of the 'summoning attack' tab for them"]
    slots = rows(read.ATTACK.name, *({"slot": str(s), "familiar": f} for s, f in
                                     enumerate(("Fox 1", "Fox 2", "Cat 1", "Toad 1"), 1)))
    uneven = EVENT.parse(rich, "Ann", rows(read.ORDERS.name, head) + slots)
    assert uneven.submission.parties is None and set(uneven.parts) == {f"slot {s}" for s in range(1, 5)}
    assert messages(uneven) == ["tab 'summoning', row 2, column 'party A' (C): Party A has 0 Familiars: at least "
                                "half of Party B's 4, rounded down (2); parties split at the middle Familiar"]


def test_defence_rows_legal_kept_and_the_others_named(rich):
    offered = rich.offers[2]["Ann"][0]
    game_map = CATALOGUE.maps[offered]
    land = game_map.beside_tracks[CATALOGUE.towers["Son"].ground][0]
    road = game_map.tracks["B"][2]
    name = lambda c: f"{chr(65 + c[1])}{c[0] + 1}"  # noqa: E731
    parsed = EVENT.parse(rich, "Ann", [
        *rows(read.ORDERS.name, {"map": offered}),
        *rows(read.DEFENCE.name, {"tower": "son 1", "cell": name(land).lower(), "facing": "east"},
              {"tower": "Gan 1", "cell": name(land), "facing": None},
              {"tower": "Yi 1", "cell": "B2"}, {"tower": "Gan 1", "cell": "ZZ99"},
              {"tower": "Gan 1", "cell": name(road), "facing": "up"}, {"tower": "Gan 1", "cell": name(road)})])
    assert parsed.submission.stands == (Stand("Son 1", land, Facing.EAST), Stand("Gan 1", road, Facing.NORTH))
    said = messages(parsed)
    assert any("holds Son 1 already" in m for m in said)
    assert any("'Yi 1' is not one of your Towers" in m for m in said)
    assert any("'ZZ99' is not a cell" in m for m in said)
    assert any("'up' is not a facing" in m and "N, E, S or W" in m for m in said)


def test_attack_rows_by_unit_or_kind_duplicates_named_and_the_left_out_told(rich):
    parsed = EVENT.parse(rich, "Ann", rows(read.ATTACK.name, {"slot": "1", "familiar": "fox"},
                                           {"slot": "2", "familiar": "Fox"}, {"slot": "3", "familiar": "Fox 1"},
                                           {"slot": "4", "familiar": "Mole"}, {"slot": "x", "familiar": "Cat 1"}))
    assert parsed.submission.slots == {1: "Fox 1", 2: "Fox 2"}
    said = messages(parsed)
    assert any("Fox 1 is in slot 1 already" in m for m in said)
    assert any("'Mole' is not one of your Familiars" in m for m in said)
    assert any("'x' is not a slot" in m for m in said)
    assert any("Cat 1 has no slot" in m for m in said) and any("Toad 1 has no slot" in m for m in said)


def test_what_bots_type_reads_back_as_the_same_submission():
    state = start()
    for seed in range(20):
        for p in PLAYERS:
            sub = EVENT.bots()["random"](state, p, random.Random(seed))
            parsed = EVENT.parse(state, p, [SubmitRow(p, i, [], r, r.pop("tab"))
                                            for i, r in enumerate(EVENT.submit_rows(sub), 2)])
            assert parsed.problems == () and parsed.submission == sub


# ---- the state tabs ----------------------------------------------------------------------------------


def played(players=PLAYERS, seed: int = 4, rounds: int = 6):
    state = start(players, seed)
    rng = random.Random(seed)
    for _ in range(min(rounds, 7 - state.first_round)):
        subs = {p: EVENT.bots()["random"](state, p, rng) for p in players}
        state = EVENT.resolve(state, subs, state.round, rng).state
    return state


def records(state) -> dict[str, list[dict]]:
    """The dumped tabs as a host book gives them back: every column present, sheet rows numbered."""
    out = {}
    for schema in tabs.STATE_TABS:
        frame = pd.DataFrame(tabs.dump(state)[schema.name], columns=schema.header, dtype=object)
        out[schema.name] = schema.records(frame.set_axis(range(2, len(frame) + 2)), PLAYERS)
    return out


@pytest.mark.parametrize("players", [PLAYERS, PLAYERS[:6]])
def test_dump_then_load_gives_the_same_state(players):
    state = played(players)
    again = tabs.load(players, CATALOGUE, records(state))
    assert again == state and tabs.dump(again) == tabs.dump(state)
    assert tabs.load(players, CATALOGUE, records(start(players))).offers == start(players).offers


@pytest.mark.parametrize("column, change, expected", [
    ("towers", lambda v: "Yi 9 C4 N", "a turn the rules allow (Yi 9: you have no Yi 9)"),
    ("target", lambda v: "Ann", "a turn the rules allow (target 'Ann'"),
    ("slots", lambda v: "1 Fox", "a turn the rules allow (every Familiar in one slot"),
    ("party A", lambda v: "one to six", "a row the rules can read (party A: 'one to six' is not a range"),
    ("buy", lambda v: "Geon, Geon, Geon, Geon, Geon", "a turn the rules allow (buy Geon:"),
])
def test_a_host_edit_the_rules_refuse_is_named(column, change, expected):
    state = played(rounds=2)
    tabs_read = records(state)
    row = next(r for r in tabs_read[tabs.TURNS_TAB.name] if r["player"] == "Ann" and r["round"] == 2)
    row[column] = change(row[column])
    with pytest.raises(SchemaErrors) as refused:
        tabs.load(PLAYERS, CATALOGUE, tabs_read)
    assert any(expected in str(e) and e.row == row["_row"] for e in refused.value.errors), str(refused.value)


def test_offers_edited_by_the_host_are_checked():
    tabs_read = records(start())
    tabs_read[tabs.OFFERS_TAB.name][0]["maps"] = "Willow Bend, Jade Terraces, Moon Grotto"
    with pytest.raises(SchemaErrors, match="two Blessed Land and two Grotto-Heaven"):
        tabs.load(PLAYERS, CATALOGUE, tabs_read)


# ---- privacy ---------------------------------------------------------------------------------------


def test_the_public_never_shows_maps_chosen_targets_or_treasures_before_the_end():
    """Two rounds alike but for Ann's map, her Towers and everyone's Treasures: the public tabs and
    the announcement are the same; only the end reveals Treasures."""
    state = played(rounds=3)
    turns = dict(state.turns[-1])
    other_map = next(m for m in state.offers[3]["Ann"] if m != turns["Ann"].map)
    base = replace(state, rounds_played=2, turns=state.turns[:-1],
                   invasions=tuple(i for i in state.invasions if i.round < 3))
    before = tabs.load(PLAYERS, CATALOGUE, records(base))
    one = rules.play_round(before, turns)
    two = rules.play_round(before, {**turns, "Ann": replace(turns["Ann"], map=other_map, stands=())})
    assert one.holdings != two.holdings or one.invasions != two.invasions
    a, b = EVENT.public_view(one, False), EVENT.public_view(two, False)
    assert a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a)
    assert EVENT.announcement(before, one, False) == EVENT.announcement(before, two, False)
    text = " ".join(EVENT.announcement(before, one, False))
    assert "Treasure" not in text.replace("Treasures", "") and turns["Ann"].map not in text
    final = EVENT.announcement(before, one, True)
    assert any(str(one.holdings["Ann"].treasures) in line for line in final)


def test_a_player_sees_another_players_map_and_treasures_only_by_invading_them():
    """Ann's map and Towers of round 2 changed: only Ann and those who invaded her read anything
    different in their books; nobody else reads Ann's Treasures."""
    state = played(rounds=2)
    turns = state.turns[-1]
    before = tabs.load(PLAYERS, CATALOGUE, records(replace(
        state, rounds_played=1, turns=state.turns[:1], invasions=tuple(i for i in state.invasions if i.round < 2))))
    other_map = next(m for m in before.offers[2]["Ann"] if m != turns["Ann"].map)
    changed = rules.play_round(before, {**turns, "Ann": replace(turns["Ann"], map=other_map, stands=())})
    invaders = {i.invader for i in state.invasions if i.round == 2 and i.defender == "Ann"}
    for reader in PLAYERS:
        a, b = EVENT.private_view(state, reader), EVENT.private_view(changed, reader)
        alike = a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a)
        assert alike == (reader != "Ann" and reader not in invaders), reader


def test_each_picture_holds_only_its_players_battles():
    state = played(rounds=2)
    number = state.round - 1
    for p in PLAYERS:
        png = draw_battles(state, p)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # changing an invasion Ann took no part in leaves her picture unchanged
    other = next(i for i in state.invasions if i.round == number and "Ann" not in (i.invader, i.defender))
    changed = replace(state, invasions=tuple(replace(i, fates=i.fates[:-1]) if i is other else i
                                             for i in state.invasions))
    assert draw_battles(changed, "Ann") == draw_battles(state, "Ann")
    assert draw_battles(changed, other.defender) != draw_battles(state, other.defender)
    assert draw_battles(start(), "Ann") is None


def test_views_show_a_player_their_own_coins_units_and_battles():
    state = played(rounds=2)
    me = dict(EVENT.private_view(state, "Ann")["my summoning"].to_numpy().tolist())
    assert me["Treasures"] == state.holdings["Ann"].treasures
    assert me["coins to spend this round"] == rules.purse(state.holdings["Ann"])
    units = EVENT.private_view(state, "Ann")["my summoning units"]
    assert list(units["unit"]) == [u.name for u in (*state.holdings["Ann"].towers, *state.holdings["Ann"].familiars)]
    battles = EVENT.private_view(state, "Ann")["my summoning battles"]
    assert (battles["round"] == 2).any() and views.palettes()[0].colour("E")


# ---- by hand through xlsx books -------------------------------------------------------------------------


def typing(backend, player: str, typed: list[dict]) -> None:
    s = engine.open_session(backend, fixed_clock)
    frames = submit_frames(s.game, s.state, player, typed, None)
    backend.book(f"player:{player}").write({t: f for t, f in frames.items() if t in {r["tab"] for r in typed}})


def problems_in_book(backend, player: str) -> list[str]:
    status = backend.book(f"player:{player}").read(["status"])["status"]
    return [str(v) for v in status.loc[status["what"] == "problem", "value"]]


@pytest.fixture(scope="module")
def by_hand(tmp_path_factory):
    """Seven players, all in Summoner's Dream (and Alchemy); round 1 with Ada's bad rows."""
    root = tmp_path_factory.mktemp("summoning")
    backend = XlsxBackend(root / "game")
    names = play.bot_names(7)
    engine.new_game(backend, ACADEMY, names, 3, clock=fixed_clock)
    for player in names:
        backend.book(f"player:{player}").write({"preferences": pd.DataFrame(
            [["Summoner's Dream", "Alchemy", None]], columns=["first", "second", "garnets"], dtype=object)})
    engine.resolve(backend, early=True, clock=fixed_clock)
    typing(backend, "Ada", [{"tab": read.SHOP.name, "item": "Gam"}, {"tab": read.SHOP.name, "item": "Foxx"},
                            {"tab": read.SHOP.name, "item": "Fox", "quantity": 2},
                            {"tab": read.ORDERS.name, "map": "Atlantis", "target": "Blaise"},
                            {"tab": read.DEFENCE.name, "tower": "Gam 1", "cell": "A1", "facing": "sideways"}])
    checked = engine.check(backend, fixed_clock)
    stage = root / "checked"
    shutil.copytree(root / "game", stage)
    resolved = engine.resolve(backend, early=True, clock=fixed_clock)
    return {"backend": backend, "stage": stage, "names": names, "checked": checked, "resolved": resolved}


def test_check_names_adas_problems_in_her_own_book(by_hand):
    backend = XlsxBackend(by_hand["stage"])
    said = problems_in_book(backend, "Ada")
    assert any("'Foxx' is not a Tower or Familiar (did you mean 'Fox'?)" in m for m in said), said
    assert any("'Atlantis' is not one of your maps this round" in m for m in said), said
    assert any("'sideways' is not a facing" in m for m in said), said
    assert problems_in_book(backend, "Blaise") == []


def test_resolved_ada_bought_invaded_blaise_and_her_book_shows_it(by_hand):
    backend = by_hand["backend"]
    state = engine.open_session(backend, fixed_clock).state.events["summoning"]
    ada = state.holdings["Ada"]
    assert [u.name for u in ada.towers] == ["Gam 1"] and [u.name for u in ada.familiars] == ["Fox 1", "Fox 2"]
    assert ada.invaded == ("Blaise",) and ada.sent == 2
    battles = backend.book("player:Ada").read(["my summoning battles"])["my summoning battles"]
    assert battles["what"].str.contains("your invasion of Blaise").any()
    pictures = backend.output_dir() / "private"
    assert len(list(pictures.glob("Ada-*/round-02.png"))) == 1


def test_undo_then_resolve_again_gives_the_same_round(by_hand, tmp_path):
    shutil.copytree(by_hand["stage"], tmp_path / "game")
    backend = XlsxBackend(tmp_path / "game")
    engine.resolve(backend, early=True, clock=fixed_clock)
    first = engine.open_session(backend, fixed_clock)
    dumped = first.game.dump(first.state)
    engine.undo(backend, clock=fixed_clock)
    engine.check(backend, fixed_clock)
    assert problems_in_book(backend, "Ada") == problems_in_book(XlsxBackend(by_hand["stage"]), "Ada")  # as typed
    engine.resolve(backend, early=True, clock=fixed_clock)
    again = engine.open_session(backend, fixed_clock)
    assert again.game.dump(again.state) == dumped
