"""Spirit Chain as the engine sees it: phases as rounds, submissions, resolving, state tabs, views,
privacy, bots, simulate and the demo through xlsx books."""

import random
from collections import Counter
from dataclasses import replace

import openpyxl
import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.play import default_settings, demo, play_in_memory, simulate
from sheets_host.games import get_game
from sheets_host.games.spirit_chain.read import SUBMIT_TAB
from sheets_host.games.spirit_chain.rules import Upgrade
from sheets_host.games.spirit_chain.state import Phase, SpiritChainState, SpiritChainSubmission, blank
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.errors import SchemaErrors, SheetsHostError
from sheets_host.kit.game import rng_for
from sheets_host.kit.result import DEATH_MATCH, ELIMINATION, Change

from tests.conftest import fixed_clock

GAME = get_game("spirit-chain")
DEFAULTS = default_settings(GAME)
PLAYERS = ["Ada", "Blaise"]
HEADER = SUBMIT_TAB.header


def setup(seed=1, **config) -> SpiritChainState:
    return GAME.setup(PLAYERS, seed, {**DEFAULTS["config"], **config}, DEFAULTS["data"])


def at(state: SpiritChainState, phase: Phase, decks=({}, {}), **changes) -> SpiritChainState:
    """`state` moved to `phase` of its cycle with these decks (the auction lot closed when past it)."""
    lots = state.lots if phase is Phase.AUCTION else tuple(
        replace(lot, result="tie") if lot.result == "open" else lot for lot in state.lots)
    return replace(state, phase=phase, decks=tuple(Counter(d) for d in decks), lots=lots, **changes)


def rows(player, *specs):
    """Submit rows from dicts of column -> cell."""
    return [SubmitRow(player, n, HEADER, {h: spec.get(h) for h in HEADER}) for n, spec in enumerate(specs, start=2)]


def bids(*values, **more):
    return {**{f"bid {k}": v for k, v in enumerate(values, 1)}, **more}


def slots(*values, **more):
    return {**{f"slot {k}": v for k, v in enumerate(values, 1)}, **more}


def play(state, moves):
    return GAME.resolve(state, dict(zip(PLAYERS, moves)), random.Random(0)).state


# ---- phases and rounds ---------------------------------------------------------------------------


def test_each_phase_part_is_one_round_auction_then_upgrades_then_slots():
    s = setup()
    seen = []
    for _ in range(4):
        seen.append((GAME.round(s), s.cycle, s.phase))
        s = play(s, [GAME.default(s, p) for p in PLAYERS])
    assert seen == [(1, 1, Phase.AUCTION), (2, 1, Phase.UPGRADES), (3, 1, Phase.SLOTS), (4, 2, Phase.AUCTION)]


def test_lights_start_at_130_and_each_player_has_the_configured_reserve():
    s = setup(**{"reserve periods": 6})
    assert s.lights == (130, 130) and s.reserve == (6, 6)


def test_the_announcement_and_both_views_say_which_phase_is_open():
    s = setup()
    after = play(s, [GAME.default(s, p) for p in PLAYERS])
    assert "Now open: Summoning part 1 (upgrades), cycle 1" in GAME.announcement(s, after)
    duel = GAME.public_view(after)["duel"].set_index("what")["value"]
    assert duel["phase open"] == "Summoning part 1 (upgrades), cycle 1"
    mine = GAME.private_view(after, "Ada")["my duel"].set_index("what")["value"]
    assert mine["phase open"] == "Summoning part 1 (upgrades), cycle 1"
    assert mine["submit now"] == "nothing: no upgrade is available to you"


# ---- the auction ---------------------------------------------------------------------------------


def test_bids_are_read_blank_as_zero():
    s = setup()
    parsed = GAME.parse(s, "Ada", rows("Ada", bids(" 12 ", None, "three", 0, "7.0")))
    assert parsed.problems == () and parsed.submission == SpiritChainSubmission(Phase.AUCTION, bids=(12, 0, 3, 0, 7))


