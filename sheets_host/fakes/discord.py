"""A fake of Discord's webhook API, as a real HTTP server on 127.0.0.1, for tests.

Our announcements go out through the `discord-webhook` library, which calls ``requests`` itself and
offers no session to mount an adapter on (unlike gspread, see `sheets_host.fakes.google`); so this
fake listens on a local port and a test hands the library ``fake.url()`` instead of a real webhook
URL. It keeps what our code relies on: executing a webhook with a JSON body or multipart/form-data
(``payload_json`` plus file parts ``files[n]`` or any other name), ``?wait=true`` answering the
message object (string snowflake ids that increase) and its absence answering 204; getting, editing
and deleting ``/messages/<id>``, edits following API v10's attachment rules (with an ``attachments``
array the message keeps exactly the listed existing attachments plus the listed new ``files[n]``;
without one, new files are appended); Discord's refusals: "Invalid Form Body" (50035) for content
over 2000 characters, more than 10 attachments or an ``attachments`` entry naming no file,
"Cannot send an empty message" (50006), 413 "Request entity too large" (40005) for a file over
``max_file_bytes``, "Unknown Webhook" (10015) and "Unknown Message" (10008); and 429 rate limits
with Discord's body and headers (``Via`` included: discord-webhook only retries a 429 that has one).

Left out: embeds are stored as sent but not validated, mentions are recorded but never resolved
(``allows_mentions`` tells whether Discord *would* ping), threads (``thread_id``), components,
polls, the webhook object itself (``GET /webhooks/<id>/<token>``), ``/messages/@original``, real
rate-limit buckets (429s come only when a test asks for them) and the CDN (attachment URLs are
shaped like Discord's but nothing serves them). The API version in the path is ignored: every
request gets v10 behaviour. Anything else answers 404 or 405, so a gap fails a test loudly.
"""

from __future__ import annotations

import json
import mimetypes
import re
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple
from urllib.parse import parse_qs, urlsplit

__all__ = ["FakeDiscord", "FakeMessage", "Request"]

DISCORD_EPOCH_MS = 1420070400000  # snowflakes count milliseconds from 2015-01-01
MAX_CONTENT = 2000
MAX_ATTACHMENTS = 10
_PATH = re.compile(r"/api(?:/v\d+)?/webhooks/(?P<wid>[^/]+)/(?P<token>[^/]+)(?:/messages/(?P<mid>[^/]+))?/?")
_FILE_INDEX = re.compile(r"files\[(\d+)\]")


class Request(NamedTuple):
    method: str
    path: str  # without the query
    status: int


@dataclass
class FakeMessage:
    id: str
    webhook_id: str
    content: str
    attachments: list[tuple[str, bytes]]  # (filename, data), as shown on the message
    attachment_ids: list[str]  # parallel to `attachments`, so tests can compare plain tuples
    allowed_mentions: dict[str, Any] | None  # as last sent; None when never sent (Discord then parses all)
    embeds: list[Any]
    timestamp: str
    edited_timestamp: str | None = None
    edits: int = 0
    deleted: bool = False


class DiscordError(Exception):
    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None):
        super().__init__(status, body)
        self.status, self.body, self.headers = status, body, headers or {}


def _form_error(errors: dict[str, Any]) -> DiscordError:
    return DiscordError(400, {"message": "Invalid Form Body", "code": 50035, "errors": errors})


def _field_error(code: str, message: str) -> dict[str, Any]:
    return {"_errors": [{"code": code, "message": message}]}


def _unknown_attachment(errors: dict[str, Any], i: int) -> None:
    errors.setdefault("attachments", {})[str(i)] = {"id": _field_error("ATTACHMENT_NOT_FOUND", "Unknown attachment.")}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


