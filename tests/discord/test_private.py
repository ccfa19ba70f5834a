"""Private receipts and nudges (`discord.private`) through `watch`, `check` and `remind`, against the
fake Discord on the loopback interface with a fake clock: the small `tests/engine/tally.py` game of
three players (an `orders` tab of rows and a 2x2 `board` grid)."""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import pytest
from typer.testing import CliRunner

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.cli.main import app
from sheets_host.discord.post import send_to_discord
from sheets_host.discord.private import Private
from sheets_host.engine import commands as engine
from sheets_host.fakes.discord import FakeDiscord
from sheets_host.fakes.google import fake_backend
from sheets_host.watch.loop import Watch, steps_done

from tests.backends.gsheets.test_gsheets_game import requests_by_spreadsheet
from tests.conftest import FIXED as START
from tests.engine import tally

PLAYERS = ["Ada", "Blaise", "Cora"]
PUBLIC = ("1", "public-token")
BLANK_BOARD = [["2", None, None], ["1", None, None]]
NOTHING = "if nothing valid by the deadline: nothing is ordered"
# What each player receives, as Discord shows it (docs/discord.md quotes these).
COUNTS = "\U0001f4ec **Tally, round 1**\nYour submission: counts.\nWhat counts: 2 apple"
WITH_PROBLEM = ("\U0001f4ec **Tally, round 1**\nYour submission: counts, except 1 row (the problems below).\n"
                "What counts: 2 apple\n- tab 'orders', row 3, column 'item' (A): 'kiwi' is not an item; allowed: "
                "apple, pear; row dropped")
FIXED_UP = "\U0001f4ec **Tally, round 1**\nYour submission: counts.\nWhat counts: 2 apple, 1 pear; marks B1"
BROKEN = ("\U0001f4ec **Tally, round 1**\nYour submission: does not count (the problems below); " + NOTHING + ".\n"
          "- tab 'orders', row 2, column 'count' (B): 'lots' is not a whole number (a count: 1 to 99); row dropped")
CLEARED = f"\U0001f4ec **Tally, round 1**\nYour submission: nothing typed yet; {NOTHING}."
NUDGE_EMPTY = f"\u23f0 **Tally, round 1** closes 2026-11-22 14:00:00 UTC (in 1 hour).\nYour submission: nothing typed yet; {NOTHING}."


def game(monkeypatch, tmp_path, **settings) -> XlsxBackend:
    tally.install(monkeypatch, tmp_path)
    backend = XlsxBackend(tmp_path / "game")
    engine.new_game(backend, "tally", PLAYERS, 5, clock=lambda: START,
                    settings={"first deadline": "2026-11-22 14:00", "reminder hours": "", **settings})
    return backend


def hooks(tmp_path, fake: FakeDiscord):
    path = tmp_path / "hooks"
    path.write_text("".join(f"{p} {fake.url(str(10 + i), f'secret-of-{p}')}\n" for i, p in enumerate(PLAYERS)))
    return path


def type_in(backend, player: str, orders: list[list], board: list[list] = BLANK_BOARD) -> None:
    backend.book(f"player:{player}").write({
        "orders": pd.DataFrame(orders, columns=["item", "count"], dtype=object),
        "board": pd.DataFrame(board, columns=["rank", "A", "B"], dtype=object)})


def channels(fake: FakeDiscord) -> dict[str, list[str]]:
    """Each channel's messages, in order: the public one's and each player's."""
    out: dict[str, list[str]] = {"public": [], **{p: [] for p in PLAYERS}}
    for message in fake.posted():
        out["public" if message.webhook_id == PUBLIC[0] else PLAYERS[int(message.webhook_id) - 10]].append(message.content)
    return out


def assert_private(fake: FakeDiscord, typed: dict[str, str]) -> None:
    """No receipt or nudge in the public channel, and what each player typed (`typed`: a word of
    theirs) in their own channel alone; every message pings nobody."""
    seen = channels(fake)
    assert not any("Your submission" in m or any(p in m for p in PLAYERS) for m in seen["public"])
    for player, word in typed.items():
        assert [p for p in PLAYERS if any(word in m for m in seen[p])] in ([player], [])
    assert not any(fake.allows_mentions(m.id) for m in fake.posted())


