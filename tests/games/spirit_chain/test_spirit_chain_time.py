"""Spirit Chain's time controls: which submission counts and what reserve it costs, as parse
chooses it and resolve applies it. Times are typed in the 'submitted at' column; the phase's
window comes from the engine (opened, frozen). No test waits for a clock."""

from dataclasses import replace
from datetime import datetime, timedelta, timezone

from sheets_host.games.spirit_chain.state import Phase, SpiritChainSubmission, blank
from sheets_host.kit.game import Window

from .test_spirit_chain_game import GAME, at, bids, play, rows, setup, slots

OPENED = datetime(2026, 11, 22, 18, 0, tzinfo=timezone.utc)


def t(seconds: float) -> datetime:
    return OPENED + timedelta(seconds=seconds)


def stamp(seconds: float) -> str:
    return f"{t(seconds):%Y-%m-%d %H:%M:%S}"


def window(frozen_after: float) -> Window:
    return Window(OPENED, t(frozen_after))


def test_the_latest_valid_submission_within_the_window_counts():
    s = setup()
    parsed = GAME.parse(s, "Ada", rows("Ada", bids(1, **{"submitted at": stamp(70)}),
                                       bids(2, **{"submitted at": stamp(10)}),
                                       bids(3, **{"submitted at": stamp(80)})), window(300))
    assert parsed.submission == SpiritChainSubmission(Phase.AUCTION, bids=(1, 0, 0, 0, 0))
    assert parsed.kept.startswith("row 2, within the 75 s window: bid 1 on card 1")
    # The rows passed over say why, naming the row that counts.
    assert [(p.row, p.message) for p in parsed.problems] == [
        (3, "a later valid row within the 75 s window counts instead (row 2); this row does not count"),
        (4, "made after the 75 s window: a valid row within it counts instead (row 2); this row does not count")]


def test_without_one_in_the_window_the_earliest_valid_one_in_reserve_counts_and_costs_periods():
    s = setup()
    parsed = GAME.parse(s, "Ada", rows("Ada", bids(4, **{"submitted at": stamp(150)}),
                                       bids(5, **{"submitted at": stamp(100)})), window(300))
    assert parsed.submission == SpiritChainSubmission(Phase.AUCTION, bids=(5, 0, 0, 0, 0), reserve_used=1)
    assert "row 3, in reserve time, 25 s after the window, 1 period" in parsed.kept
    assert [(p.row, p.message) for p in parsed.problems] == [
        (2, "the earliest valid row in reserve time counts instead (row 3); this row does not count")]


def test_reserve_is_spent_in_whole_30_second_periods_begun():
    s = setup()
    for late, periods in ((0, 0), (1, 1), (30, 1), (31, 2), (90, 3), (91, 4)):  # 0: at the deadline, in time
        parsed = GAME.parse(s, "Ada", rows("Ada", bids(1, **{"submitted at": stamp(75 + late)})), window(600))
        assert parsed.submission.reserve_used == periods


def test_ten_periods_of_30_s_are_five_minutes_of_reserve():
    s = setup()
    assert s.reserve == (10, 10)
    last = GAME.parse(s, "Ada", rows("Ada", bids(1, **{"submitted at": stamp(75 + 300)})), window(600))
    assert last.submission == SpiritChainSubmission(Phase.AUCTION, bids=(1, 0, 0, 0, 0), reserve_used=10)
    over = GAME.parse(s, "Ada", rows("Ada", bids(1, **{"submitted at": stamp(75 + 301)})), window(600))
    assert over.submission == blank(Phase.AUCTION, reserve_used=10)


def test_a_submission_later_than_the_reserve_left_gives_the_blank_submission_and_spends_it_all():
    s = replace(setup(), reserve=(2, 10))
    parsed = GAME.parse(s, "Ada", rows("Ada", bids(9, **{"submitted at": stamp(75 + 61)})), window(600))
    assert parsed.submission == blank(Phase.AUCTION, reserve_used=2)
    assert "the reserve ran out: 2 periods used" in parsed.problems[-1].message
    assert parsed.problems[0].row == 2 and parsed.problems[0].message == (
        "made 61 s after the 75 s window, more than your reserve time (2 periods of 30 s); this row does not count")
    after = play(s, [parsed.submission, blank(Phase.AUCTION)])
    assert after.reserve == (0, 10)