class FakeDiscord:
    def __init__(self, *, known: set[tuple[str, str]] | None = None, max_file_bytes: int = 10 * 1024 * 1024,
                 channel_id: str = "100"):
        self.known = known  # (webhook id, token) pairs that exist; None: every pair does
        self.max_file_bytes = max_file_bytes
        self.channel_id = channel_id
        self.messages: dict[str, FakeMessage] = {}  # in posting order; deleted ones stay, flagged
        self.requests: list[Request] = []  # every request, refused ones included
        # Requests are answered one at a time under this lock: Discord applies each atomically, and
        # tests read `messages` from their own thread.
        self._lock = threading.RLock()
        self._failures: list[DiscordError] = []
        self._last_id = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- set-up and inspection, for tests -------------------------------------------------------

    def __enter__(self) -> FakeDiscord:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True  # a client that hangs up mid-request must not block close()
        # shutdown() waits for serve_forever's next poll: a short interval keeps each test's close fast.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.01,), name="fake-discord",
                                        daemon=True)
        self._thread.start()

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join()
            self._server = self._thread = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the fake first (use it as a context manager)"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, webhook_id: str = "1", token: str = "tok") -> str:
        return f"{self.base_url}/api/webhooks/{webhook_id}/{token}"

    def rate_limit(self, n: int = 1, retry_after: float = 0.05) -> None:
        """Answer the next `n` requests with 429, as Discord does (body, X-RateLimit-* and Via headers)."""
        body = {"message": "You are being rate limited.", "retry_after": retry_after, "global": False}
        headers = {"Retry-After": f"{retry_after:g}", "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0",
                   "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
                   "X-RateLimit-Reset-After": f"{retry_after:g}", "X-RateLimit-Bucket": "fake-bucket",
                   "X-RateLimit-Scope": "user", "Via": "1.1 google"}
        with self._lock:
            self._failures += [DiscordError(429, body, headers)] * n

    def fail_next(self, status: int = 500, n: int = 1) -> None:
        """Answer the next `n` requests with this status (a JSON body, as Discord's API gives)."""
        with self._lock:
            self._failures += [DiscordError(status, {"message": f"{status}: Server Error", "code": 0})] * n

    def posted(self) -> list[FakeMessage]:
        """The messages not deleted, in posting order."""
        with self._lock:
            return [m for m in self.messages.values() if not m.deleted]

    def allows_mentions(self, message_id: str | None = None) -> bool:
        """Whether Discord would ping anyone for this message (default: the last one posted).
        Without ``allowed_mentions`` Discord parses every mention, @everyone included."""
        with self._lock:
            message = self.messages[message_id] if message_id else list(self.messages.values())[-1]
        allowed = message.allowed_mentions
        if allowed is None:
            return True
        return bool(allowed.get("parse") or allowed.get("users") or allowed.get("roles") or allowed.get("replied_user"))

    # -- answering --------------------------------------------------------------------------------

    def handle(self, method: str, target: str, content_type: str, body: bytes
               ) -> tuple[int, Any, dict[str, str]]:
        """Carry out one request; its answer: status, JSON body (None for none) and headers."""
        parts = urlsplit(target)
        with self._lock:
            try:
                if self._failures:
                    raise self._failures.pop(0)
                status, reply = self._route(method, parts.path, parse_qs(parts.query), content_type, body)
                answer = (status, reply, {})
            except DiscordError as refusal:
                answer = (refusal.status, refusal.body, refusal.headers)
            self.requests.append(Request(method, parts.path, answer[0]))
        return answer

    def _route(self, method: str, path: str, query: dict[str, list[str]], ctype: str, body: bytes
               ) -> tuple[int, Any]:
        match = _PATH.fullmatch(path)
        if match is None:
            raise DiscordError(404, {"message": "404: Not Found", "code": 0})
        wid, token, mid = match["wid"], match["token"], match["mid"]
        if self.known is not None and (wid, token) not in self.known:
            raise DiscordError(404, {"message": "Unknown Webhook", "code": 10015})
        if method not in (("POST",) if mid is None else ("GET", "PATCH", "DELETE")):
            raise DiscordError(405, {"message": "405: Method Not Allowed", "code": 0})
        if mid is None:
            return self._execute(wid, query, ctype, body)
        message = self.messages.get(mid)
        if message is None or message.deleted or message.webhook_id != wid:
            raise DiscordError(404, {"message": "Unknown Message", "code": 10008})
        if method == "GET":
            return 200, self._message_json(message)
        if method == "DELETE":
            message.deleted = True
            return 204, None
        return self._edit(message, ctype, body)

    def _execute(self, wid: str, query: dict[str, list[str]], ctype: str, body: bytes) -> tuple[int, Any]:
        wait = _boolean(query, "wait")
        payload, files = self._parse(ctype, body)
        entries = payload.get("attachments") or []
        by_index = _indexed(files)
        errors: dict[str, Any] = {}
        named: dict[int, str] = {}  # files[n] -> the filename its attachments entry gives
        for i, entry in enumerate(entries):
            n = _entry_index(entry)
            if n is None or n not in by_index:
                _unknown_attachment(errors, i)
            else:
                named[n] = entry.get("filename") or by_index[n][0]
        # On execute every uploaded file is attached, listed or not; the array only adds metadata.
        attachments = [(named.get(_file_index(name), filename), data) for name, filename, data in files]
        message = FakeMessage(self._snowflake(), wid, "", [], [], None, [], _now())
        self._apply(message, payload, attachments, [self._snowflake() for _ in attachments], errors)
        self.messages[message.id] = message
        return (200, self._message_json(message)) if wait else (204, None)

    def _edit(self, message: FakeMessage, ctype: str, body: bytes) -> tuple[int, Any]:
        payload, files = self._parse(ctype, body)
        errors: dict[str, Any] = {}
        if "attachments" in payload and payload["attachments"] is not None:
            # API v10: the array lists everything the message keeps, old (by id) and new (files[n] by n).
            old = dict(zip(message.attachment_ids, message.attachments))
            by_index = _indexed(files)
            attachments, ids = [], []
            for i, entry in enumerate(payload["attachments"]):
                key, n = str(entry.get("id") if isinstance(entry, dict) else None), _entry_index(entry)
                if key in old:
                    attachments.append(old[key])
                    ids.append(key)
                elif n is not None and n in by_index:
                    attachments.append((entry.get("filename") or by_index[n][0], by_index[n][1]))
                    ids.append(self._snowflake())
                else:
                    _unknown_attachment(errors, i)
        else:  # no array: new files are appended to what the message has
            attachments = message.attachments + [(filename, data) for _, filename, data in files]
            ids = message.attachment_ids + [self._snowflake() for _ in files]
        edited = FakeMessage(**vars(message))  # validate on a copy: a refused edit changes nothing
        self._apply(edited, payload, attachments, ids, errors)
        edited.edits += 1
        edited.edited_timestamp = _now()
        vars(message).update(vars(edited))
        return 200, self._message_json(message)

    def _apply(self, message: FakeMessage, payload: dict[str, Any], attachments: list[tuple[str, bytes]],
               ids: list[str], errors: dict[str, Any]) -> None:
        """Put the payload's fields on `message`, or refuse it as Discord would."""
        if "content" in payload:
            message.content = payload["content"] or ""
            if not isinstance(message.content, str):
                errors["content"] = _field_error("BASE_TYPE_STRING", "Must be a string.")
            elif len(message.content) > MAX_CONTENT:
                errors["content"] = _field_error("BASE_TYPE_MAX_LENGTH", f"Must be {MAX_CONTENT} or fewer in length.")
        if len(attachments) > MAX_ATTACHMENTS:
            errors["attachments"] = _field_error("BASE_TYPE_MAX_LENGTH",
                                                 f"Must be {MAX_ATTACHMENTS} or fewer in length.")
        if errors:
            raise _form_error(errors)
        if "embeds" in payload:
            message.embeds = payload["embeds"] or []
        if "allowed_mentions" in payload:
            message.allowed_mentions = payload["allowed_mentions"]
        message.attachments, message.attachment_ids = list(attachments), list(ids)
        if not (message.content or message.attachments or message.embeds):
            raise DiscordError(400, {"message": "Cannot send an empty message", "code": 50006})

    def _parse(self, ctype: str, body: bytes) -> tuple[dict[str, Any], list[tuple[str, str, bytes]]]:
        """The JSON payload and the file parts (part name, filename, data) of a request's body."""
        if not ctype.lower().startswith("multipart/form-data"):
            return (_json(body) if body else {}), []
        # The email parser reads MIME multipart, which form-data is; with the HTTP policy it keeps
        # bytes as sent (surrogate-escaped and restored by decode=True).
        form = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + ctype.encode("latin-1") + b"\r\n\r\n" + body)
        payload: dict[str, Any] = {}
        files = []
        for part in form.iter_parts():
            name = part.get_param("name", header="content-disposition")
            data = part.get_payload(decode=True) or b""
            if part.get_filename() is not None:
                if len(data) > self.max_file_bytes:
                    raise DiscordError(413, {"message": "Request entity too large", "code": 40005})
                files.append((name, part.get_filename(), data))
            elif name == "payload_json":
                payload.update(_json(data))
            elif name:  # Discord also takes plain form fields (content=...) instead of payload_json
                payload[name] = data.decode()
        return payload, files

    def _snowflake(self) -> str:
        # Timestamp in the high bits as Discord's, and strictly increasing even within a millisecond.
        self._last_id = max(self._last_id + 1, (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22)
        return str(self._last_id)

    def _message_json(self, m: FakeMessage) -> dict[str, Any]:
        attachments = [{"id": aid, "filename": name, "size": len(data),
                        "url": f"https://cdn.discordapp.com/attachments/{self.channel_id}/{aid}/{name}",
                        "proxy_url": f"https://media.discordapp.net/attachments/{self.channel_id}/{aid}/{name}",
                        "content_type": mimetypes.guess_type(name)[0] or "application/octet-stream"}
                       for aid, (name, data) in zip(m.attachment_ids, m.attachments)]
        return {"id": m.id, "type": 0, "content": m.content, "channel_id": self.channel_id,
                "author": {"id": m.webhook_id, "username": "Fake Webhook", "bot": True},
                "attachments": attachments, "embeds": m.embeds, "mentions": [], "mention_roles": [],
                "mention_everyone": False, "pinned": False, "tts": False, "flags": 0, "components": [],
                "timestamp": m.timestamp, "edited_timestamp": m.edited_timestamp, "webhook_id": m.webhook_id}


def _json(data: bytes) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise DiscordError(400, {"message": "The request body contains invalid JSON.", "code": 50109})
    return value


def _boolean(query: dict[str, list[str]], name: str) -> bool:
    """Discord's query booleans: true/false in any case (discord-webhook sends "True"), 1/0."""
    value = query.get(name, ["false"])[-1].lower()
    if value not in ("true", "false", "1", "0"):
        raise _form_error({name: _field_error("BOOLEAN_TYPE_CONVERT", f'Value "{value}" is not a valid boolean.')})
    return value in ("true", "1")


def _file_index(part_name: str | None) -> int | None:
    match = _FILE_INDEX.fullmatch(part_name or "")
    return int(match[1]) if match else None


def _indexed(files: list[tuple[str, str, bytes]]) -> dict[int, tuple[str, bytes]]:
    """The files[n] parts by n: what an attachments entry's "id": n refers to."""
    return {n: (filename, data) for name, filename, data in files if (n := _file_index(name)) is not None}


def _entry_index(entry: Any) -> int | None:
    value = entry.get("id") if isinstance(entry, dict) else None
    return int(value) if isinstance(value, int) or (isinstance(value, str) and value.isdigit()) else None


class _Handler(BaseHTTPRequestHandler):
    fake: FakeDiscord  # set on a subclass per fake

    def do_GET(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, reply, headers = self.fake.handle(self.command, self.path, self.headers.get("Content-Type", ""), body)
        data = b"" if reply is None else json.dumps(reply).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if reply is not None:
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_POST = do_PATCH = do_DELETE = do_PUT = do_GET

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass
