"""Private messages: what goes to one player's own channel alone, each once.

Two kinds, both made from a check's readings (`engine.check`'s `then`, so the game is still held
and the host book just read):

- a **receipt**, when what counts for a player changed since the last receipt they were sent this
  round (a new valid submission, a changed one, one that stopped counting, new problems): the
  round, what counts in the game's words and each problem naming tab, row and column. Nothing
  typed and nothing sent before says nothing;
- a **nudge**, at a reminder, to each player with something due whose submission is missing or
  does not count: what is wrong and the deadline, in UTC and from now.

`Private.deliver` is the one way either is sent: through the player's own webhook (the players'
webhooks file `post` reads; a player without one gets nothing), never twice with the same key (the
last record of that player, round and kind holding it), a receipt at most once every `receipt
minutes` (the config; 1 by default) a player, and each recorded in the host book's `private
messages` tab before the next is sent, so a restart, another machine or a second watch sends
nothing again. A receipt held back by that limit is never sent late: the next check after it sends
the state then, if it still differs from the last one sent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from sheets_host.engine.host import Clock, Session, now_utc, parse_time, stamp
from sheets_host.engine.reading import Reading
from sheets_host.engine.status_tab import verdict, when
from sheets_host.kit import cells
from sheets_host.kit.errors import BookError, SheetsHostError
from sheets_host.kit.table import Column, TabSchema
from .announce import LIMIT, Message, as_typed, neutralise
from .post import Send, send_to_discord, private_webhooks

PRIVATE = TabSchema("private messages", (Column("round", "int", lo=1), Column("player"), Column("kind"),
                                         Column("key"), Column("sent at")),
                    "What each player's own channel was sent (receipts, nudges), so nothing is sent twice: key, "
                    "a digest of what it said (a nudge's: its reminder and a digest).")
RECEIPT_MINUTES = 1.0  # the config's `receipt minutes` when blank
PROBLEMS = 10  # problems a message lists; the status tab has them all


def _plain(text: str) -> str:
    """What a player typed, quoted in a problem, shown as typed: no Markdown, no mention.

    >>> _plain("'**x**' is not @here")
    "'\\\\*\\\\*x\\\\*\\\\*' is not @\\u200bhere"
    """
    return neutralise(as_typed(text), ())


def _heading(session: Session, number: int) -> str:
    return f"**{session.game.title}, {session.game.round_name(number)}**"


def _said(session: Session, player: str, reading: Reading) -> str:
    """Whether it counts, what counts and each problem, as the status tab says them."""
    lines = [f"Your submission: {verdict(session.game, session.state, player, reading)}."]
    if reading.parsed.submission is not None:
        lines.append(f"What counts: {_plain(reading.parsed.kept or 'nothing')}")
    problems = reading.parsed.problems
    lines += [f"- {_plain(f'{p.where()}: {p.message}' if p.where() else p.message)}" for p in problems[:PROBLEMS]]
    if len(problems) > PROBLEMS:
        lines.append(f"- and {len(problems) - PROBLEMS} more: your status tab lists them all")
    text = "\n".join(lines)
    return text if len(text) < LIMIT - 200 else text[:LIMIT - 260].rsplit("\n", 1)[0] + "\n- ...: see your status tab"


def receipt(session: Session, number: int, player: str, reading: Reading) -> Message:
    """What a player is told when what counts for them changed."""
    return Message(f"\U0001f4ec {_heading(session, number)}\n{_said(session, player, reading)}")


def nudge(session: Session, number: int, player: str, reading: Reading, deadline: datetime, now: datetime) -> Message:
    """What a player whose submission is missing or does not count is told at a reminder."""
    return Message(f"\u23f0 {_heading(session, number)} closes {when(deadline, now)}.\n"
                   f"{_said(session, player, reading)}")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def read_private(session: Session) -> list[dict]:
    """The `private messages` tab's records, oldest first (a damaged tab reads as none: at worst a
    message is sent once more)."""
    data = session.tabs.get(PRIVATE.name)
    if data is None or data.empty:
        return []
    try:
        records = PRIVATE.records(data)
    except ValueError:
        return []
    return [{**r, **{k: cells.text(r[k]) for k in ("player", "kind", "key")}} for r in records]


@dataclass
class Private:
    """One check's private messages (`engine.check`'s `then`): receipts unless `receipts` is off,
    and with `nudge` (the reminder's key, "1 h") the nudges; with `dry_run` only planned. After the
    check it says what it did: `sent` (kind -> players), `held` (players whose receipt waits for
    the rate limit, until `due`), `unsent` (no webhook), `planned` (the dry run's messages).
    `finished` is called once all are sent, the game still held. A bad webhooks file or Discord
    unreachable is a BookError: `watch` waits it out, as a post's."""

    webhooks: Path
    public: str | None = None  # the public channel's webhook: no player's may be it
    send: Send = send_to_discord
    clock: Clock = now_utc
    receipts: bool = True
    nudge: str | None = None
    dry_run: bool = False
    sent: dict[str, list[str]] = field(default_factory=lambda: {"receipt": [], "nudge": []})
    held: list[str] = field(default_factory=list)
    unsent: list[str] = field(default_factory=list)
    planned: list[tuple[str, Message]] = field(default_factory=list)
    due: datetime | None = None
    finished: Callable[[Private, Session], None] | None = None
    others: Sequence[str] = ()  # names the webhooks file may hold besides the players' (`post.private_webhooks`)

    def __call__(self, session: Session, readings: Mapping[str, Reading]) -> None:
        try:
            self._tell(session, readings)
        except SheetsHostError as e:
            raise BookError(f"{session.game.round_name(session.open_round['round'])}: private messages not sent: "
                            f"{e}") from None
        if self.finished is not None:
            self.finished(self, session)

    def _tell(self, session: Session, readings: Mapping[str, Reading]) -> None:
        self._session, self._records = session, read_private(session)
        self._addresses = private_webhooks(self.webhooks, session.players, self.public, self.others)
        number, now = session.open_round["round"], self.clock()
        limit = session.config.get("receipt minutes")
        every = timedelta(minutes=RECEIPT_MINUTES if limit is None else limit)
        deadline = parse_time(session.open_round.get("deadline"), "rounds:deadline")
        is_open = session.open_round["status"] == "open"  # a locked round's submissions can no longer change
        for player, reading in readings.items():
            if not reading.due:
                continue
            told = receipt(session, number, player, reading)
            if self.nudge is not None and is_open and deadline is not None and reading.state in ("empty", "errors"):
                # Keyed by its reminder and what it says but the time left, which a restart would change.
                key = f"{self.nudge} {digest(_said(session, player, reading) + stamp(deadline))}"
                # A nudge says all a receipt would: it counts as that receipt sent too.
                if self.deliver(player, number, "nudge", key, nudge(session, number, player, reading, deadline, now),
                                also={"receipt": digest(told.content)}):
                    continue
            if self.receipts and (reading.state != "empty" or self._last(player, "receipt", number)):
                self.deliver(player, number, "receipt", digest(told.content), told, every)

    def deliver(self, player: str, number: int, kind: str, key: str, message: Message,
                every: timedelta = timedelta(0), also: Mapping[str, str] = {}) -> bool:
        """Send `message` to `player`'s own channel unless their last `kind` of round `number` had
        this `key`, or their last `kind` went less than `every` ago; record it (and the kinds and
        keys it stands for too, `also`) before going on. Whether it was sent (or planned)."""
        last = self._last(player, kind, number)
        if last is not None and last["key"] == key:
            return False
        if player not in self._addresses:
            self.unsent.append(player)
            return False
        now = self.clock()
        before = [parse_time(r["sent at"], "private messages:sent at") for r in self._records
                  if (r["player"], r["kind"]) == (player, kind)]
        if before and now < before[-1] + every:
            self.held.append(player)
            self.due = min(filter(None, (self.due, before[-1] + every)))
            return False
        if self.dry_run:
            self.planned.append((player, message))
            return True
        self.send(self._addresses[player], message, None)
        records = [{"round": number, "player": player, "kind": k, "key": v, "sent at": stamp(now)}
                   for k, v in {kind: key, **also}.items()]
        self._records += records
        self._session.host.write({}, append={PRIVATE.name: PRIVATE.frame(records)})
        self.sent[kind].append(player)
        return True

    def _last(self, player: str, kind: str, number: int) -> dict | None:
        mine = (player, kind, number)
        return next((r for r in reversed(self._records) if (r["player"], r["kind"], r["round"]) == mine), None)

    def said(self) -> str:
        """What was done, for a line (names only)."""
        parts = [f"{kind}s sent to {', '.join(players)}" for kind, players in self.sent.items() if players]
        if self.held:
            parts.append(f"receipts held back (one a player every receipt minutes) for {', '.join(self.held)}")
        if self.unsent:
            parts.append(f"no private webhook for {', '.join(dict.fromkeys(self.unsent))}")
        return "; ".join(parts) or "no private message to send"


__all__ = ["PRIVATE", "Private", "nudge", "read_private", "receipt"]
