"""Spirit Chain's rules as pure functions: the Elemental Evaluation (with the text's three worked
examples), a summoning's effects, upgrades, the auction, the Death Match's winner, the cards tab."""

import random
from collections import Counter

import pandas as pd
import pytest

from sheets_host.engine.play import default_settings
from sheets_host.games import get_game
from sheets_host.games.spirit_chain.cards import Card, Effect, Element, Rank, parse_effect, read_cards
from sheets_host.games.spirit_chain.rules import (Fate, Sale, apply_upgrades, auction, available_upgrades, clash,
                                                  death_match_winner, elemental_evaluation, summon, upgrade_problem,
                                                  upgrade_to)
from sheets_host.games.spirit_chain.tabs import CARDS_TAB
from sheets_host.kit.cells import CellError
from sheets_host.kit.errors import SchemaErrors
from sheets_host.kit.table import TEMPLATES

BOOK = read_cards(default_settings(get_game("spirit-chain"))["data"]["cards"])
R, N, D = Fate.RESOLVED, Fate.NEGATED, Fate.DESTROYED


def card(title: str) -> Card:
    return BOOK[title]


def spirit(element: Element, rank: Rank, **effect) -> Card:
    return Card(f"{element.name} {rank.name}", element, rank, Effect(**effect))


# ---- the Elemental Evaluation ----------------------------------------------------------------


def test_worked_example_1_fire_ii_destroys_fire_i_or_wind_i_and_resolves():
    for lower in ("FIRE I", "WIND I"):
        assert elemental_evaluation(card("FIRE II"), card(lower)) == (R, D)
        assert elemental_evaluation(card(lower), card("FIRE II")) == (D, R)
        # In a summoning: FIRE II's damage 13 lands, the destroyed card deals nothing and leaves the deck.
        s = summon((100, 100), [(card("FIRE II"), None, None), (card(lower), None, None)])
        assert s.lights == (100, 87) and s.leaving == ((), (lower,))


def test_worked_example_2_fire_ii_negates_earth_i_which_is_not_destroyed():
    assert elemental_evaluation(card("FIRE II"), card("EARTH I")) == (R, N)
    # EARTH I (damage 3; shield 4) is negated: no damage, no shield against FIRE II's 13; it returns.
    s = summon((100, 100), [(card("FIRE II"), None, None), (card("EARTH I"), None, None)])
    assert s.lights == (100, 87) and s.leaving == ((), ())


def test_worked_example_3_fire_ii_against_water_i_resolves_both():
    assert elemental_evaluation(card("FIRE II"), card("WATER I")) == (R, R)
    # Both effects: FIRE II deals 13; WATER I drains 3 (3 damage, 3 healed); neither leaves the deck.
    s = summon((100, 100), [(card("FIRE II"), None, None), (card("WATER I"), None, None)])
    assert s.lights == (97, 90) and s.leaving == ((), ())


def test_typing_earth_beats_water_beats_fire_beats_wind_beats_earth():
    E = Element
    wins = {(a, b) for a in E for b in E if a.beats(b)}
    assert wins == {(E.EARTH, E.WATER), (E.WATER, E.FIRE), (E.FIRE, E.WIND), (E.WIND, E.EARTH)}


def test_equal_ranks_destroy_only_by_typing_advantage():
    assert elemental_evaluation(card("EARTH II"), card("WATER II")) == (R, D)
    assert elemental_evaluation(card("WIND III"), card("EARTH III")) == (R, D)
    assert elemental_evaluation(card("EARTH II"), card("FIRE II")) == (R, R)  # no advantage either way
    assert elemental_evaluation(card("FIRE I"), card("FIRE I")) == (R, R)  # same element, same rank


