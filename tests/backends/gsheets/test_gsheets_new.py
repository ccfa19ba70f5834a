"""`new` on Google Sheets ends in one of two states: the whole game, or nothing left behind, or
something the same command run again finishes (issue 25). Drive's refusals come from the fake
(`sheets_host.fakes.google_drive`): an address with no Google account shared without notifying it,
and sharing policies."""

from __future__ import annotations

import pytest

from sheets_host.engine import commands as engine
from sheets_host.engine.play import bots_submit
from sheets_host.fakes.google import FakeGoogle, fake_backend
from sheets_host.kit.errors import BookError, SheetsHostError

from tests.conftest import fixed_clock

GAME, PLAYERS, SEED = "spirit-chain", ["Ada", "Blaise"], 4
EMAILS = {"Ada": "ada@club.org", "Blaise": "blaise@elsewhere.net"}


class Killed(BaseException):
    """The process dying: nothing after it runs a request."""


def new(fake: FakeGoogle, *, notify: bool = True, folder: str | None = None, emails=EMAILS, adopt=None):
    backend, _ = fake_backend(fake=fake, folder=folder)
    backend.notify = notify
    backend.adopt(adopt or {})
    return engine.new_game(backend, GAME, PLAYERS, SEED, emails, clock=fixed_clock)


def live(fake: FakeGoogle) -> list[str]:
    """The spreadsheets not in the trash."""
    return [sid for sid, f in fake.files.items() if not f.trashed]


def refused(fake: FakeGoogle, **options) -> str:
    with pytest.raises(BookError) as failure:
        new(fake, **options)
    assert fake.files and live(fake) == []  # it had created some; every one is in the trash
    return str(failure.value)


def test_an_address_without_a_google_account_shared_silently_leaves_nothing_and_says_what_to_do():
    fake = FakeGoogle()
    fake.no_google_account.add("blaise@elsewhere.net")
    message = refused(fake, notify=False)
    for words in ("Blaise's book", "blaise@elsewhere.net", "invalidSharingRequest", "no Google account",
                  "--notify", "another address", "--adopt", "the 4 spreadsheets this command made are in the Drive trash"):
        assert words in message, (words, message)


def test_players_are_notified_by_default_which_invites_an_address_without_a_google_account():
    fake = FakeGoogle()
    fake.no_google_account.add("blaise@elsewhere.net")
    session = new(fake)
    blaise = session.backend.book("player:Blaise").id
    assert [(p["emailAddress"], p["notified"]) for p in fake.permissions(blaise)] == [("blaise@elsewhere.net", True)]
    assert len(live(fake)) == 2 + len(PLAYERS)


def test_a_workspace_policy_against_public_links_leaves_nothing_and_names_the_public_book():
    fake = FakeGoogle()
    fake.sharing_domain = "club.org"
    message = refused(fake, emails={"Ada": "ada@club.org", "Blaise": "blaise@club.org"})
    for words in ("public book", "anyone with the link", "publishOutNotPermitted", "--adopt"):
        assert words in message, (words, message)


def test_a_shared_drive_for_its_domain_only_refuses_an_outside_address_and_leaves_nothing():
    fake = FakeGoogle(service_account_quota=True)
    fake.sharing_domain = "club.org"
    public = fake.add_spreadsheet("Board, shared by the host within the club")  # else its link stops it first
    with pytest.raises(BookError) as failure:
        new(fake, folder="clubDrive", adopt={"public": public})
    assert [sid for sid in live(fake) if sid != public] == [] and fake.permissions(public) == []
    message = str(failure.value)
    for words in ("Blaise's book", "blaise@elsewhere.net", "teamDriveDomainUsersOnlyRestriction", "HTTP 403",
                  "another address", "--adopt"):
        assert words in message, (words, message)


