"""`sheets-host bench GAME --google`: a whole bot game on the local fake of the Google Sheets API
(`sheets_host.fakes.google`), counting what each command sends to each spreadsheet (`run`), and
that count as text (`report_lines`).

Google allows 60 requests a minute per user and recommends request bodies of at most 2 MB, so
what matters is the number of requests per spreadsheet per command (the floor is one read and one
write per book) and the size of the largest request, which must not grow as the game goes on.
With a latency (each request's round trip, which the fake waits out), the wall time of each command
says what a host waits: the other books' requests go `in_flight` at once.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, NamedTuple

from sheets_host.backends import match_tab
from sheets_host.backends.gsheets.backend import GoogleBackend, spreadsheet_id
from sheets_host.engine import commands as engine, play
from sheets_host.engine.delivery import submit_frames
from sheets_host.fakes.google import Call, FakeGoogle, fake_backend
from sheets_host.games import get_game
from sheets_host.kit.console import table
from sheets_host.kit.game import rng_for

# The fewest requests a command can send to one book: a read and a write (the host book's read
# comes with the lease, its write releases it); status only reads.
FLOOR = {"status": 1, "check": 2, "resolve": 2}
COMMANDS = ("new", "status", "check", "resolve")
GOOGLE_LIMIT_BYTES = 2_000_000  # Google's recommended largest request body
START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


class _Clock:
    """The game's clock: ten minutes pass between commands."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def tick(self) -> None:
        self.now += timedelta(minutes=10)


def run(game_name: str, players: int | None = None, rounds: int | None = None, seed: int = 1, *,
        latency_ms: float = 0, in_flight: int | None = None) -> dict[str, Any]:
    """Play a whole game of `game_name` with `players` bots (default: as many as the rule text has)
    on a fake Google Sheets, stopping after `rounds` rounds if given; every command runs as a fresh
    process would (a new backend knowing only the host spreadsheet). Each round: the bots type
    their submissions into their own books (as people do, not through the API: not counted), then
    `status`, `check` and `resolve`, each timed. Every request takes `latency_ms` more; the books
    go `in_flight` at once (the backend's default if None).

    Returns (JSON-ready)::

        {"game": "magicians-market", "title": "Magician's Market", "players": 20, "rounds": 12,
         "seed": 1, "books": 22, "latency_ms": 250, "in_flight": 12,
         "requests": {              # book -> command -> the most requests one run of the command
             "floor": {"new": None, "status": 1, "check": 2, "resolve": 2},   # sent to that book
             "host": {"new": 4, "status": 1, "check": 2, "resolve": 2},
             "public": {...}, "player:Ada": {...}, ...},
         "at_floor": True,          # no book above the floor in status, check or resolve
         "per_round": [             # one record per round
             {"round": 1, "status_requests": 21, "check_requests": 43, "resolve_requests": 44,
              "most_per_book": 2,   # the most requests check or resolve sent to one book
              "largest_check_bytes": 5210, "largest_resolve_bytes": 40321,
              "largest_resolve_book": "host",  # where the round's largest request went
              "resolve_host_bytes": 40321, "resolve_public_bytes": 20112,  # resolve's largest request
              "resolve_player_bytes": 9120,    # to the host book, the public one, any player's
              "largest_reply_bytes": 80412,    # the largest answer (the host book's read grows)
              "status_seconds": 0.9, "check_seconds": 1.9, "resolve_seconds": 2.4,  # wall time
              "status_cpu_seconds": 0.2, ...,  # CPU time, the fake's included
              "most_in_flight": 12},           # the most requests in flight together
             ...],
         "seconds": {"status": {"mean": 0.9, "max": 1.0}, "check": {...}, "resolve": {...}},
         "cpu_seconds": {...},      # the same of CPU time
         "largest_request_bytes": {"new": ..., "status": 0, "check": ..., "resolve": ...,
                                   "first_round_resolve": ..., "last_round_resolve": ...,
                                   "google_limit": 2000000}}

    A book's role is "host", "public", "player:NAME", or a group's role ("meadow:red")."""
    game = get_game(game_name)
    names = play.bots(game, players)
    # Counting and timing, not checking: the tests check every request against Google's discovery
    # documents, which here would add its own time to what a command waits for Google.
    fake = FakeGoogle(keep_bodies=False, check_requests=False)
    fake.latency = latency_ms / 1000
    clock = _Clock()
    with tempfile.TemporaryDirectory() as out:
        def command(host: str = "") -> GoogleBackend:
            backend, _ = fake_backend(host, fake=fake)
            backend.output_dir = lambda: Path(out)  # announcements and pictures: not in the caller's folder
            if in_flight is not None:
                backend.in_flight = in_flight
            return backend

        emails = {p: f"{'-'.join(p.lower().split())}@example.org" for p in names}
        creator = command()
        start = len(fake.requests)
        engine.new_game(creator, game.name, names, seed, emails, clock=clock)
        host_id = creator.book("host").id
        roles = {spreadsheet_id(ref): role for role, ref in creator.refs().items()}
        windows: list[Window] = [Window("new", 0, fake.requests[start:])]
        played = 0
        while rounds is None or played < rounds:
            clock.tick()
            players_side = command(host_id)
            play.host_types(players_side, engine.open_session(players_side, clock), seed)
            _type_submissions(fake, players_side, engine.open_session(players_side, clock), seed)
            number = played + 1
            for name, act in (("status", lambda b: engine.status(b, clock)),
                              ("check", lambda b: engine.check(b, clock)),
                              ("resolve", lambda b: engine.resolve(b, early=True, allow_empty=True, clock=clock))):
                clock.tick()
                backend = command(host_id)
                start, fake.most_in_flight = len(fake.requests), 0
                began, cpu = time.perf_counter(), time.process_time()
                result = act(backend)
                windows.append(Window(name, number, fake.requests[start:], time.perf_counter() - began,
                                      time.process_time() - cpu, fake.most_in_flight))
            played += 1
            if result.over:
                break
    report = _report(game, len(names), seed, played, roles, windows)
    return {**report, "latency_ms": latency_ms, "in_flight": creator.in_flight}


