"""Driving `watch` over whole games with a fake clock: bot players typing as each round reaches
their books, and a kill before every step."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from sheets_host.backends import ENGINE_TAB
from sheets_host.discord.post import send_to_discord
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import delivered
from sheets_host.engine.host import read_commit
from sheets_host.engine.play import bot_names, bots_submit
from sheets_host.watch.loop import Watch

START = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
DEADLINES = {"first deadline": "2026-11-22 18:00", "round hours": 6, "reminder hours": "2, 0.5", "check minutes": 150}


class Kill(BaseException):
    """A kill: nothing after it runs (not even an `except Exception`)."""


class Killer:
    """Kills the watch once before every effect (a write to a book, a message to Discord). An
    effect is known by the progress the host book records before it (its commit, the watch and
    posts tabs' rows) and its place among the effects of its kind in its life, so a restarted
    watch repeating work is killed at each new place once, and gets further each life. The host
    book's record of a message Discord accepted goes with the message: the one gap Discord
    leaves (see `watch`)."""

    def __init__(self, progress, books: bool = True) -> None:
        self.progress = progress  # () -> what the host book records as done
        self.books = books  # whether to kill before the writes to other books than the host's
        self.places: Counter = Counter()
        self.killed: set[tuple] = set()
        self.after_send = False

    @property
    def kills(self) -> int:
        return len(self.killed)

    def new_life(self) -> None:
        self.places.clear()
        self.after_send = False

    def effect(self, what: str) -> None:
        if self.after_send and what == "host":
            self.after_send = False
            return
        if what == "book" and not self.books:
            return
        self.places[what] += 1
        place = (self.progress(), what, self.places[what])
        if place not in self.killed:
            self.killed.add(place)
            raise Kill(place)
        self.after_send = what == "discord"


def progress(backend) -> tuple:
    """The host commit and the rows of the watch and posts tabs."""
    tabs = backend.book("host").read([ENGINE_TAB, "watch", "posts"])
    return (read_commit(tabs[ENGINE_TAB]).version, *(len(tabs[t]) if t in tabs else 0 for t in ("watch", "posts")))


class _Book:
    def __init__(self, book, role: str, killer: Killer):
        self._book, self._role, self._killer = book, role, killer

    def write(self, *args, **kwargs):
        self._killer.effect("host" if self._role == "host" else "book")
        return self._book.write(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._book, name)


class Killable:
    """A backend whose book writes may be killed."""

    def __init__(self, backend, killer: Killer):
        self._backend, self._killer = backend, killer

    def book(self, role: str):
        return _Book(self._backend.book(role), role, self._killer)

    def __getattr__(self, name):
        return getattr(self._backend, name)


@dataclass
class Run:
    lines: list[str] = field(default_factory=list)
    sent: list[tuple[datetime, str]] = field(default_factory=list)  # new messages: when, what
    private: list[tuple[str, str]] = field(default_factory=list)  # new messages to the players' webhooks: where, what
    kills: int = 0


def play(open_backend, game: str, url: str, players: int = 4, settings: dict | None = None, killer: Killer | None = None,
         watches: int = 1, webhooks=None) -> Run:
    """A bot game run by `watches` watches alone (taking turns) from `new` to its end;
    `open_backend(first)` opens the game's backend as a new process would (`first`: the one that
    made the game, None to make one); `webhooks`, the players' webhooks file."""
    now = [START]

    def clock():
        return now[0]

    backend = open_backend(None)
    if hasattr(backend, "clock"):
        backend.clock = clock
    # One secret for the commitments' salts in every game played here: games compared post the same text.
    engine.new_game(backend, game, bot_names(players), 7, settings={**DEADLINES, **(settings or {})}, clock=clock,
                    salt_key="watched")
    run = Run()

    def send(address, message, message_id):
        if killer:
            killer.effect("discord")
        if message is not None and message_id is None and address == url:
            run.sent.append((clock(), message.content))
        elif message is not None and message_id is None:
            run.private.append((address, message.content))
        return send_to_discord(address, message, message_id)

    def start() -> Watch:
        if killer:
            killer.new_life()
        b = open_backend(backend)
        if hasattr(b, "clock"):
            b.clock = clock
        return Watch(Killable(b, killer) if killer else b, url, clock, say=run.lines.append, send=send, webhooks=webhooks)

    running, typed, turn = [start() for _ in range(watches)], set(), 0
    while True:
        session = engine.open_session(backend, clock)
        record = session.open_round
        if record and record["round"] not in typed and all(
                delivered(backend.book(f"player:{p}").read([ENGINE_TAB]).get(ENGINE_TAB)) >= session.commit.version
                for p in session.players):
            bots_submit(backend, session, 7, messy=False)  # the players type once the round reaches them
            typed.add(record["round"])
        turn = (turn + 1) % watches
        try:
            wake = running[turn].step()
        except Kill:
            run.lines.append("killed")
            running[turn] = start()
            continue
        if wake is None:
            break
        now[0] = max(wake, now[0] + timedelta(seconds=1))
    run.kills = killer.kills if killer else 0
    return run
