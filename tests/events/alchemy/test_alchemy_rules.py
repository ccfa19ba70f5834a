"""Alchemy's rules as pure functions: harvest, purchases, machines, engineering, the market, the end."""

import random
from dataclasses import replace
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_host.events.alchemy import bots, rules, tabs
from sheets_host.events.alchemy.rules import (buy, engineer, engineering_order, fewest_to_drop, harvest_energy,
                                              harvest_yields, legal_harvest, resolve_round, sales_multiplier, sell)
from sheets_host.events.alchemy.state import (Alchemy, AlchemyState, AlchemySubmission, Attempt, Construct, Effect,
                                              Holdings, Location, Machine, Material, Recipe, Report, RoundResult, Turn)


def _machine(name, coins, effect, source, amount, target=None, material=None, quantity=1):
    return Machine(name, coins, material, quantity, effect, source, target, amount)


A = Alchemy(
    starting_coins=100, energy=17, harvest_base=4,
    locations=(Location("grove"), Location("caves")),
    materials={m.name: m for m in (Material("herb", "grove", 2, 10), Material("root", "grove", 3, 20),
                                   Material("bloom", "grove", 4, None), Material("ore", "caves", 3, 30),
                                   Material("gold", "caves", 6, 100))},
    constructs={c.name: c for c in (Construct("potion", "tonics", Fraction(10)), Construct("elixir", "tonics", Fraction(20)),
                                    Construct("charm", "tonics", Fraction(7)), Construct("golem", "golems", Fraction(30)))},
    recipes={"potion": Recipe("potion", (("herb", 2),)), "elixir": Recipe("elixir", (("herb", 1), ("root", 1))),
             "charm": Recipe("charm", (("herb", 1),)), "golem": Recipe("golem", (("ore", 2), ("gold", 1)))},
    machines={m.name: m for m in (_machine("still", 50, Effect.TRANSMUTE, "ore", 1, target="gold"),
                                  _machine("drill", 40, Effect.YIELD, "ore", 2, material="herb"),
                                  _machine("sieve", 30, Effect.THRIFT, "herb", 1),
                                  _machine("tap", 60, Effect.ENERGY, None, 3))})

def play(turn, holdings=Holdings(100), alchemy=A):
    return resolve_round(alchemy, 1, {"Ada": holdings}, {"Ada": turn}).reports["Ada"]


# ---- (1) harvest -------------------------------------------------------------------------------


def test_a_harvest_yields_the_base_less_the_others_at_its_location_at_least_1():
    assert harvest_yields(A, {"Ada": ("herb",), "Bo": ("ore",)}) == {"Ada": {"herb": 4}, "Bo": {"ore": 4}}  # 0 others
    assert harvest_yields(A, {"Ada": ("herb",), "Bo": ("root",)})["Ada"] == {"herb": 3}  # 1 other, another material
    four = harvest_yields(A, {p: ("herb",) for p in ("Ada", "Bo", "Cy", "Di")})
    assert four["Ada"] == {"herb": 1}  # 3 others
    six = harvest_yields(A, {p: ("herb", "ore") for p in "ABCDEF"})
    assert six["A"] == {"herb": 1, "ore": 1}  # 5 others: the floor of 1


def test_several_materials_at_one_location_cost_x_minus_1_less_energy():
    assert harvest_energy(A, ["herb"]) == 2
    assert harvest_energy(A, ["herb", "root", "bloom"]) == 2 + 3 + 4 - 2
    assert harvest_energy(A, ["herb", "root", "ore", "gold"]) == (2 + 3 - 1) + (3 + 6 - 1)


def test_a_material_named_twice_is_harvested_once():
    kept, drops = legal_harvest(A, ["herb", "herb", "ore"], 17)
    assert kept == ("herb", "ore") and [d.value for d in drops] == ["herb"]


def test_a_harvest_over_the_energy_is_invalid_as_a_whole_and_says_what_to_drop():
    harvest = ["herb", "root", "bloom", "ore", "gold"]  # (2 + 3 + 4 - 2) + (3 + 6 - 1) = 15
    kept, drops = legal_harvest(A, harvest, 12)
    assert kept == ()
    # dropping bloom fits too: as few rows, but an earlier one
    assert "costing at most your 12 energy (it costs 15; without gold it would fit)" in drops[0].why
    report = play(Turn(harvest=tuple(harvest), buy=(("herb", 1),)), Holdings(100), replace(A, energy=12))
    assert report.harvested == {} and report.after.materials == {"herb": 1}  # purchases still happen


