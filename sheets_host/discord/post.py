"""`post`: the last resolved round's announcement and pictures, to a Discord channel's webhook.

The messages are made from the host book alone (the state before the round, from its snapshot,
and after it), so posting from another machine, again, or after `resolve --redo` sends the same
thing. The host book's `posts` tab records each message Discord accepted (round, player, root,
part, its id and a digest of what it holds), written after each message, so a crash loses at most
the message in flight. Two kinds of message:

- the **results** (the announcement, the pictures): posting again leaves a message whose digest
  is unchanged alone, edits one that changed (a redo), posts one that is new and deletes one no
  longer needed;
- the **commitments**: the round's root (and the roots it replaces) in messages of their own, and
  each player's receipt (their submission's commitment and the root) in their channel. These are
  keyed by the root they carry and never edited nor deleted: a root once public stays, and a redo's
  new root comes in new messages naming the one it replaces. A player keeps them to check the
  host's record after the game (`verify --root`).

The webhook's address is a secret (whoever has it can post as the tool): it comes from
`--webhook`, the SHEETS_HOST_WEBHOOK environment variable or a `.sheets-host-webhook` file (in the
current folder or the game's), is never written into a book or the log, and shows in messages only
as its webhook id.

Each player's private pictures (`Game.private_pictures`) go to that player's own channel, through
the webhook a `.sheets-host-webhooks` file names for them (one line a player: the name, then the
address; found like `.sheets-host-webhook`, or named by `--private-webhooks` or
SHEETS_HOST_WEBHOOKS). They are recorded in the same `posts` tab, under the player's name, and
posted again the same way. Without the file only the public messages are posted.

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

from sheets_host.backends import Backend
from sheets_host.engine import commitments
from sheets_host.engine.host import Clock, Session, now_utc, open_session, stamp
from sheets_host.kit import cells
from sheets_host.kit.errors import RoundError, SheetsHostError
from sheets_host.kit.layout import lay_out_tab
from sheets_host.kit.table import Column, TabSchema
from .announce import Message, private_messages, receipt_messages, root_messages, round_messages

WEBHOOK_ENV = "SHEETS_HOST_WEBHOOK"
WEBHOOK_FILE = ".sheets-host-webhook"
WEBHOOKS_ENV = "SHEETS_HOST_WEBHOOKS"  # the path of the players' webhooks file
WEBHOOKS_FILE = ".sheets-host-webhooks"
# The root of a public message posted before roots had messages of their own: the announcement
# whole, its root at the end, so it is never edited nor deleted either.
WHOLE = "with the announcement"
# `player` is blank for the public messages; a tab written before private pictures were posted has
# no such column, nor one written before roots had messages of their own a `root` column: an
# optional column may be missing (`TabSchema.records`).
POSTS = TabSchema("posts", (Column("round", "int", lo=1), Column("player", optional=True),
                            Column("root", optional=True), Column("part", "int", lo=1),
                            Column("message id"), Column("digest"), Column("posted at", optional=True)),
                  "Discord messages posted by `post` (kept so that posting again edits results and never posts a "
                  "root twice); player: blank for the public channel, else the player whose private channel has "
                  "it; root: the round root a commitments message or a receipt carries (never edited nor deleted), "
                  f"'{WHOLE}' for an announcement posted whole before (kept as it is too), blank "
                  "for results and pictures.")
_ADDRESS = re.compile(r"^https?://[^/\s]+/api/(v\d+/)?webhooks/(\d+)/[\w.-]+/?$")


class PostError(SheetsHostError):
    """Discord refused or could not be reached; what was posted before is recorded."""


def found(name: str, folders: Sequence[Path] = ()) -> Path | None:
    """The first file called `name` in the current folder or `folders`, if any."""
    return next((path for folder in (Path.cwd(), *folders) if (path := folder / name).is_file()), None)


def webhook_url(given: str | None, folders: Sequence[Path] = (), instead: str = "") -> str:
    """The webhook's address: `--webhook`, else the environment variable, else the first
    `.sheets-host-webhook` file found in the current folder or `folders`; when there is none, the
    message names the command's way to do without (`instead`: "add --no-post to ...")."""
    url = given or os.environ.get(WEBHOOK_ENV)
    if not url and (path := found(WEBHOOK_FILE, folders)):
        url = path.read_text(encoding="utf-8").strip()
    if not url:
        without = f"; or {instead}" if instead else ""
        raise SheetsHostError(f"no Discord webhook: give --webhook URL, set {WEBHOOK_ENV}, or put the address in a "
                              f"{WEBHOOK_FILE} file (git-ignored) in this folder or the game's{without}. Discord "
                              "makes one in a channel's settings: Integrations, Webhooks, New Webhook, Copy Webhook URL")
    if not is_address(url):
        raise SheetsHostError("the webhook address is not one: it looks like https://discord.com/api/webhooks/"
                              "<number>/<token> (copy it again from the channel's Integrations settings)")
    return url.strip()


