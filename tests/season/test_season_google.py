"""A season on Google Sheets (the fake that gspread really talks to): its books made and found
again from the host season book alone, games made as new spreadsheets and placed in the games
tab, and `settle` reading each game's host book once."""

from __future__ import annotations

import pandas as pd
import pytest

from sheets_host.engine import commands as engine
from sheets_host.fakes.google import FakeGoogle, fake_backend
from sheets_host.kit.result import TOKEN
from sheets_host.season import commands as season

from tests.conftest import fixed_clock
from . import contest

CAST = ["Ann", "Bo", "Cy", "Di"]


@pytest.fixture
def fake(monkeypatch, tmp_path) -> FakeGoogle:
    contest.install(monkeypatch, tmp_path)
    return FakeGoogle()


def test_a_season_on_google_is_made_played_and_settled_from_its_host_book_alone(fake):
    made, _ = fake_backend(fake=fake)
    season.new_season(made, "Larks", CAST, 7, clock=fixed_clock)
    host = made.book("host").id
    opener = lambda g: fake_backend(g.where if g.where != "-" else "", fake=fake)[0]  # noqa: E731

    def at_host():
        return fake_backend(host, fake=fake)[0]

    fake.requests.clear()
    game = season.next_game(at_host(), "contest", "-", "gsheets", opener, clock=fixed_clock).game
    assert fake.count(host) == 2  # the lease taken with the read, one write: the game recorded with its place
    assert game.where.startswith("https://docs.google.com/spreadsheets/d/")
    assert season.read(at_host()).games[0].where == game.where  # placed once made
    played = fake_backend(game.where, fake=fake)[0]
    session = engine.open_session(played, fixed_clock)
    for player, score in zip(CAST, (9, 5, 3, 2)):
        session.backend.book(f"player:{player}").write({"submit": pd.DataFrame([{"score": score}])})
    engine.resolve(played, early=True, clock=fixed_clock)

    fake.requests.clear()
    report = season.settle(at_host(), opener, clock=fixed_clock)
    assert report.written and not report.problems
    assert fake.count(host) == 2  # the floor: the lease taken, the book read with it; one write releases it
    assert season.read(at_host()).held("Ann", TOKEN) == 1
    reader = at_host()
    season.read(reader)  # its books tab says where the public book is
    public = reader.book("public").read(["cast"])["cast"]
    assert list(public["player"]) == CAST
