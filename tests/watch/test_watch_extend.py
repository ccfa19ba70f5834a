"""`watch` follows a deadline the host moved (`extend`): its reminders are planned from the new
deadline, none sent twice and none for a moment that came before the move, and the lock moves.
With `early close`, it closes a round once every submission due counts and is marked final."""

from __future__ import annotations

from datetime import timedelta

import pytest

from sheets_host.discord.post import send_to_discord
from sheets_host.engine import commands as engine
from sheets_host.engine.deadlines import extend
from sheets_host.engine.play import bot_names
from sheets_host.fakes.discord import FakeDiscord
from sheets_host.watch.loop import Watch

from .watching import START


@pytest.fixture
def fake():
    with FakeDiscord() as server:
        yield server


def test_an_extended_deadline_moves_the_reminders_and_the_lock(folder_backend, fake):
    now = [START]
    engine.new_game(folder_backend, "magicians-market", bot_names(4), 7, clock=lambda: now[0], settings={
        "first deadline": "2026-11-22 18:00", "round hours": 24, "reminder hours": "2, 0.5", "check minutes": 60})
    sent, lines = [], []

    def send(url, message, message_id):
        if message is not None and message_id is None:
            sent.append((now[0], message.content))
        return send_to_discord(url, message, message_id)

    def until(moment):
        watch = Watch(folder_backend, fake.url("1", "a"), lambda: now[0], say=lines.append, send=send)  # a restart
        while now[0] < moment:
            now[0] = min(max(watch.step(), now[0] + timedelta(seconds=1)), moment)

    until(START.replace(hour=17, minute=40))  # the 30-minute reminder of 18:00 is out
    extend(folder_backend, lambda: now[0], hours=1, every_later=True)
    until(START.replace(hour=19, minute=1))
    reminders = [(at.strftime("%H:%M"), text.split(" UTC")[0]) for at, text in sent if text.startswith("\u23f0")]
    # 17:00, 2 hours before the new deadline, came before the move: not sent.
    assert reminders == [("16:00", "\u23f0 **Day 1** closes in 2 hours, at 2026-11-22 18:00:00"),
                         ("17:30", "\u23f0 **Day 1** closes in 30 minutes, at 2026-11-22 18:00:00"),
                         ("18:30", "\u23f0 **Day 1** closes in 30 minutes, at 2026-11-22 19:00:00")]
    assert [line for line in lines if "locked" in line] == ["2026-11-22 19:00:00 UTC day 1: locked"]
    assert engine.open_session(folder_backend).open_round["deadline"] == "2026-11-23 19:00:00 UTC"


def test_extend_from_the_command_line_posts_the_new_deadline_once(tmp_path, fake):
    from typer.testing import CliRunner

    from sheets_host.backends.xlsx.backend import XlsxBackend
    from sheets_host.cli.main import app

    folder = tmp_path / "g"
    engine.new_game(XlsxBackend(folder), "magicians-market", bot_names(4), 7,
                    settings={"first deadline": "2099-11-24 18:00", "reminder hours": ""})
    quiet = CliRunner().invoke(app, ["extend", str(folder), "--to", "2099-11-25 18:00", "--no-post"])
    assert quiet.exit_code == 0, quiet.output
    assert "the deadline is moved to 2099-11-25 18:00:00 UTC" in quiet.output and not fake.posted()
    result = CliRunner().invoke(app, ["extend", str(folder), "--hours", "2", "--webhook", fake.url("9", "secret")])
    assert result.exit_code == 0, result.output
    said = "\u23f0 **Day 1**: the deadline is moved to 2099-11-25 20:00:00 UTC ("
    assert said in result.output and "posted to webhook 9" in result.output and "secret" not in result.output
    assert [m.content[:len(said)] for m in fake.posted()] == [said]


def _typed(backend, player: str, final: str | None, valid: bool = True) -> None:
    """The player's bot rows (or a row no game reads), and `final` in a column of its own."""
    import pandas as pd

    from sheets_host.engine.delivery import submit_frames, submit_tab
    from sheets_host.kit.game import rng_for

    session = engine.open_session(backend)
    game, state = session.game, session.state
    tab = game.submit_tabs(state, player)[0]
    rows = game.submit_rows(game.bot(state, player, rng_for(7, 1, f"bot/{player}"))) if valid else [
        {tab.header[0]: "nonsense"}]
    data = submit_frames(game, state, player, rows)[tab.name]
    if final is not None:
        data = pd.concat([data, pd.DataFrame({"final": [final]}, index=data.index[:1])], axis=1).astype(object)
    data, layout = submit_tab(game, state, player, tab, data)
    backend.book(f"player:{player}").write({tab.name: data}, layouts={tab.name: layout})


def test_early_close_locks_and_resolves_once_every_submission_counts_and_is_final(folder_backend):
    now, players = [START], bot_names(4)
    engine.new_game(folder_backend, "magicians-market", players, 7, clock=lambda: now[0], settings={
        "first deadline": "2026-11-23 18:00", "reminder hours": "", "check minutes": 1, "early close": "yes"})
    lines = []
    watch = Watch(folder_backend, None, lambda: now[0], say=lines.append)

    def minutes(n):
        for _ in range(n):
            watch.step()
            now[0] += timedelta(minutes=1)

    status = folder_backend.book(f"player:{players[0]}").read(["status"])["status"]
    assert "type final at the top of the first empty column of the 'submit' tab" in " ".join(map(str, status["value"]))
    for p in players[:3]:
        _typed(folder_backend, p, "yes")
    _typed(folder_backend, players[3], None)
    minutes(3)
    _typed(folder_backend, players[3], "yes", valid=False)  # final, but it does not count
    minutes(3)
    assert not any("closing early" in line for line in lines)
    _typed(folder_backend, players[3], "no")
    minutes(2)
    assert not any("closing early" in line for line in lines)
    _typed(folder_backend, players[3], "Yes")
    minutes(2)
    early = [line for line in lines if "closing early" in line or ": locked" in line or ": resolved" in line]
    assert [line.split(" UTC ")[1] for line in early] == [
        "day 1: every submission due counts and is marked final: closing early", "day 1: locked", "day 1: resolved"]
    assert early[0].startswith("2026-11-22 12:08:00")  # at the first check after the last mark
    assert engine.open_session(folder_backend).open_round["round"] == 2


def test_without_early_close_a_round_marked_final_waits_for_its_deadline(folder_backend):
    now, players = [START], bot_names(4)
    engine.new_game(folder_backend, "magicians-market", players, 7, clock=lambda: now[0], settings={
        "first deadline": "2026-11-23 18:00", "reminder hours": "", "check minutes": 1})
    for p in players:
        _typed(folder_backend, p, "yes")
    watch = Watch(folder_backend, None, lambda: now[0], say=lambda line: None)
    for _ in range(3):
        watch.step()
        now[0] += timedelta(minutes=1)
    record = engine.open_session(folder_backend).open_round
    assert (record["round"], record["status"]) == (1, "open")
