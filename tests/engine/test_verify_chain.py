"""The chain of roots (issue 35): each attack a dishonest host could make on their own books, caught
by `verify` given only what a player kept (one root, their saved announcements), or listed in its
summary (`docs/verify.md`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.cli.main import app
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bot_names, bots_submit
from sheets_host.engine.record import write_record
from sheets_host.engine.chain import kept_roots
from sheets_host.engine.verify import Published, announcement_files, history, load_record, verify
from sheets_host.kit.commitment import digest
from sheets_host.kit.errors import SheetsHostError

from tests.conftest import fixed_clock

GAME = "magicians-market"
PLAYERS = bot_names(5)
ROOT = re.compile(r"Round root: `([0-9a-f]{64})`")


def _round(backend, **resolve) -> None:
    bots_submit(backend, engine.open_session(backend, fixed_clock), 5)
    engine.resolve(backend, early=True, clock=fixed_clock, **resolve)


def _announced_root(folder: Path, number: int) -> str:
    """The root a player kept: the one the round's announcement showed then."""
    return ROOT.search((folder / "announcements" / f"round-{number:02d}.md").read_text(encoding="utf-8")).group(1)


def _game(folder: Path, seed: int = 5, days: int = 3) -> XlsxBackend:
    backend = XlsxBackend(folder)
    engine.new_game(backend, GAME, PLAYERS, seed, clock=fixed_clock, settings={"days": days})
    return backend


def _failures(record, kept=()) -> list[str]:
    return [line for c in verify(record, None, kept) for line in c.lines() if not c.ok]


def _edit_host_tab(backend, tab: str, change) -> None:
    book = backend.book("host")
    frame = book.read([tab])[tab]
    book.write({tab: change(frame)})


def test_each_root_commits_to_the_link_before_it_from_the_seed(tmp_path):
    backend = _game(tmp_path)
    for _ in range(3):
        _round(backend)
    write_record(backend, tmp_path / "record.json", clock=fixed_clock)
    record = load_record(tmp_path / "record.json")
    chain = [r for r in record["commitments"] if r["kind"] in ("seed", "round")]
    assert [json.loads(r["text"].split(" ", 2)[2])["previous"] for r in chain[1:]] == [r["commitment"] for r in chain[:-1]]
    assert all(digest(r["text"]) == r["commitment"] for r in chain)
    assert _failures(record, [_announced_root(tmp_path, 1), _announced_root(tmp_path, 3)]) == []


def test_a_redo_whose_superseded_commitments_the_host_deleted_is_caught_with_or_without_a_kept_root(tmp_path):
    backend = _game(tmp_path)
    _round(backend)
    _round(backend)
    kept = _announced_root(tmp_path, 2)  # Ann saved day 2's announcement
    engine.resolve(backend, redo=True, clock=fixed_clock, reason="a bid typed in the wrong row")
    # The host deletes what the redo superseded from the host book, and the game is published again.
    _edit_host_tab(backend, "commitments", lambda f: f[f["superseded"].isna() | (f["superseded"] == "")])
    _round(backend)
    write_record(backend, tmp_path / "record.json", clock=fixed_clock)
    record = load_record(tmp_path / "record.json")
    said = " ".join(_failures(record, [kept]))
    assert f"the root you kept, {kept}" in said and "it is nowhere in the record" in said
    assert f"supersedes the root {kept}, which the chain does not hold before it" in said  # no kept root needed


