"""What a Spirit Chain player reads after a phase part ("counted", "not counted", "what counted")
is what the resolver did (issue 34): a bid outbid or tied is refunded and does not count, a row
the time controls pass over says why, and each slot says what became of its card."""

from datetime import timedelta

import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import NOT_COUNTED

from tests.conftest import FIXED, fixed_clock

PLAYERS = ["Ada", "Blaise"]


@pytest.fixture
def duel(tmp_path):
    backend = XlsxBackend(tmp_path / "duel")
    engine.new_game(backend, "spirit-chain", PLAYERS, 1, clock=fixed_clock)
    return backend


def type_in(backend, player: str, *rows: dict) -> None:
    header = backend.book(f"player:{player}").read(["submit"])["submit"].columns
    backend.book(f"player:{player}").write({"submit": pd.DataFrame([{c: r.get(c) for c in header} for r in rows],
                                                                   columns=header, dtype=object)})


def history(backend, player: str) -> pd.DataFrame:
    return backend.book(f"player:{player}").read(["my submissions"])["my submissions"]


def said(backend, player: str) -> tuple[dict[int, str], list[str]]:
    """A player's `my submissions` for the last round: what happened to each row, and the lines
    of the whole submission."""
    h = history(backend, player)
    h = h[h["round"] == h["round"].max()]
    rows = {int(r): str(w) for r, w in zip(h["row"], h["what happened"]) if pd.notna(r)}
    return rows, [str(w) for r, w in zip(h["row"], h["what happened"]) if pd.isna(r)]


def lot(backend) -> list[str]:
    return [lot.card for lot in engine.open_session(backend, fixed_clock).state.open_lot()]


def test_an_outbid_bid_and_a_tie_are_not_counted_and_a_won_bid_is(duel):
    cards = lot(duel)
    type_in(duel, "Ada", {"bid 1": 5, "bid 2": 3, "bid 3": 6})
    type_in(duel, "Blaise", {"bid 1": 2, "bid 2": 4, "bid 3": 6})
    engine.resolve(duel, early=True, clock=fixed_clock)
    rows, lines = said(duel, "Ada")
    assert rows[2].startswith(f"counted; not counted: Blaise won card 2 ({cards[1]}) for 4, your bid is refunded; ")
    assert f"not counted: tied bids on card 3 ({cards[2]}): nobody wins it, your bid is refunded" in rows[2]
    assert lines == [f"what counted: bid 5 on card 1 ({cards[0]}): won for 5; "
                     + "; ".join(f"no bid on card {k} ({cards[k - 1]})" for k in (4, 5))]
    blaise, lines = said(duel, "Blaise")
    assert blaise[2].split("; ") == [f"not counted: Ada won card 1 ({cards[0]}) for 5, your bid is refunded", "counted",
                                     f"not counted: tied bids on card 3 ({cards[2]}): nobody wins it, your bid is refunded"]
    assert lines[0].startswith(f"what counted: bid 4 on card 2 ({cards[1]}): won for 4; no bid on card 4")


def test_a_row_the_time_controls_pass_over_says_which_row_counts(duel):
    cards = lot(duel)
    type_in(duel, "Ada", {"bid 1": 1}, {"bid 1": 2})
    type_in(duel, "Blaise", {"bid 1": 0})
    engine.resolve(duel, early=True, clock=fixed_clock)
    rows, lines = said(duel, "Ada")
    assert "counted" not in rows[2].replace("not counted", "")
    assert "a later valid row within the 75 s window counts instead (row 3); this row does not count" in rows[2]
    assert rows[3].startswith("counted")
    assert lines[0].startswith(f"what counted: bid 2 on card 1 ({cards[0]}): won for 2; no bid on card 2")


def test_reserve_time_is_told_as_the_player_s_own_duel_tab_tells_it(duel):
    cards = lot(duel)
    later = [f"{FIXED + timedelta(seconds=s):%Y-%m-%d %H:%M:%S}" for s in (100, 110)]
    type_in(duel, "Ada", {"submitted at": later[0], "bid 1": 3}, {"submitted at": later[1], "bid 1": 4})
    engine.resolve(duel, early=True, clock=lambda: FIXED + timedelta(seconds=200))
    rows, lines = said(duel, "Ada")
    assert rows == {2: "counted", 3: "row 3: the earliest valid row in reserve time counts instead (row 2); "
                                    "this row does not count"}
    assert lines[0].startswith(f"what counted: bid 3 on card 1 ({cards[0]}): won for 3; no bid on card 2")
    assert lines[0].endswith("; costs 1 reserve period (9 left)")
    duel_tab = duel.book("player:Ada").read(["my duel"])["my duel"].set_index("what")["value"]
    assert duel_tab["reserve time left"] == "9 periods of 30 s"
    rows, lines = said(duel, "Blaise")  # silent past the window: the blank submission, and reserve spent
    assert rows == {} and lines[0].startswith("no valid submission counts (nothing valid by the freeze: 5 periods")
    assert lines[1].endswith("no bid on card 5 (MEND); costs 5 reserve periods (5 left)".replace("MEND", cards[4]))


def test_each_slot_says_what_became_of_its_card_as_the_public_summonings_tab_does(duel):
    cards = lot(duel)
    type_in(duel, "Ada", {"bid 1": 5})
    type_in(duel, "Blaise", {"bid 2": 5})
    engine.resolve(duel, early=True, clock=fixed_clock)
    engine.resolve(duel, early=True, allow_empty=True, clock=fixed_clock)  # no upgrade to make
    type_in(duel, "Ada", {"slot 1": cards[0], "slot 2": "empty"})
    type_in(duel, "Blaise", {"slot 1": cards[1]})
    engine.resolve(duel, early=True, clock=fixed_clock)
    public = duel.book("public").read(["summonings"])["summonings"]
    happened = public[public["slot"].astype(str) == "1"].iloc[0]
    for player, card in (("Ada", cards[0]), ("Blaise", cards[1])):
        rows, lines = said(duel, player)
        assert rows == {2: "counted"}
        assert lines == [f"what counted: slot 1 {card}: {happened[f'{player}: what happened']}; "
                         "slot 2 empty; slot 3 empty"]
