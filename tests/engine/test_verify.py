"""Issue 28: verifiable hosting. A game whose rounds were locked, redone after a correction, undone
and resolved again verifies; tampering with the record or the public book is caught and named;
commitments leak nothing; the record waits for the game's end; the encoding is pinned.

(Every game played to its end by bots verifies: tests/engine/test_played_games.py.)"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from typer.testing import CliRunner

from sheets_host.backends.xlsx.backend import XlsxBackend, XlsxBook
from sheets_host.cli.main import app
from sheets_host.engine import commands as engine
from sheets_host.engine.commitments import PUBLIC_HOW
from sheets_host.engine.play import bot_names, bots_submit
from sheets_host.engine.record import make_record, write_record
from sheets_host.engine.replaying import body
from sheets_host.engine.verify import Published, announcement_files, load_record, verify
from sheets_host.kit.commitment import ENCODINGS, canonical, digest, submission_text
from sheets_host.kit.errors import RoundError, SheetsHostError

from tests.conftest import fixed_clock

GAME = "magicians-market"
PLAYERS = bot_names(7)
DOCS = Path(__file__).parents[2] / "docs" / "verify.md"


def _play(backend, rounds: int) -> None:
    for _ in range(rounds):
        bots_submit(backend, engine.open_session(backend, fixed_clock), 5)
        engine.resolve(backend, early=True, clock=fixed_clock)


def _correct_last_round(backend) -> None:
    """The host corrects the first archived row of the last round (its amount), as before a redo."""
    book = backend.book("host")
    archive, rounds = (book.read([t])[t] for t in ("archive", "rounds"))
    last = rounds[rounds["status"] == "resolved"].iloc[-1]
    mine = archive[(archive["round"] == last["round"]) & (archive["attempt"] == last["attempt"])]
    row = mine.index[0]
    archive.loc[row, "amount"] = 3 if str(archive.loc[row, "amount"]) != "3" else 2
    book.write({"archive": archive})


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """A 4-day Magician's Market: day 1 locked then resolved, day 2 corrected and redone, day 3
    undone and resolved again, day 4 to the end; its folder and record."""
    folder = tmp_path_factory.mktemp("market")
    backend = XlsxBackend(folder)
    engine.new_game(backend, GAME, PLAYERS, 5, clock=fixed_clock, settings={"days": 4})
    bots_submit(backend, engine.open_session(backend, fixed_clock), 5)
    engine.lock(backend, fixed_clock)
    engine.resolve(backend, early=True, clock=fixed_clock)
    _play(backend, 1)
    _correct_last_round(backend)
    engine.resolve(backend, redo=True, clock=fixed_clock)
    _play(backend, 1)
    engine.undo(backend, fixed_clock)
    engine.resolve(backend, early=True, clock=fixed_clock)
    _play(backend, 1)
    write_record(backend, folder / "record.json", clock=fixed_clock)
    return folder


def published(folder: Path) -> Published:
    return Published(XlsxBook(folder / "public.xlsx", "public.xlsx").read(), announcement_files(folder / "announcements"),
                     "public.xlsx")


def failures(record, against=None) -> list[str]:
    return [line for c in verify(record, against) for line in c.lines() if not c.ok]


def test_a_game_locked_redone_and_undone_verifies_its_superseded_commitments_kept(game):
    record = load_record(game / "record.json")
    assert failures(record, published(game)) == []
    superseded = [r for r in record["commitments"] if r.get("superseded")]
    assert {r["round"] for r in superseded} == {2, 3}
    assert {r["superseded"].split(" at ")[0] for r in superseded} == {"redone", "undone"}
    public = published(game).tabs["commitments"]
    # The public book keeps what a redo and an undo superseded, marked: a redo is visible.
    assert public["superseded"].astype(str).str.startswith("redone at").sum() == len(PLAYERS) + 2
    assert len(public) == len(record["commitments"]) + len(PUBLIC_HOW)  # under rows saying what they are


def test_the_locked_rows_are_committed_before_the_round_is_resolved(tmp_path):
    backend = XlsxBackend(tmp_path)
    engine.new_game(backend, GAME, PLAYERS, 5, clock=fixed_clock, settings={"days": 2})
    bots_submit(backend, engine.open_session(backend, fixed_clock), 5)
    engine.lock(backend, fixed_clock)
    public = backend.book("public").read(["commitments"])["commitments"]
    assert list(public["what"]) == [None] * len(PUBLIC_HOW) + ["seed"] + ["submission"] * len(PLAYERS)
    mine = backend.book("player:Ada").read(["my commitments"])["my commitments"]
    text = mine["committed text"].iloc[1]
    assert digest(text) == mine["commitment"].iloc[1] == public["commitment"].iloc[len(PUBLIC_HOW) + 1]
    assert body(text)["player"] == "Ada" and body(text)["rows"]
    engine.lock(backend, fixed_clock)  # a re-run, as after a kill: the same commitments
    assert backend.book("public").read(["commitments"])["commitments"].equals(public)
    engine.resolve(backend, early=True, clock=fixed_clock)
    after = backend.book("public").read(["commitments"])["commitments"]
    assert after.iloc[:len(public)].equals(public) and list(after["what"][len(public):]) == ["host's inputs", "round root"]


# ---- tampering is caught and named ------------------------------------------------------------------


def _submission(record, player: str, round_number: int = 2) -> dict:
    return next(r for r in record["commitments"] if r["kind"] == "submission" and r["player"] == player
                and r["round"] == round_number and not r.get("superseded"))


def test_a_counted_row_changed_in_the_record_is_named(game):
    record = load_record(game / "record.json")
    row = _submission(record, PLAYERS[1])
    row["text"] = re.sub(r'"amount":"(\d+)"', lambda m: f'"amount":"{int(m[1]) + 1}"', row["text"], count=1)
    assert '"amount"' in row["text"]
    lines = failures(record, published(game))
    assert any(line.startswith("FAIL  day 2") for line in lines)
    assert any(f"{PLAYERS[1]}'s submission (attempt" in line and "the record's text gives" in line for line in lines)


def test_a_salt_changed_in_the_record_is_named(game):
    record = load_record(game / "record.json")
    _submission(record, PLAYERS[2], 3)["salt"] = "0" * 32
    lines = failures(record)
    assert any(f"{PLAYERS[2]}'s submission" in line and "salt" in line for line in lines), lines


def test_the_seed_changed_in_the_record_is_named(game):
    record = load_record(game / "record.json")
    record["seed"] += 1
    lines = failures(record, published(game))
    assert any("FAIL  seed" in line for line in lines)
    assert any("the commitment is to 'magicians-market' and 5" in line for line in lines)
    # Round 1 is resolved with the seed among its fixed settings: the host's commitment says so too.
    assert any(line.startswith("FAIL  day 1") for line in lines)


def test_a_host_input_changed_in_the_record_is_named(game):
    record = load_record(game / "record.json")
    record["rounds"][3]["host decisions"]["extra token of life"] = PLAYERS[0]
    lines = failures(record)
    assert any(line.startswith("FAIL  day 4") for line in lines)
    assert any("the host's commitment is" in line for line in lines), lines


def test_a_public_cell_changed_is_named_with_both_values(game):
    record = load_record(game / "record.json")
    public = published(game)
    tabs = {name: frame.copy() for name, frame in public.tabs.items()}
    tabs["sales"].iloc[0, 1] = "tampered"
    lines = failures(record, Published(tabs, public.files, "public.xlsx"))
    assert any(re.search(r"tab 'sales', row 2, cell B2 .*: published 'tampered', replayed '", line) for line in lines), lines
    assert len([line for line in lines if line.startswith("FAIL")]) == 1


def test_an_announcement_changed_is_named_by_its_line(game):
    record = load_record(game / "record.json")
    public = published(game)
    files = dict(public.files)
    files[3] = files[3].replace("|", "!", 1)
    lines = failures(record, Published(public.tabs, files, "public.xlsx"))
    assert any(line.strip().startswith("round-03.md, line") for line in lines), lines


def test_two_players_reordered_in_the_record_are_named_by_the_root(game):
    record = load_record(game / "record.json")
    record["players"][0], record["players"][1] = record["players"][1], record["players"][0]
    lines = failures(record)
    assert any("in the record's seating order" in line and f"({PLAYERS[1]}, {PLAYERS[0]}," in line for line in lines)


def test_an_unknown_encoding_is_named(game):
    record = load_record(game / "record.json")
    record["commitments"][3]["encoding"] = 99
    assert any("encoding 99 is unknown" in line for line in failures(record))
    with pytest.raises(SheetsHostError, match="encoding 99 is unknown"):
        canonical("seed", {}, 99)


def test_a_record_of_another_format_or_version_is_refused(tmp_path, game):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SheetsHostError, match="not a record sheets-host can read"):
        load_record(bad)
    record = load_record(game / "record.json")
    bad.write_text(json.dumps({**record, "version": 2}))
    with pytest.raises(SheetsHostError, match="record of version 2"):
        load_record(bad)


# ---- the commands ---------------------------------------------------------------------------------


def test_verify_prints_a_line_a_check_and_exits_1_when_one_fails(game, tmp_path):
    runner = CliRunner()
    ok = runner.invoke(app, ["verify", str(game / "record.json"), "--against", str(game)])
    assert ok.exit_code == 0, ok.output
    assert ok.output.splitlines()[-1] == "every check passed" and "ok    seed" in ok.output
    record = load_record(game / "record.json")
    record["seed"] += 1
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(record))
    failed = runner.invoke(app, ["verify", str(tampered), "--against", str(game / "public.xlsx")])
    assert failed.exit_code == 1 and "FAIL  seed" in failed.output and "check(s) failed" in failed.output


def test_the_record_waits_for_the_games_end_unless_forced(tmp_path):
    backend = XlsxBackend(tmp_path / "g")
    engine.new_game(backend, GAME, PLAYERS, 5, clock=fixed_clock, settings={"days": 2})
    _play(backend, 1)
    with pytest.raises(RoundError, match="is not over .*--force"):
        make_record(backend)
    out = CliRunner().invoke(app, ["record", str(tmp_path / "g"), str(tmp_path / "r.json")])
    assert out.exit_code == 2 and "--force" in out.output and not (tmp_path / "r.json").exists()
    forced = CliRunner().invoke(app, ["record", str(tmp_path / "g"), str(tmp_path / "r.json"), "--force"])
    assert forced.exit_code == 0 and "written with --force" in forced.output
    record = load_record(tmp_path / "r.json")
    assert not record["complete"] and len(record["rounds"]) == 1
    assert failures(record, Published(backend.book("public").read(), {}, "public")) == []


# ---- commitments leak nothing ------------------------------------------------------------------------


def _every_cell(path: Path) -> str:
    return "\n".join(str(v) for frame in XlsxBook(path, path.name).read().values()
                     for v in [*frame.columns, *frame.to_numpy().ravel().tolist()])


def test_a_players_salt_is_in_their_own_book_alone_and_the_salt_key_in_none(game):
    host = XlsxBook(game / "host.xlsx", "host.xlsx").read()
    rows = host["commitments"]
    books = {path.stem: _every_cell(path) for path in [game / "public.xlsx", *(game / "players").glob("*.xlsx")]}
    for _, row in rows.iterrows():
        holders = {name for name, text in books.items() if row["salt"] in text} if isinstance(row["salt"], str) else set()
        assert holders == ({row["player"]} if row["kind"] == "submission" else set()), (row["kind"], row["player"])
    key = dict(zip(host["sheets-host"]["key"], host["sheets-host"]["value"]))["salt key"]
    record = (game / "record.json").read_text()
    assert len(key) == 32 and key not in record and not any(key in text for text in books.values())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["action", "good", "amount"]), st.text(min_size=1, max_size=6)),
                min_size=1, max_size=3), st.text(min_size=1, max_size=6))
def test_two_different_secrets_give_unrelated_commitments(cells, other):
    rows = [{"row": n, "cells": c} for n, c in enumerate(cells, 2)]
    changed = copy.deepcopy(rows)
    changed[0]["cells"]["amount"] = other
    salt = "5" * 32
    a = digest(submission_text(GAME, 1, "Ada", rows, salt))
    b = digest(submission_text(GAME, 1, "Ada", changed, salt))
    c = digest(submission_text(GAME, 1, "Ada", rows, "6" * 32))
    if changed != rows:
        assert a != b
    # About half the 256 bits differ between any two (a chance of 1 in 10^15 of failing).
    for x, y in [(a, c)] + ([(a, b)] if changed != rows else []):
        assert 64 < bin(int(x, 16) ^ int(y, 16)).count("1") < 192


# ---- the encoding, pinned -----------------------------------------------------------------------------


def test_the_worked_example_in_the_docs_recomputes():
    """docs/verify.md's example, which a person can check by hand: its text and its SHA-256."""
    doc = DOCS.read_text()
    text = re.search(r"^    (sheets-host/1 submission .*)$", doc, re.MULTILINE)[1]
    fields = body(text)
    assert submission_text(fields["game"], fields["round"], fields["player"], fields["rows"], fields["salt"]) == text
    commitment = re.search(r"^    ([0-9a-f]{64})$", doc, re.MULTILINE)[1]
    assert digest(text) == commitment
    # Version 1 never changes: these bytes and this hash are the encoding.
    assert digest(text) == "14e01f779a1fa93d0ccc47fa7f0414ca48619747053863115881d91e0940089c"
    assert set(ENCODINGS) >= {1}


