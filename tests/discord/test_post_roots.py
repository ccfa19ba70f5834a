"""`post` and the round roots (issue 35): a root once public is never edited or deleted away, a
redo's root comes in a new message naming the one it replaces, a kill and a rerun post nothing
twice, and each player's receipt (their submission commitment and the round's root) reaches them
alone. On the fake Discord, over real HTTP."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from typer.testing import CliRunner

from sheets_host.cli.main import app
from sheets_host.discord import post as posting
from sheets_host.engine import commands as engine
from sheets_host.engine import commitments
from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine.play import bot_names, bots_submit
from sheets_host.engine.record import write_record

from tests.conftest import PLAYERS, fixed_clock
from tests.discord.conftest import copy_of, resolved_game

PUBLIC = ("1", "public-token")
ROOT = re.compile(r"Round root: `([0-9a-f]{64})`")


@pytest.fixture(scope="module")
def resolved(tmp_path_factory):
    """Wind Guide Me, round 1 resolved by bots."""
    return resolved_game(tmp_path_factory.mktemp("wgm") / "game", "wind-guide-me", PLAYERS, 7, 1, 7)


@pytest.fixture
def game(resolved, tmp_path):
    return copy_of(resolved, tmp_path)


def channel(player: str) -> str:
    return str(10 + PLAYERS.index(player))


def hooks_file(path, fake, players=PLAYERS):
    path.write_text("".join(f"{p} {fake.url(channel(p), f'secret-of-{p}')}\n" for p in players), encoding="utf-8")
    return path


def post(backend, fake, webhooks=None, **kw):
    return posting.post(backend, fake.url(*PUBLIC), clock=fixed_clock, webhooks=webhooks, **kw)


def public(fake):
    return [m for m in fake.posted() if m.webhook_id == PUBLIC[0]]


def roots_posted(fake) -> list[str]:
    """The roots of the public channel's messages, in posting order (deleted ones too)."""
    return [r for m in fake.messages.values() if m.webhook_id == PUBLIC[0] for r in ROOT.findall(m.content)]


def current_root(backend) -> str:
    session = engine.open_session(backend, fixed_clock)
    rows = commitments.read(session.tabs, session.players)
    return commitments.current(rows, session.last_resolved["round"], "round")[-1]["commitment"]


def submissions(backend) -> dict[str, str]:
    session = engine.open_session(backend, fixed_clock)
    rows = commitments.read(session.tabs, session.players)
    return {r["player"]: r["commitment"] for r in commitments.current(rows, 1, "submission")}


def test_a_redo_posts_its_root_in_a_new_message_and_the_first_stays_unedited(game, fake):
    post(game, fake)
    first = current_root(game)
    (held,) = [m for m in public(fake) if first in m.content]
    said = held.content
    assert not any(first in m.content for m in public(fake) if m is not held)  # the root has a message of its own
    engine.resolve(game, redo=True, reason="a typo in the wind table", clock=fixed_clock)
    post(game, fake)
    second = current_root(game)
    assert second != first and roots_posted(fake) == [first, second]
    assert held.content == said and held.edits == 0 and not held.deleted
    (new,) = [m for m in public(fake) if f"Round root: `{second}`" in m.content]
    assert f"It replaces the root `{first}`" in new.content and "a typo in the wind table" in new.content
    # An undo, and the round resolved again: a third message, naming the second root; none touched.
    engine.undo(game, reason="a late submission accepted", clock=fixed_clock)
    bots_submit(game, engine.open_session(game, fixed_clock), 99, messy=False)
    engine.resolve(game, early=True, clock=fixed_clock)
    post(game, fake)
    third = current_root(game)
    assert roots_posted(fake) == [first, second, third]
    (last,) = [m for m in public(fake) if f"Round root: `{third}`" in m.content]
    assert f"It replaces the root `{second}`" in last.content
    assert all(m.edits == 0 and not m.deleted for m in fake.messages.values() if ROOT.search(m.content))
    # Posting again sends nothing.
    requests = len(fake.requests)
    assert post(game, fake).done["posted"] == 0 and len(fake.requests) == requests