def test_bids_totalling_more_than_the_lights_are_invalid_listed_and_count_as_no_bids():
    s = replace(setup(), lights=(40, 130))
    parsed = GAME.parse(s, "Ada", rows("Ada", bids(30, 11)))
    assert "bids total 41, more than your 40 lights: this submission is invalid" in parsed.problems[0].message
    assert parsed.submission is None and GAME.default(s, "Ada") == SpiritChainSubmission(Phase.AUCTION, bids=(0,) * 5)
    after = play(s, [GAME.default(s, "Ada"), SpiritChainSubmission(Phase.AUCTION, bids=(1, 0, 0, 0, 0))])
    assert after.lights == (40, 129) and after.decks[0] == {}
    exactly = GAME.parse(s, "Ada", rows("Ada", bids(30, 10)))  # all of one's lights: allowed
    assert exactly.problems == () and exactly.submission == SpiritChainSubmission(Phase.AUCTION, bids=(30, 10, 0, 0, 0))


def test_bad_bid_cells_name_row_column_and_what_is_allowed():
    parsed = GAME.parse(setup(), "Ada", rows("Ada", bids(1, "lots"), bids(-2), bids("=B2")))
    messages = [str(p) for p in parsed.problems]
    assert "Ada: row 2, column 'bid 2' (C): 'lots' is not a whole number (a bid in lights on" in messages[0]
    assert "row 3, column 'bid 1' (B): '-2' is out of range" in messages[1]
    assert "'=B2' is a formula; type the value itself" in messages[2]
    assert all("this row does not count" in str(p) for p in parsed.problems if p.row)


def test_the_higher_bid_wins_pays_its_bid_and_the_loser_is_refunded():
    s = setup()
    lot = [lot.card for lot in s.open_lot()]
    after = play(s, [SpiritChainSubmission(Phase.AUCTION, bids=(10, 0, 5, 0, 0)), SpiritChainSubmission(Phase.AUCTION, bids=(4, 0, 5, 0, 9))])
    assert after.lights == (120, 121)
    assert after.decks[0] == Counter({lot[0]: 1}) and after.decks[1] == Counter({lot[4]: 1})
    results = [(lot.result, lot.winner, lot.price) for lot in after.lots]
    assert results == [("won", 0, 10), ("tie", None, None), ("tie", None, None), ("tie", None, None), ("won", 1, 9)]


def test_winning_bids_and_ties_are_public_and_losing_bids_are_not():
    s = setup()
    one = play(s, [SpiritChainSubmission(Phase.AUCTION, bids=(10, 0, 5, 0, 0)), SpiritChainSubmission(Phase.AUCTION, bids=(4, 0, 5, 0, 9))])
    two = play(s, [SpiritChainSubmission(Phase.AUCTION, bids=(10, 7, 5, 0, 8)), SpiritChainSubmission(Phase.AUCTION, bids=(0, 7, 5, 0, 9))])
    text = GAME.announcement(s, one)
    assert "won by Ada for 10" in text and "won by Blaise for 9" in text and "tied bids: nobody wins it" in text
    # Non-interference: other losing bids, same winners and prices: the same public view and announcement.
    assert frames_equal(GAME.public_view(one), GAME.public_view(two))
    assert GAME.announcement(s, one) == GAME.announcement(s, two)
    for player in PLAYERS:
        assert frames_equal(GAME.private_view(one, player), GAME.private_view(two, player))


# ---- upgrades ------------------------------------------------------------------------------------


def upgrade(text, decks, player="Ada", **changes):
    s = at(setup(), Phase.UPGRADES, decks, **changes)
    return GAME.parse(s, player, rows(player, {"upgrade": text}))


def test_a_player_with_an_available_upgrade_answers_no_or_yes():
    deck = {"EARTH I": 3, "FIRE I": 6}
    assert upgrade("No.", (deck, {})).submission == SpiritChainSubmission(Phase.UPGRADES)
    yes = upgrade("yes", (deck, {})).submission
    assert [u.target for u in yes.upgrades] == ["EARTH II", "FIRE II", "FIRE II", "FIRE III"]


