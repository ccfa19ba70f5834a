"""`watch` on a timed duel on the fake Google API (issue 25): within 30 reads in any minute, so two
duels fit one account's 60; a poll where nobody typed reads the submit tabs and only the host
book's small tabs; a row typed is still stamped at the next poll, and never after a moment that
decides what counts (a window's end, a reserve period's) it was typed before. The whole duel is
`sheets-host bench spirit-chain --google --watch`."""

from __future__ import annotations

from datetime import datetime, timedelta

from sheets_host.backends import match_tab
from sheets_host.backends.gsheets.backend import spreadsheet_id
from sheets_host.cli.bench_watch import START, most_in_a_minute, stamp_delays, watch_duel
from sheets_host.engine import commands as engine
from sheets_host.engine.host import parse_time, stamp
from sheets_host.engine.play import bot_names
from sheets_host.fakes.google import FakeGoogle, fake_backend
from sheets_host.watch.loop import READS, Watch

HISTORY = ("log", "archive", "snapshots")


def test_a_watched_duel_reads_within_its_minute_and_an_idle_poll_reads_only_what_can_change(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # announcements go to ./sheets-host-out on Google
    duel = watch_duel(parts=4, fake=FakeGoogle())
    assert duel.parts == 4
    reads = [r for r in duel.requests if r.read]
    assert most_in_a_minute([(r.at, 1) for r in reads]) <= READS == 30

    said = {line[:23] for line in duel.lines}  # the moments watch did something
    idle = [r for r in reads if stamp(r.at) not in said]
    host = [r for r in idle if r.role == "host"]
    assert len(host) > 10
    whole = max(r.call.reply_size for r in reads if r.role == "host" and not r.call.query.get("ranges"))
    for r in host:
        ranges = r.call.query.get("ranges", [])
        assert ranges and not any(tab in rng for rng in ranges for tab in HISTORY), ranges
        assert r.call.reply_size < whole / 4

    # None is stamped after a moment that decides what counts and that it was typed before.
    assert not any(b is not None and at + timedelta(seconds=d) > b
                   for (_, at), b, d in zip(duel.typed, duel.decides, stamp_delays(duel)))

    # Each row typed is stamped by the first poll of its player's book after it.
    assert len(duel.typed) >= 6
    for player, at in duel.typed:
        polled = min(r.at for r in reads if r.role == f"player:{player}" and r.at >= at)
        assert any(line.startswith(stamp(polled)) and f"stamped {stamp(polled)} on " in line and f"{player}: submit" in line
                   for line in duel.lines), (player, at)


def test_a_row_typed_just_before_the_window_ends_is_stamped_by_a_poll_at_its_end():
    """Ada types 1 s before the Auction's 75 s window ends, the regular poll due about 3 s after
    the end (it was at 12:01:19 before the fix); Blaise 1 s after the end. Each of the watch's
    requests takes 0.3 s of the fake clock, so a stamp taken once the stamp's own reads are done
    would be later than the poll that saw the row. Ada's row is stamped at the end and counts
    within the window; Blaise's is after it and costs a reserve period; each is stamped once (a
    watch started again writes none); no 60 s holds more than 30 of the watch's reads."""
    now = [START]
    fake = FakeGoogle()
    reads: list[datetime] = []
    counting = [False]

    def tick(method, path):  # each of the watch's requests takes time; its reads are counted
        if counting[0]:
            reads.extend([now[0]] if method == "GET" else [])
            now[0] += timedelta(seconds=0.3)

    fake.before_request = tick
    backend, _ = fake_backend("", fake=fake)
    backend.clock = lambda: now[0]
    engine.new_game(backend, "spirit-chain", bot_names(2), 7, clock=lambda: now[0])
    opened = parse_time(engine.open_session(backend).open_round["opened at"], "opened at")
    end = opened + timedelta(seconds=75)
    lines: list[str] = []
    watcher, _ = fake_backend(backend.book("host").id, fake=fake)  # its reads are the watch's own
    watcher.clock = lambda: now[0]
    watch = Watch(watcher, None, lambda: now[0], say=lines.append)
    due = {"Ada": end - timedelta(seconds=1), "Blaise": end + timedelta(seconds=1)}
    typed: dict[str, datetime] = {}
    restarted, wake = False, now[0]
    while engine.open_session(backend).open_round["round"] == 1:
        # The players type at their moments, between the watch's passes, unseen until a poll.
        now[0] = min([wake, *(at for at in due.values() if at > now[0])])
        for player, at in due.items():
            if player not in typed and now[0] >= at:
                _type(fake, backend, player)
                typed[player] = now[0]
        if now[0] < wake:
            continue
        counting[0] = True
        wake = max(watch.step(), now[0] + timedelta(seconds=1))
        counting[0] = False
        if not restarted and any("Ada: submit" in line for line in lines):
            # A watch started again sees the stamp and writes none.
            again: list[str] = []
            Watch(backend, None, lambda: now[0], say=again.append).step()
            assert not any("stamped" in line for line in again), again
            restarted = True

    stamps = {line.split(" on ")[1].split(":")[0]: parse_time(line.split(" stamped ")[1].split(" on ")[0], "line")
              for line in lines if " stamped " in line}
    assert typed["Ada"] < end and stamps["Ada"] <= end, (typed, stamps)
    assert stamps["Blaise"] > end
    assert list(engine.open_session(backend).state.reserve) == [10, 9]  # Ada within the window
    watch_tab = backend.book("host").read(["watch"])["watch"]
    assert sum(watch_tab["step"] == "stamp") == 2  # each row stamped once
    assert most_in_a_minute([(t, 1) for t in reads]) <= READS


def _type(fake, backend, player):
    """A bid typed into the player's submit tab as a person does (not through the API), no time."""
    session = engine.open_session(backend)
    sid = spreadsheet_id(backend.refs()[f"player:{player}"])
    tab = match_tab(session.game.submit_tabs(session.state, player)[0].name, fake.tabs(sid))
    fake.put_values(sid, tab, [["", 3, 0, 0, 0, 0]], start="A2")