def test_verify_reads_the_public_spreadsheet_on_google(tmp_path, monkeypatch):
    """A game hosted on Google Sheets: its record, and `verify --against` the public spreadsheet's
    id, read from the fake Google APIs as from Google (one read)."""
    from sheets_host.cli import records
    from sheets_host.fakes.google import fake_backend

    monkeypatch.chdir(tmp_path)
    backend, fake = fake_backend()
    session = engine.new_game(backend, GAME, PLAYERS, 5, clock=fixed_clock, settings={"days": 1})
    host = session.host.ref
    bots_submit(backend, engine.open_session(backend, fixed_clock), 5)
    assert engine.resolve(fake_backend(host, fake=fake)[0], early=True, clock=fixed_clock).over
    write_record(fake_backend(host, fake=fake)[0], tmp_path / "record.json", clock=fixed_clock)
    public = fake_backend(host, fake=fake)[0]
    engine.open_session(public, fixed_clock)
    public_id = public.book("public").id
    monkeypatch.setattr(records, "open_where", lambda where, *a, **k: fake_backend(where, fake=fake)[0])
    before = len(fake.requests)
    out = CliRunner().invoke(app, ["verify", str(tmp_path / "record.json"), "--against", public_id])
    assert out.exit_code == 0, out.output
    assert f"ok    {public_id}: tab 'commitments'" in out.output and "every check passed" in out.output
    assert [c.method for c in fake.requests[before:]] == ["GET"]


