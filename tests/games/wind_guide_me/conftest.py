"""Fixtures of Wind Guide Me's tests."""

import pytest

from sheets_host.engine.play import default_settings
from sheets_host.games import get_game


@pytest.fixture
def wgm():
    return get_game("wind-guide-me")


@pytest.fixture
def wgm_defaults(wgm):
    return default_settings(wgm)
