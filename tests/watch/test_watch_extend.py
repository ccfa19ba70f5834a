"""`watch` follows a deadline the host moved (`extend`): its reminders are planned from the new
deadline, none sent twice and none for a moment that came before the move, and the lock moves."""

from __future__ import annotations

from datetime import timedelta

import pytest

from sheets_host.discord.post import _discord
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
        return _discord(url, message, message_id)

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
