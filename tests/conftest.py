"""Shared fixtures: a fixed clock (books must not depend on when tests run), a folder per test and the
players most tests seat; a game's own fixtures are in the conftest of its folder."""

from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest
from hypothesis import settings

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine.play import bot_names

# CI (CI=true) draws the same examples every run, so a landing never hinges on a lucky draw; every
# other run draws afresh (and SHEETS_HOST_DEEP=1 draws more), which is where new defects are found.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

FIXED = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
PLAYERS = bot_names(7)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked slow(seconds) first, slowest first: their modules go to the workers first
    (`--dist loadscope --no-loadscope-reorder`: a module's tests run on one worker, so a whole game
    a module's fixture plays is played once), instead of one finishing alone while the other waits."""
    def seconds(item: pytest.Item) -> float:
        mark = item.get_closest_marker("slow")
        return mark.args[0] if mark else 0

    items.sort(key=seconds, reverse=True)  # stable: the others keep their order


@pytest.fixture(autouse=True)
def _own_folder(tmp_path_factory, monkeypatch):
    """Every test runs in a folder of its own: what a command writes where it is run (Google's
    `sheets-host-out/`, a webhook file looked up there) never lands in the checkout or another test."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


def fixed_clock() -> datetime:
    return FIXED


@pytest.fixture
def clock():
    return fixed_clock


@pytest.fixture
def folder_backend(tmp_path):
    return XlsxBackend(tmp_path / "game")


def without_commitments(announcement: str) -> str:
    """A round's announcement without its commitments (salted afresh by each game and each redo):
    what the rules made of the round."""
    return announcement.split("\n### Commitments")[0]