def test_named_upgrades_are_made_in_the_order_written():
    parsed = upgrade("fire 2, Salamander; FIRE III, earth ii", ({"EARTH I": 3, "FIRE I": 6}, {}))
    assert parsed.problems == ()
    assert [u.target for u in parsed.submission.upgrades] == ["FIRE II", "FIRE II", "FIRE III", "EARTH II"]
    assert "upgrade to FIRE II; upgrade to FIRE II; upgrade to FIRE III; upgrade to EARTH II" in parsed.kept


def test_an_upgrade_may_be_named_with_a_count():
    deck = ({"FIRE I": 6, "EARTH I": 3}, {})
    for text in ("FIRE II x2, FIRE III", "2x Salamander; fire iii", "2 × fire 2 and FIRE III"):
        parsed = upgrade(text, deck)
        assert parsed.problems == ()
        assert [u.target for u in parsed.submission.upgrades] == ["FIRE II", "FIRE II", "FIRE III"]
    assert "FIRE II needs 3 FIRE I; you have none" in upgrade("FIRE II x3", deck).problems[0].message
    assert "make a spirit once or more" in upgrade("FIRE II x0", deck).problems[0].message


def test_an_upgrade_without_the_spirits_for_it_is_refused():
    parsed = upgrade("EARTH II, FIRE II", ({"EARTH I": 3, "FIRE I": 2}, {}))
    assert "'FIRE II': FIRE II needs 3 FIRE I; you have 2 free to use" in parsed.problems[0].message
    assert parsed.submission is None
    wrong = upgrade("EARTH I", ({"EARTH I": 3}, {}))
    assert "EARTH I is not made by an upgrade" in wrong.problems[0].message


def test_a_rank_iv_takes_the_element_of_one_of_its_two_rank_iii():
    deck = ({"FIRE III": 1, "WIND III": 1, "EARTH III": 1}, {})
    ambiguous = upgrade("WIND IV", deck)
    assert "name the two Rank III spirits it is made from, e.g. WIND IV from EARTH III + WIND III or " \
           "WIND IV from FIRE III + WIND III" in ambiguous.problems[0].message
    named = upgrade("Amaterasu from fire iii", deck).submission
    assert named.upgrades == (Upgrade("WIND IV", ("FIRE III", "WIND III")),)
    assert upgrade("wind iv from FIRE III + wind iii", deck).submission == named
    other = upgrade("EARTH IV from FIRE III + WIND III", deck)
    assert "(FIRE IV or WIND IV), not EARTH IV" in other.problems[0].message
    alone = upgrade("FIRE IV", ({"FIRE III": 1, "WATER III": 1}, {})).submission
    assert alone.upgrades == (Upgrade("FIRE IV", ("FIRE III", "WATER III")),)


def test_yes_cannot_choose_the_element_of_a_rank_iv():
    parsed = upgrade("yes", ({"FIRE III": 1, "WIND III": 1}, {}))
    assert "'yes' cannot choose a Rank IV's element: name the upgrades, e.g. FIRE IV from FIRE III + WIND III" \
        in parsed.problems[0].message
    mixed = upgrade("yes", ({"FIRE III": 2, "WIND III": 1}, {}))  # FIRE+FIRE or FIRE+WIND: a choice
    assert "'yes' cannot choose" in mixed.problems[0].message


def test_yes_makes_a_rank_iv_whose_element_is_forced():
    parsed = upgrade("yes", ({"FIRE II": 4}, {}))  # two FIRE III, then the only Rank IV: FIRE
    assert parsed.problems == ()
    assert [u.target for u in parsed.submission.upgrades] == ["FIRE III", "FIRE III", "FIRE IV"]


def test_a_blank_upgrade_cell_is_no_answer():
    s = at(setup(), Phase.UPGRADES, ({"EARTH I": 3}, {}))
    parsed = GAME.parse(s, "Ada", rows("Ada", {"submitted at": "2026-11-22 12:00:05"}))
    assert "say no, yes, or the spirits to make" in parsed.problems[0].message


def test_don_t_upgrade_with_a_curly_apostrophe_is_no():
    assert upgrade("Don’t upgrade", ({"EARTH I": 3}, {})).submission == SpiritChainSubmission(Phase.UPGRADES)


