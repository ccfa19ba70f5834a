"""`sheets-host bench GAME --google --watch` for a game without time controls: a game watched on the
local fake of the Google APIs with a fake clock and checks every minute, nobody typing for a while,
then one player typing: the requests `watch` sends each minute (a check costs what changed:
`watch.changes`) and how long the player's status tab took to say what counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from sheets_host.backends import frame_from_rows, match_tab
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import submit_frames
from sheets_host.engine.host import stamp
from sheets_host.engine.play import bot_names
from sheets_host.fakes.google import Call, FakeGoogle, fake_backend
from sheets_host.kit.game import rng_for
from sheets_host.watch.loop import Watch

START = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
MINUTE = timedelta(minutes=1)


@dataclass
class Idle:
    requests: list[tuple[datetime, Call]]  # what watch sent, each with its moment
    typed: datetime  # when the player typed
    shown: datetime | None  # when their status tab first said their submission counts


def watch_idle(game: str = "magicians-market", players: int = 20, minutes: int = 12,
               typed_after: timedelta = timedelta(minutes=8, seconds=20), seed: int = 1) -> Idle:
    """Watch `game` for `minutes` with checks every minute; one player types `typed_after` in."""
    fake = FakeGoogle(keep_bodies=False)
    now = [START]
    fake.clock = lambda: now[0]
    counting = [False]
    times: list[tuple[datetime, bool]] = []
    fake.before_request = lambda method, path: times.append((now[0], counting[0]))
    creator, _ = fake_backend("", fake=fake)
    creator.clock = lambda: now[0]
    names = bot_names(players)
    engine.new_game(creator, game, names, seed, clock=lambda: now[0], settings={
        "first deadline": stamp(START + timedelta(days=2))[:16], "round hours": 24, "reminder hours": "",
        "check minutes": 1})
    watcher, _ = fake_backend(creator.refs()["host"], fake=fake)
    watcher.clock = lambda: now[0]
    watch = Watch(watcher, None, lambda: now[0], say=lambda line: None)
    player, typed, shown, done = names[0], START + typed_after, None, False
    book = creator.book(f"player:{player}").id
    while now[0] < START + minutes * MINUTE:
        if now[0] >= typed and not done:
            type_bot(fake, book, creator, player, seed)
            done = True
        counting[0] = True
        wake = watch.step()
        counting[0] = False
        if shown is None and now[0] >= typed and "counts" in _status(fake, book):
            shown = now[0]
        now[0] = max(wake or now[0], now[0] + timedelta(seconds=1))
    requests = [(at, call) for (at, counted), call in zip(times, fake.requests) if counted]
    return Idle(requests, typed, shown)


def _status(fake: FakeGoogle, sid: str) -> str:
    tab = match_tab("status", fake.tabs(sid))
    data = frame_from_rows(fake.values(sid, tab)) if tab else None
    if data is None:
        return ""
    rows = dict(zip(data["what"], data["value"]))
    return str(rows.get("your submission", ""))


def type_bot(fake: FakeGoogle, sid: str, backend, player: str, seed: int) -> list[list[object]]:
    """The bot's submission typed under the header, as a person types it (not through our
    account); the rows typed."""
    session = engine.open_session(backend)
    game, state = session.game, session.state
    rows = game.submit_rows(game.bot(state, player, rng_for(seed, game.round(state), f"bot/{player}")))
    typed: list[list[object]] = []
    for name, frame in submit_frames(game, state, player, rows).items():
        tab = match_tab(name, fake.tabs(sid))
        if tab is not None and len(frame):
            typed = [["" if v is None else v for v in row] for row in frame.values.tolist()]
            fake.put_values(sid, tab, typed, start="A2")
    return typed


def most_in_a_minute(moments: list[datetime]) -> int:
    """The most moments within one 60 s window."""
    moments, best, start = sorted(moments), 0, 0
    for end, at in enumerate(moments):
        while moments[start] <= at - MINUTE:
            start += 1
        best = max(best, end - start + 1)
    return best


def run(game: str = "magicians-market", players: int = 20, seed: int = 1) -> dict[str, Any]:
    idle = watch_idle(game, players, seed=seed)
    quiet = [at for at, _ in idle.requests if START + 3 * MINUTE <= at < idle.typed]
    after = [at for at, _ in idle.requests if idle.typed <= at < idle.typed + 2 * MINUTE]
    return {"game": game, "players": players, "seed": seed, "quiet_minutes": round((idle.typed - START) / MINUTE - 3, 1),
            "most_requests_a_minute_quiet": most_in_a_minute(quiet),
            "requests_quiet": len(quiet),
            "requests_first_two_minutes": len([at for at, _ in idle.requests if at < START + 2 * MINUTE]),
            "requests_two_minutes_after_typing": len(after),
            "seconds_until_status_shows_it": (idle.shown - idle.typed).total_seconds() if idle.shown else None}


def report_lines(data: dict) -> list[str]:
    return [f"{data['game']}, {data['players']} players, watched on a local fake of the Google APIs, a check a minute:",
            f"  nobody typing ({data['quiet_minutes']:g} min): {_requests(data['most_requests_a_minute_quiet'])} a "
            f"minute at most ({data['requests_quiet']} in all)",
            f"  the first two minutes (every book read and told once): {data['requests_first_two_minutes']} requests",
            f"  a player types: {data['requests_two_minutes_after_typing']} requests in the two minutes after; "
            f"their status tab said it {data['seconds_until_status_shows_it']:g} s after"]


def _requests(n: int) -> str:
    return f"{n} request{'' if n == 1 else 's'}"