@pytest.mark.parametrize("damage, said", [
    (lambda r: r.pop("players"), "lacks 'players' (list)"),
    (lambda r: r.update(seed="seven"), "lacks 'seed' (int)"),
    (lambda r: r["rounds"][1].pop("host inputs"), "its round 2 lacks 'host inputs'"),
])
def test_a_damaged_record_is_refused_naming_what_it_lacks(game, tmp_path, damage, said):
    record = load_record(game / "record.json")
    damage(record)
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(record))
    out = CliRunner().invoke(app, ["verify", str(damaged)])
    # As a line wrapped to the terminal's width reads (a long temporary path moves the breaks).
    assert out.exit_code == 2 and said in " ".join(out.output.split()) and "Traceback" not in out.output


def test_a_record_whose_data_the_game_refuses_fails_a_check_naming_it(game):
    record = load_record(game / "record.json")
    record["game"] = "no-such-game"
    lines = failures(record)
    assert lines[0] == "FAIL  the record's game, players, settings and data" and "no-such-game" in lines[1]


def test_verify_against_a_path_that_is_not_there_says_so(game, tmp_path):
    out = CliRunner().invoke(app, ["verify", str(game / "record.json"), "--against", str(tmp_path / "publc.xlsx")])
    assert out.exit_code == 2 and "no such file or folder" in " ".join(out.output.split())


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.text(alphabet="ab{}\"\\ë", min_size=1, max_size=2), min_size=1, max_size=3)
                .map(lambda words: " ".join(words) * 9_000), min_size=1, max_size=4),  # spaced as a canonical text
       st.randoms(use_true_random=False))