def test_rank_iv_always_destroys_rank_i_even_when_rank_i_wins_the_typing():
    for element in Element:
        for lower in Element:
            assert elemental_evaluation(BOOK.spirit(element, Rank.IV), BOOK.spirit(lower, Rank.I)) == (R, D)
    # Water wins the typing against fire: against FIRE II or III, WATER I keeps its effect; not against IV.
    assert elemental_evaluation(card("FIRE III"), card("WATER I")) == (R, R)
    assert elemental_evaluation(card("FIRE IV"), card("WATER I")) == (R, D)


def test_a_rank_gap_of_two_follows_the_same_rules():
    assert elemental_evaluation(card("WIND III"), card("WIND I")) == (R, D)  # same element
    assert elemental_evaluation(card("WIND III"), card("EARTH I")) == (R, D)  # higher wins the typing
    assert elemental_evaluation(card("WIND III"), card("WATER I")) == (R, N)  # no advantage: negated
    assert elemental_evaluation(card("WIND III"), card("FIRE I")) == (R, R)  # lower wins the typing
    assert elemental_evaluation(card("WIND IV"), card("FIRE II")) == (R, R)


def test_the_higher_rank_is_never_negated_or_destroyed():
    spirits = [c for c in BOOK.cards if c.is_spirit]
    for a in spirits:
        for b in spirits:
            if a.rank > b.rank:
                assert elemental_evaluation(a, b)[0] is R


# ---- a summoning -------------------------------------------------------------------------------


def test_destroyed_spirits_leave_the_deck_and_surviving_spirits_return():
    s = summon((130, 130), [(card("FIRE II"), card("FIRE II"), None), (card("FIRE I"), card("EARTH I"), None)])
    assert [c.fates for c in s.clashes[:2]] == [(R, D), (R, N)]
    assert s.leaving == ((), ("FIRE I",))  # the negated EARTH I returns


def test_neutral_actions_are_used_up_even_when_their_effect_fails():
    s = summon((130, 130), [(card("NULLIFY"), card("BANISH"), card("SMITE")), (None, None, card("NULLIFY"))])
    assert [c.failed[0] for c in s.clashes] == [True, True, True]  # nothing to negate or destroy; SMITE negated
    assert s.leaving == (("NULLIFY", "BANISH", "SMITE"), ("NULLIFY",))


def test_imprison_is_not_used_up_when_it_fails():
    for opposing in (None, card("SMITE")):  # an empty slot; an action, which cannot be imprisoned
        s = summon((130, 130), [(card("IMPRISON"), None, None), (opposing, None, None)])
        assert s.clashes[0].failed[0] and s.leaving[0] == () and s.locked == ((), ())
    negated = summon((130, 130), [(card("IMPRISON"), None, None), (card("NULLIFY"), None, None)])
    assert negated.clashes[0].fates[0] is N and negated.leaving[0] == ()


def test_imprison_that_works_is_used_up_and_locks_the_opposing_spirit():
    s = summon((130, 130), [(card("IMPRISON"), None, None), (card("EARTH II"), None, None)])
    assert s.leaving == (("IMPRISON",), ()) and s.locked == ((), ("EARTH II",))
    # Tengu (WIND III: damage 19; imprison) destroys EARTH I by typing: a spirit leaving the deck stays unlocked.
    destroyed = summon((130, 130), [(card("WIND III"), None, None), (card("EARTH I"), None, None)])
    assert destroyed.leaving == ((), ("EARTH I",)) and destroyed.locked == ((), ())
    negated = summon((130, 130), [(card("WIND III"), None, None), (card("WATER I"), None, None)])
    assert negated.locked == ((), ("WATER I",))  # negated, but it stays in the deck


def test_all_effects_resolve_simultaneously():
    s = summon((100, 100), [(card("NULLIFY"), card("BANISH"), card("FIRE I")),
                            (card("NULLIFY"), card("BANISH"), card("WIND I"))])
    assert s.clashes[0].fates == (N, N)  # each negates the other
    assert s.clashes[1].fates == (D, D)  # each destroys the other
    both = summon((100, 100), [(card("SMITE"), None, None), (card("SMITE"), None, None)])
    assert both.lights == (88, 88)