def test_a_kill_before_any_message_and_a_rerun_post_nothing_twice(game, fake, tmp_path):
    """Killed before each message in turn (a redo's post: results edited, a new root, new
    receipts), the rerun finishes the job: every root and receipt once, none edited or deleted."""
    hooks = hooks_file(tmp_path / "hooks", fake)
    post(game, fake, hooks)
    engine.resolve(game, redo=True, clock=fixed_clock)
    saved = tmp_path / "saved"
    shutil.copytree(tmp_path / "game", saved)
    before = {k: (m.content, m.edits) for k, m in fake.messages.items()}
    calls = []

    def count(url, message, message_id):
        calls.append(message_id)
        return posting.send_to_discord(url, message, message_id)

    post(game, fake, hooks, send=count)  # the messages a redo's post sends
    assert len(calls) >= len(PLAYERS) + 1  # a root and a receipt each, at least
    for kill in range(len(calls)):
        shutil.rmtree(tmp_path / "game")
        shutil.copytree(saved, tmp_path / "game")
        for k in list(fake.messages):  # Discord as it was before this post
            if k not in before:
                del fake.messages[k]
        sent = 0

        def killed(url, message, message_id):
            nonlocal sent
            if sent == kill:
                raise KeyboardInterrupt
            sent += 1
            return posting.send_to_discord(url, message, message_id)

        with pytest.raises(KeyboardInterrupt):
            post(game, fake, hooks, send=killed)
        post(game, fake, hooks)
        live = [m for m in fake.messages.values() if not m.deleted]
        contents = [(m.webhook_id, m.content) for m in live]
        assert len(contents) == len(set(contents)), kill  # nothing twice
        assert roots_posted(fake).count(current_root(game)) == 1
        for k, (content, edits) in before.items():
            if ROOT.search(content) or "Keep this message" in content:
                assert (fake.messages[k].content, fake.messages[k].edits, fake.messages[k].deleted) == (
                    content, edits, False), kill


def test_each_player_gets_their_own_commitment_and_the_root_and_no_one_elses(game, fake, tmp_path):
    report = post(game, fake, hooks_file(tmp_path / "hooks", fake))
    root, mine = current_root(game), submissions(game)
    assert sorted(mine) == sorted(PLAYERS) and report.receipts_done["posted"] == len(PLAYERS)
    session = engine.open_session(game, fixed_clock)
    rows = commitments.read(session.tabs, session.players)
    for player in PLAYERS:
        (receipt,) = [m for m in fake.posted() if m.webhook_id == channel(player)]
        text = receipt.content
        assert mine[player] in text and root in text and "Keep this message" in text and player in text
        assert "my commitments" in text and "sha256sum" in text
        (row,) = [r for r in commitments.current(rows, 1, "submission") if r["player"] == player]
        for counted in json.loads(row["text"].split(" ", 2)[2])["rows"]:
            assert f"row {counted['row']}" in text
            assert all(value in text for value in counted["cells"].values())
        assert row["salt"] not in text  # the salt stays in the player's book
    for player, commitment in mine.items():  # a player's commitment is on their channel alone
        assert {m.webhook_id for m in fake.posted() if commitment in m.content} == {channel(player)}
    assert len(public(fake)) >= 2 and not any(c in m.content for m in public(fake) for c in mine.values())
    # A redo: a new receipt each, the first ones left as they were.
    first = {m.id: m.content for m in fake.posted() if m.webhook_id != PUBLIC[0]}
    engine.resolve(game, redo=True, clock=fixed_clock)
    again = post(game, fake, tmp_path / "hooks")
    assert again.receipts_done["posted"] == len(PLAYERS)
    assert all(fake.messages[k].content == c and fake.messages[k].edits == 0 for k, c in first.items())
    new_root, new = current_root(game), submissions(game)
    for player in PLAYERS:
        latest = [m for m in fake.posted() if m.webhook_id == channel(player)][-1]
        assert new[player] in latest.content and new_root in latest.content
        assert "replaces" in latest.content


