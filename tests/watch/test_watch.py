"""`watch` runs whole games on their deadlines with a fake clock, against a fake Discord on the
loopback interface: killed before every step and started again, two at once, on xlsx and on the
fake Google API, it resolves each round once, posts each message once and reminds on time."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from typer.testing import CliRunner

from sheets_host.backends import ENGINE_TAB
from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.cli.main import app
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import delivered
from sheets_host.engine.host import parse_time
from sheets_host.engine.play import bot_names
from sheets_host.fakes.discord import FakeDiscord
from sheets_host.fakes.google import FakeGoogle, fake_backend
from sheets_host.kit.errors import RoundError, SchemaErrors
from sheets_host.watch.loop import Watch

from .watching import START, Killer, play, progress

# Checks only as each round opens and once after, to keep the kills (one before every write) few.
GAMES = {"magicians-market": {"days": 2, "check minutes": 300}, "wind-guide-me": {"rounds": 2, "check minutes": 300}}
PLAYERS = {"magicians-market": 4, "wind-guide-me": 7}


@pytest.fixture
def fake():
    with FakeDiscord() as server:
        yield server


def xlsx(folder):
    return lambda first: XlsxBackend(folder)


def google(fake_google):
    return lambda first: fake_backend(first.refs()["host"] if first else "", fake=fake_google)[0]


def same_messages(run, model) -> None:
    """Each message once, as in `model`: each reminder at its moment, each round's results within
    seconds (a kill takes no time, so a restarted watch may post in the second it resolved)."""
    assert [text for _, text in run.sent] == [text for _, text in model.sent]
    for (at, text), (model_at, _) in zip(run.sent, model.sent):
        assert at == model_at if text.startswith("\u23f0") else abs(at - model_at) < timedelta(seconds=5)


def outcome(backend) -> tuple:
    """The final state, the rounds resolved (one log line each) and whether every book shows the
    host's last commit."""
    session = engine.open_session(backend)
    log = backend.book("host").read(["log"])["log"]
    resolved = sorted(m for k, m in zip(log["kind"], log["message"]) if k == "resolve" and re.match(r"round \d+ resolved", m))
    books = {role: delivered(backend.book(role).read([ENGINE_TAB]).get(ENGINE_TAB))
             for role in ["public", *(f"player:{p}" for p in session.players)]}
    return session.game.dump(session.state), resolved, set(books.values()) == {session.commit.version}


@pytest.mark.slow(10)
@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_killed_before_every_step_plays_as_one_never_killed(tmp_path, fake, game):
    plain = play(xlsx(tmp_path / "plain"), game, fake.url("1", "a"), PLAYERS[game], GAMES[game])
    posts = [m.content for m in fake.posted()]
    # Wind Guide Me's nine books: killed before the host book's writes and Discord's only, to keep it short.
    killer = Killer(lambda: progress(XlsxBackend(tmp_path / "killed")), books=game == "magicians-market")
    killed = play(xlsx(tmp_path / "killed"), game, fake.url("2", "b"), PLAYERS[game], GAMES[game], killer=killer)
    assert killer.kills > (40 if killer.books else 12)
    same_messages(killed, plain)
    assert [m.content for m in fake.posted()][len(posts):] == posts
    state, resolved, caught_up = outcome(XlsxBackend(tmp_path / "killed"))
    assert (state, resolved) == outcome(XlsxBackend(tmp_path / "plain"))[:2]
    assert resolved == ["round 1 resolved", "round 2 resolved: the game is over"] and caught_up


