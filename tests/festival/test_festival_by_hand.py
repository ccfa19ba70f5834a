"""An event hosted by hand: the host's ranking tab read into placements, every mistake named."""

import pandas as pd
import pytest

from sheets_host.festival.by_hand import ranking_tab, read_ranking
from sheets_host.kit.errors import SchemaErrors

PARTICIPANTS = ["Ann", "Bo", "Cy"]


def records(rows):
    frame = pd.DataFrame(rows, columns=["player", "place", "score", "tiebreak"], index=range(2, 2 + len(rows)), dtype=object)
    return ranking_tab("summoning").records(frame, PARTICIPANTS + ["Di"])


def test_a_typed_ranking_becomes_placements_best_first():
    placements = read_ranking("summoning", records([["Cy", 2, 40, "12 familiars sent"], ["Ann", 3, 40, "9 familiars sent"],
                                                    ["Bo", 1, 55, None]]), PARTICIPANTS)
    assert [(p.player, p.place) for p in placements] == [("Bo", 1), ("Cy", 2), ("Ann", 3)]
    assert placements[1].figures == {"tiebreak": "12 familiars sent"}


def test_no_place_typed_yet_is_no_ranking():
    assert read_ranking("summoning", records([["Ann", None, None, None]]), PARTICIPANTS) is None


@pytest.mark.parametrize("rows, expected", [
    ([["Ann", 1, 1, None], ["Bo", 2, 1, None]], "'Cy' is not listed: every participant of summoning once"),
    ([["Ann", 1, 1, None], ["Bo", 2, 1, None], ["Cy", 3, 1, None], ["Di", 4, 1, None]],
     "row 5, column 'player': 'Di' is not a participant of summoning: Ann, Bo, Cy"),
    ([["Ann", 1, 1, None], ["Ann", 2, 1, None], ["Bo", 3, 1, None], ["Cy", 4, 1, None]], "row 3, column 'player': 'Ann' is not listed once"),
    ([["Ann", 1, 1, None], ["Bo", 1, 1, None], ["Cy", 3, 1, None]], "column 'place': '1, 1, 3' is not the places 1 to 3, each once"),
    ([["Ann", 1, 1, None], ["Bo", None, 1, None], ["Cy", 2, 1, None]], "row 3, column 'place'"),
])
def test_a_ranking_the_host_got_wrong_is_named_by_tab_row_and_column(rows, expected):
    with pytest.raises(SchemaErrors, match=expected.replace("(", r"\(").replace(")", r"\)")) as caught:
        read_ranking("summoning", records(rows), PARTICIPANTS)
    assert "tab 'summoning ranking'" in str(caught.value)