class Window(NamedTuple):
    """One command's requests, wall and CPU time (the fake's included; new's not timed) and the
    most requests in flight together."""

    command: str
    round: int
    calls: list[Call]
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    most_in_flight: int = 0


def _type_submissions(fake: FakeGoogle, backend: GoogleBackend, session: engine.Session, seed: int) -> None:
    """Each bot types its submission (with people's untidiness) under the header of its submit tabs."""
    game, state = session.game, session.state
    number = game.round(state)
    for player in game.players(state):
        rng = rng_for(seed, number, f"bot/{player}")
        rows = [{k: v if k == "tab" else play.untidy(v, rng) for k, v in row.items()}
                for row in game.submit_rows(game.bot(state, player, rng))]
        sid = spreadsheet_id(backend.refs()[f"player:{player}"])
        for name, typed in submit_frames(game, state, player, rows).items():
            tab = match_tab(name, fake.tabs(sid))
            if tab is not None and len(typed):
                fake.put_values(sid, tab, typed.values.tolist(), start="A2")


def _report(game, players: int, seed: int, played: int, roles: dict[str, str],
            windows: Sequence[Window]) -> dict[str, Any]:
    most: dict[str, dict[str, int]] = {role: {} for role in roles.values()}
    largest: dict[str, int] = {c: 0 for c in COMMANDS}
    per_round: dict[int, dict[str, Any]] = {}
    for name, number, calls, seconds, cpu_seconds, in_flight in windows:
        # A Drive search (`new` looking for what the same command made) concerns no spreadsheet.
        counts = Counter(roles.get(c.sid, "other") for c in calls if c.sid is not None)
        for role, n in counts.items():
            book = most.setdefault(role, {})
            book[name] = max(book.get(name, 0), n)
        biggest = max(calls, key=lambda c: c.size, default=None)
        size = biggest.size if biggest else 0
        largest[name] = max(largest[name], size)
        if not number:
            continue
        entry = per_round.setdefault(number, {"round": number, "status_requests": 0, "check_requests": 0,
                                              "resolve_requests": 0, "most_per_book": 0, "largest_check_bytes": 0,
                                              "largest_resolve_bytes": 0, "largest_resolve_book": "",
                                              "resolve_host_bytes": 0, "resolve_public_bytes": 0,
                                              "resolve_player_bytes": 0, "largest_reply_bytes": 0,
                                              "most_in_flight": 0})
        entry[f"{name}_requests"] = len(calls)
        entry[f"{name}_seconds"] = round(seconds, 3)
        entry[f"{name}_cpu_seconds"] = round(cpu_seconds, 3)
        entry["most_in_flight"] = max(entry["most_in_flight"], in_flight)
        if name in ("check", "resolve"):
            entry["most_per_book"] = max(entry["most_per_book"], max(counts.values(), default=0))
            entry[f"largest_{name}_bytes"] = size
        if name == "resolve" and biggest is not None:
            entry["largest_resolve_book"] = roles.get(biggest.sid or "", "other")
            for call in calls:
                role = roles.get(call.sid or "", "other")
                kind = "player" if role.startswith("player:") else role
                if kind in ("host", "public", "player"):
                    entry[f"resolve_{kind}_bytes"] = max(entry[f"resolve_{kind}_bytes"], call.size)
        entry["largest_reply_bytes"] = max(entry["largest_reply_bytes"], max((c.reply_size for c in calls), default=0))
    rows = list(per_round.values())
    order = ["host", "public", *sorted(r for r in most if r.startswith("player:")),
             *sorted(r for r in most if r not in ("host", "public") and not r.startswith("player:"))]
    requests = {"floor": {c: FLOOR.get(c) for c in COMMANDS},
                **{role: {c: most[role].get(c, 0) for c in COMMANDS} for role in order if role in most}}
    at_floor = all(n <= FLOOR[c] for role in order if role in most for c, n in most[role].items() if c in FLOOR)
    return {
        "game": game.name, "title": game.title, "players": players, "rounds": played, "seed": seed,
        "books": len(roles),
        "requests": requests,
        "at_floor": at_floor,
        "per_round": rows,
        "seconds": _spread(rows, "seconds"),
        "cpu_seconds": _spread(rows, "cpu_seconds"),
        "largest_request_bytes": {**largest,
                                  "first_round_resolve": rows[0]["largest_resolve_bytes"] if rows else 0,
                                  "last_round_resolve": rows[-1]["largest_resolve_bytes"] if rows else 0,
                                  "google_limit": GOOGLE_LIMIT_BYTES},
    }