def test_an_adopted_public_book_a_policy_keeps_from_anyone_stays_as_the_host_shared_it():
    fake = FakeGoogle()
    fake.sharing_domain = "club.org"
    public = fake.add_spreadsheet("Board, shared by the host within the club")
    session = new(fake, emails={"Ada": "ada@club.org"}, adopt={"public": public})
    assert session.backend.book("public").id == public and fake.permissions(public) == []


def test_the_same_command_again_finds_the_same_game_until_it_is_played(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fake = FakeGoogle()
    first = new(fake)
    again = new(fake)
    assert again.host.ref == first.host.ref and len(live(fake)) == 2 + len(PLAYERS)
    assert new(fake, emails={"Ada": "ada@club.org"}).host.ref != first.host.ref  # another command: another game

    played, _ = fake_backend(first.host.ref, fake=fake)
    bots_submit(played, engine.open_session(played, fixed_clock), SEED)
    engine.resolve(played, early=True, clock=fixed_clock)
    with pytest.raises(SheetsHostError, match=f"this same command made Spirit Chain at {first.host.ref}, played since: "
                                              "go on with it, or run new with another --seed"):
        new(fake)


def requests_of_new() -> int:
    fake = FakeGoogle()
    new(fake)
    return len(fake.requests)


class Mortal(FakeGoogle):
    """A fake Google whose client dies at its request number `kill_at`: before Google gets it, or
    once Google has carried it out but before its answer is read; from then on nothing is sent."""

    def __init__(self, kill_at: int, unanswered: bool):
        super().__init__()
        self.kill_at, self.unanswered, self.sent, self.dead = kill_at, unanswered, 0, False
        self.before_request = self._die_before

    def _die_before(self, method: str, path: str) -> None:
        self.sent += 1
        if self.dead or (self.sent > self.kill_at and not self.unanswered):
            self.dead = True
            raise Killed

    def _answer(self, *args, **kwargs):
        answer = super()._answer(*args, **kwargs)
        if self.unanswered and self.sent > self.kill_at:
            self.dead = True
            raise Killed
        return answer


@pytest.mark.parametrize("unanswered", [False, True], ids=["before", "unanswered"])
@pytest.mark.parametrize("kill_at", range(requests_of_new()))
def test_new_killed_at_any_request_is_finished_by_the_same_command_run_again(kill_at, unanswered):
    fake = Mortal(kill_at, unanswered)
    with pytest.raises(Killed):
        new(fake)
    fake.before_request, fake.unanswered = None, False

    session = new(fake)

    books = session.backend.refs()
    assert sorted(live(fake)) == sorted(session.backend.book(role).id for role in books)  # one set, no other
    assert len(books) == 2 + len(PLAYERS)
    for player, email in EMAILS.items():
        assert [p["emailAddress"] for p in fake.permissions(session.backend.book(f"player:{player}").id)] == [email]
    again, _ = fake_backend(session.host.ref, fake=fake)
    assert engine.status(again, fixed_clock).round == 1  # every book delivered: nothing owed


def test_the_command_line_tells_the_host_in_one_line_and_notifies_unless_told_not_to(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    from sheets_host.backends.gsheets import backend as gsheets
    from sheets_host.cli.main import app

    fake = FakeGoogle()
    fake.no_google_account.add("blaise@elsewhere.net")
    monkeypatch.setattr(gsheets, "connect", lambda auth, credentials: fake_backend(fake=fake)[0].client)
    monkeypatch.chdir(tmp_path)
    players = "Ada=ada@club.org,Blaise=blaise@elsewhere.net"
    command = ["new", GAME, "-", "--backend", "gsheets", "--players", players, "--seed", str(SEED)]

    result = CliRunner().invoke(app, command + ["--no-notify"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "run the command again with --notify" in " ".join(result.output.split()) and live(fake) == []

    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0 and "Blaise's book: https://docs.google.com/spreadsheets/d/" in result.output
    assert {p["notified"] for sid in live(fake) for p in fake.permissions(sid) if p["type"] == "user"} == {True}