def test_a_player_without_an_available_upgrade_need_not_answer():
    s = at(setup(), Phase.UPGRADES, ({"EARTH I": 2}, {}))
    assert s.upgrades_due(0) == []
    assert GAME.parse(s, "Ada", []).submission is None  # the default: no upgrade, no reserve spent
    refused = GAME.parse(s, "Ada", rows("Ada", {"upgrade": "EARTH II"}))
    assert "no upgrade is available to you (your spirits: EARTH I x2)" in refused.problems[0].message


def test_upgrades_change_only_the_deck_of_their_player():
    s = at(setup(), Phase.UPGRADES, ({"EARTH I": 4}, {"EARTH I": 3}))
    made = GAME.parse(s, "Ada", rows("Ada", {"upgrade": "earth ii"})).submission
    after = play(s, [made, SpiritChainSubmission(Phase.UPGRADES)])
    assert after.decks == (Counter({"EARTH II": 1, "EARTH I": 1}), Counter({"EARTH I": 3}))
    assert after.phase is Phase.SLOTS


def test_imprisoned_spirits_cannot_be_upgraded():
    s = at(setup(), Phase.UPGRADES, ({"EARTH I": 3}, {}), locked=(Counter({"EARTH I": 1}), Counter()))
    assert s.upgrades_due(0) == []


# ---- slots and the summoning --------------------------------------------------------------------


def test_slots_take_cards_of_the_deck_each_copy_once_and_may_be_empty():
    s = at(setup(), Phase.SLOTS, ({"FIRE I": 2, "SMITE": 1}, {}))
    parsed = GAME.parse(s, "Ada", rows("Ada", slots("Will-o'-the-wisp", "empty", "rank I fire")))
    assert parsed.submission == SpiritChainSubmission(Phase.SLOTS, slots=("FIRE I", None, "FIRE I"))
    three = GAME.parse(s, "Ada", rows("Ada", slots("fire i", "FIRE 1", "fire I")))
    assert "you have 2 FIRE I, already in another slot (you may play: FIRE I x2, SMITE)" in three.problems[0].message
    assert GAME.parse(s, "Ada", rows("Ada", slots(None, None, "smite"))).submission.slots == (None, None, "SMITE")


def test_a_card_the_player_lacks_or_that_is_imprisoned_cannot_be_played():
    s = at(setup(), Phase.SLOTS, ({"FIRE I": 1, "EARTH II": 1}, {}), locked=(Counter({"EARTH II": 1}), Counter()))
    lacking = GAME.parse(s, "Ada", rows("Ada", slots("WATER I")))
    assert "column 'slot 1' (H): you have no WATER I (you may play: FIRE I)" in str(lacking.problems[0])
    locked = GAME.parse(s, "Ada", rows("Ada", slots("Kodama")))
    assert "your EARTH II is imprisoned this summoning" in locked.problems[0].message
    typo = GAME.parse(s, "Ada", rows("Ada", slots("Pixy")))
    assert "'Pixy' is not a card (did you mean 'EARTH I'?); allowed: EARTH I, EARTH II" in typo.problems[0].message


def test_a_row_with_only_a_time_is_not_a_submission():
    # A stray row with a time alone must not replace real bids or slots with "nothing".
    s = setup()
    auction = GAME.parse(s, "Ada", rows("Ada", bids(9), {"submitted at": "2026-11-22 12:00:05"}))
    assert auction.submission == SpiritChainSubmission(Phase.AUCTION, bids=(9, 0, 0, 0, 0))
    assert "row 3, column 'bid 1' (B): no bid is filled" in str(auction.problems[0])
    summoning = at(s, Phase.SLOTS, ({"FIRE I": 1}, {}))
    parsed = GAME.parse(summoning, "Ada", rows("Ada", slots("FIRE I"), {"submitted at": "2026-11-22 12:00:05"}))
    assert parsed.submission == SpiritChainSubmission(Phase.SLOTS, slots=("FIRE I", None, None))
    assert "row 3, column 'slot 1' (H): no slot is filled" in str(parsed.problems[0])


def test_a_row_filling_another_phase_s_columns_does_not_count():
    s = setup()
    parsed = GAME.parse(s, "Ada", rows("Ada", bids(5, **{"slot 1": "FIRE I"})))
    assert "'FIRE I' is for the Summoning part 2 (slots), but the Auction is open: fill bid 1, bid 2" \
        in parsed.problems[0].message
    assert parsed.submission is None