def test_the_fewest_materials_to_drop_are_computed_exactly():
    # 8 energy: dropping the cheap herb and root (2 materials) would fit too, but one does
    drop = fewest_to_drop(A, ["herb", "root", "bloom", "ore"], 8)
    assert len(drop) == 1 and harvest_energy(A, [m for m in ["herb", "root", "bloom", "ore"] if m not in drop]) <= 8
    assert fewest_to_drop(A, ["gold", "bloom"], 0) == ("gold", "bloom")


# ---- purchases and machines --------------------------------------------------------------------------


def test_purchases_in_order_drop_what_the_coins_left_cannot_pay_and_go_on():
    kept, drops, coins = buy(A, 50, [("herb", 3), ("ore", 1), ("herb", 2), ("bloom", 1)])
    assert kept == (("herb", 3), ("herb", 2)) and coins == 0
    assert [(d.index, d.value) for d in drops] == [(1, "ore ×1"), (3, "bloom ×1")]
    assert "(1 ore cost 30, 20 left)" in drops[0].why and "cannot be bought" in drops[1].why


def test_a_machine_is_paid_after_the_purchases_and_from_what_the_harvest_brought():
    bought = play(Turn(harvest=("herb",), buy=(("herb", 2),), machine="drill"), Holdings(60))
    assert bought.machine == "drill" and bought.after.coins == 0 and bought.after.materials == {"herb": 5}
    poor = play(Turn(harvest=("herb",), buy=(("herb", 3),), machine="drill"), Holdings(60))
    assert poor.machine is None and "30 left after purchases" in poor.dropped[0].why
    no_herb = play(Turn(harvest=("ore",), machine="drill"), Holdings(60))
    assert no_herb.machine is None and "also costs 1 herb; you held 0" in no_herb.dropped[0].why


def test_each_machine_is_bought_once():
    report = play(Turn(machine="still"), Holdings(100, machines=("still",)))
    assert report.machine is None and "each is bought once" in report.dropped[0].why


def test_a_transmuter_turns_up_to_its_amount_every_round_it_is_owned_from_the_round_it_is_bought():
    first = play(Turn(buy=(("ore", 3),), machine="still"), Holdings(150))
    assert first.after.materials == {"ore": 2, "gold": 1} and first.machined == {"ore": -1, "gold": 1}
    start = {"Ada": first.after}
    second = resolve_round(A, 2, start, {"Ada": Turn()}).reports["Ada"]
    assert second.after.materials == {"ore": 1, "gold": 2}  # the persistence ruling


def test_a_yield_machine_adds_to_its_owners_harvest_of_its_material_only():
    report = play(Turn(harvest=("ore", "herb")), Holdings(0, machines=("drill",)))
    assert report.harvested == {"ore": 4, "herb": 4} and report.after.materials == {"ore": 6, "herb": 4}
    assert play(Turn(harvest=("herb",)), Holdings(0, machines=("drill",))).machined == {}


def test_a_thrift_machine_lowers_a_recipe_never_below_0():
    assert rules.recipes(A, ("potion", "charm"), ("sieve",)) == {"potion": {"herb": 1}, "charm": {}}
    report = play(Turn(machine="sieve", engineer=("charm", "potion")), Holdings(30, materials={"herb": 1}))
    assert report.made == ("charm", "potion") and report.after.materials == {}


def test_an_energy_machine_counts_from_the_next_round():
    first = play(Turn(harvest=("herb", "root", "bloom", "ore", "gold", "herb"), machine="tap"), Holdings(60))
    assert first.energy == 17 and first.after.machines == ("tap",)  # bought this round: still 17
    second = resolve_round(A, 2, {"Ada": first.after}, {"Ada": Turn()}).reports["Ada"]
    assert second.energy == 20 and rules.energy(A, second.after.machines) == 20


# ---- engineering ----------------------------------------------------------------------------------


def test_engineering_with_shared_materials_follows_the_priorities():
    held = Holdings(0, materials={"herb": 2})
    first = [Attempt("potion", 1, 2), Attempt("charm", 1, 1)]
    report = play(rules.plan(AlchemySubmission(engineer=tuple(first)), random.Random(0)), held)
    assert report.made == ("charm",) and report.failed == ("potion",) and report.after.materials == {"herb": 1}
    assert engineering_order([Attempt("elixir", 2), Attempt("potion", 1, 3), Attempt("charm", 1, 3)],
                             random.Random(0)) == ("potion", "charm", "elixir", "elixir")


def test_without_priorities_the_order_is_random_by_the_seed():
    attempts = [Attempt("potion"), Attempt("charm"), Attempt("elixir")]
    orders = {engineering_order(attempts, random.Random(seed)) for seed in range(20)}
    assert len(orders) > 1
    assert engineering_order(attempts, random.Random(7)) == engineering_order(attempts, random.Random(7))