def test_typing_fixing_and_breaking_gets_each_receipt_once_across_a_watch_killed_and_restarted(
        monkeypatch, tmp_path, fake):
    backend = game(monkeypatch, tmp_path, **{"check minutes": 1})
    now, lines = [START], []

    class Kill(BaseException):
        pass

    kill = [False]

    def send(url, message, message_id):
        if kill[0]:  # killed before Discord got it: nothing sent, nothing recorded
            kill[0] = False
            raise Kill
        return send_to_discord(url, message, message_id)

    def watch() -> Watch:
        return Watch(backend, fake.url(*PUBLIC), lambda: now[0], say=lines.append, send=send,
                     webhooks=hooks(tmp_path, fake))

    def edit(orders, board=BLANK_BOARD, player="Ada"):
        type_in(backend, player, orders, board)
        now[0] += timedelta(minutes=1)

    running = watch()
    running.step()  # the first check: nobody typed, nobody is told anything
    edit([["apple", 2]])
    running.step()
    edit([["apple", 2], ["kiwi", 1]])
    running.step()
    running = watch()  # killed and started again: the same content is not sent again
    now[0] += timedelta(minutes=1)
    running.step()
    edit([["apple", 2], ["pear", 1]], [["2", None, None], ["1", None, "x"]])
    kill[0] = True
    with pytest.raises(Kill):
        running.step()
    running = watch()
    running.step()  # the receipt the kill cut off, once
    edit([["apple", "lots"]])
    running.step()
    edit([])
    running.step()
    edit([["apple", 2]])  # as the first receipt said, but not as the last: said again
    running.step()
    running = watch()
    now[0] += timedelta(minutes=1)
    running.step()
    assert channels(fake) == {"public": [], "Ada": [COUNTS, WITH_PROBLEM, FIXED_UP, BROKEN, CLEARED, COUNTS],
                              "Blaise": [], "Cora": []}
    assert any("round 1: receipts sent to Ada" in line for line in lines)
    assert_private(fake, {"Ada": "2 apple"})


def test_two_edits_within_the_minute_make_one_receipt_of_the_last_state(monkeypatch, tmp_path, fake):
    backend = game(monkeypatch, tmp_path, **{"check minutes": 0.75})
    now = [START]
    running = Watch(backend, fake.url(*PUBLIC), lambda: now[0], say=lambda line: None, webhooks=hooks(tmp_path, fake))
    type_in(backend, "Ada", [["apple", 2]])
    assert running.step() == START + timedelta(seconds=45)
    type_in(backend, "Ada", [["apple", 2], ["kiwi", 1]])
    now[0] = START + timedelta(seconds=45)
    wake = running.step()  # held back: Ada had one 45 s ago
    assert wake == START + timedelta(minutes=1) and running.receipts_due == wake
    type_in(backend, "Ada", [["apple", 2], ["pear", 1]], [["2", None, None], ["1", None, "x"]])
    now[0] = wake
    running.step()  # the check the held receipt asked for: the last state, never the one between
    assert channels(fake)["Ada"] == [COUNTS, FIXED_UP] and running.receipts_due is None


def test_nudges_at_a_reminder_go_to_the_missing_and_invalid_players_alone(monkeypatch, tmp_path, fake):
    backend = game(monkeypatch, tmp_path, **{"check minutes": 300, "reminder hours": "1"})
    now = [START]
    type_in(backend, "Ada", [["apple", 2]])
    type_in(backend, "Cora", [["kiwi", 1]])

    def watch() -> Watch:
        return Watch(backend, fake.url(*PUBLIC), lambda: now[0], say=lambda line: None, webhooks=hooks(tmp_path, fake))

    running = watch()
    assert running.step() == START + timedelta(hours=1)  # the reminder's moment
    now[0] = START + timedelta(hours=1)
    running.step()
    running = watch()  # started again at once: no nudge twice
    now[0] += timedelta(seconds=5)
    running.step()
    seen = channels(fake)
    assert seen["public"] == ["\u23f0 **Round 1** closes in 1 hour, at 2026-11-22 14:00:00 UTC. Type your submission "
                              "into your own book: its status tab shows what counts."]
    assert seen["Ada"] == [COUNTS]  # valid: a receipt, no nudge
    assert seen["Blaise"] == [NUDGE_EMPTY]
    kiwi = "- tab 'orders', row 2, column 'item' (A): 'kiwi' is not an item; allowed: apple, pear; row dropped"
    assert seen["Cora"] == [  # her receipt when the watch started, then the nudge
        f"\U0001f4ec **Tally, round 1**\nYour submission: does not count (the problems below); {NOTHING}.\n{kiwi}",
        f"\u23f0 **Tally, round 1** closes 2026-11-22 14:00:00 UTC (in 1 hour).\nYour submission: does not count "
        f"(the problems below); {NOTHING}.\n{kiwi}"]
    assert ("nudge", 1, "1 h") in steps_done(engine.open_session(backend, lambda: now[0]))
    assert_private(fake, {"Ada": "2 apple", "Cora": "kiwi"})