def test_a_destroyed_or_negated_card_has_no_effect():
    s = summon((100, 100), [(card("FIRE II"), card("FIRE II"), None), (card("FIRE I"), card("EARTH I"), None)])
    assert s.damage == (0, 26)  # FIRE I destroyed and EARTH I negated deal nothing
    negated = summon((100, 100), [(card("SMITE"), None, None), (card("NULLIFY"), None, None)])
    assert negated.lights == (100, 100)


def test_heal_never_raises_lights_above_130():
    s = summon((125, 125), [(card("MEND"), None, None), (None, None, None)])
    assert s.lights == (130, 125)
    drained = summon((129, 129), [(card("SIPHON"), None, None), (None, None, None)])
    assert drained.lights == (130, 121)


def test_effects_add_up_before_the_130_cap():
    s = summon((125, 125), [(card("MEND"), None, None), (card("SMITE"), None, None)])
    assert s.lights == (128, 125)  # 125 - 12 + 15, not min(130, 140) - 12


def test_shields_absorb_damage_this_summoning_only():
    s = summon((100, 100), [(card("WARD"), card("EARTH I"), None), (card("SMITE"), card("FIRE I"), card("SIPHON"))])
    # Shields 15 + 4 against 12 + 6 + 8 damage: 7 gets through; SIPHON heals its owner 8.
    assert s.damage == (7, 3) and s.lights == (93, 105)
    assert summon((100, 100), [(None,) * 3, (card("SMITE"), None, None)]).lights == (88, 100)


def test_drain_deals_damage_and_heals():
    s = summon((100, 100), [(card("WATER II"), None, None), (None, None, None)])
    assert s.lights == (107, 93) and s.healed == (7, 0)


def test_neutral_actions_meet_spirits_without_an_elemental_evaluation():
    assert clash(card("SMITE"), card("FIRE IV")).fates == (R, R)
    assert clash(card("BANISH"), card("FIRE IV")).fates == (R, D)


def test_a_spirit_s_own_negate_acts_on_the_opposing_card_after_the_evaluation():
    # Amaterasu (WIND IV: damage 34; negate) negates an action; against a Rank I the evaluation destroys.
    c = clash(card("WIND IV"), card("SMITE"))
    assert c.fates == (R, N) and c.leaves_deck(1)
    assert clash(card("WIND IV"), card("EARTH I")).fates == (R, D)


# ---- upgrades ------------------------------------------------------------------------------------


def test_three_rank_i_of_one_element_make_a_rank_ii():
    free = Counter({"EARTH I": 3})
    u = upgrade_to(BOOK, card("EARTH II"))
    assert u.sources == ("EARTH I",) * 3 and upgrade_problem(BOOK, u, free) is None
    assert apply_upgrades(BOOK, free, [u]) == Counter({"EARTH II": 1})
    assert "needs 3 EARTH I; you have 2" in upgrade_problem(BOOK, u, Counter({"EARTH I": 2}))


def test_two_rank_ii_of_one_element_make_a_rank_iii():
    u = upgrade_to(BOOK, card("WATER III"))
    assert u.sources == ("WATER II", "WATER II")
    assert apply_upgrades(BOOK, Counter({"WATER II": 2, "FIRE I": 1}), [u]) == Counter({"WATER III": 1, "FIRE I": 1})
    assert upgrade_problem(BOOK, u, Counter({"WATER II": 1, "FIRE II": 1}))  # mixed elements: no


def test_two_rank_iii_of_any_elements_make_a_rank_iv_of_one_of_their_elements():
    free = Counter({"FIRE III": 1, "WIND III": 1})
    wind = upgrade_to(BOOK, card("WIND IV"), [card("FIRE III")])
    assert wind.sources == ("FIRE III", "WIND III") and upgrade_problem(BOOK, wind, free) is None
    assert apply_upgrades(BOOK, free, [wind]) == Counter({"WIND IV": 1})
    earth = upgrade_to(BOOK, card("EARTH IV"), [card("FIRE III"), card("WIND III")])
    assert "(FIRE IV or WIND IV), not EARTH IV" in upgrade_problem(BOOK, earth, free)
    assert {u.target for u in available_upgrades(BOOK, free)} == {"FIRE IV", "WIND IV"}