def test_a_summoning_updates_lights_decks_history_and_locks():
    s = at(setup(), Phase.SLOTS, ({"FIRE II": 1, "IMPRISON": 1, "SMITE": 1}, {"FIRE I": 1, "EARTH II": 1}))
    after = play(s, [SpiritChainSubmission(Phase.SLOTS, slots=("FIRE II", "IMPRISON", "SMITE")),
                     SpiritChainSubmission(Phase.SLOTS, slots=("FIRE I", "EARTH II", None))])
    # FIRE I is destroyed by FIRE II; EARTH II (damage 7; shield 8) is imprisoned but acts: Ada takes 7,
    # Blaise takes 13 + 12 - 8. IMPRISON worked, so it is used up, like SMITE.
    assert after.lights == (123, 113)
    assert after.decks == (Counter({"FIRE II": 1}), Counter({"EARTH II": 1}))  # FIRE I destroyed
    assert after.locked == (Counter(), Counter({"EARTH II": 1}))
    assert after.played[-2:][0].slots == ("FIRE II", "IMPRISON", "SMITE") and after.cycle == 2
    assert len(after.open_lot()) == 5 and after.phase is Phase.AUCTION


def test_locks_last_one_summoning():
    s = at(setup(), Phase.SLOTS, ({}, {"EARTH II": 1}), locked=(Counter(), Counter({"EARTH II": 1})))
    after = play(s, [blank(Phase.SLOTS), blank(Phase.SLOTS)])
    assert after.locked == (Counter(), Counter()) and after.decks[1] == Counter({"EARTH II": 1})


def test_the_duel_ends_after_a_summoning_that_empties_a_lantern():
    s = at(setup(), Phase.SLOTS, ({"FIRE I": 1}, {}), lights=(50, 6))
    after = play(s, [SpiritChainSubmission(Phase.SLOTS, slots=("FIRE I", None, None)), blank(Phase.SLOTS)])
    assert GAME.is_over(after) and after.winner() == (0, "lights remaining") and after.open_lot() == []
    table = GAME.standings(after)
    assert list(table["player"]) == ["Ada", "Blaise"] and table.iloc[0]["result"] == "winner: lights remaining"
    assert "### Ada wins the Death Match: lights remaining" in GAME.announcement(s, after)


def test_spending_every_light_in_an_auction_does_not_end_the_duel_before_the_summoning():
    s = setup()
    after = play(s, [SpiritChainSubmission(Phase.AUCTION, bids=(130, 0, 0, 0, 0)), blank(Phase.AUCTION)])
    assert after.lights == (0, 130) and not GAME.is_over(after)
    healed = at(after, Phase.SLOTS, ({"MEND": 1}, {}))
    assert not GAME.is_over(play(healed, [SpiritChainSubmission(Phase.SLOTS, slots=("MEND", None, None)), blank(Phase.SLOTS)]))
    assert GAME.is_over(play(at(after, Phase.SLOTS), [blank(Phase.SLOTS)] * 2))


def test_the_death_match_opponent_from_the_config_wins_a_tie():
    for opponent, winner in (("Ada", 0), ("blaise", 1), (None, 1)):
        s = at(setup(**{"death match opponent": opponent}), Phase.SLOTS, lights=(-4, -4))
        after = play(s, [blank(Phase.SLOTS)] * 2)
        assert after.winner() == (winner, "tied at -4 and -4: the Death Match Opponent wins")
    assert GAME.check_config({**DEFAULTS["config"], "death match opponent": "Cora"}, PLAYERS) == [
        "config 'death match opponent': 'Cora' is not a player; allowed: Ada, Blaise"]


def test_the_cycle_cap_ends_the_duel_and_more_lights_win():
    s = at(setup(**{"max cycles": 1}), Phase.SLOTS, lights=(70, 90))
    after = play(s, [blank(Phase.SLOTS)] * 2)
    assert GAME.is_over(after) and after.winner() == (1, "the cycle cap: more lights (90 against 70)")
    assert GAME.summary(after)["ended at the cycle cap"] == 1.0


