"""Dates a host types on Google Sheets (issue 25): Google turns `24/11/2026 18:00` typed in an
en_GB spreadsheet into a number with a DATE_TIME format shown per locale; the backend reads the
number, whatever the locale, and text Google left alone is read when its order is unambiguous.
The game is `tests/engine/tally.py` (three players); the fake types as a person does (USER_ENTERED)."""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone

import pytest

from sheets_host.backends.gsheets.sheets_api import cell_value
from sheets_host.engine import commands as engine
from sheets_host.fakes.google import FakeGoogle, fake_backend
from sheets_host.kit.errors import SchemaErrors
from sheets_host.watch.loop import Watch

from tests.conftest import fixed_clock
from tests.engine import tally

PLAYERS = ["Ada", "Blaise", "Cora"]
DEADLINE = datetime(2026, 11, 24, 18, 0, tzinfo=timezone.utc)
# How a host in each locale types the deadline, and how Google then shows it.
TYPED = {"en_US": ("11/24/2026 18:00", "11/24/2026 18:00:00"),
         "en_GB": ("24/11/2026 18:00", "24/11/2026 18:00:00"),
         "de_DE": ("24.11.2026 18:00", "24.11.2026 18:00:00")}


def game(monkeypatch, tmp_path, locale: str):
    """A tally game whose spreadsheets Google made in `locale` (the account's), 2 days a round."""
    tally.install(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    fake = FakeGoogle(locale=locale)
    backend, _ = fake_backend(fake=fake)
    session = engine.new_game(backend, "tally", PLAYERS, 5, settings={"round hours": 48, "check minutes": 100_000},
                              clock=fixed_clock)
    return fake, session.host.id


def type_in(fake, sid: str, a1: str, text: str) -> None:
    """The host types `text` into one cell, as in the Sheets UI (USER_ENTERED input)."""
    person = fake_backend(sid, fake=fake)[0]
    person.client.http_client.values_batch_update(sid, {"valueInputOption": "USER_ENTERED",
                                                        "data": [{"range": a1, "values": [[text]]}]})


def config_cell(fake, sid: str, key: str) -> str:
    row = [r[0] if r else "" for r in fake.values(sid, "config")].index(key)
    return f"config!B{row + 1}"


@pytest.mark.parametrize("locale", TYPED)
def test_a_deadline_typed_in_the_locales_order_is_read_as_the_date_it_became(monkeypatch, tmp_path, locale):
    fake, sid = game(monkeypatch, tmp_path, locale)
    typed, shown = TYPED[locale]
    type_in(fake, sid, "rounds!D2", typed)  # round 1's deadline
    stored = fake.cell_data(sid, "rounds", "D2")
    assert stored["userEnteredValue"] == {"numberValue": 46350.75}  # days since 1899-12-30
    assert stored["userEnteredFormat"]["numberFormat"]["type"] == "DATE_TIME"
    assert fake.formatted(sid, "rounds", "D2") == shown

    def backend():
        return fake_backend(sid, fake=fake)[0]

    assert engine.status(backend(), fixed_clock).deadline.startswith("2026-11-24 18:00:00 UTC (in 2 days")
    engine.check(backend(), fixed_clock)
    lines: list[str] = []
    # Watch (posting nowhere, checks far apart) plans its next pass at the deadline.
    assert Watch(backend(), clock=fixed_clock, say=lines.append)._pass() == DEADLINE
    with pytest.raises(ValueError, match="deadline is 2026-11-24 18:00:00 UTC, still to come"):
        engine.resolve(backend(), clock=fixed_clock)
    engine.resolve(backend(), allow_empty=True, clock=lambda: DEADLINE + timedelta(minutes=1))
    rounds = fake.values(sid, "rounds")
    assert rounds[2][:4] == [2, "open", 0, "2026-11-26 18:00:00 UTC"]  # round hours after the typed one


@pytest.mark.parametrize("locale", TYPED)
def test_a_first_deadline_typed_into_the_config_before_round_1_is_read(monkeypatch, tmp_path, locale):
    fake, sid = game(monkeypatch, tmp_path, locale)
    type_in(fake, sid, config_cell(fake, sid, "first deadline"), TYPED[locale][0])
    assert fake.formatted(sid, "config", config_cell(fake, sid, "first deadline").split("!")[1]) == TYPED[locale][1]
    engine.check(fake_backend(sid, fake=fake)[0], fixed_clock)  # every command reads the config


def test_an_iso_deadline_is_a_date_in_every_locale_and_day_first_text_is_read(monkeypatch, tmp_path):
    fake, sid = game(monkeypatch, tmp_path, "en_US")
    type_in(fake, sid, "rounds!D2", "2026-11-24 18:00")
    assert fake.cell_data(sid, "rounds", "D2")["userEnteredValue"] == {"numberValue": 46350.75}
    # en_US reads 24/11 as no date (there is no month 24): Google keeps the text; the day is over 12.
    type_in(fake, sid, "rounds!D2", "24/11/2026 18:00")
    assert fake.cell_data(sid, "rounds", "D2")["userEnteredValue"] == {"stringValue": "24/11/2026 18:00"}
    assert engine.status(fake_backend(sid, fake=fake)[0], fixed_clock).deadline.startswith("2026-11-24 18:00:00 UTC")


def test_ambiguous_text_is_refused_naming_the_cell_and_the_accepted_forms(monkeypatch, tmp_path):
    fake, sid = game(monkeypatch, tmp_path, "en_GB")
    type_in(fake, sid, "rounds!D2", "'05/11/2026 18:00")  # typed as text: 5 November or 11 May?
    with pytest.raises(SchemaErrors) as e:
        engine.check(fake_backend(sid, fake=fake)[0], fixed_clock)
    message = str(e.value)
    assert message.startswith("tab 'rounds', row 2, column 'deadline': '05/11/2026 18:00' is not ")
    assert "5 November or 11 May" in message and "2026-11-05 18:00" in message


def test_a_cell_with_a_date_format_reads_as_its_moment_not_its_display():
    def cell(number: float, kind: str, shown: str = "whatever the locale shows") -> dict:
        return {"effectiveValue": {"numberValue": number}, "formattedValue": shown,
                "effectiveFormat": {"numberFormat": {"type": kind}}}

    assert cell_value(cell(46350.75, "DATE_TIME"), False) == datetime(2026, 11, 24, 18, 0)
    assert cell_value(cell(46350, "DATE"), False) == datetime(2026, 11, 24)
    assert cell_value(cell(46350.000694444444, "DATE_TIME"), False) == datetime(2026, 11, 24, 0, 1)  # to the millisecond
    assert cell_value(cell(0.75, "TIME"), False) == time(18, 0)
    assert cell_value({**cell(2, "NUMBER"), "formattedValue": "2"}, False) == 2


def test_offline_a_deadline_typed_as_a_date_takes_the_same_road(monkeypatch, tmp_path):
    """A date LibreOffice or Excel saved is a datetime cell, as a Google date reads: one way to a time."""
    from sheets_host.backends.xlsx.backend import XlsxBackend

    from tests.backends.xlsx.test_xlsx_roundtrip import as_a_program_saves

    tally.install(monkeypatch, tmp_path)
    backend = XlsxBackend(tmp_path / "game")
    session = engine.new_game(backend, "tally", PLAYERS, 5, clock=fixed_clock)
    as_a_program_saves(session.host.path, "rounds", "D2", datetime(2026, 11, 24, 18), "dd.mm.yyyy hh:mm")
    assert engine.status(XlsxBackend(tmp_path / "game"), fixed_clock).deadline.startswith("2026-11-24 18:00:00 UTC")