def test_a_text_too_long_for_a_cell_is_kept_in_parts_read_back_whole_in_any_order(texts, random):
    """Issue 34: a text over 30,000 characters was left out of the host book (and so of the record)."""
    from sheets_host.engine import commitments
    from sheets_host.engine.host import reindex

    rows = [{"round": 1, "attempt": 1, "kind": "submission", "player": "Ada", "encoding": 1, "salt": "00",
             "commitment": f"{i:064x}", "made at": "2026-11-22 12:00:00 UTC", "text": text}
            for i, text in enumerate(texts)]
    frame = commitments.host_frame(rows)
    assert max(len(t) for t in frame["text"] if isinstance(t, str)) <= 30_000
    shuffled = frame.sample(frac=1, random_state=random.randrange(2**32))  # a host sorted the tab
    # As read: trimmed cells, rows numbered as the sheet's.
    read = reindex(shuffled.map(lambda v: v.strip() if isinstance(v, str) else v).reset_index(drop=True))
    back = commitments.read({"commitments": read}, ["Ada"])
    assert sorted((r["commitment"], r["text"]) for r in back) == sorted((r["commitment"], r["text"]) for r in rows)


def test_a_missing_part_of_a_committed_text_is_named():
    from sheets_host.engine import commitments
    from sheets_host.engine.host import reindex
    from sheets_host.kit.errors import SchemaErrors

    row = {"round": 1, "attempt": 1, "kind": "submission", "player": "Ada", "encoding": 1, "salt": "00",
           "commitment": "0" * 64, "made at": "2026-11-22 12:00:00 UTC", "text": "x" * 70_000}
    frame = commitments.host_frame([row])
    with pytest.raises(SchemaErrors, match=r"commitments.*part.*parts 1 to 2 of one commitment's text, each once"):
        commitments.read({"commitments": reindex(frame.drop(index=1).reset_index(drop=True))}, ["Ada"])


