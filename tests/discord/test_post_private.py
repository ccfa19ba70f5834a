"""`post` of each player's private pictures to their own channel's webhook, against the fake
Discord on the loopback interface: an Academy festival of 6 whose round 1 draws a private picture
for each Elemental Continuum participant (5 of the 6; Cora plays none)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from sheets_host.cli.main import app
from sheets_host.discord import post as posting
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bot_names, bots_submit
from sheets_host.fakes.discord import FakeDiscord
from sheets_host.kit.errors import SheetsHostError
from sheets_host.watch.loop import Watch

from tests.conftest import fixed_clock
from tests.discord.conftest import copy_of, resolved_game

PLAYERS = bot_names(6)  # the fewest the Academy takes
DRAWN = ["Ada", "Blaise", "Dmitri", "Emmy", "Felix"]  # the players round 1 draws a private picture for
PUBLIC = ("1", "public-token")


def token(player: str) -> str:
    return f"secret-of-{player}"


@pytest.fixture(scope="module")
def resolved(tmp_path_factory):
    """A festival played by bots through the pregame and round 1 (its Continuum draws the pictures)."""
    return resolved_game(tmp_path_factory.mktemp("academy") / "game", "academy-of-witchcraft-arts", PLAYERS, 1, 2, 5)


@pytest.fixture
def game(resolved, tmp_path):
    return copy_of(resolved, tmp_path)


def webhook_of(fake: FakeDiscord, player: str) -> str:
    return fake.url(str(10 + PLAYERS.index(player)), token(player))


def hooks_file(path, fake: FakeDiscord, players=PLAYERS, extra: str = ""):
    lines = ["# each player's private channel", "", *(f"{p}  {webhook_of(fake, p)}" for p in players)]
    path.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return path


def post(backend, fake, webhooks, **kw):
    return posting.post(backend, fake.url(*PUBLIC), clock=fixed_clock, webhooks=webhooks, **kw)


def pictures(backend) -> dict[str, bytes]:
    session = engine.open_session(backend, fixed_clock)
    return session.game.private_pictures(session.state)


def on_webhook(fake: FakeDiscord, webhook_id: str) -> list:
    return [m for m in fake.posted() if m.webhook_id == webhook_id]


def pictured(fake: FakeDiscord, player: str) -> list:
    """The messages with a picture on a player's webhook (their receipts have none: test_post_roots.py)."""
    return [m for m in on_webhook(fake, str(10 + PLAYERS.index(player))) if m.attachments]


def receipts_in(report) -> int:
    """The messages of the report's receipts (a long one is cut in two: test_post_roots.py)."""
    return sum(map(len, report.receipts.values()))


def host_text(backend) -> str:
    return "\n".join(tab.to_csv() for tab in backend.book("host").read().values())


def test_each_private_picture_goes_to_its_players_webhook_alone(game, fake, tmp_path):
    drawn = pictures(game)
    assert sorted(drawn) == DRAWN
    report = post(game, fake, hooks_file(tmp_path / "hooks", fake))
    assert report.private_done == {"posted": 5, "edited": 0, "unchanged": 0, "deleted": 0} and not report.unsent
    assert sorted(report.receipts) == PLAYERS and report.receipts_done["posted"] == receipts_in(report)
    private_data = {data: p for p, data in drawn.items()}
    for message in fake.posted():  # every private picture is on its own player's webhook, nowhere else
        for _, data in message.attachments:
            if data in private_data:
                assert message.webhook_id == str(10 + PLAYERS.index(private_data[data]))
        assert not fake.allows_mentions(message.id)
    assert on_webhook(fake, PUBLIC[0]) and not any(
        data in private_data for m in on_webhook(fake, PUBLIC[0]) for _, data in m.attachments)
    for player in PLAYERS:
        mine = pictured(fake, player)
        if player in drawn:
            (message,) = mine
            assert message.attachments == [("round-02-private.png", drawn[player])]
            assert message.content == f"**Academy of Witchcraft Arts, round 1**: your private picture, {player}."
        else:
            assert mine == []  # Cora plays no Continuum: nothing for her
    # Each request went to one webhook with its own token, and no token reached the host book.
    assert all(r.path.split("/")[4] == (PUBLIC[1] if r.path.split("/")[3] == PUBLIC[0]
                                        else token(PLAYERS[int(r.path.split("/")[3]) - 10])) for r in fake.requests)
    assert "secret-of" not in host_text(game) and PUBLIC[1] not in host_text(game)
    posts = game.book("host").read(["posts"])["posts"]
    pictures_posted = posts[[not isinstance(r, str) for r in posts["root"]]]
    assert [p if isinstance(p, str) else "" for p in pictures_posted["player"]] == ["", *DRAWN]

    requests = len(fake.requests)
    again = post(game, fake, tmp_path / "hooks")
    assert again.private_done["unchanged"] == 5 and again.done["unchanged"] == 2  # the results and the root's
    assert again.receipts_done["unchanged"] == receipts_in(report)
    assert len(fake.requests) == requests  # nothing sent