def is_address(url: str) -> bool:
    """Whether `url` is shaped like a Discord webhook's address.

    >>> is_address("https://discord.com/api/webhooks/123/secret-token"), is_address("https://example.com/hook")
    (True, False)
    """
    return _ADDRESS.match(url.strip()) is not None


def webhook_id(url: str) -> str | None:
    """The webhook's id: its address's public part (the token after it is the secret)."""
    match = _ADDRESS.match(url.strip())
    return match.group(2) if match else None


def shown(url: str) -> str:
    """The address without its token, for messages.

    >>> shown("https://discord.com/api/webhooks/123/secret-token")
    'webhook 123'
    """
    number = webhook_id(url)
    return f"webhook {number}" if number else "webhook"


def _token(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


def webhooks_file(given: Path | None, folders: Sequence[Path] = ()) -> Path | None:
    """The players' webhooks file: `--private-webhooks`, else the environment variable, else the
    first `.sheets-host-webhooks` file found in the current folder or `folders`; None when there
    is none (only the public channel is posted to then)."""
    named = given or (Path(os.environ[WEBHOOKS_ENV]) if os.environ.get(WEBHOOKS_ENV) else None)
    if named is not None and not named.is_file():
        raise SheetsHostError(f"the players' webhooks file {str(named)!r} is not a file")
    return named or found(WEBHOOKS_FILE, folders)


def private_webhooks(path: Path, players: Sequence[str], public: str | None = None,
                     others: Sequence[str] = ()) -> dict[str, str]:
    """Player -> the webhook of their private channel, from the file at `path`: one line a player,
    their name (matched as typed names are) then the address; blank lines and lines starting with
    '#' ignored. Every bad line is named at once, and no address is ever quoted. An address that is
    another line's or the `public` one's is refused: each picture goes to its player alone.
    `others`: names the file may hold besides the players' (a season's file names its whole cast,
    a game of it some): their lines are checked alike and left out."""
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise SheetsHostError(f"the players' webhooks file {str(path)!r} cannot be read: {e}") from None
    addresses: dict[str, str] = {}
    seen: dict[tuple[str, str | None], int] = {}  # ("player", name) and ("webhook", id) -> their line
    problems = []
    names = [*players, *(o for o in others if o not in players)]
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            player, url = _webhook_line(line, names)
            mine = ("player", player), ("webhook", webhook_id(url))
            if mine[0] in seen:
                raise SheetsHostError(f"{player} again (also on line {seen[mine[0]]})")
            if mine[1] in seen:
                raise SheetsHostError(f"{player}'s address is the one on line {seen[mine[1]]}: each player "
                                      "needs their own channel's webhook")
            if public and webhook_id(url) == webhook_id(public):
                raise SheetsHostError(f"{player}'s address is the public channel's webhook")
        except SheetsHostError as e:
            problems.append(f"line {number}: {e}")
            continue
        addresses[player] = url
        seen.update(dict.fromkeys(mine, number))
    if problems:
        raise SheetsHostError(
            f"the players' webhooks file {str(path)!r}: " + "; ".join(problems) + ". Each line is a player's name "
            "then their private channel's own webhook address (https://discord.com/api/webhooks/<number>/<token>); "
            f"the players: {', '.join(names)}")
    return {p: addresses[p] for p in players if p in addresses}


def _webhook_line(line: str, players: Sequence[str]) -> tuple[str, str]:
    """A webhooks file line's player (as the players tab spells it) and address. What is quoted
    is never the address: a mistyped one may still hold its token."""
    *name, url = line.split()  # the address is the last word, so a name may have spaces
    if "/" not in url:  # no address at all: the line is a name, safe to quote
        raise SheetsHostError(f"{cells.quote(line)} has no webhook address after the name")
    if not name:
        raise SheetsHostError("an address without a player's name before it")
    if not is_address(url):
        raise SheetsHostError(f"the address after {cells.quote(' '.join(name))} is not a webhook's")
    return cells.as_choice(" ".join(name), players, "a player", allowed="the players named at the end"), url


def digest(message: Message, webhook: str = "") -> str:
    """A short hash of a message's text and pictures (and of the `webhook` id it goes through, when
    given): posting again compares it with the record's."""
    h = hashlib.sha256(message.content.encode() + (b"\0" + webhook.encode() if webhook else b""))
    for f in message.files:
        h.update(b"\0" + f.name.encode() + b"\0" + hashlib.sha256(f.data).digest())
    return h.hexdigest()[:16]


def planned(session: Session) -> PostReport:
    """The last resolved round and its public messages (results, then its commitments), with its
    root and each player's receipt, from the host book."""
    last = session.last_resolved
    if last is None:
        raise RoundError("no round has been resolved yet: there is nothing to post")
    number, game = last["round"], session.game
    rows = commitments.read(session.tabs, session.players)
    roots = commitments.current(rows, number, "round")
    report = PostReport(number, game.round_name(number),
                        round_messages(game, session.snapshot(number), session.state, number),
                        root_messages(game, session.state, number, commitments.announcement_lines(rows, number)))
    if roots:
        root, replaced = roots[-1]["commitment"], commitments.replaced(rows, roots[-1])
        report.root = root
        report.receipts = {r["player"]: receipt_messages(game, number, r["player"], r["commitment"],
                                                         commitments.counted(r.get("text")), root, replaced)
                           for r in commitments.current(rows, number, "submission")}
    return report


def _counts() -> dict[str, int]:
    return {"posted": 0, "edited": 0, "unchanged": 0, "deleted": 0}


def _counted(done: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {what}" for what, n in done.items() if n)


@dataclass
class PostReport:
    """What `post` planned and did. The private fields stay empty (and their counts None) without
    a webhooks file: only the public channel is posted to then."""

    round: int
    name: str
    messages: list[Message]  # the results
    roots: list[Message]  # the round's commitments (none in a game made before them)
    root: str | None = None
    done: dict[str, int] = field(default_factory=_counts)  # the public channel's, results and roots
    private: dict[str, list[Message]] = field(default_factory=dict)  # pictures, for the players with a webhook
    receipts: dict[str, list[Message]] = field(default_factory=dict)  # once posting: the players with a webhook
    unsent: list[str] = field(default_factory=list)  # a picture or a receipt but no webhook
    private_done: dict[str, int] | None = None
    receipts_done: dict[str, int] | None = None

    def planned(self) -> list[tuple[str, Message]]:
        """Every message, each with its player ("" for the public channel), in the order posted."""
        public = [("", m) for m in [*self.messages, *self.roots]]
        return public + [(p, m) for p in {**self.private, **self.receipts}
                         for m in [*self.private.get(p, ()), *self.receipts.get(p, ())]]

    def said(self) -> str:
        """What was done, for a line: the public counts ('' when none), then the private ones and
        the players whose picture or receipt has no webhook to go to (names only)."""
        text = _counted(self.done)
        for what, done in (("private pictures", self.private_done), ("receipts", self.receipts_done)):
            if done is not None and any(done.values()):
                text += f"{'; ' if text else ''}{what}: {_counted(done)}"
        if self.unsent:
            text += f"{'; ' if text else ''}no private webhook for {', '.join(self.unsent)}"
        return text


Send = Callable[[str, Message | None, str | None], str | None]
Key = tuple[int, str, str, int]  # a posts record's round, player ("" for the public channel), root ("" for results), part


def post(backend: Backend, url: str | None, dry_run: bool = False, clock: Clock = now_utc,
         send: Send | None = None, webhooks: Path | None = None, others: Sequence[str] = ()) -> PostReport:
    """Post (or with `dry_run` only compute) the last resolved round's messages, and with a
    `webhooks` file each player's private pictures to their own webhook; see the module."""
    with backend.hold("post"):
        session = open_session(backend, clock)
        report = planned(session)
        number, receipts = report.round, report.receipts  # every player's: only those with a webhook get theirs
        addresses: dict[str, str] = {}
        report.receipts = {}
        if webhooks is not None:  # read before anything is sent: a bad line stops everything
            addresses = private_webhooks(webhooks, session.players, url, others)
            pictures = private_messages(session.game, session.state, number)
            report.private = {p: m for p, m in pictures.items() if p in addresses}
            report.receipts = {p: m for p, m in receipts.items() if p in addresses}
            report.unsent = [p for p in session.players if (p in pictures or p in receipts) and p not in addresses]
            report.private_done, report.receipts_done = _counts(), _counts()
        if dry_run:
            return report
        poster = _Poster(session, read_posts(session), number, send or send_to_discord, clock)
        poster.sync("", url, report.messages, report.done)
        poster.keep("", url, report.root, report.roots, report.done)
        for player, address in addresses.items():  # a player without a picture now: theirs are deleted
            poster.sync(player, address, report.private.get(player, []), report.private_done)
            poster.keep(player, address, report.root, report.receipts.get(player, []), report.receipts_done)
        return report


@dataclass
class _Poster:
    """Makes one round's messages in Discord what they should be, channel by channel, writing the
    posts tab after each message Discord accepts."""

    session: Session
    records: dict[Key, dict]
    number: int
    send: Send
    clock: Clock

    def sync(self, player: str, url: str, wanted: Sequence[Message], done: dict[str, int]) -> None:
        """The round's results in one channel (`player` "" for the public one) become `wanted`:
        unchanged ones are left alone, changed ones edited, new ones posted, extra ones deleted."""
        number = self.number
        # A private message's digest holds its webhook: a player's address fixed in the file sends
        # it again through the new one (the edit's 404 posts it). The public one's stays as it was.
        webhook = (webhook_id(url) or "") if player else ""
        for part, message in enumerate(wanted, 1):
            old = self.records.get((number, player, "", part))
            if old is not None and old["digest"] == digest(message, webhook):
                done["unchanged"] += 1
                continue
            self._sent(url, player, "", part, message, webhook, old)
            done["edited" if old else "posted"] += 1
        for key in sorted(k for k in self.records if k[:3] == (number, player, "") and k[3] > len(wanted)):
            self.send(url, None, self.records.pop(key)["message id"])
            done["deleted"] += 1
            write_posts(self.session, self.records)

    def keep(self, player: str, url: str, root: str | None, wanted: Sequence[Message], done: dict[str, int]) -> None:
        """The messages carrying `root` in one channel: each part posted once, whatever its text
        says now, and never edited nor deleted, so no root once public is taken back."""
        if root is None:  # a game made before commitments
            return
        webhook = (webhook_id(url) or "") if player else ""
        for part, message in enumerate(wanted, 1):
            if (self.number, player, root, part) in self.records:
                done["unchanged"] += 1
                continue
            self._sent(url, player, root, part, message, webhook, None)
            done["posted"] += 1

    def _sent(self, url: str, player: str, root: str, part: int, message: Message, webhook: str,
              old: Mapping | None) -> None:
        """Send `message` (an edit of `old`'s, if any) and record it before anything else is sent."""
        message_id = self.send(url, message, old["message id"] if old else None)
        self.records[self.number, player, root, part] = {
            "round": self.number, "player": player, "root": root or None, "part": part, "message id": message_id,
            "digest": digest(message, webhook), "posted at": stamp(self.clock())}
        write_posts(self.session, self.records)


def read_posts(session: Session) -> dict[Key, dict]:
    """The posts tab's records by (round, player, root, part), player "" for the public channel and
    root "" for results. A public message recorded before the tab had a `root` column held the
    announcement whole, its root included: its root reads as `WHOLE`, so it is kept as it is."""
    data = session.tabs.get("posts")
    if data is None or data.empty:
        return {}
    rooted = "root" in {cells.fold(cells.text(c)) for c in data.columns}
    records = []
    for r in POSTS.records(data):
        player = cells.text(r["player"])
        root = cells.text(r["root"]) if rooted else ("" if player else WHOLE)
        records.append({**r, "player": player, "root": root or None})
    return {(r["round"], r["player"], r["root"] or "", r["part"]): r for r in records}


def write_posts(session: Session, records: Mapping[Key, dict]) -> None:
    data = POSTS.frame([records[k] for k in sorted(records)])
    session.host.write({"posts": data}, layouts={"posts": lay_out_tab(data, POSTS)})
    session.tabs["posts"] = data


def send_to_discord(url: str, message: Message | None, message_id: str | None) -> str | None:
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
                return send_to_discord(url, message, None)
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
