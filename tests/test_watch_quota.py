"""`watch` on a timed duel on the fake Google API (issue 25): within 30 reads in any minute, so two
duels fit one account's 60; a poll where nobody typed reads the submit tabs and only the host
book's small tabs; a row typed is still stamped at the next poll. The whole duel is
`sheets-host bench spirit-chain --google --watch`."""

from __future__ import annotations

from sheets_host.bench_watch import most_in_a_minute, watch_duel
from sheets_host.fake_google import FakeGoogle
from sheets_host.host import stamp
from sheets_host.watch import READS

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

    # Each row typed is stamped by the first poll of its player's book after it.
    assert len(duel.typed) >= 6
    for player, at in duel.typed:
        polled = min(r.at for r in reads if r.role == f"player:{player}" and r.at >= at)
        assert any(line.startswith(stamp(polled)) and f"stamped {stamp(polled)} on " in line and f"{player}: submit" in line
                   for line in duel.lines), (player, at)