def test_a_failed_attempt_loses_nothing():
    made, failed, held = engineer({"herb": 1, "root": 0}, ["elixir", "charm"],
                                  {"elixir": {"herb": 1, "root": 1}, "charm": {"herb": 1}})
    assert made == ("charm",) and failed == ("elixir",) and held == {"herb": 0, "root": 0}


# ---- the market -----------------------------------------------------------------------------------


def test_sales_multipliers_by_the_number_sold_in_a_set_by_everyone():
    assert [sales_multiplier(n) for n in (1, 2, 3, 4, 5, 7)] == [
        Fraction(3, 2), Fraction(5, 4), Fraction(1), Fraction(3, 4), Fraction(3, 5), Fraction(3, 5)]
    sales = sell(A, {"Ada": ["potion", "golem"], "Bo": ["charm"]})
    assert [s.multiplier for s in sales["Ada"]] == [Fraction(5, 4), Fraction(3, 2)]
    seven = sell(A, {p: ["charm"] for p in "ABCDEFG"})
    assert all(s.multiplier == Fraction(3, 5) for sales in seven.values() for s in sales)


def test_gems_are_exact_fractions():
    sales = sell(A, {"Ada": ["charm"] * 3, "Bo": ["charm", "potion"]})  # 5 in the set: × 3/5
    assert sum(s.gems for s in sales["Ada"]) == Fraction(63, 5)  # 3 × 7 × 3/5, not 12.6000…01
    assert all(isinstance(s.gems, Fraction) for s in sales["Bo"])


# ---- the end ----------------------------------------------------------------------------------------


def _ended(holdings):
    """A state whose last round left these holdings."""
    reports = {p: Report(Turn(), 17, 0, {}, (), None, {}, (), (), (), (), h) for p, h in holdings.items()}
    return AlchemyState(A, tuple(holdings), (RoundResult(1, reports),))


def test_placements_by_gems_then_unique_constructs_then_gold_then_the_gamewide_tiebreak():
    state = _ended({
        "Ada": Holdings(0, Fraction(10), {"gold": 9}, sold=frozenset({"charm"})),
        "Bo": Holdings(0, Fraction(10), {}, sold=frozenset({"charm", "potion"})),
        "Cy": Holdings(0, Fraction(10), {"gold": 1}, sold=frozenset({"potion"})),
        "Di": Holdings(0, Fraction(21, 2)), "Ed": Holdings(0, Fraction(10), {"gold": 1}, sold=frozenset({"elixir"}))})
    placed = rules.placements(state, ["Ed", "Cy"])
    assert [p.player for p in placed] == ["Di", "Bo", "Ada", "Ed", "Cy"]
    assert [p.place for p in placed] == [1, 2, 3, 4, 5]
    assert placed[2].figures == {"unique constructs sold": 1, "gold held": 9}


# ---- properties ---------------------------------------------------------------------------------------


SAMPLE = tabs.alchemy({}, tabs.sample_data())


def _game(seed: int, players: int) -> AlchemyState:
    state = AlchemyState(SAMPLE, tuple(f"P{i}" for i in range(players)))
    for number in range(1, 7):
        subs = {p: (bots.greedy if i % 2 else bots.random_bot)(state, p, random.Random(f"{seed}/{number}/{p}"))
                for i, p in enumerate(state.participants)}
        state = rules.resolve(state, subs, number, random.Random(f"{seed}/{number}"))
    return state


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(1, 7))
def test_bots_never_hold_negative_and_the_state_round_trips_and_replays(seed, players):
    state = _game(seed, players)
    for result in state.history:
        for report in result.reports.values():
            assert report.after.coins >= 0 and all(n > 0 for n in report.after.materials.values())
    dumped = tabs.dump(state)
    loaded = tabs.load(SAMPLE, state.participants, dumped)
    assert loaded == state and tabs.dump(loaded) == dumped
    assert _game(seed, players) == state


def test_the_random_bot_buys_nothing_when_the_host_prices_no_material():
    """Every price blank in the host's `alchemy materials` is allowed ("blank: it cannot be bought"):
    `simulate` and `demo` play on, the bots buying nothing."""
    unpriced = replace(SAMPLE, materials={n: replace(m, price=None) for n, m in SAMPLE.materials.items()})
    state = AlchemyState(unpriced, ("P0", "P1"))
    assert all(bots.random_bot(state, "P0", random.Random(seed)).buy == () for seed in range(20))