def test_with_no_reserve_left_the_blank_submission_is_taken():
    s = replace(setup(), reserve=(0, 10))
    parsed = GAME.parse(s, "Ada", rows("Ada", bids(9, **{"submitted at": stamp(76)})), window(600))
    assert parsed.submission is None and "no reserve time left" in parsed.problems[-1].message
    assert parsed.problems[0].message == "made 1 s after the 75 s window, with no reserve time left; this row does not count"
    assert GAME.default(s, "Ada") == blank(Phase.AUCTION)


def test_silence_past_the_window_spends_reserve_up_to_the_freeze():
    s = setup()
    parsed = GAME.parse(s, "Ada", [], window(75 + 45))
    assert parsed.submission == blank(Phase.AUCTION, reserve_used=2)
    assert "nothing valid by the freeze: 2 periods of reserve used" in parsed.problems[-1].message
    assert GAME.parse(s, "Ada", [], window(60)).submission is None  # frozen within the window: nothing spent


def test_rows_without_a_time_count_as_made_at_the_freeze():
    s = setup()
    typed = rows("Ada", bids(7))
    assert GAME.parse(s, "Ada", typed, window(70)).submission == SpiritChainSubmission(Phase.AUCTION, bids=(7, 0, 0, 0, 0))
    late = GAME.parse(s, "Ada", typed, window(75 + 40)).submission
    assert late == SpiritChainSubmission(Phase.AUCTION, bids=(7, 0, 0, 0, 0), reserve_used=2)


def test_invalid_rows_are_passed_over_by_the_selection():
    s = setup()
    parsed = GAME.parse(s, "Ada", rows("Ada", bids(6, **{"submitted at": stamp(20)}),
                                       bids(200, **{"submitted at": stamp(60)}),
                                       bids(90, 90, **{"submitted at": stamp(70)})), window(300))
    assert parsed.submission == SpiritChainSubmission(Phase.AUCTION, bids=(6, 0, 0, 0, 0))
    assert [p.row for p in parsed.problems] == [3, 4]


def test_time_controls_off_take_the_last_valid_row_whenever_it_came():
    s = setup(**{"time controls": False})
    typed = rows("Ada", bids(1, **{"submitted at": stamp(5000)}), bids(2, **{"submitted at": "whenever"}),
                 bids(300), bids(3, **{"submitted at": stamp(10)}), bids(400))
    parsed = GAME.parse(s, "Ada", typed, Window(OPENED, t(9000)))
    assert parsed.submission == SpiritChainSubmission(Phase.AUCTION, bids=(3, 0, 0, 0, 0))  # times are not read
    assert [p.row for p in parsed.problems] == [2, 3, 4, 6]
    assert parsed.problems[0].message == "a later valid row counts instead (row 5); this row does not count"
    assert "the last valid row (time controls are off)" in parsed.kept
    assert GAME.parse(s, "Ada", [], Window(OPENED, t(9000))).submission is None  # silence costs nothing


def test_windows_are_configurable():
    s = at(setup(**{"slots seconds": 20}), Phase.SLOTS, ({"FIRE I": 1}, {}))
    parsed = GAME.parse(s, "Ada", rows("Ada", slots("FIRE I", **{"submitted at": stamp(25)})), window(100))
    assert parsed.submission.reserve_used == 1
    long = at(setup(**{"slots seconds": 30}), Phase.SLOTS, ({"FIRE I": 1}, {}))
    assert GAME.parse(long, "Ada", rows("Ada", slots("FIRE I", **{"submitted at": stamp(25)})),
                      window(100)).submission.reserve_used == 0


def test_silence_with_an_available_upgrade_enters_reserve_time():
    s = at(setup(), Phase.UPGRADES, ({"EARTH I": 3}, {"EARTH I": 2}))
    silent = GAME.parse(s, "Ada", [], window(30 + 70))
    assert silent.submission == blank(Phase.UPGRADES, reserve_used=3)  # no upgrade, and 3 periods spent
    late_no = GAME.parse(s, "Ada", rows("Ada", {"upgrade": "no", "submitted at": stamp(45)}), window(100))
    assert late_no.submission == SpiritChainSubmission(Phase.UPGRADES, reserve_used=1)
    # Blaise has no upgrade to make: saying nothing costs nothing.
    assert GAME.parse(s, "Blaise", [], window(100)).submission is None
    late = GAME.parse(s, "Blaise", rows("Blaise", {"upgrade": "no", "submitted at": stamp(95)}), window(100))
    assert late.submission == SpiritChainSubmission(Phase.UPGRADES)


