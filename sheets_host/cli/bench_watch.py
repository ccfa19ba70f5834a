"""`sheets-host bench spirit-chain --google --watch`: a Spirit Chain duel run by `watch` on the
local fake of the Google Sheets API with a fake clock, bots typing into their submit tabs a few
seconds into each phase part (as people do, not through the API: not counted), and what `watch`
sent, by the minute: reads (Google's quota counts them a minute per user) and bytes (requests and
answers).
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from sheets_host.backends import ENGINE_TAB, match_tab
from sheets_host.backends.gsheets.backend import GoogleBackend, spreadsheet_id
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import delivered, submit_frames
from sheets_host.engine.host import parse_time, read_commit
from sheets_host.engine.play import bot_names
from sheets_host.fakes.google import Call, FakeGoogle, fake_backend
from sheets_host.kit.game import rng_for
from sheets_host.watch.loop import Watch

START = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
MINUTE = timedelta(minutes=1)


@dataclass(frozen=True)
class Request:
    at: datetime
    call: Call
    role: str

    @property
    def read(self) -> bool:
        return self.call.method == "GET"

    @property
    def bytes(self) -> int:
        return self.call.size + self.call.reply_size


@dataclass
class Duel:
    requests: list[Request]  # what watch sent, each with its moment
    parts: int  # phase parts resolved
    lines: list[str]  # what watch said
    typed: list[tuple[str, datetime]]  # who typed a submission, when
    decides: list[datetime | None]  # for each, the first moment after it that decides what counts


def watch_duel(parts: int | None = None, seed: int = 1, settings: dict | None = None,
               fake: FakeGoogle | None = None) -> Duel:
    """Play a Spirit Chain duel under `watch`: the first `parts` phase parts, or all of it."""
    with tempfile.TemporaryDirectory() as out:  # announcements and pictures: not in the caller's folder
        return _duel(Path(out), parts, seed, settings, fake or FakeGoogle(keep_bodies=False))


def _duel(out: Path, parts: int | None, seed: int, settings: dict | None, fake: FakeGoogle) -> Duel:
    now = [START]
    counting = [False]
    times: list[tuple[datetime, bool]] = []
    fake.before_request = lambda method, path: times.append((now[0], counting[0]))

    def clock() -> datetime:
        return now[0]

    creator = _backend(out, "", fake=fake)
    creator.clock = clock
    engine.new_game(creator, "spirit-chain", bot_names(2), seed, settings=settings or {}, clock=clock)
    host = creator.book("host").id
    roles = {spreadsheet_id(ref): role for role, ref in creator.refs().items()}
    books = {role.split(":", 1)[1]: sid for sid, role in roles.items() if role.startswith("player:")}
    watcher = _backend(out, host, fake=fake)
    watcher.clock = clock
    lines: list[str] = []
    ids = iter(range(1, 10**9))
    watch = Watch(watcher, "https://discord.invalid/api/webhooks/1/a", clock, say=lines.append,
                  send=lambda address, message, message_id: message_id or f"{next(ids)}")
    typist = _backend(out, host, fake=fake)
    rng = random.Random(seed)
    due: dict[str, datetime] = {}  # player -> when they type this part
    seen = -1  # the commit whose part the bots are typing
    resolved, typed, decides = 0, [], []
    while True:
        version = read_commit(_tab(fake, host, ENGINE_TAB)).version
        if version != seen and all(delivered(_tab(fake, sid, ENGINE_TAB)) >= version for sid in books.values()):
            seen, due = version, {p: now[0] + timedelta(seconds=rng.randint(3, 25)) for p in books}
            session = engine.open_session(typist, clock)  # not counted: the bots' own reading
        for player, at in list(due.items()):
            if now[0] >= at:
                _type(fake, books[player], session, player, seed)
                typed.append((player, at))
                record = session.open_round  # None once the duel is over
                opened = parse_time(record["opened at"], "opened at") if record else None
                decides.append(min((b for b in session.game.boundaries(session.state, player, opened) if b >= at),
                                   default=None) if opened else None)
                del due[player]
        counting[0] = True
        wake = watch.step()
        counting[0] = False
        resolved = sum(" resolved" in line for line in lines)
        if wake is None or (parts is not None and resolved >= parts):
            break
        # The bots type meanwhile, unseen until a poll: watch wakes when it means to.
        now[0] = max(wake, now[0] + timedelta(seconds=1))
    requests = [Request(at, call, roles.get(call.sid or "", "other"))
                for (at, counted), call in zip(times, fake.requests) if counted]
    return Duel(requests, resolved, lines, typed, decides)



def _backend(out: Path, host: str, fake: FakeGoogle) -> GoogleBackend:
    backend, _ = fake_backend(host, fake=fake)
    backend.output_dir = lambda: out
    return backend


def _tab(fake: FakeGoogle, sid: str, name: str):
    from sheets_host.backends import frame_from_rows

    tab = match_tab(name, fake.tabs(sid))
    return frame_from_rows(fake.values(sid, tab)) if tab is not None else None


def _type(fake: FakeGoogle, sid: str, session: engine.Session, player: str, seed: int) -> None:
    """The bot's submission typed under the header, its time left blank for `watch` to stamp."""
    game, state = session.game, session.state
    rows = game.submit_rows(game.bot(state, player, rng_for(seed, game.round(state), f"bot/{player}")))
    for name, typed in submit_frames(game, state, player, rows).items():
        tab = match_tab(name, fake.tabs(sid))
        if tab is not None and len(typed):
            fake.put_values(sid, tab, [["" if v is None else v for v in row] for row in typed.values.tolist()], start="A2")


