"""A `watch` check costs what changed (`watch.changes`): a 20-player game checked every minute on the
fake Google APIs sends one request a minute while nobody types, and a player's edit is in their
status tab by the next check, even one typed while watch was reading and writing their book."""

from __future__ import annotations

from datetime import timedelta

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.cli.bench_idle import MINUTE, START, most_in_a_minute, type_bot, watch_idle
from sheets_host.engine import commands as engine
from sheets_host.engine.host import stamp
from sheets_host.engine.play import bot_names
from sheets_host.fakes.google import FakeGoogle, fake_backend
from sheets_host.watch.loop import Watch


def test_a_watched_game_nobody_types_in_costs_one_request_a_minute_and_an_edit_is_seen_at_the_next_check():
    idle = watch_idle("magicians-market", players=20, minutes=10)
    quiet = [(at, call) for at, call in idle.requests if START + 3 * MINUTE <= at < idle.typed]
    assert quiet and most_in_a_minute([at for at, _ in quiet]) <= 2  # the target; it is 1, Drive's change log
    assert {call.path for _, call in quiet} == {"/drive/v3/changes"}
    assert idle.shown is not None and idle.shown - idle.typed < MINUTE
    typing = [call for at, call in idle.requests if idle.typed <= at < idle.typed + MINUTE]
    # The question, the typist's book read, then their check: the game held, read, told, released.
    assert len(typing) == 6 and sum(call.method == "GET" for call in typing) == 3


def _said(backend, player: str) -> str:
    status = backend.book(f"player:{player}").read(["status"])["status"]
    return str(dict(zip(status["what"], status["value"]))["your submission"])


def test_an_edit_typed_while_watch_checks_the_book_is_seen_at_the_next_check():
    """The regression a change log invites: asking what changed after our own write would take in
    an edit typed between our read and our write, and never read it."""
    fake, now = FakeGoogle(keep_bodies=False), [START]
    fake.clock = lambda: now[0]
    creator, _ = fake_backend("", fake=fake)
    creator.clock = lambda: now[0]
    engine.new_game(creator, "magicians-market", bot_names(4), 7, clock=lambda: now[0], settings={
        "first deadline": stamp(START + timedelta(days=2))[:16], "round hours": 24, "check minutes": 1})
    watcher, _ = fake_backend(creator.refs()["host"], fake=fake)
    watch = Watch(watcher, None, lambda: now[0], say=lambda line: None)
    player = bot_names(4)[0]
    book = creator.book(f"player:{player}").id
    for _ in range(2):  # every book read and told; then our own writes read once more
        watch.step()
        now[0] += MINUTE
    typed = type_bot(fake, book, creator, player, 7)
    tab = engine.open_session(creator).game.submit_tabs(engine.open_session(creator).state, player)[0].name

    def meanwhile(method: str, path: str) -> None:  # the player clears it as watch writes their status
        if method == "POST" and book in path:
            fake.before_request = None
            fake.put_values(book, tab, [[""] * len(row) for row in typed], start="A2")

    fake.before_request = meanwhile
    watch.step()
    assert fake.before_request is None and _said(creator, player) == "counts"  # what the check read
    now[0] += MINUTE
    watch.step()
    assert _said(creator, player).startswith("nothing typed yet")


def test_offline_a_book_written_again_is_changed(tmp_path):
    backend = XlsxBackend(tmp_path / "g")
    players = bot_names(4)
    engine.new_game(backend, "magicians-market", players, 7)
    roles = {"host", *(f"player:{p}" for p in players)}
    changed, mark = backend.changed(roles)
    assert changed == roles  # nothing known yet
    assert backend.changed(roles, mark)[0] == set()
    engine.check(backend, players=players[:2])  # tells two players: writes their status tabs
    assert backend.changed(roles, mark)[0] == {f"player:{p}" for p in players[:2]}


def test_a_refused_question_reads_every_book_as_before_and_says_so_once():
    fake, now = FakeGoogle(keep_bodies=False), [START]
    creator, _ = fake_backend("", fake=fake)
    engine.new_game(creator, "magicians-market", bot_names(4), 7, clock=lambda: now[0], settings={
        "first deadline": stamp(START + timedelta(days=2))[:16], "check minutes": 1})
    watcher, _ = fake_backend(creator.refs()["host"], fake=fake)
    lines = []
    watch = Watch(watcher, None, lambda: now[0], say=lines.append)
    for _ in range(2):  # the Drive API not enabled in the project, say
        fake.fail_next(1, 403, reason="accessNotConfigured")
        watch.step()
        now[0] += MINUTE
    assert sum("every check reads every book until it answers" in line for line in lines) == 1
    assert any(line.endswith("day 1: checked: 4 empty") for line in lines)
    before = len(fake.requests)
    watch.step()  # answered again: the first answer knows nothing, so every book is read once more
    now[0] += MINUTE
    watch.step()
    assert [call.path for call in fake.requests[-1:]] == ["/drive/v3/changes"] and len(fake.requests) - before > 5
