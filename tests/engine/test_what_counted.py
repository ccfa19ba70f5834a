"""A player's `my submissions` says what the resolver did with each row, never what a reading of
the row promised (issue 34, part 1).

Every game is played through its books by untidy bots; after each round, each player's
`my submissions` is judged row by row against the resolver's outcome, computed again here from
the round's snapshot and archived rows: a row reads "counted" only when every part it gave counted,
"not counted: WHY" with the resolver's reason when one did not (a row typed when nothing was due,
why), and the "what counted" line is exactly what the resolver counted.
"""

from __future__ import annotations

import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import COUNTED, HAPPENED, HISTORY, TYPED
from sheets_host.engine.host import window_of
from sheets_host.engine.play import bot_names, bots_submit, host_types
from sheets_host.engine.reading import nothing_due, parse
from sheets_host.games import get_game
from sheets_host.kit.game import rng_for

from tests.conftest import fixed_clock

GAMES = {"wind-guide-me": 3, "magicians-market": 3, "pyramid-superiority": 3, "spirit-chain": 3,
         "academy-of-witchcraft-arts": 2}


def judge_round(backend: XlsxBackend, number: int) -> int:
    """Every player's `my submissions` lines of round `number` against the resolver's outcome, as
    the round's snapshot and archived rows give it again; how many rows were judged."""
    session = engine.open_session(backend, clock=fixed_clock)
    game = session.game
    record = next(r for r in session.rounds if r["round"] == number)
    state = session.snapshot(number)
    rows = session.attempt_rows(number, record["attempt"])
    readings = {p: parse(game, state, p, rows[p], window_of(record)) for p in session.players}
    subs = {p: r.parsed.submission if r.parsed.submission is not None else game.default(state, p)
            for p, r in readings.items()}
    outcome = game.resolve(state, subs, rng_for(session.config["seed"], number, "resolve"))
    label = game.round_name(number).split()[-1]
    judged = 0
    for player, reading in readings.items():
        history = backend.book(f"player:{player}").read([HISTORY])[HISTORY]
        mine = history[history[game.round_word].astype(str) == label]
        if not reading.due:  # a row typed when nothing was due: never "counted" (it read so, issue 34)
            for row in reading.rows:
                line = mine[(mine["row"].astype(str) == str(row.row))
                            & ((mine["tab"].astype(str) == str(row.tab)) if "tab" in mine else True)]
                assert [str(v) for v in line[HAPPENED]] == [f"not counted: {nothing_due(game, state, player)}"], \
                    (player, row.ref, list(line[HAPPENED]))
                judged += 1
            assert not any("will not count" in str(v) for v in mine[HAPPENED]), (player, "told twice")
            continue
        fates = {f.part: f for f in outcome.fates[player]}
        parts = reading.parsed.parts if reading.parsed.submission is not None else {}
        for row in reading.rows:
            line = mine[(mine["row"].astype(str) == str(row.row))
                        & ((mine["tab"].astype(str) == str(row.tab)) if "tab" in mine else True)]
            assert len(line) == 1, f"{player}: {row.ref} not in my submissions once"
            happened = str(line[HAPPENED].iloc[0])
            gave = [fates[key] for key, refs in parts.items() if row.ref in refs]
            problems = [p.message for p in reading.parsed.problems if (p.tab, p.row) == row.ref]
            if happened == COUNTED:
                assert gave and all(f.counted for f in gave) and not problems, (player, row, happened)
            for fate in gave:
                if not fate.counted:
                    assert f"not counted: {fate.refused}" in happened, (player, row, happened)
            if not gave:
                assert COUNTED not in happened.split("; "), (player, row, happened)
            judged += 1
        said = [str(v) for v in mine[HAPPENED] if str(v).startswith("what counted: ")]
        assert said == ["what counted: " + ("; ".join(f.what for f in outcome.fates[player] if f.counted)
                                             or "nothing")], (player, said)
    return judged


@pytest.mark.parametrize("name", list(GAMES))
def test_my_submissions_says_what_the_resolver_did_row_by_row(tmp_path, name):
    backend = XlsxBackend(tmp_path / "g")
    game = get_game(name)
    players = bot_names(4 if name == "magicians-market" else game.default_players or game.max_players)
    engine.new_game(backend, name, players, 7, clock=fixed_clock)
    judged = 0
    for number in range(1, GAMES[name] + 1):
        session = engine.open_session(backend, clock=fixed_clock)
        if session.game.is_over(session.state):
            break
        bots_submit(backend, session, 7 + number)
        if host_types(backend, session, 7):
            session = engine.open_session(backend, clock=fixed_clock)
        engine.resolve(backend, early=True, allow_empty=True, clock=fixed_clock)
        judged += judge_round(backend, number)
    assert judged, "no row was judged"


def test_a_bid_whose_coins_were_not_held_reads_not_counted_with_why(tmp_path):
    """Ada bids more than she holds once the magicians have shopped: her `my days` says not
    counted, and so does `my submissions` (it said "counted" and listed it under what counted)."""
    backend = XlsxBackend(tmp_path / "g")
    players = ["Ada", "Bo", "Cy", "Di"]
    engine.new_game(backend, "magicians-market", players, 7, clock=fixed_clock)
    backend.book("player:Ada").write({"submit": pd.DataFrame(
        [["bid", None, "Flavio", 1000]], columns=["action", "good", "to", "amount"])})
    engine.resolve(backend, early=True, allow_empty=True, clock=fixed_clock)
    tabs = backend.book("player:Ada").read([HISTORY, "my days"])
    history, days = tabs[HISTORY], tabs["my days"]
    assert str(days["bid result"].iloc[0]).startswith("not counted: you held ")
    row = history[history[TYPED].astype(str).str.contains("Flavio")]
    assert row[HAPPENED].iloc[0].startswith("not counted: you held "), row[HAPPENED].iloc[0]
    assert "what counted: nothing" in set(history[HAPPENED].astype(str))