def test_a_round_resolved_otherwise_edits_the_private_messages_and_a_gone_picture_is_deleted(
        game, fake, tmp_path, monkeypatch):
    hooks = hooks_file(tmp_path / "hooks", fake)
    post(game, fake, hooks)
    before = {m.id: m.attachments for m in fake.posted() if m.webhook_id != PUBLIC[0] and m.attachments}
    engine.undo(game, clock=fixed_clock)
    bots_submit(game, engine.open_session(game, fixed_clock), 99, messy=False)
    engine.resolve(game, early=True, clock=fixed_clock)
    report = post(game, fake, hooks)
    assert report.private_done["edited"] == 5 and report.private_done["posted"] == 0
    after = {m.id: m.attachments for m in fake.posted() if m.webhook_id != PUBLIC[0] and m.attachments}
    assert list(after) == list(before) and all(after[k] != before[k] for k in before)  # the same messages, edited
    drawn = pictures(game)
    assert all(pictured(fake, p)[0].attachments[0][1] == drawn[p] for p in DRAWN)
    # A redo that changes nothing sends nothing privately; publicly, the message with the round's
    # commitments says the redo's new ones (issue 28), and only it is edited.
    engine.resolve(game, redo=True, clock=fixed_clock)
    requests = len(fake.requests)
    redone = post(game, fake, hooks)
    # Issue 35: no longer an edit, a new message, and a new receipt each.
    assert redone.private_done["unchanged"] == 5 and redone.done == {"posted": 1, "edited": 0, "unchanged": 1,
                                                                     "deleted": 0}
    assert redone.receipts_done["posted"] == receipts_in(redone) and len(fake.requests) == requests + 1 + receipts_in(redone)
    # Emmy's picture gone (a redo that drew none for her): her message goes, the others stay.
    real = posting.private_messages
    monkeypatch.setattr(posting, "private_messages", lambda *a: {p: m for p, m in real(*a).items() if p != "Emmy"})
    report = post(game, fake, hooks)
    assert report.private_done == {"posted": 0, "edited": 0, "unchanged": 4, "deleted": 1}
    assert pictured(fake, "Emmy") == [] and on_webhook(fake, str(10 + PLAYERS.index("Emmy")))  # her receipts stay
    posts = game.book("host").read(["posts"])["posts"]
    assert all(isinstance(root, str) for player, root in zip(posts["player"], posts["root"]) if player == "Emmy")