def per_minute(requests: Sequence[Request]) -> dict[str, Any]:
    """The most reads, and bytes, in any 60 s (sliding), and the mean a minute over the duel."""
    if not requests:
        return {"minutes": 0, "max_reads": 0, "mean_reads": 0, "max_bytes": 0, "mean_bytes": 0, "reads": 0, "requests": 0}
    minutes = max((requests[-1].at - requests[0].at) / MINUTE, 1)
    reads = [r for r in requests if r.read]
    return {"minutes": round(minutes, 1), "requests": len(requests), "reads": len(reads),
            "max_reads": most_in_a_minute([(r.at, 1) for r in reads]),
            "mean_reads": round(len(reads) / minutes, 1),
            "max_bytes": most_in_a_minute([(r.at, r.bytes) for r in requests]),
            "mean_bytes": round(sum(r.bytes for r in requests) / minutes)}


def most_in_a_minute(events: Sequence[tuple[datetime, int]]) -> int:
    """The largest sum of amounts whose moments fall within one 60 s window.

    >>> t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> most_in_a_minute([(t, 1), (t + timedelta(seconds=59), 1), (t + timedelta(seconds=60), 1)])
    2
    """
    events = sorted(events)
    best = total = start = 0
    for at, amount in events:
        total += amount
        while events[start][0] <= at - MINUTE:
            total -= events[start][1]
            start += 1
        best = max(best, total)
    return best


def run(parts: int | None = None, seed: int = 1) -> dict[str, Any]:
    duel = watch_duel(parts, seed)
    delays = stamp_delays(duel)
    return {"game": "spirit-chain", "parts": duel.parts, "seed": seed, **per_minute(duel.requests),
            "largest_reply_bytes": max((r.call.reply_size for r in duel.requests), default=0),
            "typed": len(duel.typed),
            "mean_stamp_delay_seconds": round(sum(delays) / max(len(delays), 1), 1),
            "max_stamp_delay_seconds": max(delays, default=0),
            "stamped_past_a_boundary": sum(b is not None and at + timedelta(seconds=d) > b
                                           for (_, at), b, d in zip(duel.typed, duel.decides, delays))}


def stamp_delays(duel: Duel) -> list[float]:
    """Seconds from each row typed to its stamp: what the players are charged for the polling."""
    stamps = []
    for line in duel.lines:
        if " stamped " in line:
            at = parse_time(line.split(" stamped ")[1].split(" on ")[0], "line")
            stamps += [(at, part.split(":")[0]) for part in line.split(" on ", 1)[1].split("; ")]
    # A stamp is to the second, a row typed at any moment.
    return [min((max(0.0, (t - at).total_seconds()) for t, p in stamps if p == player and t >= at.replace(microsecond=0)),
                default=0.0) for player, at in duel.typed]


def report_lines(data: dict) -> list[str]:
    return [f"spirit-chain watched on a local fake of the Google Sheets API: {data['parts']} phase parts in "
            f"{data['minutes']} min, seed {data['seed']}",
            f"  reads a minute: {data['max_reads']} at most (in any 60 s), {data['mean_reads']} on average "
            f"({data['reads']} reads, {data['requests']} requests in all)",
            f"  bytes a minute: {data['max_bytes']:,} at most, {data['mean_bytes']:,} on average "
            f"(largest answer {data['largest_reply_bytes']:,})",
            f"  a row typed is stamped {data['mean_stamp_delay_seconds']} s later on average, "
            f"{data['max_stamp_delay_seconds']:.0f} s at most; {data['stamped_past_a_boundary']} of "
            f"{data['typed']} stamped after a moment that decides what counts (a window's end, a "
            "reserve period's) they were typed before"]
