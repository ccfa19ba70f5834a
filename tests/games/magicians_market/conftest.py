"""Fixtures of Magician's Market's tests."""

import pytest

from sheets_host.engine.play import default_settings
from sheets_host.games import get_game


@pytest.fixture(scope="session")
def mm():
    return get_game("magicians-market")


@pytest.fixture(scope="session")
def mm_defaults(mm):
    return default_settings(mm)
