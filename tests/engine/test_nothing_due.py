"""A player with nothing due (issue 34, part 3): whatever they type, their status tab says plainly
that it will not count and why, and what the host's `check` prints agrees with it, in every game.

Regression: in Spirit Chain, a row typed in a round with nothing due got no word in the player's
status tab, while `check` showed it as what counts. Each game is played by bots until a state in
which a player has nothing due: a duellist with no upgrade or card to play, Pyramid's players on
day 1, the Academy's players whose events are hosted by hand, and in every game its end.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from typer.testing import CliRunner

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.cli.main import app
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import submit_tab
from sheets_host.engine.play import bot_names, bots_submit, host_types
from sheets_host.games import get_game
from sheets_host.kit.errors import RoundError

from tests.conftest import fixed_clock

# Short games where a game has no player with nothing due before its end.
CASES = [("spirit-chain", {}), ("pyramid-superiority", {}),
         ("academy-of-witchcraft-arts", {"hosted by hand": "Elemental Continuum, Summoner's Dream"}),
         ("wind-guide-me", {"rounds": 1}), ("magicians-market", {"days": 1})]


def status_rows(folder: Path, player: str) -> list[tuple[str, str]]:
    ws = openpyxl.load_workbook(folder / "players" / f"{player}.xlsx")["status"]
    return [(ws.cell(r, 1).value or "", ws.cell(r, 2).value or "") for r in range(2, ws.max_row + 1)]


def said(rows: list[tuple[str, str]], label: str) -> str:
    return next(value for what, value in rows if what == label)


def flat(text: str) -> str:
    return " ".join(text.split())


def type_a_row(backend, game, state, player: str) -> bool:
    """A plausible row in the player's first submit tab, as a player who did not read the to-do
    types it; False when the player has no submit tab this round."""
    tabs = game.submit_tabs(state, player)
    if not tabs:
        return False
    tab = tabs[0]
    book = backend.book(f"player:{player}")
    submit = book.read([tab.name])[tab.name]
    extra = pd.DataFrame([["2"] * len(submit.columns)], columns=submit.columns)
    typed = pd.concat([submit, extra], ignore_index=True)
    written, layout = submit_tab(game, state, player, tab, typed)
    book.write({tab.name: written}, layouts={tab.name: layout})
    return True


def first_idle_state(name: str, settings: dict, folder: Path):
    """Play by bots until an open round in which a player has nothing due, or the end."""
    game = get_game(name)
    backend = XlsxBackend(folder)
    names = bot_names(game.min_players)
    engine.new_game(backend, game.name, names, 3, clock=fixed_clock, settings=settings)
    while True:
        session = engine.open_session(backend, fixed_clock)
        if session.open_round is None:
            return game, backend, session, names, names
        if host_types(backend, session, 3):
            session = engine.open_session(backend, fixed_clock)
        idle = [p for p in names if not game.submits(session.state, p)]
        if idle:
            return game, backend, session, names, idle
        bots_submit(backend, session, 3, messy=False)
        engine.resolve(backend, early=True, allow_empty=True, clock=fixed_clock)


@pytest.mark.parametrize("name, settings", CASES, ids=[name for name, _ in CASES])
def test_a_player_with_nothing_due_is_told_that_what_they_type_will_not_count_and_check_agrees(
        name, settings, tmp_path):
    folder = tmp_path / "game"
    game, backend, session, names, idle = first_idle_state(name, settings, folder)
    runner = CliRunner()
    if session.open_round is None:  # the game is over: nothing is read any more, and both say so
        for player in names:
            mine = said(status_rows(folder, player), "your submission")
            assert mine == "anything you type will not count: the game is over", (player, mine)
        with pytest.raises(RoundError, match="the game is over"):
            engine.check(backend, fixed_clock)
        return
    for player in idle:  # before they type, as delivered: what they would type will not count, and why
        mine = said(status_rows(folder, player), "your submission")
        assert mine.startswith("anything you type will not count: nothing is due from you this "), mine
        why = game.nothing_due(session.state, player)
        assert why and why in mine
    bots_submit(backend, session, 3, messy=False)
    typed = [p for p in idle if type_a_row(backend, game, session.state, p)]
    assert typed or name == "academy-of-witchcraft-arts"  # the Academy gives a player with nothing due no tab
    printed = runner.invoke(app, ["check", str(folder)])
    assert printed.exit_code == 0, printed.output
    report = engine.check(backend, fixed_clock)
    for player in idle:
        reading, rows = report.readings[player], status_rows(folder, player)
        assert reading.state == "nothing due"
        mine = said(rows, "your submission")
        if player in typed:
            assert mine.startswith("does not count: nothing is due from you"), mine
            assert "what counts" not in [what for what, _ in rows]
            [problem] = reading.parsed.problems
            assert "will not count" in problem.message and game.nothing_due(session.state, player) in problem.message
        else:
            assert mine.startswith("anything you type will not count") and not reading.parsed.problems
    # What `check` printed of each player's problems is in red on that player's status, word for word.
    for player, reading in report.readings.items():
        shown = [value for what, value in status_rows(folder, player) if what == "problem"]
        assert len(shown) == len(reading.parsed.problems)
        for text in shown:
            assert flat(f"{player}: {text}") in flat(printed.output), (player, text)
