"""`season post` against a fake Discord on the loopback interface (real HTTP, the real
discord-webhook library): the season so far sent once per state, nothing private in it, a post
killed part way finished by the next one."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings, strategies as st
from typer.testing import CliRunner

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.cli.main import app
from sheets_host.discord.post import PostError, send_to_discord
from sheets_host.fakes.discord import FakeDiscord
from sheets_host.kit.result import ARTEFACTS, POWER_OF_DARK, TOKEN
from sheets_host.season import books, commands, post as posting
from sheets_host.season.tabs import host_tabs

from tests.conftest import fixed_clock
from .seasons import hidden_from_public, sample, seasons, twin

SECRET = "s3cret-token"


@pytest.fixture
def fake():
    with FakeDiscord() as server:
        yield server


def season_books(folder, season=None) -> XlsxBackend:
    """A season's host and public books, as `season` (the sample) holds it."""
    season = season or sample()
    backend = XlsxBackend(folder)
    tabs = host_tabs(season)
    backend.create("host", season.name).write(tabs, layouts=books.host_layouts(tabs))
    books.deliver_public(backend, season)
    return backend


def post(backend, url, **kw):
    return posting.post(backend, url, clock=fixed_clock, **kw)


def posts(backend):
    return backend.book("host").read(["posts"])["posts"]


def test_the_season_is_posted_once_with_its_picture(tmp_path, fake):
    backend = season_books(tmp_path / "s")
    url = fake.url("42", SECRET)
    report = post(backend, url)
    live = fake.posted()
    assert report.posted == len(live) == 1 and not fake.allows_mentions()
    assert "**Game 6: Pyramid Superiority** (Main Match): won by Ann; Elimination Candidates: Bo" in live[0].content
    assert "**Still in (5):** Ann (1 Token of Life, 2 cosmos), Bo, Cy, Ed, Hal" in live[0].content
    assert [name for name, _ in live[0].attachments] == ["season.png"]
    sent = len(fake.requests)
    again = post(backend, url)
    assert again.posted == 0 and again.already == report.records[-1]["posted at"]
    assert len(fake.requests) == sent  # nothing sent
    assert list(posts(backend)["message id"].astype(str)) == [live[0].id]
    assert SECRET not in "".join(t.to_csv() for t in backend.book("host").read().values())


def test_a_public_change_is_posted_anew_and_a_private_one_is_not(tmp_path, fake):
    """The season book's own writes (`season give`) leave the posts tab alone."""
    backend = season_books(tmp_path / "s")
    url = fake.url()
    post(backend, url)
    commands.give(backend, "Gus", POWER_OF_DARK, 1, "a private gift", clock=fixed_clock)
    assert post(backend, url).already  # the public sees nothing new
    commands.give(backend, "Bo", TOKEN, 1, "a Token of Life for the best bluff", clock=fixed_clock)
    report = post(backend, url)
    assert report.posted == 1 and len(fake.posted()) == 2
    assert "Bo (1 Token of Life)" in fake.posted()[-1].content
    assert len(posts(backend)) == 2


def test_a_season_back_as_posted_before_is_posted_again(tmp_path, fake):
    """What was posted last is compared, not everything ever posted: a correction taken back is news."""
    backend = season_books(tmp_path / "s")
    url = fake.url()
    post(backend, url)
    given = commands.give(backend, "Bo", TOKEN, 1, "given by mistake", clock=fixed_clock)
    post(backend, url)
    commands.correct(backend, given.number, -1, "taken back", clock=fixed_clock)
    assert post(backend, url).posted == 1 and len(fake.posted()) == 3


def long_season():
    """A season whose summary needs two messages."""
    season = sample()
    games = tuple(replace(g, number=str(k)) for k, g in enumerate(season.games * 6, 1))
    return replace(season, games=games)


def test_a_post_killed_part_way_sends_only_the_rest(tmp_path, fake):
    backend = season_books(tmp_path / "s", long_season())
    url = fake.url()
    calls = []

    def dies_after_one(to, message, message_id):
        if calls:
            raise PostError("the connection dropped")
        calls.append(message)
        return send_to_discord(to, message, message_id)

    with pytest.raises(PostError):
        post(backend, url, send=dies_after_one)
    assert len(fake.posted()) == 1 and len(posts(backend)) == 1
    report = post(backend, url)
    assert report.posted == len(report.messages) - 1 >= 1
    assert [m.content for m in fake.posted()] == [m.content for m in report.messages]
    assert list(posts(backend)["part"]) == list(range(1, len(report.messages) + 1))


@settings(max_examples=40, deadline=None)
@given(seasons(), st.data())
def test_the_post_says_nothing_private(season, data):
    other = twin(season, lambda e: hidden_from_public(season, e), data, players=season.cast)
    view = books.seen(season)
    assert books.summary(view) == books.summary(books.seen(other))
    assert posting.state(view) == posting.state(books.seen(other))
    assert not any(a in books.summary(view) for a in ARTEFACTS)


def test_season_post_on_the_command_line(tmp_path, fake):
    folder = tmp_path / "s"
    season_books(folder)
    runner = CliRunner()
    dry = runner.invoke(app, ["season", "post", str(folder), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "--- message 1 of 1" in dry.output and "(pictures: season.png)" in dry.output and not fake.requests
    done = runner.invoke(app, ["season", "post", str(folder), "--webhook", fake.url("42", SECRET)])
    assert done.exit_code == 0 and "posted: 1 message(s)" in done.output and SECRET not in done.output
    again = runner.invoke(app, ["season", "post", str(folder), "--webhook", fake.url("42", SECRET)])
    assert again.exit_code == 0 and "nothing new" in again.output
    none = runner.invoke(app, ["season", "post", str(folder)])
    assert none.exit_code != 0 and "--dry-run" in none.output
