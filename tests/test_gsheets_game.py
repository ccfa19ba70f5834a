"""A whole Wind Guide Me game on the Google backend (real gspread, fake Sheets API), in budget."""

from collections import Counter

import pytest

from sheets_host import engine
from sheets_host.games import get_game, names
from sheets_host.play import bot_names, bots_submit

from .conftest import PLAYERS, fixed_clock
from .fake_google import fake_backend

EMAILS = {p: f"{p.lower()}@example.org" for p in PLAYERS}


def requests_by_spreadsheet(fake, since: int) -> Counter:
    ids = Counter()
    for call in fake.requests[since:]:
        parts = call.path.split("/")
        if "spreadsheets" in parts and parts.index("spreadsheets") + 1 < len(parts):
            ids[parts[parts.index("spreadsheets") + 1].split(":")[0]] += 1
    return ids


@pytest.mark.parametrize("game", names())
def test_a_whole_game_plays_on_google_sheets_within_3_requests_per_spreadsheet(game, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # announcements go to a local folder
    spec = get_game(game)
    players = bot_names(spec.default_players or spec.max_players)
    backend, fake = fake_backend()
    session = engine.new_game(backend, game, players, 7, {p: f"{p.lower()}@example.org" for p in players},
                              clock=fixed_clock)
    host_id = session.host.ref
    books = 2 + len(players) + len(spec.groups(session.state))
    assert fake.permissions(backend.book(f"player:{players[0]}").id) and len(fake.files) == books
    rounds = 0
    while True:
        # Each command is a new process: a new backend that knows only the host spreadsheet.
        players_side, _ = fake_backend(host_id, fake=fake)
        bots_submit(players_side, engine.open_session(players_side, fixed_clock), 7)
        start = len(fake.requests)
        checker, _ = fake_backend(host_id, fake=fake)
        engine.check(checker, fixed_clock)
        assert max(requests_by_spreadsheet(fake, start).values()) <= 3
        start = len(fake.requests)
        host, _ = fake_backend(host_id, fake=fake)
        report = engine.resolve(host, early=True, allow_empty=True, clock=fixed_clock)
        used = requests_by_spreadsheet(fake, start)
        assert len(used) == books and max(used.values()) <= 3, used
        rounds += 1
        if report.over:
            break
    final, _ = fake_backend(host_id, fake=fake)
    engine.open_session(final, fixed_clock)  # learns where the other books are from the host book
    assert final.book("public").read(["announcements"])["announcements"].shape[0] == rounds


def test_a_game_resumes_from_another_machine_with_only_the_host_url(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    backend, fake = fake_backend()
    session = engine.new_game(backend, "wind-guide-me", PLAYERS, 3, EMAILS, clock=fixed_clock)
    elsewhere, _ = fake_backend(session.host.ref, fake=fake)  # a full URL, nothing else
    bots_submit(elsewhere, engine.open_session(elsewhere, fixed_clock), 3)
    assert engine.resolve(elsewhere, early=True, clock=fixed_clock).round == 1


def test_lock_protects_every_submit_tab_and_the_next_round_opens_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    backend, fake = fake_backend()
    session = engine.new_game(backend, "wind-guide-me", PLAYERS, 3, EMAILS, clock=fixed_clock)
    host_id = session.host.ref
    again, _ = fake_backend(host_id, fake=fake)
    bots_submit(again, engine.open_session(again, fixed_clock), 3)
    locker, _ = fake_backend(host_id, fake=fake)
    engine.lock(locker, fixed_clock)
    ids = {p: locker.book(f"player:{p}").id for p in PLAYERS}
    assert all(fake.protected(i, "submit") for i in ids.values())
    resolver, _ = fake_backend(host_id, fake=fake)
    start = len(fake.requests)
    engine.resolve(resolver, early=True, clock=fixed_clock)
    assert max(requests_by_spreadsheet(fake, start).values()) <= 3
    assert not any(fake.protected(i, "submit") for i in ids.values())