def test_remind_dry_run_prints_the_nudges_and_check_sends_receipts(monkeypatch, tmp_path, fake):
    backend = game(monkeypatch, tmp_path)
    type_in(backend, "Ada", [["apple", 2]])
    type_in(backend, "Cora", [["kiwi", 1]])
    where, path = str(tmp_path / "game"), str(hooks(tmp_path, fake))
    runner = CliRunner()
    dry = runner.invoke(app, ["remind", where, "--private-webhooks", path, "--dry-run"])
    assert dry.exit_code == 0, dry.output
    # The command's clock is the real one: the deadline is days ago.
    assert "Blaise:\n\u23f0 **Tally, round 1** closes 2026-11-22 14:00:00 UTC (" in dry.output
    assert "Cora:\n\u23f0" in dry.output and "Ada:" not in dry.output
    assert "round 1: 2 nudges would be sent." in dry.output and "secret" not in dry.output and "http" not in dry.output
    assert fake.requests == []
    sent = runner.invoke(app, ["remind", where, "--private-webhooks", path])
    assert sent.exit_code == 0 and "round 1: nudges sent to Blaise, Cora." in sent.output, sent.output
    assert runner.invoke(app, ["remind", where, "--private-webhooks", path]).output == \
        "round 1: no private message to send.\n"  # the same nudges: not again
    assert runner.invoke(app, ["check", where, "--private-webhooks", path, "--no-receipts"]).exit_code == 0
    assert len(fake.posted()) == 2
    checked = runner.invoke(app, ["check", where, "--private-webhooks", path])
    # Cora's nudge said all a receipt would: only Ada's is sent.
    assert "private: receipts sent to Ada" in checked.output and channels(fake)["Ada"] == [COUNTS]
    assert_private(fake, {"Ada": "2 apple", "Cora": "kiwi"})
    no_file = runner.invoke(app, ["remind", where])
    assert no_file.exit_code == 2 and "no players' webhooks file" in no_file.output


def test_a_check_sending_one_receipt_costs_no_request_more_and_each_other_one_write(monkeypatch, tmp_path, fake):
    tally.install(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    backend, google = fake_backend()
    session = engine.new_game(backend, "tally", PLAYERS, 5, clock=lambda: START)
    host, host_id = session.host.ref, session.host.id

    def check(then=None) -> dict[str, int]:
        start = len(google.requests)
        engine.check(fake_backend(host, fake=google)[0], lambda: START, then=then)
        return dict(requests_by_spreadsheet(google, start))

    plain = check()
    # The floor: the host's lease taken (with its read) and released, each player's book read and written.
    assert plain[host_id] == 2 and max(plain.values()) == 2
    path = hooks(tmp_path, fake)
    assert check(Private(path, clock=lambda: START)) == plain  # nothing changed: no receipt, no request
    type_in(backend, "Ada", [["apple", 2]])
    assert check(Private(path, clock=lambda: START)) == plain  # one receipt: its record releases the lease
    for player in PLAYERS:
        type_in(backend, player, [["pear", 1]])
    with_three = check(Private(path, clock=lambda: START + timedelta(minutes=1)))
    assert with_three == {**plain, host_id: 4} and len(channels(fake)["Ada"]) == 2


def test_a_long_list_of_problems_is_cut_and_a_player_without_a_webhook_gets_nothing(monkeypatch, tmp_path, fake):
    backend = game(monkeypatch, tmp_path)
    type_in(backend, "Ada", [["kiwi", n] for n in range(1, 16)])
    type_in(backend, "Blaise", [["plum", 1]])
    path = tmp_path / "hooks"
    path.write_text(f"Ada {fake.url('10', 'secret-of-Ada')}\n")
    private = Private(path, clock=lambda: START)
    engine.check(backend, lambda: START, then=private)
    (message,) = channels(fake)["Ada"]
    assert message.count("\n- tab 'orders'") == 10 and message.endswith("\n- and 5 more: your status tab lists them all")
    assert private.sent == {"receipt": ["Ada"], "nudge": []} and private.unsent == ["Blaise"]
    assert private.said() == "receipts sent to Ada; no private webhook for Blaise"
