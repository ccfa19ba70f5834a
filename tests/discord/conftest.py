import shutil

import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bots_submit
from sheets_host.fakes.discord import FakeDiscord

from tests.conftest import fixed_clock


@pytest.fixture
def fake():
    """A fake Discord on the loopback interface, for one test."""
    with FakeDiscord() as server:
        yield server


def resolved_game(folder, game: str, players, seed: int, rounds: int, bots: int):
    """A game in `folder` whose first `rounds` are played by bots (their `bots` seed), for a
    module's fixture to copy (`copy_of`)."""
    backend = XlsxBackend(folder)
    engine.new_game(backend, game, players, seed, clock=fixed_clock)
    for _ in range(rounds):
        bots_submit(backend, engine.open_session(backend, fixed_clock), bots, messy=False)
        engine.resolve(backend, early=True, clock=fixed_clock)
    return folder


def copy_of(folder, tmp_path) -> XlsxBackend:
    """A test's own copy of a module's game."""
    shutil.copytree(folder, tmp_path / "game")
    return XlsxBackend(tmp_path / "game")
