"""Reading the `alchemy` submit tab: only what is invalid is dropped, with row, column and what is allowed."""

import random

import pytest

from sheets_host.events.alchemy import bots, read, rules, tabs
from sheets_host.events.alchemy.state import (AlchemyState, AlchemySubmission, Attempt, Holdings, Report, RoundResult,
                                              Turn)
from sheets_host.kit.cells import SubmitRow

HEADER = ["action", "item", "quantity", "priority"]
SAMPLE = tabs.alchemy({}, tabs.sample_data())
STATE = AlchemyState(SAMPLE, ("Ada", "Bo"))


def rows(*cells):
    return [SubmitRow("Ada", i, HEADER, dict(zip(HEADER, values))) for i, values in enumerate(cells, 2)]


def parse(*cells, state=STATE):
    parsed = read.parse(state, "Ada", rows(*cells))
    return parsed.submission, [str(p) for p in parsed.problems]


def test_a_tidy_submission_reads_whole_and_says_what_counts():
    sub, problems = parse(("harvest", "moonpetal"), ("Harvest", " Sea  Salt ", 1), ("buy", "quartz", "2"),
                          ("machine", "Deep Drill"), ("engineer", "healing draught", None, 1),
                          ("make", "hand mirror", "two"))
    assert problems == []
    assert sub == AlchemySubmission(("moonpetal", "sea salt"), (("quartz", 2),), "deep drill",
                             (Attempt("healing draught", 1, 1), Attempt("hand mirror", 2)))
    kept = read.parse(STATE, "Ada", rows(("harvest", "moonpetal"), ("engineer", "tin bird"))).kept
    assert kept == "harvest moonpetal (2 of 17 energy); engineer in random order: tin bird"


def test_typos_and_unknown_names_name_row_and_column_and_list_what_is_allowed():
    sub, problems = parse(("harvets", "moonpetal"), ("harvest", "moonpetl"), ("engineer", "dragon of doom"),
                          ("machine", "moonpetal"), ("harvest", "quartz"))
    assert sub == AlchemySubmission(("quartz",))
    assert problems[0].startswith("Ada: row 2, column 'action' (A): 'harvets' is not an action (did you mean "
                                  "'harvest'?); allowed: harvest, buy, machine, engineer; row dropped")
    assert problems[1].startswith("Ada: row 3, column 'item' (B): 'moonpetl' is not a material (did you mean "
                                  "'moonpetal'?); allowed: moonpetal, mandrake root")
    assert "row 4, column 'item' (B): 'dragon of doom' is not a construct" in problems[2]
    assert "row 5, column 'item' (B): 'moonpetal' is not a machine" in problems[3] and "deep drill" in problems[3]


@pytest.mark.parametrize("typed, why", [
    (0, "'0' is out of range (how many: 1 to 1000000)"),
    (-3, "'-3' is out of range"),
    (10**30, "out of range"),
    ("three", None),
    ("=A1+1", "'=A1+1' is a formula; type the value itself"),
    ("lots", "'lots' is not a whole number"),
])
def test_odd_quantities_never_crash(typed, why):
    sub, problems = parse(("buy", "quartz", typed))
    if why is None:
        assert sub == AlchemySubmission(buy=(("quartz", 3),)) and problems == []
    else:
        assert sub is None and len(problems) == 1 and "row 2, column 'quantity' (C)" in problems[0] and why in problems[0]


def test_engineer_quantities_are_attempts_up_to_99_and_a_bad_priority_is_ignored():
    sub, problems = parse(("engineer", "tin bird", 10**30), ("engineer", "tin bird", 3, "first"),
                          ("engineer", "hand mirror", None, "=B2"))
    assert sub.engineer == (Attempt("tin bird", 3), Attempt("hand mirror"))
    assert "how many: 1 to 99" in problems[0]
    assert "row 3, column 'priority' (D): 'first' is not a whole number" in problems[1] and "ignored" in problems[1]
    assert "'=B2' is a formula" in problems[2]


def test_odd_unicode_in_names_is_read_or_refused_never_raised():
    sub, problems = parse(("ＨＡＲＶＥＳＴ", "ｍｏｏｎｐｅｔａｌ"), ("harvest", "sea\u00a0salt"), ("harvest", "🜍 sulfur"),
                          ("engineer", "tin\u200bbird"), ("\u202eharvest", "gold"))
    assert sub == AlchemySubmission(("moonpetal", "sea salt", "gold"), engineer=(Attempt("tin bird"),))
    assert problems == ["Ada: row 4, column 'item' (B): '🜍 sulfur' is not a material; allowed: moonpetal, "
                        "mandrake root, silverleaf, quartz, iron ore, gold, ember coal, salamander scale, phoenix ash, "
                        "sea salt, pearl, kraken ink, cloud wool, starlight dust; row dropped"]