def test_a_redo_and_an_undo_are_listed_with_the_hosts_reason_and_a_kept_superseded_root_still_verifies(tmp_path):
    backend = _game(tmp_path, days=4)
    _round(backend)
    _round(backend)
    first = _announced_root(tmp_path, 2)
    engine.resolve(backend, redo=True, clock=fixed_clock, reason="Bo's bid  was typed\nin the wrong row")
    redone = (tmp_path / "announcements" / "round-02.md").read_text(encoding="utf-8")
    assert f"It replaces the root `{first}` published before (redone at" in redone
    assert "The host's reason: Bo's bid was typed in the wrong row" in redone
    _round(backend)
    third = _announced_root(tmp_path, 3)
    engine.undo(backend, fixed_clock, reason="the deadline was wrong")
    _round(backend)
    assert f"It replaces the root `{third}` published before (undone at" in \
        (tmp_path / "announcements" / "round-03.md").read_text(encoding="utf-8")
    _round(backend)
    write_record(backend, tmp_path / "record.json", clock=fixed_clock)
    record = load_record(tmp_path / "record.json")
    assert _failures(record, [first, third, _announced_root(tmp_path, 4)]) == []
    checks = [c.what for c in verify(record, None, [first])]
    assert any(c.startswith(f"the root you kept, {first}: day 2's root (attempt 1), superseded (redone at") for c in checks)
    said = history(record)
    assert len(said) == 2
    assert said[0].startswith("day 2 redone at") and said[0].endswith("the host's reason: Bo's bid was typed in the wrong row")
    assert said[1].startswith("day 3 undone at") and said[1].endswith("the host's reason: the deadline was wrong")
    public = XlsxBackend(tmp_path).book("public").read(["commitments"])["commitments"]
    assert (public["superseded"].astype(str) == "undone at 2026-01-01 12:00:00 UTC: the deadline was wrong").any() \
        or public["superseded"].astype(str).str.endswith(": the deadline was wrong").any()


def test_a_past_result_the_host_edited_between_rounds_is_listed_with_its_reason(tmp_path):
    backend = _game(tmp_path)
    _round(backend)

    def move_a_sale(sales):
        row = sales.index[0]  # a sale moved from one player's market to another's
        sales.loc[row, "market"] = next(p for p in PLAYERS if p != sales.loc[row, "market"])
        return sales

    _edit_host_tab(backend, "sales", move_a_sale)
    _round(backend, reason="a sale recorded under the wrong magician")
    told = (tmp_path / "announcements" / "round-02.md").read_text(encoding="utf-8")
    assert "The host changed the state since the round before: tab(s) 'sales'.\nThe host's reason: a sale recorded " \
           "under the wrong magician" in told
    _edit_host_tab(backend, "sales", move_a_sale)
    bots_submit(backend, engine.open_session(backend, fixed_clock), 5)
    report = engine.resolve(backend, early=True, clock=fixed_clock)
    assert "You changed the state tab(s) 'sales' since the round before" in report.note
    assert "tab(s) 'sales'.\nThe host's reason: none given" in \
        (tmp_path / "announcements" / "round-03.md").read_text(encoding="utf-8")
    write_record(backend, tmp_path / "record.json", clock=fixed_clock)
    record = load_record(tmp_path / "record.json")
    assert _failures(record) == []  # a host's edit is legitimate: it is committed, and said
    assert history(record) == ["before day 2, the host changed the state since the round before: tab(s) 'sales'; "
                               "the host's reason: a sale recorded under the wrong magician",
                               "before day 3, the host changed the state since the round before: tab(s) 'sales'; "
                               "the host's reason: none given"]
    quiet = next(r for r in record["commitments"] if r["kind"] == "round" and r["round"] == 1)
    assert json.loads(quiet["text"].split(" ", 2)[2])["edits"] == []  # known, and none


def _forged_from_an_edited_archive(source, folder: Path) -> XlsxBackend:
    """The host changes an archived row of day 2 (the last: one a redo may correct) and, instead of a
    redo that would show, plays the game again into new books."""
    def changed(archive):
        row = archive.index[archive["round"].astype(str) == "2"][0]
        archive.loc[row, "amount"] = 3 if str(archive.loc[row, "amount"]) != "3" else 2
        return archive

    _edit_host_tab(source, "archive", changed)
    _edit_host_tab(source, "rounds", lambda rounds: rounds.assign(**{"rows read": None}))  # past its own guard
    target = XlsxBackend(folder)
    engine.replay(source, target, fixed_clock)
    return target


def _forged_with_another_seed(source, folder: Path) -> XlsxBackend:
    """The host makes the game again with another seed (so another seed commitment) and plays it."""
    target = _game(folder, seed=6)
    for _ in range(2):
        _round(target)
    return target


