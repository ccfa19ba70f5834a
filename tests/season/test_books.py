"""What the season's readers see: the public season book and each player's `season` tab hold
nothing private (hypothesis, over random seasons and their twins that differ only in what the
reader must not see), and every tab is laid out for people."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine.creation import new_game
from sheets_host.kit.layout import HEADER_FILL, HEADING_FILL, MEANINGS, tint
from sheets_host.kit.result import ARTEFACTS, ELIMINATION, GARNET, POWER_OF_LIGHT, TOKEN
from sheets_host.season import books
from sheets_host.season.ledger import BY_HOST, Entry
from sheets_host.season.tabs import host_tabs

from tests.conftest import fixed_clock
from .seasons import WHEN, hidden_from, hidden_from_public, sample, seasons, twin

SEASONS = settings(max_examples=60, deadline=None)


def equal(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame]) -> bool:
    return a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a)


def with_rows_inserted(season, rows: list[tuple[int, Entry]]):
    """`season` with each (place, entry) inserted before the row at that place (an entry numbered
    0), the ledger numbered again and each correction still naming the row it corrected."""
    entries = list(season.entries)
    for place, entry in sorted(rows, key=lambda r: r[0], reverse=True):
        entries.insert(place, entry)
    numbers = {e.number: k for k, e in enumerate(entries, 1) if e.number}
    return replace(season, entries=tuple(replace(e, number=k, corrects=numbers.get(e.corrects))
                                         for k, e in enumerate(entries, 1)))


# ---- private information -------------------------------------------------------------------------

@SEASONS
@given(seasons(), st.data())
def test_the_public_book_is_the_same_whatever_the_private_rows_say(season, data):
    """An artefact (anyone's) and a garnet (while garnets are private) change nothing public: not
    their amount, why, where, nor whose they are."""
    other = twin(season, lambda e: hidden_from_public(season, e), data, players=season.cast)
    assert equal(books.public_tabs(season), books.public_tabs(other))
    assert books.seen(season) == books.seen(other)


@SEASONS
@given(seasons(), st.data())
def test_the_public_cannot_tell_how_many_private_rows_there_are(season, data):
    """Readers number their own rows: a private row between two public ones leaves no gap (the
    host's numbering did: rows 1, 2, 5 said two private rows stood between)."""
    private = [Entry(0, WHEN, "", "by hand", data.draw(st.sampled_from(season.cast)),
                     data.draw(st.sampled_from([*ARTEFACTS, *([] if season.settings.garnets_public else [GARNET])])),
                     1, "a private gift", BY_HOST)
               for _ in range(data.draw(st.integers(1, 3)))]
    places = [data.draw(st.integers(0, len(season.entries))) for _ in private]
    more = with_rows_inserted(season, list(zip(places, private)))
    assert equal(books.public_tabs(season), books.public_tabs(more))


@SEASONS
@given(seasons(), st.data())
def test_a_player_cannot_tell_how_many_rows_others_have(season, data):
    """Their rows are numbered 1, 2, 3 in their tab: the host's numbers showed the others' rows
    between them, a private one among them."""
    player = data.draw(st.sampled_from(season.cast))
    others = [Entry(0, WHEN, "", "by hand", data.draw(st.sampled_from([p for p in season.cast if p != player])),
                    data.draw(st.sampled_from(ARTEFACTS)), 1, "a private gift", BY_HOST)
              for _ in range(data.draw(st.integers(1, 3)))]
    places = [data.draw(st.integers(0, len(season.entries))) for _ in others]
    more = with_rows_inserted(season, list(zip(places, others)))
    assert books.season_tab(season, player).equals(books.season_tab(more, player))


@SEASONS
@given(seasons(), st.data())
def test_a_players_season_tab_holds_nothing_of_another_but_public_garnets(season, data):
    player = data.draw(st.sampled_from(season.cast))
    others = [p for p in season.cast if p != player]
    other = twin(season, lambda e: hidden_from(season, player, e), data, players=others)
    assert books.season_tab(season, player).equals(books.season_tab(other, player))


@SEASONS
@given(seasons(), st.data())
def test_no_artefact_and_no_private_garnet_is_in_the_public_book(season, data):
    tabs = books.public_tabs(season)
    text = "\n".join(frame.to_csv() for frame in tabs.values())
    assert not any(a in text for a in ARTEFACTS)
    assert (books.plural(GARNET) in tabs["cast"].columns) == season.settings.garnets_public
    assert set(tabs["ledger"]["what"]) <= set(books.public_things(season))


def test_a_player_sees_their_own_artefact_and_garnets_and_everyones_only_when_public():
    season = sample()
    gus = books.season_tab(season, "Gus")
    assert gus.loc[gus["what"] == POWER_OF_LIGHT, "held"].iloc[0] == 1  # the balance, above his row of it
    assert "everyone's garnets" not in set(gus["what"])
    public = books.season_tab(sample(garnets_public=True), "Gus")
    assert "Ann 8" in public.loc[public["what"] == "everyone's garnets", "why"].iloc[0]
    bo = books.season_tab(season, "Bo")
    assert list(bo.loc[bo["what"] == POWER_OF_LIGHT, "held"]) == [0]  # Gus's is his alone: no row of it
    assert "the coins were 112, not 212 (corrects your row 3)" in set(bo["why"])


# ---- words -------------------------------------------------------------------------------------

def test_the_things_held_are_named_in_the_rule_texts_plural():
    """The public cast's header said 'Token of Lifes'."""
    assert list(books.public_tabs(sample())["cast"].columns) == ["player", "standing", "Tokens of Life", "cosmos"]


def test_an_elimination_by_the_hosts_own_row_says_so():
    """A row `season give` wrote has no game: the standing read 'eliminated in game '."""
    season = sample()
    season = replace(season, entries=(*season.entries, Entry(len(season.entries) + 1, WHEN, "", "by hand", "Hal",
                                                             ELIMINATION, 1, "left of his own accord", BY_HOST)))
    cast = books.public_tabs(season)["cast"].set_index("player")
    assert cast.loc["Hal", "standing"] == "eliminated by the host"
    assert cast.loc["Di", "standing"] == "eliminated in game 2; a guest in game 6"


# ---- layouts -----------------------------------------------------------------------------------

def _every_tab(season):
    public = books.public_tabs(season)
    host = host_tabs(season)
    own = {p: books.season_tab(season, p) for p in season.cast}
    laid = {**books.public_layouts(public), **{f"host {n}": layout for n, layout in books.host_layouts(host).items()}}
    frames = {**public, **{f"host {n}": frame for n, frame in host.items()}}
    return ([(name, frames[name], layout) for name, layout in laid.items()]
            + [(books.SEASON_TAB, frame, books.season_tab_layout(frame)) for frame in own.values()])


@SEASONS
@given(seasons())
def test_every_tab_is_laid_out_column_by_column_header_frozen_numbers_right_why_wrapped(season):
    for name, frame, layout in _every_tab(season):
        assert len(layout.columns) == len(frame.columns), name
        assert layout.frozen_rows == 1
        for column, c in zip(frame.columns, layout.columns):
            values = [v for v in frame[column] if v is not None and not pd.isna(v)]
            if values and all(isinstance(v, int) for v in values):
                assert c.align == "right" and c.number_format, (name, column)
            if column in ("why", "about") and any(len(str(v)) > books.WHY_WIDTH for v in values):
                assert c.wrap and c.width == books.WHY_WIDTH, (name, column)


def test_each_standing_shows_in_its_colour_and_every_fill_explains_itself():
    season = sample()
    tabs = books.public_tabs(season)
    layout = books.public_layouts(tabs)["cast"]
    standing = list(tabs["cast"].columns).index("standing")
    filled = {tabs["cast"].iat[r - 1, c]: colour for (r, c), colour in layout.fills.items() if r}
    assert filled == {f"eliminated in game {g}; a guest in game 6": tint(books.STANDING_COLOURS[books.GUESTING])
                      for g in (2, 4, 5)}
    assert all(c == standing for (r, c) in layout.fills if r)
    for name, frame, tab_layout in _every_tab(season):
        for (r, c), colour in tab_layout.fills.items():
            text = frame.columns[c] if r == 0 else frame.iat[r - 1, c]
            assert colour not in MEANINGS, (name, r, c)  # a fill of one meaning would need its words
            assert colour in (HEADER_FILL, HEADING_FILL) or str(text).startswith("eliminated"), (name, r, c, text)


# ---- written to books --------------------------------------------------------------------------

def test_the_public_book_and_a_players_season_tab_are_written_with_their_layouts(tmp_path):
    season = sample()
    backend = XlsxBackend(tmp_path / "season")
    backend.create("host", "season").write(host_tabs(season), layouts=books.host_layouts(host_tabs(season)))
    books.deliver_public(backend, season)
    public = backend.book("public").read()
    assert list(public)[:3] == ["cast", "games", "ledger"]
    assert list(public["cast"]["player"]) == list(season.cast)
    game = season.games[-1]
    game_backend = XlsxBackend(tmp_path / "game")
    new_game(game_backend, game.game, list(game.players), 7, clock=fixed_clock)
    books.deliver_season_tabs(game_backend, season, game)
    bo = game_backend.book("player:Bo").read([books.SEASON_TAB])[books.SEASON_TAB]
    assert list(bo.columns) == books.OWN_LEDGER.header
    assert "garnet" in set(bo["what"]) and TOKEN not in set(bo["what"])  # his rows: garnets only


@pytest.mark.parametrize("player", ["Bo", "Di"])
def test_a_players_standing_is_coloured_in_their_tab(player):
    tab = books.season_tab(sample(), player)
    layout = books.season_tab_layout(tab)
    standing = tab.index[tab["what"] == "standing"][0] + 1
    why = list(tab.columns).index("why")
    assert layout.fills.get((standing, why)) == (None if player == "Bo" else
                                                 tint(books.STANDING_COLOURS[books.GUESTING]))


def test_the_season_books_are_written_on_google_sheets_too():
    """Every layout passes the fake's checks against Google's own documents (the signed amounts'
    number format, the notes, the fills)."""
    from sheets_host.fakes.google import fake_backend

    season = sample(garnets_public=True)
    backend, _ = fake_backend()
    tabs = host_tabs(season)
    backend.create("host", season.name).write(tabs, layouts=books.host_layouts(tabs))
    books.deliver_public(backend, season)
    public = backend.book("public").read()
    assert list(public["cast"]["garnets"]) == [season.held(p, GARNET) for p in season.cast]
    assert list(public["ledger"]["amount"]) == list(books.public_tabs(season)["ledger"]["amount"])