def test_a_receipt_goes_only_to_players_in_the_file(game, fake, tmp_path):
    report = post(game, fake, hooks_file(tmp_path / "hooks", fake, PLAYERS[:2]))
    assert sorted(report.receipts) == sorted(PLAYERS[:2]) and report.unsent == PLAYERS[2:]
    assert {m.webhook_id for m in fake.posted()} == {PUBLIC[0], channel(PLAYERS[0]), channel(PLAYERS[1])}


def test_dry_run_shows_the_root_message_and_the_receipts(game, fake, tmp_path, monkeypatch):
    monkeypatch.delenv(posting.WEBHOOKS_ENV, raising=False)
    hooks_file(tmp_path / "game" / posting.WEBHOOKS_FILE, fake)
    result = CliRunner().invoke(app, ["post", str(tmp_path / "game"), "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    planned = json.loads(result.stdout)
    root, mine = current_root(game), submissions(game)
    assert [m for m in planned if "player" not in m and f"Round root: `{root}`" in m["content"]]
    for player in PLAYERS:
        (receipt,) = [m for m in planned if m.get("player") == player]
        assert mine[player] in receipt["content"] and root in receipt["content"]
    assert "secret-of" not in result.stdout and not fake.requests
    result = CliRunner().invoke(app, ["post", str(tmp_path / "game"), "--dry-run"])
    assert result.exit_code == 0 and f"Round root: `{root}`" in result.stdout
    assert f"{PLAYERS[0]}'s private message" in result.stdout


def test_an_old_posts_tab_keeps_its_messages_unedited(game, fake):
    """A posts tab written before roots had messages of their own: its messages held the round's
    root at their end, so they are never edited or deleted; the results are posted anew."""
    old = posting.Message(f"## the announcement\n\nRound root: `{current_root(game)}`")
    message_id = posting.send_to_discord(fake.url(*PUBLIC), old, None)
    host = game.book("host")
    host.write({"posts": posting.POSTS.frame([{"round": 1, "part": 1, "message id": message_id, "digest": "0" * 16}])
                .drop(columns=["player", "root"])})
    engine.resolve(game, redo=True, clock=fixed_clock)
    post(game, fake)
    kept = fake.messages[message_id]
    assert kept.content == old.content and kept.edits == 0 and not kept.deleted
    assert len(roots_posted(fake)) == 2
    posts = host.read(["posts"])["posts"]
    assert list(posts.loc[posts["message id"].astype(str) == message_id, "root"]) == [posting.WHOLE]
    requests = len(fake.requests)
    assert post(game, fake).done["posted"] == 0 and len(fake.requests) == requests  # and once only


def test_what_a_player_saved_from_discord_verifies_against_the_record(tmp_path, fake):
    """A player who saved every public post and their own receipts, a redo among them, finds each
    root and their commitments in the record: `verify --roots` of the saved text passes."""
    players = bot_names(5)
    backend = XlsxBackend(tmp_path / "mm")
    engine.new_game(backend, "magicians-market", players, 5, clock=fixed_clock, settings={"days": 2})
    hooks = tmp_path / "hooks"
    hooks.write_text("".join(f"{p} {fake.url(str(10 + k), f'secret-{k}')}\n" for k, p in enumerate(players)))
    for redo in (False, True, False):
        if not redo:
            bots_submit(backend, engine.open_session(backend, fixed_clock), 5)
        engine.resolve(backend, early=not redo, redo=redo, clock=fixed_clock)
        posting.post(backend, fake.url(*PUBLIC), clock=fixed_clock, webhooks=hooks)
    write_record(backend, tmp_path / "record.json", clock=fixed_clock)
    saved = tmp_path / "saved.txt"
    saved.write_text("\n".join(m.content for m in fake.posted() if m.webhook_id in (PUBLIC[0], "10")))
    result = CliRunner().invoke(app, ["verify", str(tmp_path / "record.json"), "--roots", str(saved)])
    out = " ".join(result.output.split())
    assert result.exit_code == 0, out
    assert len(roots_posted(fake)) == 3 and "FAIL" not in out
    # The three roots (a redo's superseded one too) and the seed's; Ada's commitment of each.
    assert out.count("ok the root you kept") == 4 and out.count("ok the commitment you kept") == 3
