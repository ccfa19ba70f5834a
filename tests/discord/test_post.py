"""`post` against a fake Discord on the loopback interface (real HTTP, the real discord-webhook
library): each message posted once, posting again edits or leaves alone, a crash loses nothing."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sheets_host.cli.main import app
from sheets_host.discord import post as posting
from sheets_host.discord.announce import Message
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bots_submit
from sheets_host.kit.errors import SheetsHostError

from tests.conftest import PLAYERS, fixed_clock

SECRET = "s3cret-token"


def played(backend, rounds=1, seed=7):
    engine.new_game(backend, "wind-guide-me", PLAYERS, 7, clock=fixed_clock)
    for _ in range(rounds):
        bots_submit(backend, engine.open_session(backend, fixed_clock), seed, messy=False)
        engine.resolve(backend, early=True, clock=fixed_clock)


def post(backend, url, **kw):
    return posting.post(backend, url, clock=fixed_clock, **kw)


def host_text(backend) -> str:
    tabs = backend.book("host").read()
    return "\n".join(tab.to_csv() for tab in tabs.values())


def test_posting_twice_posts_once_and_keeps_the_ids_in_the_host_book(folder_backend, fake):
    played(folder_backend)
    url = fake.url("42", SECRET)
    first = post(folder_backend, url)
    live = fake.posted()
    assert first.done["posted"] == len(live) >= 1 and not fake.allows_mentions()
    assert any(name.endswith(".png") for m in live for name, _ in m.attachments)
    requests = len(fake.requests)
    again = post(folder_backend, url)
    assert again.done == {"posted": 0, "edited": 0, "unchanged": len(live), "deleted": 0}
    assert len(fake.requests) == requests  # nothing sent
    posts = folder_backend.book("host").read(["posts"])["posts"]
    assert list(posts["message id"].astype(str)) == [m.id for m in live]
    assert SECRET not in host_text(folder_backend)  # the address never goes into a book


def test_a_round_undone_and_resolved_otherwise_edits_its_messages(folder_backend, fake):
    played(folder_backend, rounds=2)
    url = fake.url("42", SECRET)
    post(folder_backend, url)
    before = [(m.id, m.content) for m in fake.posted()]
    engine.undo(folder_backend, clock=fixed_clock)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 99, messy=False)
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    report = post(folder_backend, url)
    after = [(m.id, m.content) for m in fake.posted()]
    assert report.done["edited"] >= 1 and report.done["posted"] == len(after) - len(before)
    assert [i for i, _ in after[:len(before)]] == [i for i, _ in before]  # the same messages, edited
    assert after != before


def test_a_redo_that_changes_nothing_posts_only_a_message_with_the_new_commitments(folder_backend, fake):
    """A redo publishes new commitments (issue 28): they come in a new message (issue 35: the
    first root's stays as it was); the results, the same, are left alone."""
    played(folder_backend)
    url = fake.url()
    post(folder_backend, url)
    engine.resolve(folder_backend, redo=True, clock=fixed_clock)
    report = post(folder_backend, url)
    assert report.done == {"posted": 1, "edited": 0, "unchanged": len(fake.posted()) - 2, "deleted": 0}
    assert "Round root" in fake.posted()[-1].content and "It replaces the root" in fake.posted()[-1].content


def test_a_rate_limit_is_waited_out(folder_backend, fake):
    played(folder_backend)
    fake.rate_limit(n=1, retry_after=0.01)
    report = post(folder_backend, fake.url())
    assert [r.status for r in fake.requests][:2] == [429, 200]
    assert report.done["posted"] == len(fake.posted())


def test_a_crash_after_the_first_message_posts_only_the_rest_on_the_next_run(folder_backend, fake, monkeypatch):
    played(folder_backend)
    parts = [Message(f"part {k}") for k in range(1, 4)]
    monkeypatch.setattr(posting, "round_messages", lambda *a: parts)
    calls = []

    def failing(url, message, message_id):
        if len(calls) == 1:
            fake.fail_next(status=500)
        calls.append(message)
        return posting.send_to_discord(url, message, message_id)

    with pytest.raises(posting.PostError, match="Discord answered 500 through webhook 1"):
        post(folder_backend, fake.url(), send=failing)
    assert [m.content for m in fake.posted()] == ["part 1"]
    report = post(folder_backend, fake.url())
    assert report.done == {"posted": 3, "edited": 0, "unchanged": 1, "deleted": 0}  # two parts and the root's
    assert [m.content for m in fake.posted()][:3] == ["part 1", "part 2", "part 3"]
    assert "Round root" in fake.posted()[3].content
    # Fewer parts now (a redo with a shorter announcement): the extra messages go, the root's stays.
    monkeypatch.setattr(posting, "round_messages", lambda *a: parts[:1])
    assert post(folder_backend, fake.url()).done["deleted"] == 2
    assert [m.content for m in fake.posted()][:1] == ["part 1"] and "Round root" in fake.posted()[1].content


def test_a_message_deleted_in_discord_is_posted_again(folder_backend, fake):
    played(folder_backend)
    post(folder_backend, fake.url())
    first = fake.posted()[0]
    first.deleted = True  # a moderator removed it
    engine.undo(folder_backend, clock=fixed_clock)
    bots_submit(folder_backend, engine.open_session(folder_backend, fixed_clock), 99, messy=False)
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    post(folder_backend, fake.url())
    assert fake.posted() and fake.posted()[0].id != first.id


def test_no_round_resolved_and_no_webhook_are_said_plainly(folder_backend, tmp_path, monkeypatch):
    engine.new_game(folder_backend, "wind-guide-me", PLAYERS, 7, clock=fixed_clock)
    with pytest.raises(SheetsHostError, match="no round has been resolved yet"):
        post(folder_backend, "http://127.0.0.1:9/api/webhooks/1/x")
    monkeypatch.delenv(posting.WEBHOOK_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SheetsHostError, match="no Discord webhook: give --webhook URL, set SHEETS_HOST_WEBHOOK"):
        posting.webhook_url(None)
    with pytest.raises(SheetsHostError, match="the webhook address is not one"):
        posting.webhook_url("https://example.com/hook")
    (tmp_path / posting.WEBHOOK_FILE).write_text("https://discord.com/api/webhooks/5/abc\n")
    assert posting.webhook_url(None) == "https://discord.com/api/webhooks/5/abc"
    monkeypatch.setenv(posting.WEBHOOK_ENV, "https://discord.com/api/webhooks/6/def")
    assert posting.webhook_url(None).endswith("/6/def")


def test_discord_unreachable_names_the_webhook_not_its_token(folder_backend):
    played(folder_backend)
    with pytest.raises(posting.PostError) as error:
        post(folder_backend, f"http://127.0.0.1:9/api/webhooks/77/{SECRET}")
    assert "webhook 77" in str(error.value) and SECRET not in str(error.value)


def test_dry_run_prints_the_messages_and_posts_nothing(tmp_path, fake):
    from sheets_host.backends.xlsx.backend import XlsxBackend

    played(XlsxBackend(tmp_path))
    result = CliRunner().invoke(app, ["post", str(tmp_path), "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data and set(data[0]) == {"content", "files"} and data[0]["content"].startswith("## Wind Guide Me")
    assert any(name.endswith(".png") for m in data for name in m["files"]) and not fake.requests
    result = CliRunner().invoke(app, ["post", str(tmp_path), "--webhook", fake.url("9", SECRET)])
    assert result.exit_code == 0 and "posted to webhook 9: 2 posted" in result.output, result.output
    assert SECRET not in result.output


def test_the_post_carries_the_round_root_the_announcement_file_and_the_public_book_say(tmp_path, fake):
    """Regression (issue 28): Discord's post was the game's text alone, without the round's
    commitments that the announcement file and the public book publish."""
    from sheets_host.backends.xlsx.backend import XlsxBackend

    backend = XlsxBackend(tmp_path)
    played(backend)
    public = backend.book("public").read(["commitments"])["commitments"]
    root = public.loc[public["what"] == "round root", "commitment"].iloc[-1]
    result = CliRunner().invoke(app, ["post", str(tmp_path), "--dry-run", "--json"])
    posted = "\n".join(m["content"] for m in json.loads(result.output))
    assert f"Round root: `{root}`" in posted and root in (tmp_path / "announcements" / "round-01.md").read_text()
