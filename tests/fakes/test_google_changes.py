"""The fake Drive keeps `modifiedTime` and a change log as Google does: every write applied to a
spreadsheet and every person's typing changes it; a read or a refused write does not."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pandas as pd
import pytest

from sheets_host.backends.gsheets.drive import changed_files
from sheets_host.fakes.google import FakeGoogle, fake_backend
from sheets_host.kit.errors import BookError


def test_writes_and_typing_change_a_spreadsheet_and_the_log_says_which_once():
    fake, now = FakeGoogle(), [datetime(2026, 11, 22, 12, tzinfo=timezone.utc)]
    fake.clock = lambda: now[0]
    one, two = fake.add_spreadsheet("one"), fake.add_spreadsheet("two")
    backend, _ = fake_backend(one, fake=fake)
    http = backend.client.http_client
    nothing, token = changed_files(http, None)
    assert nothing is None  # nothing known before the first token
    assert changed_files(http, token) == (set(), token)
    now[0] += timedelta(seconds=1.5)
    backend.book("host").write({"t": pd.DataFrame({"a": [1]})})
    backend.book("host").read(["t"])
    fake.put_values(two, "Sheet1", [["typed"]])
    fake.put_values(two, "Sheet1", [["again"]])
    assert fake.files[one].modified == "2026-11-22T12:00:01.500Z"
    changed, later = changed_files(http, token)
    assert changed == {one, two} and changed_files(http, later) == (set(), later)
    fake.fail_next(1, 400)  # a refused write changes nothing
    with pytest.raises(BookError):
        backend.book("host").write({"t": pd.DataFrame({"a": [2]})})
    assert changed_files(http, later) == (set(), later)


def test_a_long_change_log_is_read_page_by_page():
    fake = FakeGoogle()
    backend, _ = fake_backend(fake.add_spreadsheet("host"), fake=fake)
    _, token = changed_files(backend.client.http_client, None)
    made = {fake.add_spreadsheet(f"s{i}") for i in range(1005)}
    before = len(fake.requests)
    assert changed_files(backend.client.http_client, token)[0] == made
    assert len(fake.requests) - before == 2  # 1000 a page