def test_blank_and_half_blank_rows():
    sub, problems = parse((None, None, 3, None), ("harvest", None), ("", "  ", "", ""))
    assert sub is None
    assert problems[0].startswith("Ada: row 2, column 'action' (A): the cell is empty (allowed: harvest, buy")
    assert problems[1].startswith("Ada: row 3, column 'item' (B): the cell is empty (a material; allowed: moonpetal")
    assert len(problems) == 3


def test_a_repeated_harvest_row_and_a_harvest_quantity():
    sub, problems = parse(("harvest", "quartz"), ("harvest", "Quartz", 4), ("harvest", "gold", 3))
    assert sub.harvest == ("quartz", "gold")
    assert problems[0] == ("Ada: row 3, column 'item' (B): quartz is harvested in row 2 already; a material is "
                           "harvested once a round; row dropped")
    assert "row 4, column 'quantity' (C): '3' ignored" in problems[1]


def test_two_machine_rows_keep_the_first_and_an_owned_or_unaffordable_machine_is_dropped():
    sub, problems = parse(("machine", "deep drill"), ("machine", "cloud loom"))
    assert sub.machine == "deep drill"
    assert problems == ["Ada: row 3, column 'action' (A): one machine a round (row 2 buys deep drill); row dropped"]
    owner = _after(Holdings(100, machines=("deep drill",)))
    sub, problems = parse(("machine", "deep drill"), ("buy", "gold", 1), ("machine", "cloud loom"), state=owner)
    assert "you own deep drill already" in problems[0]
    assert "cloud loom costs 120 coins and you will have 10 after your purchases" in problems[1] and sub.machine is None


def test_purchases_the_coins_cannot_pay_and_materials_without_a_price():
    sub, problems = parse(("buy", "gold", 6), ("buy", "gold", 4), ("buy", "sea salt", 10), ("buy", "kraken ink"))
    assert sub.buy == (("gold", 4),)  # 360 of 500 coins; then 150 of salt is more than the 140 left
    assert problems[0] == "Ada: row 2, column 'quantity' (C): 6 gold cost 540 coins and you have 500 left for them; row dropped"
    assert "row 4, column 'quantity' (C): 10 sea salt cost 150 coins and you have 140 left" in problems[1]
    assert "row 5, column 'item' (B): kraken ink cannot be bought; materials with a price: moonpetal" in problems[2]


def test_a_harvest_over_the_energy_harvests_nothing_and_names_the_rows_to_drop():
    sub, problems = parse(("harvest", "gold"), ("harvest", "phoenix ash"), ("harvest", "kraken ink"),
                          ("harvest", "sea salt"))
    assert sub.harvest == ("gold", "phoenix ash", "kraken ink", "sea salt") and problems == []  # 6 + 5 + (5 + 1 − 1) = 16
    sub, problems = parse(("harvest", "gold"), ("harvest", "phoenix ash"), ("harvest", "kraken ink"),
                          ("harvest", "starlight dust"), ("buy", "quartz"))
    assert sub == AlchemySubmission(buy=(("quartz", 1),))
    said = ("your harvest (rows 2 (gold), 3 (phoenix ash), 4 (kraken ink), 5 (starlight dust)) costs 21 energy "
            "and you have 17: nothing is harvested; drop row 5 (starlight dust) to fit")
    assert problems == [f"Ada: row {row}, column 'item' (B): {said}" for row in (2, 3, 4, 5)]  # on each row it drops


def test_what_a_bot_types_reads_back_as_its_submission():
    for seed in range(30):
        for bot in (bots.random_bot, bots.greedy):
            sub = bot(STATE, "Ada", random.Random(seed))
            typed = [SubmitRow("Ada", i, HEADER, r) for i, r in enumerate(read.submit_rows(sub), 2)]
            parsed = read.parse(STATE, "Ada", typed)
            assert parsed.submission == (sub if sub != AlchemySubmission() else None), [str(p) for p in parsed.problems]


def _after(holdings):
    report = Report(Turn(), 17, 0, {}, (), None, {}, (), (), (), (), holdings)
    return AlchemyState(SAMPLE, ("Ada", "Bo"), (RoundResult(1, {"Ada": report, "Bo": report}),))


def test_energy_machines_count_in_the_energy_a_harvest_may_spend():
    tapped = _after(Holdings(0, machines=("ley line tap",)))
    sub, problems = parse(("harvest", "gold"), ("harvest", "phoenix ash"), ("harvest", "kraken ink"),
                          ("harvest", "starlight dust"), state=tapped)
    assert rules.energy(SAMPLE, ("ley line tap",)) == 21 and problems == [] and len(sub.harvest) == 4