# ---- state tabs ----------------------------------------------------------------------------------


def records(state):
    return {name: [{"_row": i + 2, **r} for i, r in enumerate(rs)] for name, rs in GAME.dump(state).items()}


def load(tabs, **config):
    typed = {t.name: t.records(t.frame(tabs[t.name]).set_axis(range(2, len(tabs[t.name]) + 2)), PLAYERS)
             for t in GAME.state_tabs}
    return GAME.load(PLAYERS, typed, {**DEFAULTS["config"], **config}, DEFAULTS["data"])


def test_state_tabs_round_trip_through_their_schemas():
    for seed in range(5):
        s = setup(seed)
        while not GAME.is_over(s):
            assert load(GAME.dump(s)) == s
            s = play(s, [GAME.bot(s, p, rng_for(seed, s.round, f"bot/{p}")) for p in PLAYERS])
        assert load(GAME.dump(s)) == s


def test_host_edits_that_break_the_state_name_tab_row_and_column():
    s = play_in_memory(GAME, PLAYERS, 3, DEFAULTS["config"], DEFAULTS["data"])
    tabs = GAME.dump(s)
    tabs["decks"][0]["card"] = "Gryphon"
    tabs["decks"][1]["locked"] = 5
    tabs["lanterns"][0]["lights"] = 131
    tabs["auctions"][0]["result"] = "open"
    with pytest.raises(SchemaErrors) as e:
        load(tabs)
    text = str(e.value)
    assert "tab 'lanterns', row 2, column 'lights': '131' is not a whole number <= 130" in text
    tabs["lanterns"][0]["lights"] = 130
    with pytest.raises(SchemaErrors) as e:
        load(tabs)
    text = str(e.value)
    assert "tab 'decks', row 2, column 'card': 'Gryphon' is not a card of the 'cards' tab (ELEMENT RANK" in text
    assert "tab 'decks', row 3, column 'locked': 5 is not at most the count" in text
    assert "tab 'auctions', row 2, column 'result': 'open' is not 'open' exactly for the cards of the Auction" in text


def test_the_host_may_write_a_card_by_name_in_the_state_tabs():
    s = setup()
    tabs = GAME.dump(at(s, Phase.AUCTION, ({"EARTH I": 2}, {})))
    tabs["decks"][0]["card"] = "pixie"
    assert load(tabs).decks[0] == Counter({"EARTH I": 2})


# ---- bots, privacy, views ------------------------------------------------------------------------


def test_what_a_bot_types_parses_back_to_the_same_submission():
    for seed in range(40):
        s = setup(seed)
        while not GAME.is_over(s):
            moves = [GAME.bot(s, p, rng_for(seed, s.round, f"bot/{p}")) for p in PLAYERS]
            for p, move in zip(PLAYERS, moves):
                typed = [SubmitRow(p, n, HEADER, r) for n, r in enumerate(GAME.submit_rows(move), start=2)]
                parsed = GAME.parse(s, p, typed)
                assert parsed.problems == () and parsed.submission == move, (s.phase, move)
            s = play(s, moves)


def frames_equal(a, b):
    return a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a)


def secret_twin(state: SpiritChainState, seat: int) -> SpiritChainState:
    """The same public information with one player's secrets changed: deck, locks and reserve."""
    decks, locked, reserve = list(state.decks), list(state.locked), list(state.reserve)
    decks[seat] = Counter({"WIND IV": 2, "MEND": 1, **dict(decks[seat])})
    locked[seat] = Counter({"WIND IV": 1})
    reserve[seat] = max(0, reserve[seat] - 3)
    return replace(state, decks=tuple(decks), locked=tuple(locked), reserve=tuple(reserve))


