"""`watch SEASON` on the fake Google APIs with a fake clock: between games, while nobody types, a
pass asks Drive which books changed and reads nothing (the brief's idle budget: at most 2 requests
a minute); a player's answer is seen at the next check and counted once."""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import pytest

from sheets_host.backends import frame_from_rows, match_tab
from sheets_host.cli.bench_idle import most_in_a_minute
from sheets_host.engine import commands as engine
from sheets_host.fakes.google import FakeGoogle, fake_backend
from sheets_host.season import commands as season
from sheets_host.season import steps
from sheets_host.season.asking import CHOICE, DECISION_TAB
from sheets_host.season.state import Planned
from sheets_host.season.week import ANSWERED, DECIDED
from sheets_host.watch.season import SeasonWatch

from tests.conftest import FIXED
from tests.season import contest

CAST = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay"]
MINUTE = timedelta(minutes=1)


@pytest.fixture
def fake(monkeypatch, tmp_path) -> FakeGoogle:
    contest.install(monkeypatch, tmp_path)
    return FakeGoogle(keep_bodies=False)


def test_between_games_nobody_typing_costs_two_drive_requests_a_minute_and_an_answer_is_seen(fake):
    now = [FIXED]
    fake.clock = lambda: now[0]
    times: list = []
    counting = [False]  # the watch's requests only
    fake.before_request = lambda method, path: counting[0] and times.append(now[0])

    def opened(where: str):
        backend = fake_backend(where, fake=fake)[0]
        backend.clock = lambda: now[0]
        return backend

    made = opened("")
    season.new_season(made, "Larks", CAST, 7, clock=lambda: now[0])
    host = made.book("host").id
    steps.plan(opened(host), [Planned("grant")])
    watch = SeasonWatch(opened(host), lambda g: opened("" if g.where == "-" else g.where), None, lambda: now[0], say=lambda line: None,
                        place=steps.new_spreadsheets, death_match="duel")
    watch.step()  # the Grant made, and watched
    game = opened(season.read(opened(host)).game("1").where)
    session = engine.open_session(game)
    for player, score in zip(CAST, (9, 6, 5, 4, 3, 2)):
        session.backend.book(f"player:{player}").write({"submit": pd.DataFrame([{"score": score}])})
    engine.resolve(game, early=True, clock=lambda: now[0])

    def run_until(until) -> None:
        while now[0] < until:
            counting[0] = True
            wake = watch.step()
            counting[0] = False
            now[0] = max(wake, now[0] + timedelta(seconds=1))

    run_until(FIXED + 10 * MINUTE)  # the game over, its end settled, Ann asked; the season's own writes looked at
    assert [a.players for a in season.read(opened(host)).decisions[:1] and steps.week(season.read(opened(host))).asks] \
        == [("Ann",)]
    quiet = FIXED + 10 * MINUTE
    run_until(quiet + 30 * MINUTE)
    idle = [t for t in times if t >= quiet]
    most = most_in_a_minute(idle)
    print(f"between games, nobody typing for 30 minutes: {len(idle)} requests, {most} in a minute at most")
    assert most <= 2 and len(idle) <= 61

    # Ann types her choice into her decision tab, as a person does: seen at the next check.
    book = game.book("player:Ann")
    tab = match_tab(DECISION_TAB, fake.tabs(book.id))
    assert "open" in str(frame_from_rows(fake.values(book.id, tab)).iloc[0]["status"])
    fake.put_values(book.id, tab, [["Cy"]], start="A2")
    typed = now[0]
    run_until(typed + 3 * MINUTE)
    after = [t for t in times if t >= typed]
    print(f"Ann's answer: {len(after)} requests in the 3 minutes after it was typed, {most_in_a_minute(after)} in a "
          "minute at most")
    rows = season.read(opened(host)).decisions
    assert [(d.how, d.choice) for d in rows if d.how in (ANSWERED, DECIDED)] == [(ANSWERED, "Cy"), (DECIDED, "Cy")]
    answered = next(parse for parse in rows if parse.how == ANSWERED).when
    assert pd.Timestamp(answered.replace(" UTC", ""), tz="UTC") <= typed + 2 * MINUTE