def test_without_a_webhooks_file_only_the_public_channel_is_posted_to(game, fake, tmp_path, monkeypatch):
    monkeypatch.delenv(posting.WEBHOOKS_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    assert posting.webhooks_file(None, [tmp_path / "game"]) is None
    report = post(game, fake, None)
    assert report.private == {} and report.unsent == [] and report.private_done is None
    assert report.said() == "2 posted" and {m.webhook_id for m in fake.posted()} == {PUBLIC[0]}
    with pytest.raises(SheetsHostError, match="the players' webhooks file '.*nowhere' is not a file"):
        posting.webhooks_file(tmp_path / "nowhere")
    monkeypatch.setenv(posting.WEBHOOKS_ENV, str(hooks_file(tmp_path / "from-env", fake)))
    assert posting.webhooks_file(None) == tmp_path / "from-env"


def test_a_bad_webhooks_file_names_its_lines_and_stops_everything(game, fake, tmp_path):
    extra = "\n".join([
        "Blaise",  # line 5: no address
        f"Dmitri https://discord.com/webhooks/5/{token('Dmitri')}",  # not a webhook's address (no /api/)
        f"Zed {fake.url('30', 'zed-token')}",  # no such player
        f"ada {fake.url('31', 'again')}",  # Ada again, in another case
        f"Emmy {webhook_of(fake, 'Cora')}",  # Cora's address, on line 4
        f"Felix {fake.url(*PUBLIC)}",  # the public channel's
        f"  {fake.url('32', 'nameless-token')}",  # no name
    ])
    hooks = hooks_file(tmp_path / "hooks", fake, ["Ada", "Cora"], extra)  # a comment, a blank, Ada, Cora, then these
    with pytest.raises(SheetsHostError) as error:
        post(game, fake, hooks)
    said = str(error.value)
    assert said.startswith(f"the players' webhooks file {str(hooks)!r}: ")
    for line, words in [(5, "'Blaise' has no webhook address after the name"),
                        (6, "the address after 'Dmitri' is not a webhook's"),
                        (7, "'Zed' is not a player"), (8, "Ada again (also on line 3)"),
                        (9, "Emmy's address is the one on line 4: each player needs their own channel's"),
                        (10, "Felix's address is the public channel's webhook"),
                        (11, "an address without a player's name before it")]:
        assert f"line {line}: {words}" in said, (line, said)
    assert said.endswith("the players: Ada, Blaise, Cora, Dmitri, Emmy, Felix")
    assert "secret-of" not in said and PUBLIC[1] not in said and "-token" not in said  # no address quoted
    assert fake.requests == [] and "posts" not in game.book("host").read()  # nothing sent, nothing recorded


def test_a_file_naming_some_players_posts_theirs_and_names_the_others(game, fake, tmp_path):
    hooks = hooks_file(tmp_path / "hooks", fake, ["Ada", "Cora", "Felix"])
    report = post(game, fake, hooks)
    assert sorted(report.private) == ["Ada", "Felix"] and report.unsent == ["Blaise", "Dmitri", "Emmy"]
    assert report.said() == (f"2 posted; private pictures: 2 posted; receipts: {receipts_in(report)} posted; "
                             "no private webhook for Blaise, Dmitri, Emmy")
    assert {m.webhook_id for m in fake.posted()} == {PUBLIC[0], "10", "12", "15"}  # Cora: her receipt alone
    # Ada's address fixed in the file: her picture goes through the new one (the old message stays).
    hooks.write_text(hooks.read_text().replace(webhook_of(fake, "Ada"), fake.url("40", "new-of-Ada")))
    assert post(game, fake, hooks).private_done == {"posted": 0, "edited": 1, "unchanged": 1, "deleted": 0}
    assert on_webhook(fake, "40")[0].attachments == pictured(fake, "Ada")[0].attachments


def test_an_old_posts_tab_without_the_player_column_still_reads(game, fake, tmp_path):
    post(game, fake, None)
    host = game.book("host")
    old = host.read(["posts"])["posts"].drop(columns=["player"])  # as `post` wrote it before private pictures
    host.write({"posts": old})
    assert "player" not in host.read(["posts"])["posts"].columns
    report = post(game, fake, hooks_file(tmp_path / "hooks", fake))
    assert report.done == {"posted": 0, "edited": 0, "unchanged": 2, "deleted": 0}
    assert report.private_done["posted"] == 5 and len(fake.posted()) == 2 + 5 + receipts_in(report)


def test_dry_run_json_plans_the_private_messages_and_post_picks_the_file_up(game, fake, tmp_path, monkeypatch):
    monkeypatch.delenv(posting.WEBHOOKS_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    folder = str(tmp_path / "game")
    hooks_file(tmp_path / "game" / posting.WEBHOOKS_FILE, fake, [p for p in PLAYERS if p != "Emmy"])
    result = CliRunner().invoke(app, ["post", folder, "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    planned = json.loads(result.stdout)
    assert "player" not in planned[0] and planned[0]["content"].startswith("## Academy of Witchcraft Arts")
    assert [(m["player"], m["files"]) for m in planned if m.get("files") and "player" in m] == [
        (p, ["round-02-private.png"]) for p in DRAWN if p != "Emmy"]
    assert "http" not in result.stdout and not fake.requests
    assert "no private webhook for Emmy" in result.stderr
    result = CliRunner().invoke(app, ["post", folder, "--webhook", fake.url(*PUBLIC)])
    assert result.exit_code == 0, result.output
    said = " ".join(result.stdout.split())
    assert re.fullmatch(r"round 1 posted to webhook 1: 2 posted; private pictures: 4 posted; receipts: (\d+) posted; "
                        r"no private webhook for Emmy\.", said), said
    assert len(fake.posted()) == 2 + 4 + int(re.search(r"receipts: (\d+)", said)[1]) and "secret-of" not in result.output


def test_watch_posts_the_private_pictures_too(game, fake, tmp_path):
    lines = []
    watch = Watch(game, fake.url(*PUBLIC), fixed_clock, say=lines.append, webhooks=hooks_file(tmp_path / "h", fake))
    watch.step()
    assert {m.webhook_id for m in fake.posted() if m.attachments} == {
        PUBLIC[0], *(str(10 + PLAYERS.index(p)) for p in DRAWN)}
    assert re.search(r"round 1: posted \(2 posted; private pictures: 5 posted; receipts: \d+ posted\)$", lines[-1])
