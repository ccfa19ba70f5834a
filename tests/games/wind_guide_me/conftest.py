"""Fixtures of Wind Guide Me's tests."""

import pytest

from sheets_host.engine.play import default_settings
from sheets_host.games import get_game

from tests.conftest import PLAYERS


@pytest.fixture
def wgm():
    return get_game("wind-guide-me")


@pytest.fixture
def wgm_defaults(wgm):
    return default_settings(wgm)


@pytest.fixture
def state(wgm, wgm_defaults):
    """Round 1 of a game where Ada holds Power of Light, and Ada and Blaise Power of Dark."""
    config = {**wgm_defaults["config"], "light holders": "Ada", "dark holders": "Ada, Blaise"}
    return wgm.setup(PLAYERS, 11, config, wgm_defaults["data"])
