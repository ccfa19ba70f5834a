"""Summoner's Dream's rules (issue 12): the spending rule and what an over-spending submission keeps,
upgrades by round, Tower placement and rotation, the party rules, the text's defaults (the last
configuration with new Familiars in empty slots at random, a target drawn among those left), the
start in round 1 or 2, a round's Treasures and counts, and the tie chain."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_host.events.summoning import data, rules, tabs
from sheets_host.events.summoning.state import (COINS_PER_ROUND, SLOTS, Facing, Holdings, Stand, SummoningState,
                                                SummoningSubmission, Turn, Unit)

PLAYERS = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus")
CATALOGUE = data.catalogue(data.sample_data())


def start(players=PLAYERS, seed: int = 1) -> SummoningState:
    return tabs.setup(players, CATALOGUE, random.Random(seed))


def holding(state: SummoningState, player: str, **changes) -> SummoningState:
    return replace(state, holdings={**state.holdings, player: replace(state.holdings[player], **changes)})


# ---- the start -------------------------------------------------------------------------------------


def test_seven_start_in_round_one_and_six_in_round_two_with_round_ones_coins():
    seven, six = start(), start(PLAYERS[:6])
    assert (seven.first_round, six.first_round) == (1, 2)
    assert rules.purse(seven.holdings["Ann"]) == 200 + COINS_PER_ROUND  # round 1's 100 included
    assert rules.purse(six.holdings["Ann"]) == 200 + 2 * COINS_PER_ROUND  # "including Round 1"
    assert all(h.treasures == 50 for h in seven.holdings.values())


def test_with_six_round_twos_shop_also_sells_round_ones_kinds():
    six = start(PLAYERS[:6])
    assert set(rules.on_sale(six, 2)) == set(CATALOGUE.sales[1]) | set(CATALOGUE.sales[2])
    assert set(rules.on_sale(six, 3)) == set(CATALOGUE.sales[3])


def test_each_round_offers_two_maps_of_each_kind_to_each_participant():
    state = start()
    for number in range(1, 7):
        for p in PLAYERS:
            kinds = sorted(CATALOGUE.maps[m].kind.value for m in state.offers[number][p])
            assert kinds == ["blessed land", "blessed land", "grotto-heaven", "grotto-heaven"]
    assert start(seed=1).offers == state.offers and start(seed=2).offers != state.offers


# ---- buying ---------------------------------------------------------------------------------------


def cost(kind: str) -> int:
    return CATALOGUE.towers[kind].cost if kind in CATALOGUE.towers else CATALOGUE.familiars[kind].cost


def test_spending_rule_keeps_each_side_within_twice_the_other():
    state = start()
    assert cost("Gam") == 2 * cost("Fox") < cost("Tae")  # the sample's prices the test relies on
    kept = rules.shop(state, "Ann", [("buy", "Gam"), ("buy", "Fox")], 1)  # exactly twice: allowed
    assert kept.kept == (0, 1) and kept.spent == {"towers": cost("Gam"), "familiars": cost("Fox")}
    refused = rules.shop(state, "Ann", [("buy", "Tae"), ("buy", "Fox")], 1)  # more than twice
    assert refused.kept == () and refused.spent == {"towers": 0, "familiars": 0}
    assert refused.refused[0].startswith(f"the spending rule: {cost('Tae')} coins on towers would be more than "
                                         f"twice the {cost('Fox')} on familiars")


def test_over_spending_drops_the_last_typed_purchase_of_the_larger_side_first():
    state = start()
    orders = [("buy", "Fox"), ("buy", "Son"), ("buy", "Cat"), ("buy", "Gam"), ("buy", "Tae")]
    bought = rules.shop(state, "Ann", orders, 1)
    # Tae, then Gam go (the last towers typed); the familiars typed first stay
    assert bought.kept == (0, 1, 2) and set(bought.refused) == {3, 4}
    assert bought.spent == {"towers": cost("Son"), "familiars": cost("Fox") + cost("Cat")}


def test_only_one_side_breaks_the_rule_and_nothing_is_kept():
    """Ruling: any coins on one side are more than twice the zero on the other."""
    bought = rules.shop(start(), "Ann", [("buy", "Fox"), ("buy", "Cat")], 1)
    assert bought.kept == () and bought.spent == {"towers": 0, "familiars": 0}
    assert all("spending rule" in why for why in bought.refused.values())


def test_purchases_stop_when_coins_run_out_and_later_cheaper_ones_still_count():
    state = holding(start(), "Ann", coins=0)  # 100 to spend
    bought = rules.shop(state, "Ann", [("buy", "Gam"), ("buy", "Tae"), ("buy", "Fox")], 1)
    assert bought.kept == (0, 2)  # Gam 60 + Fox 30; Tae 70 more than the 40 left
    assert bought.refused[1] == f"costs {cost('Tae')} coins; {100 - cost('Gam')} left"


def test_not_on_sale_and_unknown_units_are_refused_with_why():
    bought = rules.shop(start(), "Ann", [("buy", "Geon"), ("upgrade", "Yi 1")], 1)
    assert bought.refused == {0: "Geon is not on sale in round 1", 1: "you have no Yi 1"}


def test_familiar_upgrade_level_x_from_round_x_one_level_at_a_time():
    state = holding(start(), "Ann", towers=(Unit("Son", 1),), familiars=(Unit("Fox", 1),), coins=600)
    assert rules.upgrade_problem(CATALOGUE, Unit("Fox", 1), 1) == \
        "Fox 1 is at level 1: level 2 is for sale from round 2 on"
    assert rules.upgrade_problem(CATALOGUE, Unit("Fox", 1), 2) is None
    assert rules.upgrade_problem(CATALOGUE, Unit("Fox", 2, level=2), 2) == \
        "Fox 2 is at level 2: level 3 is for sale from round 3 on"
    assert rules.upgrade_problem(CATALOGUE, Unit("Fox", 1, level=6), 6) == "Fox 1 is at level 6 already, the highest"
    # the amendment: in round 6 a level-1 Familiar may go up level by level to 6
    late = replace(state, rounds_played=5)
    bought = rules.shop(late, "Ann", [("upgrade", "Fox 1")] * 5 + [("upgrade", "Son 1")] * 2, 6)
    assert {u.name: u.level for u in bought.familiars} == {"Fox 1": 6}
    assert {u.name: u.level for u in bought.towers} == {"Son 1": 3}
    son = CATALOGUE.towers["Son"].levels
    assert bought.spent == {"familiars": 5 * cost("Fox"), "towers": son[1].price + son[2].price}


def test_tower_upgrades_any_round_twice_at_most_each_at_its_price():
    son = CATALOGUE.towers["Son"]
    assert rules.upgrade_price(CATALOGUE, Unit("Son", 1)) == son.levels[1].price
    assert rules.upgrade_price(CATALOGUE, Unit("Son", 1, level=2)) == son.levels[2].price
    assert rules.upgrade_problem(CATALOGUE, Unit("Son", 1, level=3), 6) == "Son 1 is at level 3 already, the highest"
    assert rules.upgrade_price(CATALOGUE, Unit("Fox", 1, level=4)) == CATALOGUE.familiars["Fox"].cost


def test_a_unit_bought_this_round_is_numbered_after_its_kind_and_may_be_upgraded_at_once():
    state = holding(start(), "Ann", towers=(Unit("Son", 1),), familiars=(Unit("Fox", 1),), coins=500)
    bought = rules.shop(state, "Ann", [("buy", "Son"), ("upgrade", "Son 2"), ("buy", "Fox"), ("buy", "Fox"),
                                       ("buy", "Cat")], 1)
    assert [u.name for u in bought.towers] == ["Son 1", "Son 2"] and bought.towers[1].level == 2
    assert [u.name for u in bought.familiars] == ["Fox 1", "Fox 2", "Fox 3", "Cat 1"]


def test_no_more_familiars_than_slots():
    state = holding(start(), "Ann", familiars=tuple(Unit("Fox", n) for n in range(1, SLOTS + 1)), coins=500)
    bought = rules.shop(state, "Ann", [("buy", "Son"), ("buy", "Cat")], 1)
    assert bought.refused[1] == "22 Familiars at most: every Familiar is sent, one a slot"


# ---- defence ----------------------------------------------------------------------------------------


def test_towers_stand_on_land_of_the_maps_kind_and_gan_on_road_only():
    state = holding(start(), "Ann", towers=(Unit("Son", 1), Unit("Gan", 1), Unit("Son", 2)))
    game_map = CATALOGUE.maps["Willow Bend"]
    land = game_map.beside_tracks[CATALOGUE.towers["Son"].ground][0]
    road = game_map.tracks["A"][3]
    treasure = game_map.tracks["A"][-1]
    stands = [Stand("Son 1", land), Stand("Gan 1", road), Stand("Son 2", game_map.tracks["A"][4]), Stand("Gan 1", land),
              Stand("Son 2", treasure), Stand("Son 2", land), Stand("Yi 1", land)]
    kept, refused = rules.legal_stands(state, "Willow Bend", state.holdings["Ann"].towers, stands)
    assert kept == (Stand("Son 1", land), Stand("Gan 1", road))
    why = dict(refused)
    assert "Son stands only on Blessed Land (L)" in why[2] and "Gan 1 is placed already" == why[3]
    assert "not one" in why[4] and why[6] == "you have no Yi 1" and "holds Son 1 already" in why[5]


def test_ranges_turn_with_the_facing():
    assert [f.turn((-2, 1)) for f in Facing] == [(-2, 1), (1, 2), (2, -1), (-1, -2)]


# ---- attack ----------------------------------------------------------------------------------------


def test_parties_are_ranges_apart_each_at_least_half_the_other_rounded_down():
    slots = {s: f"Fox {s}" for s in range(1, 11)}
    assert rules.party_problem(slots, {"A": (1, 5), "B": (6, 10)}) is None  # the text's example
    assert rules.party_problem(slots, {"A": (1, 3), "B": (4, 10)}) is None  # 3 is half of 7 rounded down
    assert rules.party_problem(slots, {"A": (1, 2), "B": (3, 10)}) == \
        "Party A has 2 Familiars: at least half of Party B's 8, rounded down (4)"
    assert rules.party_problem(slots, {"A": (1, 6), "B": (5, 10)}) == \
        "Party A (slots 1-6) and Party B (slots 5-10) overlap"
    assert rules.party_problem(slots, {"A": (1, 4), "B": (6, 10)}) == "Fox 5 in slot 5 is in neither party"
    assert rules.party_problem({1: "Fox 1"}, {"A": (1, 1), "B": (2, 2)}) is None  # one Familiar, B empty


@settings(max_examples=200, deadline=None)
@given(st.sets(st.integers(1, SLOTS), max_size=SLOTS))
def test_even_parties_always_keep_the_party_rules(taken):
    slots = {s: f"Fox {s}" for s in taken}
    assert rules.party_problem(slots, rules.even_parties(slots)) is None


@settings(max_examples=200, deadline=None)
@given(st.sets(st.integers(1, SLOTS), max_size=SLOTS - 1), st.integers(0, 6), st.integers(0, 10 ** 6))
def test_the_default_keeps_the_configuration_and_seats_every_familiar_legally(taken, new, seed):
    """The text's default: the last configuration stands and newly bought Familiars go to empty
    slots at random; the result is always legal and every Familiar is in one slot."""
    slots = {s: f"Fox {i}" for i, s in enumerate(sorted(taken), 1)}
    parties = rules.even_parties(slots)
    familiars = [Unit("Fox", i) for i in range(1, len(slots) + 1)]
    familiars += [Unit("Cat", i) for i in range(1, min(new, SLOTS - len(slots)) + 1)]
    out, out_parties, _ = rules.fill_slots(slots, parties, familiars, random.Random(seed))
    assert sorted(out.values()) == sorted(u.name for u in familiars)
    assert all(out[s] == name for s, name in slots.items())  # nobody moved
    assert rules.party_problem(out, out_parties) is None
    assert rules.fill_slots(slots, parties, familiars, random.Random(seed))[:2] == (out, out_parties)


def test_new_familiars_go_inside_or_just_beside_a_party():
    slots = {1: "Fox 1", 2: "Fox 2", 5: "Fox 3", 6: "Fox 4"}
    parties = {"A": (1, 2), "B": (5, 6)}
    for seed in range(30):
        out, got, _ = rules.fill_slots(slots, parties, [Unit("Fox", n) for n in range(1, 5)] + [Unit("Cat", 1)],
                                    random.Random(seed))
        cat = next(s for s, n in out.items() if n == "Cat 1")
        assert cat in (3, 4, 7)
        assert rules.party_problem(out, got) is None


def test_no_configuration_at_all_seats_the_familiars_from_slot_one_in_random_order():
    familiars = [Unit("Fox", 1), Unit("Fox", 2), Unit("Cat", 1)]
    out, parties, _ = rules.fill_slots({}, {}, familiars, random.Random(3))
    assert sorted(out) == [1, 2, 3] and parties == {"A": (1, 2), "B": (3, 3)}


# ---- a round -----------------------------------------------------------------------------------------


def test_a_silent_round_draws_a_target_among_those_not_yet_invaded_and_keeps_the_defaults():
    state = start()
    turn = rules.turn_of(state, "Ann", SummoningSubmission(), random.Random(5)).turn
    assert turn.target in PLAYERS[1:] and turn.map == state.offers[1]["Ann"][0]
    assert turn.buys == () and turn.slots == {} and turn.stands == ()
    again = rules.turn_of(state, "Ann", SummoningSubmission(target="Ann"), random.Random(5)).turn  # never oneself
    assert again.target != "Ann"


def test_every_participant_invades_every_other_once_over_the_event():
    state = start()
    rng = random.Random(2)
    for _ in range(6):
        state = rules.play_round(state, {p: rules.turn_of(state, p, SummoningSubmission(), rng).turn for p in PLAYERS})
    for p in PLAYERS:
        assert sorted(state.holdings[p].invaded) == sorted(q for q in PLAYERS if q != p)


def test_treasures_move_from_defender_to_invader_and_counts_add_up():
    state = holding(start(), "Ann", familiars=(Unit("Fox", 1), Unit("Fox", 2)))
    turns = {p: rules.turn_of(state, p, SummoningSubmission(target="Bo" if p == "Ann" else None), random.Random(1)).turn
             for p in PLAYERS}
    after = rules.play_round(state, turns)
    ann = [i for i in after.invasions if i.invader == "Ann"][0]
    assert ann.defender == "Bo" and len(ann.fates) == 2 and ann.stolen == 2  # Bo has no Tower
    assert after.holdings["Ann"].treasures - 50 == ann.stolen - sum(i.stolen for i in after.invasions
                                                                     if i.defender == "Ann")
    assert after.holdings["Bo"].treasures == 50 - 2 + sum(i.stolen for i in after.invasions if i.invader == "Bo")
    assert after.holdings["Ann"].sent == 2 and after.holdings["Ann"].coins == rules.purse(state.holdings["Ann"])


def test_ties_go_to_familiars_sent_then_killed_then_towers_built_then_the_gamewide_tiebreak():
    state = start(PLAYERS[:4])
    tied = {"Ann": Holdings(treasures=40, sent=5, kills=3, built=2), "Bo": Holdings(treasures=40, sent=6),
            "Cy": Holdings(treasures=40, sent=5, kills=4), "Di": Holdings(treasures=40, sent=5, kills=3, built=2)}
    order = rules.placements(replace(state, holdings=tied), ["Di", "Ann", "Bo", "Cy"])
    assert [p.player for p in order] == ["Bo", "Cy", "Di", "Ann"]
    assert order[0].figures == {"familiars sent": 6, "familiars killed": 0, "towers built": 0}


def test_a_turn_the_rules_refuse_is_named_for_the_host():
    state = start()
    turn = Turn(buys=("Geon",), map="Nowhere", slots={1: "Fox 9"}, parties={"A": (1, 1), "B": (2, 2)},
                target="Ann")
    problems = rules.turn_problems(state, "Ann", turn)
    assert "buy Geon: Geon is not on sale in round 1" in problems
    assert "map 'Nowhere' is not one of the four offered" in problems
    assert any(p.startswith("every Familiar in one slot") for p in problems)
    assert any(p.startswith("target 'Ann'") for p in problems)


@pytest.mark.parametrize("players,last_round,first", [(7, 6, 1), (6, 6, 2), (5, 6, 3), (2, 6, 6), (1, 6, 7),
                                                      (7, 4, 1), (5, 4, 1), (3, 4, 3), (2, 1, 1), (1, 1, 2)])
def test_the_event_starts_so_that_each_invades_every_other_once(players, last_round, first):
    """The festival's last round ends the event; it plays as many rounds as each has others to
    invade, fewer only when the festival has fewer (a lone participant: none)."""
    assert tabs.first_round(players, last_round) == first
    assert last_round - first + 1 == min(last_round, players - 1)