def test_available_upgrades_list_every_choice():
    free = Counter({"EARTH I": 3, "FIRE I": 2, "WIND II": 2, "EARTH III": 2})
    assert [u.target for u in available_upgrades(BOOK, free)] == ["EARTH II", "WIND III", "EARTH IV"]
    assert available_upgrades(BOOK, Counter({"EARTH I": 2, "WATER II": 1, "FIRE III": 1})) == []


def test_upgrades_chain_in_the_order_made():
    free = Counter({"FIRE I": 6})
    ii = upgrade_to(BOOK, card("FIRE II"))
    iii = upgrade_to(BOOK, card("FIRE III"))
    assert apply_upgrades(BOOK, free, [ii, ii, iii]) == Counter({"FIRE III": 1})


# ---- the auction and the winner --------------------------------------------------------------------


def test_the_higher_bid_wins_the_card_and_pays_it():
    assert auction([(10, 0, 3, 0, 0), (9, 1, 0, 0, 0)])[:3] == [Sale(0, 10), Sale(1, 1), Sale(0, 3)]


def test_tied_bids_give_the_card_to_nobody_even_at_zero():
    assert auction([(5, 0, 0, 0, 0), (5, 0, 0, 0, 0)]) == [Sale(None)] * 5


def test_an_auction_lot_is_four_rank_i_spirits_then_one_neutral_action():
    seen = Counter()
    for seed in range(300):
        lot = BOOK.draw_lot(random.Random(seed))
        assert len(lot) == 5 and all(c.rank is Rank.I for c in lot[:4]) and not lot[4].is_spirit
        seen.update(c.title for c in lot)
    assert {t for t in seen if card(t).is_spirit} == {"EARTH I", "WATER I", "FIRE I", "WIND I"}
    assert {t for t in seen if not card(t).is_spirit} == {c.title for c in BOOK.cards if not c.is_spirit}
    assert seen["BANISH"] < seen["SMITE"]  # weight 1 against 2


def test_one_player_with_lights_remaining_wins():
    assert death_match_winner((1, 0), 1, False) == (0, "lights remaining")
    assert death_match_winner((-20, 3), 0, False) == (1, "lights remaining")
    assert death_match_winner((1, 1), 0, False) == (None, "")


def test_both_at_or_below_zero_the_smaller_absolute_value_wins():
    assert death_match_winner((0, -1), 1, False)[0] == 0
    assert death_match_winner((-7, -2), 0, False)[0] == 1


def test_a_tie_at_or_below_zero_goes_to_the_death_match_opponent():
    assert death_match_winner((-3, -3), 0, False)[0] == 0
    assert death_match_winner((0, 0), 1, False)[0] == 1


def test_at_the_cycle_cap_more_lights_win_then_the_death_match_opponent():
    assert death_match_winner((40, 41), 0, True) == (1, "the cycle cap: more lights (41 against 40)")
    assert death_match_winner((40, 40), 0, True)[0] == 0


# ---- the cards tab -------------------------------------------------------------------------------


def test_the_sample_cards_are_complete_named_as_the_text_says_and_marked_sample():
    spirits = [c for c in BOOK.cards if c.is_spirit]
    actions = [c for c in BOOK.cards if not c.is_spirit]
    assert len(spirits) == 16 and len(actions) >= 6
    assert (card("EARTH I").name, card("FIRE III").name, card("WIND IV").name) == ("Pixie", "Foxfire", "Amaterasu")
    assert card("IMPRISON").effect == Effect(imprison=True, kept_if_failed=True)
    frame = pd.read_csv(TEMPLATES / "spirit-chain" / "cards.csv", dtype=object)
    assert list(frame.columns) == CARDS_TAB.header and frame["note"].str.startswith("sample").all()