def test_a_player_with_no_card_to_play_need_not_answer_the_slots():
    s = at(setup(), Phase.SLOTS, ({}, {"FIRE I": 1}))
    assert GAME.parse(s, "Ada", [], window(60 + 70)).submission is None  # nothing to decide: no reserve spent
    mine = GAME.private_view(s, "Ada")["my duel"].set_index("what")["value"]
    assert mine["submit now"] == "nothing: you have no card to play"
    late = GAME.parse(s, "Ada", rows("Ada", slots("empty", **{"submitted at": stamp(120)})), window(130))
    assert late.submission == blank(Phase.SLOTS) and "nothing had to be answered" in late.kept
    assert GAME.parse(s, "Blaise", [], window(60 + 70)).submission == blank(Phase.SLOTS, reserve_used=3)
    locked = at(setup(), Phase.SLOTS, ({"FIRE I": 1}, {}), locked=({"FIRE I": 1}, {}))  # all imprisoned
    assert GAME.parse(locked, "Ada", [], window(60 + 70)).submission is None


def test_resolve_applies_the_reserve_each_submission_costs():
    s = setup()
    after = play(s, [SpiritChainSubmission(Phase.AUCTION, bids=(0,) * 5, reserve_used=3), blank(Phase.AUCTION, reserve_used=10)])
    assert after.reserve == (7, 0)
    mine = GAME.private_view(after, "Ada")["my duel"].set_index("what")["value"]
    assert mine["reserve time left"] == "7 periods of 30 s"


def test_times_before_the_opening_or_after_the_freeze_do_not_count():
    s = setup()
    parsed = GAME.parse(s, "Ada", rows("Ada", bids(1, **{"submitted at": stamp(-5)}),
                                       bids(2, **{"submitted at": stamp(400)})), window(300))
    assert "'2026-11-22 17:59:55' is before this phase opened (2026-11-22 18:00:00 UTC)" in parsed.problems[0].message
    assert "is after the submissions were read (2026-11-22 18:05:00 UTC)" in parsed.problems[1].message


def test_a_bad_time_names_the_cell_and_the_format():
    parsed = GAME.parse(setup(), "Ada", rows("Ada", bids(1, **{"submitted at": "22/13/2026 18:00"}),
                                            bids(2, **{"submitted at": "05/11/2026 18:00"})), window(60))
    assert [str(p) for p in parsed.problems[:2]] == [
        "Ada: row 2, column 'submitted at' (A): '22/13/2026 18:00' is not a time (when you submitted: a UTC time "
        "like 2026-11-24 18:00 or 24/11/2026 18:00); this row does not count",
        "Ada: row 3, column 'submitted at' (A): '05/11/2026 18:00' could be 5 November or 11 May (when you "
        "submitted: type the year first, 2026-11-05 18:00); this row does not count"]


def test_a_day_first_time_is_read_when_the_day_says_so():
    parsed = GAME.parse(setup(), "Ada", rows("Ada", bids(1, **{"submitted at": "22/11/2026 18:00:50"})), window(300))
    assert parsed.submission.reserve_used == 0 and parsed.problems == ()


def test_a_date_time_cell_is_read_as_utc():
    naive = datetime(2026, 11, 22, 18, 0, 50)  # as a spreadsheet date cell arrives
    parsed = GAME.parse(setup(), "Ada", rows("Ada", bids(1, **{"submitted at": naive})), window(300))
    assert parsed.submission.reserve_used == 0 and parsed.problems == ()


def test_without_a_window_to_measure_the_latest_valid_row_counts():
    parsed = GAME.parse(setup(), "Ada", rows("Ada", bids(1), bids(2)))
    assert parsed.submission == SpiritChainSubmission(Phase.AUCTION, bids=(2, 0, 0, 0, 0))
    assert "the latest valid row (no window to measure)" in parsed.kept
    assert [(p.row, p.message) for p in parsed.problems] == [
        (2, "a later valid row counts instead (row 3); this row does not count")]
