"""What a game sends Google, request by request, on the fake (issue 34): nothing the discovery
documents mark deprecated (the fake refuses it, as every request is checked against them: a
colour goes as `backgroundColorStyle`), and sizes as one `updateDimensionProperties` a run of
rows or columns of one size, none for a run a tab just added already has."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheets_host.backends.gsheets.sheets_api import DEFAULT_ROW_PIXELS, PIXELS_PER_POINT, Tab, replace_tab
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bots, bots_submit, host_types
from sheets_host.fakes.google import Call, FakeGoogle, fake_backend
from sheets_host.fakes.google_cells import DEFAULT_HEIGHT, DEFAULT_WIDTH
from sheets_host.games import get_game, names
from sheets_host.kit.layout import TabLayout
from tests.conftest import fixed_clock

ROUNDS = 2
FRESH = {"ROWS": DEFAULT_HEIGHT, "COLUMNS": DEFAULT_WIDTH}  # what a tab just added has


def played(game: str) -> tuple[FakeGoogle, dict[str, list[Call]]]:
    """`new`, then `check` and `resolve` of the first rounds, each as a fresh command; the
    requests of each, by command."""
    backend, fake = fake_backend()
    players = bots(get_game(game), None)
    engine.new_game(backend, game, players, 3, {p: f"{p.lower()}@example.org" for p in players}, clock=fixed_clock)
    host = backend.book("host").id
    calls: dict[str, list[Call]] = {"new": list(fake.requests)}
    for _ in range(ROUNDS):
        typist, _ = fake_backend(host, fake=fake)
        host_types(typist, engine.open_session(typist, fixed_clock), 3)
        bots_submit(typist, engine.open_session(typist, fixed_clock), 3)
        for name, command in (("check", lambda b: engine.check(b, fixed_clock)),
                              ("resolve", lambda b: engine.resolve(b, early=True, allow_empty=True, clock=fixed_clock))):
            start = len(fake.requests)
            command(fake_backend(host, fake=fake)[0])
            calls.setdefault(name, []).extend(fake.requests[start:])
    return fake, calls


def sizes(call: Call) -> tuple[dict[tuple[int, str], list[tuple[int, int, int]]], set[int]]:
    """A batchUpdate's updateDimensionProperties by tab and dimension, (start, end, pixels) in
    order, and the tabs it adds."""
    sent: dict[tuple[int, str], list[tuple[int, int, int]]] = defaultdict(list)
    added = set()
    for request in (call.body or {}).get("requests", []) if call.path.endswith(":batchUpdate") else []:
        (kind, args), = request.items()
        if kind == "addSheet":
            added.add(args["properties"]["sheetId"])
        elif kind == "updateDimensionProperties":
            span = args["range"]
            sent[span["sheetId"], span["dimension"]].append((span["startIndex"], span["endIndex"], args["properties"]["pixelSize"]))
    return sent, added


def runs(sent: list[tuple[int, int, int]], fresh: int | None) -> int:
    """The runs of adjacent rows (or columns) of one size that `sent` leaves, applied in order, on
    the rows it touches; those of size `fresh` left out (a tab just added has them)."""
    final: dict[int, int] = {}
    for start, end, size in sent:
        final.update(dict.fromkeys(range(start, end), size))
    return sum(1 for i, size in sorted(final.items())
               if size != fresh and (final.get(i - 1) != size))


@pytest.mark.parametrize("game", [pytest.param(g, marks=pytest.mark.slow(12)) for g in names()])
def test_a_game_sends_no_deprecated_field_and_a_size_a_run(game):
    fake, calls = played(game)  # the fake refuses any request naming a deprecated field

    counted: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # command -> [requests, runs]
    for command, made in calls.items():
        for call in made:
            sent, added = sizes(call)
            for (sheet, dimension), spans in sent.items():
                need = runs(spans, FRESH[dimension] if sheet in added else None)
                assert len(spans) <= need, (command, dimension, spans)
                counted[command][0] += len(spans)
                counted[command][1] += need
    assert all(sent <= need for sent, need in counted.values()) and counted["resolve"][0] > 0, dict(counted)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(heights=st.dictionaries(st.integers(0, 40), st.sampled_from([15.75, 27.75, 40.5]), max_size=30),
       existing=st.booleans(), before=st.lists(st.sampled_from([21, 37, 90]), min_size=1, max_size=50))
def test_a_tab_written_whole_gets_its_heights_in_no_more_requests_than_runs(heights, existing, before):
    """Whatever heights the rows had (`before`, unknown to the writer) or a new tab's default:
    afterwards each row has its layout's height, from at most one request a run of rows of one
    height, none for a new tab's rows at the default."""
    tabs = {"t": Tab(7, 60, 3, [], 1)} if existing else {"other": Tab(7, 60, 3, [], 1)}
    layout = TabLayout((), heights=heights)
    requests = [r["updateDimensionProperties"] for r in replace_tab(tabs, "t", [["a"], [1]], layout, hidden=False)
                if "updateDimensionProperties" in r]
    rows = tabs["t"].rows
    had = (before * rows)[:rows] if existing else [DEFAULT_ROW_PIXELS] * rows
    now = list(had)
    for request in requests:
        span = request["range"]
        assert span["sheetId"] == tabs["t"].sheet_id and span["dimension"] == "ROWS"
        now[span["startIndex"]:span["endIndex"]] = [request["properties"]["pixelSize"]] * (span["endIndex"] - span["startIndex"])
    wanted = [round(heights[r] * PIXELS_PER_POINT) if r in heights else DEFAULT_ROW_PIXELS for r in range(rows)]
    assert now == wanted
    spans = [(r, r + 1, size) for r, size in enumerate(wanted)]
    assert len(requests) <= runs(spans, None if existing else DEFAULT_ROW_PIXELS)
