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


def new_season(fake: FakeGoogle, cast):
    """A season made on the fake: (how to open its host book again, how to open a game of it)."""
    made, _ = fake_backend(fake=fake)
    season.new_season(made, "Larks", cast, 7, clock=fixed_clock)
    host = made.book("host").id
    return (lambda: fake_backend(host, fake=fake)[0]), (lambda g: fake_backend(g.where if g.where != "-" else "",
                                                                               fake=fake)[0])


def test_a_season_on_google_is_made_played_and_settled_from_its_host_book_alone(fake):
    at_host, opener = new_season(fake, CAST)
    host = at_host().book("host").id
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


def test_the_week_on_google_asks_in_the_players_spreadsheet_and_makes_the_death_match_as_a_new_one(fake):
    from sheets_host.season import steps
    from sheets_host.season.asking import CHOICE, DECISION_TAB, PICK_TAB
    from sheets_host.season.state import Planned

    cast = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay"]
    at_host, opener = new_season(fake, cast)
    host = at_host().book("host").id

    def step():
        return steps.step(at_host(), opener, fixed_clock, place=steps.new_spreadsheets, death_match="duel")

    def answer(number: str, player: str, tab: str, typed: str) -> None:
        book = fake_backend(season.read(at_host()).game(number).where, fake=fake)[0]
        engine.open_session(book, fixed_clock)  # binds the players' books
        frame = book.book(f"player:{player}").read([tab])[tab].copy()
        frame.loc[frame.index[0], CHOICE] = typed
        book.book(f"player:{player}").write({tab: frame})

    steps.plan(at_host(), [Planned("grant")])
    first = step().made[0].game
    assert first.where.startswith("https://docs.google.com/spreadsheets/d/")
    played = fake_backend(first.where, fake=fake)[0]
    session = engine.open_session(played, fixed_clock)
    for player, score in zip(cast, (9, 6, 5, 4, 3, 2)):
        session.backend.book(f"player:{player}").write({"submit": pd.DataFrame([{"score": score}])})
    engine.resolve(played, early=True, clock=fixed_clock)
    step()
    answer("1", "Ann", DECISION_TAB, "Cy")
    report = step()
    assert not report.problems and [a.key for a in report.asked] == ["pick 1"], (report.lines, report.waiting)
    answer("1", "Ed", PICK_TAB, "Di")
    step()
    answer("1", "Fay", PICK_TAB, "Bo")
    report = step()
    assert [(m.game.game, m.game.players) for m in report.made] == [("duel", ("Ed", "Di"))]
    now = season.read(at_host())
    assert now.held("Cy", TOKEN) == 1 and now.game("2").where.startswith("https://docs.google.com/spreadsheets/d/")
    fake.requests.clear()
    again = step()  # nothing new: the Death Match is under way
    assert again.made == [] and again.lines == []
    assert fake.count(host) == 2  # the floor: the lease taken with the read, released