def test_reminders_come_at_their_hours_and_say_nothing_private(tmp_path, fake):
    players = bot_names(4)
    hooks = tmp_path / "hooks"  # each player's own channel: receipts go there, never to the public one
    hooks.write_text("".join(f"{p} {fake.url(str(10 + i), f'secret-{i}')}\n" for i, p in enumerate(players)))
    run = play(xlsx(tmp_path / "g"), "magicians-market", fake.url("1", "a"), settings={"days": 2}, webhooks=hooks)
    reminders = [(at, text) for at, text in run.sent if text.startswith("\u23f0")]
    first = START.replace(hour=18)
    assert [at for at, _ in reminders] == [first - timedelta(hours=2), first - timedelta(minutes=30),
                                           first + timedelta(hours=4), first + timedelta(hours=5, minutes=30)]
    assert "**Day 1** closes in 2 hours, at 2026-11-22 18:00:00 UTC" in reminders[0][1]
    assert not any(p in text for _, text in reminders for p in bot_names(4))
    # The results of each day, then its root, after the reminders of that day.
    assert len(run.sent) == 8 and all("closes" not in run.sent[k][1] for k in (2, 3, 6, 7))
    assert "Round root" in run.sent[3][1] and "Round root" in run.sent[7][1]
    assert not any("Your submission" in text for _, text in run.sent)
    # The bots type once a day, what counts: a receipt a player a day, and after each day the
    # player's commitment, through their own webhook alone.
    hooks = sorted(fake.url(str(10 + i), f"secret-{i}") for i in range(4) for _ in range(2))
    checked = [(a, text) for a, text in run.private if text.startswith("\U0001f4ec")]
    committed = [(a, text) for a, text in run.private if text.startswith("\U0001f50f")]
    assert len(checked) + len(committed) == len(run.private)
    assert sorted(a for a, _ in checked) == hooks and sorted(a for a, _ in committed) == hooks
    assert all(text.startswith("\U0001f4ec **Magician's Market, day ") and "Your submission: counts" in text
               for _, text in checked)


def test_two_watches_at_once_resolve_and_post_once(tmp_path, fake):
    one = play(xlsx(tmp_path / "one"), "magicians-market", fake.url("1", "a"), 4, {"days": 2})
    two = play(xlsx(tmp_path / "two"), "magicians-market", fake.url("2", "b"), 4, {"days": 2}, watches=2)
    assert [text for _, text in two.sent] == [text for _, text in one.sent]
    assert outcome(XlsxBackend(tmp_path / "two"))[:2] == outcome(XlsxBackend(tmp_path / "one"))[:2]