# Day 1 replayed from its own rows is day 1 again, to its root: only what changed is caught.
@pytest.mark.parametrize("forge, rewritten", [(_forged_from_an_edited_archive, [2]), (_forged_with_another_seed, [1, 2])])
def test_a_game_made_again_into_new_books_passes_alone_and_fails_a_kept_root(tmp_path, forge, rewritten):
    source = _game(tmp_path / "real")
    _round(source)
    _round(source)
    kept = [_announced_root(tmp_path / "real", n) for n in (1, 2)]
    target = forge(source, tmp_path / "forged")
    _round(target)
    write_record(target, tmp_path / "record.json", clock=fixed_clock)
    record = load_record(tmp_path / "record.json")
    assert _failures(record) == []  # the forgery is consistent in itself: only what a player kept tells
    said = _failures(record, kept)
    assert [n for n, root in enumerate(kept, 1) if f"FAIL  the root you kept, {root}" in said] == rewritten


def test_verify_takes_roots_from_the_command_line_and_from_saved_posts(tmp_path):
    backend = _game(tmp_path, days=2)
    _round(backend)
    _round(backend)
    write_record(backend, tmp_path / "record.json", clock=fixed_clock)
    saved = tmp_path / "saved-posts.txt"
    saved.write_text("\n\n".join((tmp_path / "announcements" / f"round-0{n}.md").read_text(encoding="utf-8")
                                 for n in (1, 2)), encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(app, ["verify", str(tmp_path / "record.json"), "--roots", str(saved),
                                 "--root", f"`{_announced_root(tmp_path, 2).upper()}`"])
    out = " ".join(result.output.split())
    assert result.exit_code == 0, out
    assert "the seed commitment, in the record" not in out
    assert "3 root(s) you kept looked for in the record's chain" in out  # two roots and the seed's, once each
    assert "what the host did besides resolving: nothing" in out
    forged = "0" * 64
    result = runner.invoke(app, ["verify", str(tmp_path / "record.json"), "--root", forged])
    assert result.exit_code == 1 and f"FAIL the root you kept, {forged}" in " ".join(result.output.split())
    for bad, said in ((["--root", "12ab"], "--root 12ab: not a root (64 hex digits"),
                      (["--roots", str(tmp_path / "none.txt")], "cannot be read"),
                      (["--roots", str(tmp_path / "announcements")], "cannot be read"),
                      (["--roots", str(tmp_path / "host.xlsx")], "holds no root")):
        result = runner.invoke(app, ["verify", str(tmp_path / "record.json"), *bad])
        assert result.exit_code != 0 and said in " ".join(result.output.split()), result.output


def test_kept_roots_finds_every_commitment_in_a_text_and_nothing_shorter_or_longer():
    root = "ab" * 32
    assert kept_roots(f"x{root}y `{root.upper()}` {root}0 {'1' * 63}") == [root, root]
    assert kept_roots("") == []


def test_a_reason_too_long_to_read_is_refused_before_anything_is_done(tmp_path):
    backend = _game(tmp_path)
    bots_submit(backend, engine.open_session(backend, fixed_clock), 5)
    with pytest.raises(SheetsHostError, match="--reason is 501 characters long; give at most 500"):
        engine.resolve(backend, early=True, clock=fixed_clock, reason="x" * 501)
    assert engine.status(backend, fixed_clock).round == 1


def test_a_public_book_of_another_game_is_named_once_not_cell_by_cell(tmp_path):
    real, other = _game(tmp_path / "real", days=1), _game(tmp_path / "other", seed=6, days=1)
    for backend in (real, other):
        _round(backend)
    write_record(real, tmp_path / "record.json", clock=fixed_clock)
    record = load_record(tmp_path / "record.json")
    folder = tmp_path / "other"
    said = _failures(record) + [line for c in verify(record, Published(
        other.book("public").read(), announcement_files(folder / "announcements"), "other")) for line in c.lines()
        if not c.ok]
    assert said[0] == "FAIL  other: tab 'commitments' is of the record's game"
    assert "it is the public book of another game, or of this game made again with another seed" in said[1]
    assert not any("tab '" in line and "as the record gives it" in line for line in said)