@pytest.mark.slow(12)
def test_decks_and_reserve_never_reach_the_public_or_the_opponent():
    for seed in range(12):
        s = setup(seed)
        while not GAME.is_over(s):
            before, s = s, play(s, [GAME.bot(s, p, rng_for(seed, s.round, f"bot/{p}")) for p in PLAYERS])
            for seat, player in enumerate(PLAYERS):
                twin = secret_twin(s, seat)
                assert frames_equal(GAME.public_view(s), GAME.public_view(twin))
                assert GAME.announcement(before, s) == GAME.announcement(secret_twin(before, seat), twin)
                assert GAME.picture(s) == GAME.picture(twin)
                other = PLAYERS[1 - seat]
                assert frames_equal(GAME.private_view(s, other), GAME.private_view(twin, other))
                assert not frames_equal(GAME.private_view(s, player), GAME.private_view(twin, player))


def test_each_player_s_inventory_is_in_their_own_view_every_round():
    s = setup(4)
    while not GAME.is_over(s):
        for seat, player in enumerate(PLAYERS):
            inventory = GAME.private_view(s, player)["inventory"]
            assert dict(zip(inventory["card"], inventory["count"])) == dict(+Counter(s.decks[seat]))
        s = play(s, [GAME.bot(s, p, rng_for(4, s.round, f"bot/{p}")) for p in PLAYERS])


def test_played_cards_and_lights_are_public_after_each_summoning():
    s = at(setup(), Phase.SLOTS, ({"FIRE II": 1}, {"EARTH I": 1}))
    after = play(s, [SpiritChainSubmission(Phase.SLOTS, slots=(None, "FIRE II", None)), SpiritChainSubmission(Phase.SLOTS, slots=(None, "EARTH I", None))])
    table = GAME.public_view(after)["summonings"]
    assert table.iloc[1].tolist() == [1, 2, "FIRE II", "resolved", "EARTH I", "negated"]
    assert table.iloc[3].tolist() == [1, "lights after", 130, "", 117, ""]
    text = GAME.announcement(s, after)
    assert "| 2 | FIRE II: resolved | EARTH I: negated |" in text and "**Ada** 130, **Blaise** 117" in text


def test_the_picture_is_drawn_after_each_summoning_only():
    s = at(setup(), Phase.SLOTS, ({"FIRE II": 1}, {}))
    assert GAME.picture(setup()) is None and GAME.picture(s) is None
    png = GAME.picture(play(s, [SpiritChainSubmission(Phase.SLOTS, slots=("FIRE II", None, None)), blank(Phase.SLOTS)]))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


# ---- whole duels -----------------------------------------------------------------------------------


def test_bot_duels_end_by_lights_rather_than_the_cap_and_both_seats_win_about_equally():
    report = simulate("spirit-chain", 400, seed=1)
    assert report.averages["ended at the cycle cap"] < 0.05
    assert 160 <= report.wins["Ada"] <= 240 and report.wins["Ada"] + report.wins["Blaise"] == 400
    assert report.averages["summonings"] >= 5


def test_the_demo_plays_a_whole_duel_through_xlsx_books(tmp_path):
    backend = XlsxBackend(tmp_path / "duel")
    report = demo("spirit-chain", backend, 5, say=lambda s: None, clock=fixed_clock)
    assert report.over and report.round % 3 == 0
    public = openpyxl.load_workbook(tmp_path / "duel" / "public.xlsx")
    assert {"duel", "auctions", "summonings", "cards", "status", "announcements"} <= set(public.sheetnames)
    ada = pd.read_excel(tmp_path / "duel" / "players" / "Ada.xlsx", sheet_name=None, engine="openpyxl")
    assert {"my duel", "inventory", "status", "submit"} <= set(ada)
    assert not {"decks", "lanterns"} & set(public.sheetnames)
    with pytest.raises(SheetsHostError, match="takes 2 players; got 3"):
        engine.new_game(XlsxBackend(tmp_path / "three"), "spirit-chain", ["a", "b", "c"], 1)


def test_the_result_names_the_winner_and_the_loser_who_leaves_the_season():
    """The text: one player with lights remaining and the other without wins the Death Match."""
    end = at(setup(), Phase.AUCTION, cycle=2, lights=(12, 0))
    result = GAME.result(end)
    assert GAME.result(replace(end, lights=(12, 3))) is None  # both hold lights: the duel goes on
    assert result.match == DEATH_MATCH and result.winners == (end.players[0],) and result.loser == end.players[1]
    assert result.changes == (Change(end.players[1], ELIMINATION, 1, "lost the Death Match"),)
