"""`post`: the last resolved round's announcement and pictures, to a Discord channel's webhook.

The messages are made from the host book alone (the state before the round, from its snapshot,
and after it), so posting from another machine, again, or after `resolve --redo` sends the same
thing. The host book's `posts` tab records each message Discord accepted (round, part, its id
and a digest of what it holds): posting again leaves a message whose digest is unchanged alone,
edits one that changed (a redo), posts one that is new and deletes one no longer needed. The
record is written after each message, so a crash loses at most the message in flight.

The webhook's address is a secret (whoever has it can post as the tool): it comes from
`--webhook`, the SHEETS_HOST_WEBHOOK environment variable or a `.sheets-host-webhook` file (in the
current folder or the game's), is never written into a book or the log, and shows in messages only
as its webhook id.

The library is discord-webhook (requests, which gspread already uses): it posts to any address, so
the tests drive it against a fake Discord on the loopback interface, and it waits out a 429's
`retry_after`. discord.py's SyncWebhook would bring aiohttp and only accepts discord.com addresses.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.client import HTTPException
from pathlib import Path

from . import cells
from .announce import Message, round_messages
from .backends import Backend
from .errors import RoundError, SheetsHostError
from .host import Clock, Session, now_utc, open_session, stamp
from .layout import lay_out_tab
from .table import Column, TabSchema

WEBHOOK_ENV = "SHEETS_HOST_WEBHOOK"
WEBHOOK_FILE = ".sheets-host-webhook"
POSTS = TabSchema("posts", (Column("round", "int", lo=1), Column("part", "int", lo=1), Column("message id"),
                            Column("digest"), Column("posted at", optional=True)),
                  "Discord messages posted by `post` (kept so that posting again edits them).")
_ADDRESS = re.compile(r"^https?://[^/\s]+/api/(v\d+/)?webhooks/(\d+)/[\w.-]+/?$")


class PostError(SheetsHostError):
    """Discord refused or could not be reached; what was posted before is recorded."""


def webhook_url(given: str | None, folders: Sequence[Path] = ()) -> str:
    """The webhook's address: `--webhook`, else the environment variable, else the first
    `.sheets-host-webhook` file found in the current folder or `folders`."""
    url = given or os.environ.get(WEBHOOK_ENV)
    if not url:
        for folder in (Path.cwd(), *folders):
            path = folder / WEBHOOK_FILE
            if path.is_file():
                url = path.read_text(encoding="utf-8").strip()
                break
    if not url:
        raise SheetsHostError(f"no Discord webhook: give --webhook URL, set {WEBHOOK_ENV}, or put the address in a "
                              f"{WEBHOOK_FILE} file (git-ignored) in this folder or the game's. Discord makes one in "
                              "a channel's settings: Integrations, Webhooks, New Webhook, Copy Webhook URL")
    if not _ADDRESS.match(url.strip()):
        raise SheetsHostError("the webhook address is not one: it looks like https://discord.com/api/webhooks/"
                              "<number>/<token> (copy it again from the channel's Integrations settings)")
    return url.strip()


def shown(url: str) -> str:
    """The address without its token, for messages.

    >>> shown("https://discord.com/api/webhooks/123/secret-token")
    'webhook 123'
    """
    match = _ADDRESS.match(url)
    return f"webhook {match.group(2)}" if match else "webhook"


def _token(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


def digest(message: Message) -> str:
    h = hashlib.sha256(message.content.encode())
    for f in message.files:
        h.update(b"\0" + f.name.encode() + b"\0" + hashlib.sha256(f.data).digest())
    return h.hexdigest()[:16]


def planned(session: Session) -> tuple[int, list[Message]]:
    """The last resolved round and its messages, from the host book."""
    last = session.last_resolved
    if last is None:
        raise RoundError("no round has been resolved yet: there is nothing to post")
    number = last["round"]
    return number, round_messages(session.game, session.snapshot(number), session.state, number)


@dataclass
class PostReport:
    round: int
    name: str
    messages: list[Message]
    done: dict[str, int] = field(default_factory=lambda: {"posted": 0, "edited": 0, "unchanged": 0, "deleted": 0})


Send = Callable[[str, Message | None, str | None], str | None]


def post(backend: Backend, url: str | None, dry_run: bool = False, clock: Clock = now_utc,
         send: Send | None = None) -> PostReport:
    """Post (or with `dry_run` only compute) the last resolved round's messages; see the module."""
    with backend.hold("post"):
        session = open_session(backend, clock)
        number, wanted = planned(session)
        report = PostReport(number, session.game.round_name(number), wanted)
        if dry_run:
            return report
        send = send or _discord
        records = read_posts(session)
        for part, message in enumerate(wanted, 1):
            old = records.get((number, part))
            if old is not None and old["digest"] == digest(message):
                report.done["unchanged"] += 1
                continue
            message_id = send(url, message, old["message id"] if old else None)
            report.done["edited" if old else "posted"] += 1
            records[number, part] = {"round": number, "part": part, "message id": message_id,
                                     "digest": digest(message), "posted at": stamp(clock())}
            write_posts(session, records)
        for key in sorted(k for k in records if k[0] == number and k[1] > len(wanted)):
            send(url, None, records.pop(key)["message id"])
            report.done["deleted"] += 1
            write_posts(session, records)
        return report


def read_posts(session: Session) -> dict[tuple[int, int], dict]:
    data = session.tabs.get("posts")
    if data is None or data.empty:
        return {}
    return {(r["round"], r["part"]): r for r in POSTS.records(data)}


def write_posts(session: Session, records: Mapping[tuple[int, int], dict]) -> None:
    data = POSTS.frame([records[k] for k in sorted(records)])
    session.host.write({"posts": data}, layouts={"posts": lay_out_tab(data, POSTS)})
    session.tabs["posts"] = data


def _discord(url: str, message: Message | None, message_id: str | None) -> str | None:
    """Post `message` (a new one, or an edit of `message_id`), or delete `message_id` when
    `message` is None; the message's id. Mentions are never parsed; a 429 is waited out."""
    import requests
    from discord_webhook import DiscordWebhook

    files = message.files if message else ()
    hook = DiscordWebhook(url, content=message.content if message else None, id=message_id,
                          allowed_mentions={"parse": []}, rate_limit_retry=True, timeout=60,
                          attachments=[{"id": i, "filename": f.name} for i, f in enumerate(files)],
                          files={f"files[{i}]": (f.name, f.data) for i, f in enumerate(files)})
    try:
        if message is None:
            response = hook.delete()
        elif message_id:
            response = hook.edit()
            if response.status_code == 404:  # deleted in Discord meanwhile: post it again
                return _discord(url, message, None)
        else:
            response = hook.execute()
    except (requests.RequestException, OSError) as e:
        raise PostError(f"Discord could not be reached through {shown(url)}: {type(e).__name__}: "
                        f"{str(e).replace(_token(url), '***')}") from None
    except ValueError:  # the library reads every reply as JSON
        raise PostError(f"Discord's answer through {shown(url)} was not one it gives (not JSON): is the address "
                        "a Discord webhook?") from None
    except HTTPException as e:  # the library's answer to a 429 that did not come from Discord itself
        raise PostError(f"Discord refused the message through {shown(url)} (rate limited): {e}") from None
    if message is None and response.status_code in (204, 404):
        return None
    if response.status_code not in (200, 204):
        try:
            why = response.json().get("message", "")
        except ValueError:
            why = response.text[:200]
        raise PostError(f"Discord answered {response.status_code} through {shown(url)}: {cells.text(why)}")
    return str(response.json()["id"]) if response.content else message_id