def test_the_effect_vocabulary_reads_every_clause():
    assert parse_effect("DAMAGE 5; heal 2, shield 3 ; drain 1") == Effect(damage=5, heal=2, shield=3, drain=1)
    assert parse_effect("negate; destroy; imprison; kept if failed") == \
        Effect(negate=True, destroy=True, imprison=True, kept_if_failed=True)
    assert parse_effect("none") == Effect() == parse_effect("")
    with pytest.raises(ValueError, match="'heal 2' repeats a clause"):
        parse_effect("heal 1; heal 2")


def rows_of(*specs):
    return [{"_row": n, "name": name, "element": element, "rank": rank, "effect": effect, "auction weight": weight,
             "note": None} for n, (name, element, rank, effect, weight) in enumerate(specs, start=2)]


def sample_rows():
    return [dict(r) for r in default_settings(get_game("spirit-chain"))["data"]["cards"]]


def test_the_cards_tab_names_tab_row_and_column_of_every_error():
    rows = sample_rows()
    rows[0]["effect"] = "damge 3"
    rows[1]["auction weight"] = 2  # EARTH II cannot be auctioned
    rows[16]["rank"] = "I"  # IMPRISON is a Neutral Action
    with pytest.raises(SchemaErrors) as e:
        read_cards(rows)
    text = str(e.value)
    assert "tab 'cards', row 2, column 'effect': 'damge 3' is not an effect: 'damge 3' is not an effect clause; " \
           "allowed: damage N, heal N" in text
    assert "tab 'cards', row 3, column 'auction weight': 2 is not 0 for a Rank II-IV spirit" in text
    assert "tab 'cards', row 18, column 'rank': 'I' is not blank for a Neutral Action" in text


def test_the_cards_tab_needs_one_spirit_of_every_element_at_every_rank():
    rows = sample_rows()
    rows[5]["rank"] = "I"  # Kappa becomes a second WATER I; there is no WATER II
    with pytest.raises(SchemaErrors) as e:
        read_cards(rows)
    assert "row 7, column 'rank': 'I' is not a rank no other WATER spirit has (Undine is WATER I)" in str(e.value)
    del rows[5]
    with pytest.raises(SchemaErrors, match="'no WATER II' is not complete"):
        read_cards(rows)


def test_cards_are_read_in_any_parsable_form():
    for written in ("Pixie", " PIXIE ", "earth 1", "Earth I", "earth1", "EARTH-I", "earth one",
                    "Rank I Earth Elemental", "Rank 1 earth", "Pixie | Rank I Earth", "EARTH I (Pixie)"):
        assert BOOK.read(written).title == "EARTH I", written
    assert BOOK.read("will o the wisp").title == "FIRE I" and BOOK.read("Wind 4").title == "WIND IV"
    assert BOOK.read("imprison").title == "IMPRISON"


def test_a_spirit_s_name_with_another_element_rank_is_refused():
    with pytest.raises(CellError, match="'Pixie [|] Rank II Earth' names Pixie and EARTH II: write one card"):
        BOOK.read("Pixie | Rank II Earth")
    with pytest.raises(CellError, match="names SMITE and FIRE II"):
        BOOK.read("SMITE fire ii")
    assert BOOK.read("Foxfire | FIRE III").title == "FIRE III"


def test_a_word_the_reader_does_not_know_makes_the_cell_unreadable_rather_than_misread():
    for written in ("FIRE II x2", "2 FIRE II", "fire iix2", "earth l", "fire ii please"):
        with pytest.raises(CellError, match="is not a card"):
            BOOK.read(written)


def test_an_action_named_like_an_element_rank_is_read_by_its_name():
    rows = sample_rows() + rows_of(("Fire Wall II", "neutral", None, "shield 10", 1))
    book = read_cards(rows)
    assert book.read("fire wall ii").title == "Fire Wall II" and book.read("fire ii").title == "FIRE II"
