"""`season post`: the season so far, to the public Discord channel: its summary (`books.summary`)
and its picture (`picture.draw`), both made from the public season alone (`books.seen`).

Sent once per state of the season: the host season book's `posts` tab records each message
Discord accepted with the state it shows (a digest of the public season), written after each
message, so a crash loses at most the message in flight and a run again sends only the rest.
Posting when the last state posted is the season's now sends nothing and says so; a season that
changed (a game settled, a row given or corrected that the public sees) is posted anew, as news,
the messages before it left as they were. The webhook, its address and the sending are the
game's `post`'s (`discord.post`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from sheets_host.backends import Backend, Book
from sheets_host.discord.announce import Attachment, Message, messages
from sheets_host.discord.post import Send, send_to_discord
from sheets_host.engine.host import Clock, now_utc, stamp
from sheets_host.kit.layout import lay_out_tab
from sheets_host.kit.table import Column, TabSchema
from . import books, picture
from .state import Season
from .tabs import load

POSTS = TabSchema("posts", (
    Column("state", doc="a digest of the public season the message shows: posted again only when it changed"),
    Column("part", "int", lo=1), Column("message id"), Column("posted at"),
    Column("after", optional=True, doc="the season as the message shows it, in words")),
    "The season's Discord messages posted by `season post`, one a row, oldest first (kept so that the "
    "same season is never posted twice).")
HOST_TABS = ("season", "cast", "games", "ledger")


def state(view: books.SeasonSeen) -> str:
    """A digest of the public season: what the messages show, whatever draws them."""
    return hashlib.sha256(repr(view).encode()).hexdigest()[:16]


def planned(season: Season) -> tuple[books.SeasonSeen, list[Message]]:
    """The public season and its messages: the summary, the picture under it."""
    view = books.seen(season)
    return view, messages(books.summary(view), [Attachment("season.png", picture.draw(view))], season.cast)


@dataclass
class SeasonPost:
    """What `season post` planned and did: `already` is when the season as it is now was posted."""

    messages: list[Message]
    state: str
    after: str
    posted: int = 0
    already: str | None = None
    records: list[dict] = field(default_factory=list)


def _after(view: books.SeasonSeen) -> str:
    done = [g for g in view.games if g.over]
    return (f"game {done[-1].number} over" if done else "no game over") + f"; {len(view.still_in)} still in"


def _posted(book: Book, records: list[dict]) -> None:
    frame = POSTS.frame(records)
    book.write({POSTS.name: frame}, layouts={POSTS.name: lay_out_tab(frame, POSTS)})


def post(backend: Backend, url: str | None, dry_run: bool = False, clock: Clock = now_utc,
         send: Send | None = None) -> SeasonPost:
    """Post (with `dry_run` only plan) the season so far, unless the last state posted is this one;
    the parts of it a killed run did not send are sent now."""
    with backend.hold("season post"):
        book = backend.book("host")
        tabs = book.read([*HOST_TABS, POSTS.name])
        view, wanted = planned(load(tabs))
        report = SeasonPost(wanted, state(view), _after(view))
        data = tabs.get(POSTS.name)
        report.records = POSTS.records(data) if data is not None and not data.empty else []
        mine = [r for r in _last_run(report.records) if r["state"] == report.state]
        if mine and len(mine) >= len(wanted):
            report.already = mine[-1]["posted at"]
        if dry_run or report.already:
            return report
        for part, message in enumerate(wanted, 1):
            if part <= len(mine):  # sent by a run killed before it sent the rest
                continue
            message_id = (send or send_to_discord)(url, message, None)
            report.records.append({"state": report.state, "part": part, "message id": message_id,
                                   "posted at": stamp(clock()), "after": report.after})
            report.posted += 1
            _posted(book, report.records)
        return report


def _last_run(records: list[dict]) -> list[dict]:
    """The records of the last run that posted: from the last part 1 on (a run starts there)."""
    return records[max((k for k, r in enumerate(records) if r["part"] == 1), default=0):]
