"""The Discord webhook fake, driven over real HTTP by the discord-webhook library our announcements use."""

from __future__ import annotations

import json

import pytest
import requests
from discord_webhook import DiscordWebhook

from sheets_host.fakes.discord import FakeDiscord, Request

PATH = "/api/webhooks/1/tok"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 3  # every byte value, CR/LF included, must survive multipart


@pytest.fixture
def fake():
    with FakeDiscord() as running:
        yield running


def hook(fake: FakeDiscord, **kwargs) -> DiscordWebhook:
    return DiscordWebhook(fake.url(), allowed_mentions={"parse": []}, rate_limit_retry=True, **kwargs)


def with_two_files(fake: FakeDiscord) -> DiscordWebhook:
    webhook = hook(fake, content="scores", attachments=[{"id": 0, "filename": "a.png"}, {"id": 1, "filename": "b.txt"}],
                   files={"files[0]": ("a.png", PNG), "files[1]": ("b.txt", b"B\n")})
    assert webhook.execute().status_code == 200
    return webhook


def test_post_content_answers_the_message(fake):
    first = hook(fake, content="Round 1 is open")
    reply = first.execute()
    assert reply.status_code == 200
    body = reply.json()
    assert isinstance(body["id"], str) and body["content"] == "Round 1 is open"
    assert body["channel_id"] == fake.channel_id and body["attachments"] == [] and body["timestamp"]
    assert first.id == body["id"]  # the library keeps it for edit() and delete()
    second = hook(fake, content="Round 2 is open").execute().json()
    assert int(second["id"]) > int(body["id"])
    assert [m.content for m in fake.posted()] == ["Round 1 is open", "Round 2 is open"]
    assert list(fake.messages) == [body["id"], second["id"]]
    assert fake.requests == [Request("POST", PATH, 200)] * 2


def test_post_two_files_with_attachments(fake):
    webhook = with_two_files(fake)
    (message,) = fake.posted()
    assert message.content == "scores"
    assert message.attachments == [("a.png", PNG), ("b.txt", b"B\n")]
    shown = webhook.attachments  # the library copies the answer's attachments
    assert [(a["filename"], a["size"]) for a in shown] == [("a.png", len(PNG)), ("b.txt", 2)]
    assert [a["id"] for a in shown] == message.attachment_ids and all(isinstance(a["id"], str) for a in shown)
    assert shown[0]["url"].endswith("/a.png")


def test_file_parts_with_any_name_are_attached_on_execute(fake):
    webhook = hook(fake, content="x")
    webhook.add_file(b"data", "notes.txt")  # the library names this part "_notes.txt"
    assert webhook.execute().status_code == 200
    assert fake.posted()[0].attachments == [("notes.txt", b"data")]


def test_edit_content(fake):
    webhook = hook(fake, content="Round 1 is open")
    webhook.execute()
    webhook.set_content("Round 1 is closed")
    reply = webhook.edit()
    assert reply.status_code == 200 and reply.json()["content"] == "Round 1 is closed"
    assert reply.json()["edited_timestamp"]
    message = fake.messages[webhook.id]
    assert (message.content, message.edits) == ("Round 1 is closed", 1)
    assert fake.requests[-1] == Request("PATCH", f"{PATH}/messages/{webhook.id}", 200)


def test_edit_replaces_attachments_as_api_v10(fake):
    webhook = with_two_files(fake)
    kept = webhook.attachments[0]
    webhook.attachments = [kept, {"id": 0, "filename": "c.png"}]  # keep a.png, drop b.txt, add c.png
    webhook.files = {"files[0]": ("c.png", b"C")}
    reply = webhook.edit()
    assert reply.status_code == 200
    message = fake.messages[webhook.id]
    assert message.attachments == [("a.png", PNG), ("c.png", b"C")]
    assert message.attachment_ids[0] == kept["id"] and message.attachment_ids[1] != kept["id"]
    assert [a["filename"] for a in reply.json()["attachments"]] == ["a.png", "c.png"]

    # An empty array removes them all (JSON edit, no files).
    webhook.attachments, webhook.files = [], {}
    assert webhook.edit().status_code == 200
    assert (message.attachments, message.content, message.edits) == ([], "scores", 2)


def test_edit_without_attachments_array_appends_new_files(fake):
    webhook = with_two_files(fake)
    url = f"{fake.url()}/messages/{webhook.id}"
    reply = requests.patch(url, files={"files[0]": ("d.txt", b"D"), "payload_json": (None, json.dumps({}))})
    assert reply.status_code == 200
    assert [name for name, _ in fake.messages[webhook.id].attachments] == ["a.png", "b.txt", "d.txt"]


def test_edit_naming_an_unknown_attachment_is_refused_and_changes_nothing(fake):
    webhook = with_two_files(fake)
    webhook.attachments = [{"id": "12345"}]
    webhook.set_content("changed")
    reply = webhook.edit()
    assert reply.status_code == 400 and reply.json()["code"] == 50035
    assert "attachments" in reply.json()["errors"]
    message = fake.messages[webhook.id]
    assert (message.content, len(message.attachments), message.edits) == ("scores", 2, 0)


def test_delete(fake):
    webhook = hook(fake, content="oops")
    webhook.execute()
    assert webhook.delete().status_code == 204
    assert fake.posted() == [] and fake.messages[webhook.id].deleted
    gone = requests.get(f"{fake.url()}/messages/{webhook.id}")
    assert gone.status_code == 404 and gone.json() == {"message": "Unknown Message", "code": 10008}
    assert webhook.delete().status_code == 404


def test_get_message(fake):
    webhook = hook(fake, content="hello")
    webhook.execute()
    reply = requests.get(f"{fake.url()}/messages/{webhook.id}")
    assert reply.status_code == 200 and reply.json()["content"] == "hello"


def test_rate_limited_once_then_retried(fake):
    fake.rate_limit(n=1, retry_after=0.01)
    reply = hook(fake, content="hi").execute()  # the library sleeps retry_after + 0.15 s, then resends
    assert reply.status_code == 200
    assert [r.status for r in fake.requests] == [429, 200]
    assert [m.content for m in fake.posted()] == ["hi"]


def test_rate_limit_answer_looks_like_discords(fake):
    fake.rate_limit(retry_after=0.05)
    reply = requests.post(fake.url(), json={"content": "hi"})
    assert reply.status_code == 429
    assert reply.json() == {"message": "You are being rate limited.", "retry_after": 0.05, "global": False}
    assert reply.headers["Via"] and reply.headers["X-RateLimit-Remaining"] == "0"
    assert float(reply.headers["Retry-After"]) == 0.05 and "X-RateLimit-Reset-After" in reply.headers
    assert fake.messages == {}


def test_server_error_then_success(fake):
    fake.fail_next(status=500)
    assert requests.post(fake.url(), json={"content": "hi"}).status_code == 500
    assert requests.post(fake.url(), json={"content": "hi"}, params={"wait": "true"}).status_code == 200
    assert [r.status for r in fake.requests] == [500, 200] and len(fake.posted()) == 1


def test_without_wait_the_answer_is_204(fake):
    reply = requests.post(fake.url(), json={"content": "hi"})
    assert (reply.status_code, reply.content) == (204, b"")
    assert fake.posted()[0].content == "hi"


def test_content_over_2000_characters_is_refused(fake):
    reply = hook(fake, content="x" * 2001).execute()
    assert reply.status_code == 400
    body = reply.json()
    assert (body["message"], body["code"]) == ("Invalid Form Body", 50035) and "content" in body["errors"]
    assert fake.messages == {}
    assert hook(fake, content="x" * 2000).execute().status_code == 200


def test_eleven_files_are_refused(fake):
    files = {f"files[{n}]": (f"{n}.txt", b"x") for n in range(11)}
    reply = hook(fake, content="many", files=files).execute()
    assert reply.status_code == 400 and "attachments" in reply.json()["errors"]
    assert fake.messages == {}
    files.pop("files[10]")
    assert hook(fake, content="ten", files=files).execute().status_code == 200


def test_empty_message_is_refused(fake):
    reply = requests.post(fake.url(), json={"allowed_mentions": {"parse": []}}, params={"wait": "true"})
    assert reply.status_code == 400 and reply.json()["code"] == 50006


def test_too_big_file_is_refused():
    with FakeDiscord(max_file_bytes=100) as fake:
        reply = hook(fake, content="pic", files={"files[0]": ("a.png", b"x" * 101)}).execute()
        assert reply.status_code == 413
        assert reply.json() == {"message": "Request entity too large", "code": 40005}
        assert fake.messages == {}
        assert hook(fake, content="pic", files={"files[0]": ("a.png", b"x" * 100)}).execute().status_code == 200


def test_unknown_message_and_unknown_webhook():
    with FakeDiscord(known={("1", "tok")}) as fake:
        reply = requests.patch(f"{fake.url()}/messages/123", json={"content": "x"})
        assert reply.status_code == 404 and reply.json() == {"message": "Unknown Message", "code": 10008}
        stranger = requests.post(fake.url("1", "wrong"), json={"content": "x"})
        assert stranger.status_code == 404 and stranger.json() == {"message": "Unknown Webhook", "code": 10015}
        versioned = fake.url().replace("/api/", "/api/v10/")
        assert requests.post(versioned, json={"content": "x"}, params={"wait": "True"}).status_code == 200


def test_allowed_mentions_are_recorded(fake):
    hook(fake, content="@everyone round 1").execute()
    assert fake.posted()[0].allowed_mentions == {"parse": []}
    assert not fake.allows_mentions()
    DiscordWebhook(fake.url(), content="@everyone round 2").execute()  # no allowed_mentions: Discord pings
    assert fake.posted()[1].allowed_mentions is None
    assert fake.allows_mentions()
    assert not fake.allows_mentions(fake.posted()[0].id)
