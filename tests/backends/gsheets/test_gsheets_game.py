"""Whole games on the Google backend (real gspread, the fake Sheets API of sheets_host.fakes.google):
the requests per spreadsheet per command at the floor, and request sizes that stay flat."""

from collections import Counter

import pytest

from sheets_host.cli import bench_google
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bots_submit
from sheets_host.games import names

from sheets_host.fakes.google import fake_backend
from tests.conftest import PLAYERS, fixed_clock

EMAILS = {p: f"{p.lower()}@example.org" for p in PLAYERS}


def requests_by_spreadsheet(fake, since: int) -> Counter:
    ids = Counter()
    for call in fake.requests[since:]:
        parts = call.path.split("/")
        if "spreadsheets" in parts and parts.index("spreadsheets") + 1 < len(parts):
            ids[parts[parts.index("spreadsheets") + 1].split(":")[0]] += 1
    return ids


# Rounds played of the longer games: of Spirit Chain, whose duels run 60 to 90 rounds and whose
# every command reads the host book whole, the first 24; of Pyramid Superiority's 15 days, 10. A
# request that grows shows long before (issue 9's grew by 17 kB a round).
ROUNDS = {"spirit-chain": 24, "pyramid-superiority": 10}


def played(game: str, players: int | None = None) -> dict:
    """A bot game on the fake Google (`sheets-host bench GAME --google`), whole or its first `ROUNDS`."""
    return bench_google.run(game, players, rounds=ROUNDS.get(game))


# Seconds a game takes on the fake Google (the slowest are scheduled first; see conftest).
SECONDS = {"spirit-chain": 18, "pyramid-superiority": 22, "academy-of-witchcraft-arts": 33, "magicians-market": 17}


@pytest.mark.parametrize("game", [pytest.param(g, marks=[pytest.mark.slow(SECONDS.get(g, 6))]) for g in names()])
def test_a_whole_game_costs_google_the_floor_per_spreadsheet_and_what_it_sends_stays_flat(game):
    """One whole game a test (played once: two workers would each play it for two tests)."""
    report = played(game, 20 if game == "magicians-market" else None)
    _costs_the_floor(game, report)
    _sends_a_flat_amount(report)


def _costs_the_floor(game: str, report: dict) -> None:
    requests = report["requests"]
    books = [role for role in requests if role != "floor"]
    assert requests["floor"] == {"new": None, "status": 1, "check": 2, "resolve": 2}
    assert len(books) == report["books"] and report["at_floor"], requests
    # The floor exactly: one read and one write per book (the host book's read comes with the lease).
    for role in books:
        expected = {"status": int(role == "host" or role.startswith("player:")), "resolve": 2,
                    "check": 2 if role == "host" or role.startswith("player:") else 1}
        assert {c: requests[role][c] for c in expected} == expected, role
    assert all(r["most_per_book"] == 2 for r in report["per_round"])
    assert report["largest_request_bytes"]["resolve"] < report["largest_request_bytes"]["google_limit"] / 4
    if game == "magicians-market":  # 22 books: a resolve fits a minute's quota of 60
        assert {r["resolve_requests"] for r in report["per_round"]} == {44}


def _sends_a_flat_amount(report: dict) -> None:
    """Issue 9's bytes: every book gets only what changed. The host's log, archive and snapshots
    are appended, each snapshot built on the one before (Spirit Chain's host request was 1.3 MB
    by round 75); a view that grows (a history newest first or last) or changes in one record is
    patched. So no round's request to a book is much above what the first rounds sent it; the
    last round adds the final results once."""
    rounds = report["per_round"]
    for book in ("host", "public", "player"):
        key = f"resolve_{book}_bytes"
        early = max(r[key] for r in rounds[:3])
        grown = [(r["round"], r[key]) for r in rounds[3:-1] if r[key] > 1.3 * early]
        assert not grown, f"{book}: {grown} against {early} in the first rounds"
    # The largest: the Academy's host book, archiving three events' submit tabs of 10 players (about
    # 80 kB) and logging what became of each of their rows (about 100 kB since issue 34; 260 kB in all)
    assert rounds[-1]["largest_resolve_bytes"] < report["largest_request_bytes"]["google_limit"] / 6


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
    assert max(requests_by_spreadsheet(fake, start).values()) <= 2
    assert not any(fake.protected(i, "submit") for i in ids.values())


def _fill(cell: dict) -> str | None:
    """A cell's background as RRGGBB, however the request gave it."""
    fmt = cell.get("userEnteredFormat", {})
    rgb = fmt.get("backgroundColorStyle", {}).get("rgbColor") or fmt.get("backgroundColor")
    return None if rgb is None else "".join(f"{round(rgb.get(c, 0) * 255):02X}" for c in ("red", "green", "blue"))


def test_this_rounds_tabs_follow_status_and_a_locked_tab_looks_locked_on_google(tmp_path, monkeypatch):
    """Issue 34 on Google: an Academy player's tabs to fill were the book's last; a past round's
    tab, locked, still wore the yellow "type here"."""
    from sheets_host.engine.play import bot_names, host_types
    from sheets_host.kit.layout import INPUT_FILL, LOCKED_FILL

    monkeypatch.chdir(tmp_path)
    backend, fake = fake_backend()
    names = bot_names(4)
    engine.new_game(backend, "academy-of-witchcraft-arts", names, 3, clock=fixed_clock)
    for _ in range(3):  # the pregame and two festival rounds
        session = engine.open_session(backend, fixed_clock)
        host_types(backend, session, 3)
        bots_submit(backend, engine.open_session(backend, fixed_clock), 3)
        engine.resolve(backend, early=True, clock=fixed_clock)
    session = engine.open_session(backend, fixed_clock)
    for player in names:
        sid = backend.book(f"player:{player}").id
        due = [t.name for t in session.game.submit_tabs(session.state, player)]
        assert fake.tabs(sid)[:1 + len(due)] == ["status", *due]
        past = [t.name for t in session.game.every_submit_tab() if t.name in fake.tabs(sid) and t.name not in due]
        assert "preferences" in past
        for tab in past:
            sheet = fake.files[sid].sheet(tab)
            fills = {(_fill(c), c.get("userEnteredValue", {}).get("stringValue")) for c in sheet.cells.values()}
            assert fake.protected(sid, tab) and INPUT_FILL not in {f for f, _ in fills}, (player, tab)
            assert any(f == LOCKED_FILL and (text or "").startswith("locked: ") for f, text in fills), (player, tab)