@pytest.mark.slow(10)
def test_a_whole_game_on_google_killed_at_every_host_write(fake, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # announcements go to ./sheets-host-out on Google
    # Each game on a Drive of its own: the same `new` run again on one Drive finds the game it made.
    plain = play(google(FakeGoogle()), "magicians-market", fake.url("1", "a"), settings={"days": 2})
    fake_google = FakeGoogle()
    made = []

    def opened(first):
        made.append(google(fake_google)(first))
        return made[-1]

    killer = Killer(lambda: progress(fake_backend(made[0].refs()["host"], fake=fake_google)[0]), books=False)
    killed = play(opened, "magicians-market", fake.url("2", "b"), settings={"days": 2}, killer=killer)
    assert killer.kills > 10
    same_messages(killed, plain)
    backend = fake_backend(made[0].refs()["host"], fake=fake_google)[0]
    state, resolved, caught_up = outcome(backend)
    assert resolved == ["round 1 resolved", "round 2 resolved: the game is over"] and caught_up


def test_a_round_resolved_meanwhile_is_not_resolved_again(folder_backend):
    engine.new_game(folder_backend, "wind-guide-me", bot_names(7), 7, clock=lambda: START)
    engine.resolve(folder_backend, early=True, allow_empty=True, clock=lambda: START)
    with pytest.raises(RoundError, match="round 1 is no longer open: another command resolved it"):
        engine.resolve(folder_backend, early=True, allow_empty=True, clock=lambda: START, expect=1)
    with pytest.raises(RoundError, match="round 1 is no longer open"):
        engine.lock(folder_backend, clock=lambda: START, expect=1)
    assert engine.open_session(folder_backend).open_round["round"] == 2


def test_discord_down_is_waited_out_and_nothing_is_posted_twice(folder_backend, fake):
    now = [START]
    engine.new_game(folder_backend, "wind-guide-me", bot_names(7), 7, clock=lambda: now[0],
                    settings={"first deadline": "2026-11-22 12:00", "reminder hours": ""})
    lines = []
    watch = Watch(folder_backend, fake.url("1", "a"), lambda: now[0], say=lines.append)
    assert watch.step() == now[0]  # locked and resolved: post next
    fake.fail_next(503, 1)
    wake = watch.step()
    assert wake == START + timedelta(minutes=1) and "trying again in 1 min" in lines[-1] and not fake.posted()
    now[0] = wake
    watch.step()
    assert len(fake.posted()) == 2 and "round 1: posted (2 posted)" in lines[-1]  # the results, the root
    watch.step()
    assert len(fake.posted()) == 2


def test_spirit_chain_rows_are_stamped_when_first_seen_and_a_part_ends_when_settled(folder_backend, fake):
    """Ada types a bid 10 s into the Auction without a time: stamped at the next poll. Blaise
    types nothing: the part ends when his 3 periods of reserve are spent (75 s + 90 s)."""
    now = [START]
    engine.new_game(folder_backend, "spirit-chain", bot_names(2), 7, clock=lambda: now[0], settings={"reserve periods": 3})
    lines = []
    watch = Watch(folder_backend, fake.url("1", "a"), lambda: now[0], say=lines.append)
    typed = False
    while engine.open_session(folder_backend).open_round["round"] == 1:
        if not typed and now[0] >= START + timedelta(seconds=10):
            _type(folder_backend, "Ada", [["", 3, 0, 0, 0, 0]])
            typed = True
        now[0] = max(watch.step(), now[0] + timedelta(seconds=1))
    stamped = [line for line in lines if "stamped" in line]
    assert len(stamped) == 1 and "Ada: submit row 2" in stamped[0]
    at = parse_time(stamped[0].split(" stamped ")[1].split(" on ")[0], "line")
    assert START + timedelta(seconds=10) <= at <= START + timedelta(seconds=15)
    frozen = parse_time(engine.open_session(folder_backend).rounds[0]["frozen at"], "frozen")
    assert START + timedelta(seconds=165) <= frozen <= START + timedelta(seconds=170)
    state = engine.open_session(folder_backend).state
    assert list(state.reserve) == [3, 0]  # Ada's row within the window; Blaise spent it all


def test_spirit_chain_part_ends_with_its_window_once_both_have_answered(folder_backend, fake):
    now = [START]
    engine.new_game(folder_backend, "spirit-chain", bot_names(2), 7, clock=lambda: now[0])
    watch = Watch(folder_backend, fake.url("1", "a"), lambda: now[0], say=lambda line: None)
    _type(folder_backend, "Ada", [["", 3, 0, 0, 0, 0]])
    _type(folder_backend, "Blaise", [["2026-11-22 12:00:20", 1, 1, 0, 0, 0]])
    while engine.open_session(folder_backend).open_round["round"] == 1:
        now[0] = max(watch.step(), now[0] + timedelta(seconds=1))
    frozen = parse_time(engine.open_session(folder_backend).rounds[0]["frozen at"], "frozen")
    assert START + timedelta(seconds=75) <= frozen <= START + timedelta(seconds=80)


def _type(backend, player, rows):
    from sheets_host.engine.delivery import submit_tab
    import pandas as pd

    session = engine.open_session(backend)
    tab = session.game.submit_tabs(session.state, player)[0]
    data = pd.DataFrame(rows, columns=tab.header[:len(rows[0])]).reindex(columns=tab.header)
    data.index = range(2, 2 + len(data))
    data, layout = submit_tab(session.game, session.state, player, tab, data)
    backend.book(f"player:{player}").write({tab.name: data}, layouts={tab.name: layout})


def test_a_bad_reminder_setting_names_the_cell(folder_backend):
    with pytest.raises(SchemaErrors, match=r"column 'reminder hours': 'soon' is not hours before a deadline"):
        engine.new_game(folder_backend, "wind-guide-me", bot_names(7), 7, settings={"reminder hours": "soon"})


def test_once_does_what_is_due_and_exits(tmp_path, fake):
    folder = tmp_path / "g"
    engine.new_game(XlsxBackend(folder), "wind-guide-me", bot_names(7), 7,
                    settings={"first deadline": "2020-01-01 18:00", "round hours": 100_000})
    result = CliRunner().invoke(app, ["watch", str(folder), "--once", "--webhook", fake.url("9", "secret")])
    assert result.exit_code == 0, result.output
    assert re.search(r"round 1: locked\n.*round 1: resolved\n.*round 1: posted \(2 posted\)", result.output)
    assert "secret" not in result.output and len(fake.posted()) == 2
    again = CliRunner().invoke(app, ["watch", str(folder), "--once", "--webhook", fake.url("9", "secret")])
    assert again.exit_code == 0 and "resolved" not in again.output and len(fake.posted()) == 2