def test_verify_fails_closed_when_what_it_was_given_holds_nothing_to_compare(game, tmp_path):
    """Issue 35: `verify --against` an empty folder, or a player's folder, printed "every check
    passed" and exited 0, having compared nothing."""
    runner = CliRunner()
    (tmp_path / "empty").mkdir()
    for nothing in (tmp_path / "empty", game / "players"):
        out = runner.invoke(app, ["verify", str(game / "record.json"), "--against", str(nothing)])
        assert out.exit_code == 1, out.output
        said = " ".join(out.output.split())  # as wrapped lines read
        assert "nothing was compared" in said and f"{nothing}: nothing compared" in said, said
    ok = runner.invoke(app, ["verify", str(game / "record.json"), "--against", str(game)])
    said = " ".join(ok.output.split())
    assert ok.exit_code == 0 and re.search(rf"{re.escape(str(game))}: [\d,]+ cells in 10 tabs and [\d,]+ lines in 4 "
                                           "announcements compared", said), said


def test_announcements_alone_are_something_to_compare(game):
    checks = verify(load_record(game / "record.json"), Published(None, announcement_files(game / "announcements"), "x"))
    assert all(c.ok for c in checks) and sum(c.compared for c in checks) > 0


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 10**20) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=6)


@settings(max_examples=60, deadline=None)
@given(where=st.sampled_from(["record", "round", "commitment"]), data=st.data())
def test_a_record_damaged_field_by_field_is_refused_or_fails_a_check_never_a_traceback(game, where, data):
    """Issue 35: a commitment without 'kind' (KeyError), one that is a string (AttributeError),
    'players' as numbers (TypeError) and a 'text' that is a number (AttributeError) each gave a
    traceback. Any field of the record, of a round or of a commitment, set to any JSON value or
    removed: one clear line, or checks that run."""
    record = load_record(game / "record.json")
    entries = {"record": [record], "round": record["rounds"], "commitment": record["commitments"]}[where]
    entry = data.draw(st.sampled_from(entries))
    field = data.draw(st.sampled_from(sorted(entry)))
    if data.draw(st.booleans()):
        del entry[field]
    else:
        entry[field] = data.draw(JSON)
    path = game.parent / f"damaged-{os.getpid()}.json"
    path.write_text(json.dumps(record))
    try:
        checked = load_record(path)
    except SheetsHostError as e:
        assert "damaged" in str(e) or "record" in str(e)
        return
    for check in verify(checked, published(game)):
        check.lines()


