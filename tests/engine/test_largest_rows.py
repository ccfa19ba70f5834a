"""Issue 34: no typed input can stop a game. A row whose cells together pass what a cell holds
(each cell legal on its own) made the resolve commit to the host book and then fail writing that
player's `my submissions` (the row's typed text goes into one cell), and every later command,
finishing that delivery first, was refused. What a book shows is now cut to what a cell holds in
every program, with a visible marker; the archive keeps what the tool read; commitments stay
verifiable. Each test here failed before the fix (the Academy's: `test_largest_rows_festival.py`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from sheets_host.backends.xlsx.backend import XlsxBackend, XlsxBook
from sheets_host.cli.main import app
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import HAPPENED, HISTORY, TYPED
from sheets_host.engine.reading import CELL_READ
from sheets_host.engine.play import bot_names
from sheets_host.games import get_game
from sheets_host.kit import cells
from sheets_host.kit.layout import INPUT_ROWS

from tests.conftest import fixed_clock
from tests.engine.largest import EVERY, PLAYERS, a_round, verifies

SECONDS = {"wind-guide-me": 3, "magicians-market": 2, "pyramid-superiority": 3, "spirit-chain": 2}


def test_the_issue_s_two_long_cells_no_longer_wedge_the_game(tmp_path):
    """The reproduction in issue 34, through the command line: the resolve and the next command."""
    runner = CliRunner()
    where = str(tmp_path / "g")
    assert runner.invoke(app, ["new", "wind-guide-me", where, "--players", "Ann,Bo,Cy,Di,Ed,Fay,Gus",
                               "--seed", "7"]).exit_code == 0
    ann = XlsxBook(Path(where) / "players" / "Ann.xlsx", "Ann")
    ann.write({"submit": pd.DataFrame([["k" * 20_000, "7" * 20_000, None, None, None]],
                                      columns=["kind", "site", "position", "stone", "light"])})
    result = runner.invoke(app, ["resolve", where, "--early", "--allow-empty"])
    assert result.exit_code == 0, result.output
    # The row's typed text was 40,014 characters in one cell; a cell of a submission is read to its
    # first 1,000 characters, and Ann is told so.
    history = ann.read([HISTORY])[HISTORY]
    assert history[TYPED].iloc[0] == "kind: " + "k" * CELL_READ + ", site: " + "7" * CELL_READ
    told = " ".join(map(cells.text, history[HAPPENED]))
    for column, letter in (("kind", "A"), ("site", "B")):
        assert (f"only the first 1,000 characters of its '{column}' cell ({letter}) were read: a cell of a submission "
                "is read up to 1,000 characters (it holds 20,000)") in told
    result = runner.invoke(app, ["undo", where])  # was refused, as every later command
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow(s)) for n, s in SECONDS.items()])
def test_the_largest_rows_stop_no_command(name, tmp_path):
    """A row of every cell at the limit through every command that acts on a round; then status,
    record and verify, and (one game) replay, which types the archived rows back as `undo` does."""
    game = get_game(name)
    backend = XlsxBackend(tmp_path / "game")
    engine.new_game(backend, name, bot_names(PLAYERS[name]), 7, clock=fixed_clock)
    a_round(backend, game, typed := set(), 1, EVERY)
    assert typed == {t.name for t in game.every_submit_tab()}
    if name == "wind-guide-me":
        assert engine.replay(backend, XlsxBackend(tmp_path / "replayed"), fixed_clock) == 1
    verifies(backend, tmp_path)


@pytest.mark.slow(7)
def test_every_row_a_submit_tab_shades_at_the_limit(tmp_path):
    """As many rows as the submit tab shades for typing, every cell at the limit: resolved, given
    back to the tab by an undo (the commands above act on them as on one row) and resolved again."""
    game = get_game("wind-guide-me")
    backend = XlsxBackend(tmp_path / "game")
    engine.new_game(backend, game.name, bot_names(7), 7, clock=fixed_clock)
    a_round(backend, game, set(), INPUT_ROWS, ("resolve", "undo", "resolve"))