def _spread(rows: Sequence[dict[str, Any]], what: str) -> dict[str, dict[str, float]]:
    """Each command's mean and largest `what` over the rounds.

    >>> _spread([{"check_seconds": 1.0}, {"check_seconds": 2.0}], "seconds")
    {'check': {'mean': 1.5, 'max': 2.0}}
    """
    return {c: {"mean": round(sum(times) / len(times), 3), "max": max(times)}
            for c in FLOOR if (times := [r[f"{c}_{what}"] for r in rows if f"{c}_{what}" in r])}


def report_lines(data: dict) -> list[str]:
    """The report of `run` as text: requests per book per command (the players' books
    as one row), then each round, then the largest requests."""
    commands = list(data["requests"]["floor"])
    books = {role: counts for role, counts in data["requests"].items() if role != "floor"}
    players = [counts for role, counts in books.items() if role.startswith("player:")]

    def span(values):
        low, high = min(values), max(values)
        return low if low == high else f"{low}-{high}"

    rows = [{"book": "floor", **data["requests"]["floor"]}]
    rows += [{"book": role, **counts} for role, counts in books.items() if role in ("host", "public")]
    if players:
        rows.append({"book": f"each player's ({len(players)})", **{c: span([p[c] for p in players]) for c in commands}})
    rows += [{"book": role, **counts} for role, counts in books.items()
             if role not in ("host", "public") and not role.startswith("player:")]
    lines = [(f"{data['game']}: {data['players']} players, {data['rounds']} rounds, {data['books']} spreadsheets, "
              f"seed {data['seed']}, on a local fake of the Google Sheets API"), "",
             "Requests to each spreadsheet, the most in one run of each command:"]
    lines += table(rows, "  ")
    lines.append("  " + ("every spreadsheet at the floor" if data["at_floor"] else
                         "ABOVE THE FLOOR: some spreadsheet gets more requests than the floor"))
    lines += ["", "Each round (requests in all; bytes of the largest request, and of the largest reply; "
                  "wall seconds of check and resolve, and the most requests in flight together):"]
    lines += table([{"round": r["round"], "status": r["status_requests"], "check": r["check_requests"],
                      "resolve": r["resolve_requests"], "most to one book": r["most_per_book"],
                      "check bytes": r["largest_check_bytes"], "resolve bytes": r["largest_resolve_bytes"],
                      "to": r["largest_resolve_book"], "reply bytes": r["largest_reply_bytes"],
                      "check s": r["check_seconds"], "resolve s": r["resolve_seconds"], "in flight": r["most_in_flight"]}
                     for r in data["per_round"]], "  ")
    lines += ["", f"Wall time at {data['latency_ms']:g} ms a request, {data['in_flight']} requests in flight at most "
                  "(CPU time, the fake's included, in brackets):"]
    lines += [f"  {c} {data['seconds'][c]['mean']:.2f} s on average ({data['cpu_seconds'][c]['mean']:.2f} s), "
              f"{data['seconds'][c]['max']:.2f} s at most ({data['cpu_seconds'][c]['max']:.2f} s)"
              for c in FLOOR if c in data["seconds"]]
    largest = data["largest_request_bytes"]
    lines += ["", "Largest request: " + ", ".join(f"{c} {largest[c]:,} bytes" for c in commands if c in largest)
              + f"; resolve in round 1 {largest['first_round_resolve']:,}, in the last round "
                f"{largest['last_round_resolve']:,} (Google recommends at most {largest['google_limit']:,})"]
    return lines