def test_the_way_a_player_is_told_to_check_a_commitment_gives_it():
    """Issue 35: the note suggested a way (echo, a copied cell) that adds a line break and never
    matches. The command it shows, run on a committed text, gives the commitment."""
    import shlex
    import subprocess

    from sheets_host.engine.commitments import HOW_TO_CHECK

    shown = re.search(r"printf '%s' 'THE TEXT' \| sha256sum", HOW_TO_CHECK)
    assert shown and "never echo" in HOW_TO_CHECK
    text = submission_text("magicians-market", 1, "Ada", [{"row": 2, "cells": {"action": "bid", "amount": "3"}}], "ab" * 16)
    command = shown.group(0).replace("'THE TEXT'", shlex.quote(text)).replace("| sha256sum", "")
    typed = subprocess.run(["sh", "-c", command], capture_output=True, check=True).stdout
    assert hashlib.sha256(typed).hexdigest() == digest(text)


def test_a_public_book_saved_mid_game_and_an_unfinished_record_are_named(tmp_path):
    """Issue 35: a public book saved mid-game gave 9 failures without saying it was older than the
    record; a record written with --force before the end verified without saying so."""
    import shutil

    backend = XlsxBackend(tmp_path / "g")
    engine.new_game(backend, GAME, PLAYERS[:4], 5, clock=fixed_clock, settings={"days": 3})
    _play(backend, 2)
    shutil.copy(tmp_path / "g" / "public.xlsx", tmp_path / "saved.xlsx")
    runner = CliRunner()
    assert runner.invoke(app, ["record", str(tmp_path / "g"), str(tmp_path / "early.json"), "--force"]).exit_code == 0
    early = runner.invoke(app, ["verify", str(tmp_path / "early.json"), "--against", str(tmp_path / "saved.xlsx")])
    assert "written before the game's end (record --force): it holds 2 round(s)" in " ".join(early.output.split())
    assert early.exit_code == 0, early.output
    _play(backend, 1)
    write_record(backend, tmp_path / "record.json", clock=fixed_clock)
    older = runner.invoke(app, ["verify", str(tmp_path / "record.json"), "--against", str(tmp_path / "saved.xlsx")])
    said = " ".join(older.output.split())
    assert older.exit_code == 1 and f"FAIL {tmp_path / 'saved.xlsx'}: as new as the record" in said, said
    assert "it holds the commitments up to day 2, the record up to day 3" in said, said
    assert "written before" not in said
