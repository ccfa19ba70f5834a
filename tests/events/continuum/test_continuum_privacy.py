"""Elemental Continuum's privacy over simulated festivals: what the public and every other reader
see never shows a firer, a bolt that broke nothing, a ward not broken, or another's board and bolts."""

from __future__ import annotations

import re
from dataclasses import replace

import pandas as pd
import pytest

from sheets_host.engine import play
from sheets_host.events.continuum import rules, views
from sheets_host.events.continuum.board import NEUTRAL_LABEL
from sheets_host.events.continuum.state import Board, Bolt, ContinuumState, ContinuumSubmission, Element, Ward
from sheets_host.kit.game import rng_for

from .test_continuum_event import GAME, grid_of

# ---- privacy over simulated festivals ------------------------------------------------------------------
# Whole bot festivals in memory. In round 1 each Continuum participant lays a board whose ward
# labels are theirs alone ("Q3x5y": participant 3, ward 5) and one stays silent (drawn). Then the
# public (views, standings, announcements) and every other reader are searched for what is private:
# the firers, the bolts that broke nothing, the wards not broken, another's board and bolts.

PRIVACY_FESTIVALS = ((1, 10), (8, 8))  # seeds whose festivals have enough of each thing checked


def label(i: int, k: int) -> str:
    return f"Q{i}x{k}y"


def relabelled(board: Board, i: int) -> Board:
    return Board(tuple(w if w.element is Element.NEUTRAL else replace(w, label=label(i, k))
                       for k, w in enumerate(board.wards)))


def festival(seed: int, count: int) -> list:
    """Every state of a bot festival (the pregame, then after each round), round 1 as above."""
    names = play.bot_names(count)
    defaults = play.default_settings(GAME)
    config, data = defaults["config"], defaults["data"]
    states = play.bot_states(GAME, names, seed, config, data)
    start, first = next(states), next(states)
    members = first.assignment["continuum"]
    moves = {p: GAME.bot(first, p, rng_for(seed, first.round, f"bot/{p}")) for p in names}
    for i, p in enumerate(members):
        board = None if i == 1 else relabelled(moves[p].events["continuum"].board, i)
        continuum = board and ContinuumSubmission(board=board)
        moves[p] = replace(moves[p], events={**moves[p].events, "continuum": continuum})
    after = GAME.resolve(first, moves, rng_for(seed, first.round, "resolve")).state
    return [start, first, *play.bot_states(GAME, names, seed, config, data, state=after)]


@pytest.fixture(scope="module")
def festivals():
    return [festival(*f) for f in PRIVACY_FESTIVALS]


def continuum(state) -> ContinuumState | None:
    return state.events.get("continuum") if state.assignment else None


def with_continuum(state, c: ContinuumState):
    return replace(state, events={**state.events, "continuum": c})


def counted(c: ContinuumState) -> set[tuple[str, int, Bolt]]:
    """The bolts that count in some tile's break."""
    return {(s.firer, s.round, s.bolt) for t in c.tile_breaks for s in t.strikes}


def idle(c: ContinuumState) -> list[tuple[str, int, Bolt]]:
    """The bolts that broke nothing (so far)."""
    count = counted(c)
    return [b for b in c.bolts if b not in count]


def standing(c: ContinuumState, player: str) -> list[Ward]:
    gone = rules.broken_wards(c, player)
    return [w for w in c.boards[player].wards if w not in gone]


def hidden(c: ContinuumState, owners) -> ContinuumState:
    """Twin: what `owners` keep to themselves otherwise. Their bolts that broke nothing are not
    fired; their standing wards are relabelled and pass their elements and points round (the
    same multiset: scores, and so the ranking, stay)."""
    boards = dict(c.boards)
    for owner in owners:
        up = [w for w in standing(c, owner) if w.element is not Element.NEUTRAL]
        turned = {w: replace(w, label=w.label + "-twin", element=n.element, points=n.points)
                  for w, n in zip(up, up[1:] + up[:1])}
        boards[owner] = Board(tuple(turned.get(w, w) for w in c.boards[owner].wards))
    gone = {b for b in idle(c) if b[0] in owners}
    return replace(c, boards=boards, bolts=tuple(b for b in c.bolts if b not in gone))


def swapped(c: ContinuumState, a: str, b: str) -> ContinuumState:
    """Twin: every bolt `a` fired fired by `b` and the other way round (before the end: shares
    decide the final ranking)."""
    def who(p):
        return {a: b, b: a}.get(p, p)

    def strikes(ss):
        return tuple(replace(s, firer=who(s.firer)) for s in ss)

    return replace(c, bolts=tuple((who(f), n, bolt) for f, n, bolt in c.bolts),
                   tile_breaks=tuple(replace(t, strikes=strikes(t.strikes)) for t in c.tile_breaks),
                   ward_breaks=tuple(replace(w, strikes=strikes(w.strikes),
                                             shares={who(p): s for p, s in w.shares.items()}) for w in c.ward_breaks))


def public_of(before, state) -> tuple:
    return (GAME.public_view(state), GAME.standings(state), before and GAME.announcement(before, state))


def strings(frames: dict[str, pd.DataFrame]) -> list[str]:
    """Every cell of the frames (their names and headers too), each its own text."""
    return [str(v) for name, f in frames.items() for v in (name, *f.columns, *f.to_numpy().ravel())]


class Texts(list):
    """What a reader is shown, each cell or line its own text; `in` looks inside each one."""

    def __contains__(self, needle: object) -> bool:
        return any(str(needle).casefold() in text.casefold() for text in self)


def public_text(before, state) -> Texts:
    views_, standings, told = public_of(before, state)
    return Texts(strings({**views_, "standings": standings}) + (told.splitlines() if told else []))


def reader_of(state, player: str) -> tuple:
    tabs_ = GAME.submit_tabs(state, player)
    return (GAME.private_view(state, player), GAME.how_to_submit(state, player),
            [GAME.submit_choices(state, player, t.name) for t in tabs_])


def reader_text(state, player: str) -> Texts:
    frames, how, choices = reader_of(state, player)
    return Texts(strings(frames) + [line for block in how for line in block.words().splitlines()] + [v for c in choices for vs in c.values() for v in vs])


def same(a: tuple, b: tuple) -> bool:
    def eq(x, y):
        if isinstance(x, dict):
            return x.keys() == y.keys() and all(eq(x[k], y[k]) for k in x)
        if isinstance(x, pd.DataFrame):
            return x.equals(y)
        return x == y
    return len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b))


def pairs_of(festivals):
    for states in festivals:
        for before, state in zip([None, *states], states):
            if continuum(state) is not None and continuum(state).boards:
                yield before, state


def test_the_festivals_have_what_privacy_is_checked_on(festivals):
    for states in festivals:
        last = continuum(states[-1])
        assert states[-1].over and last.rounds_played == 6 and len(last.defaulted) == 1
        assert len(last.ward_breaks) >= 2 and len(last.tile_breaks) > 30 and len(idle(last)) > 10
        assert all(any(w.label.startswith("Q") for w in last.boards[p].wards) != (p in last.defaulted)
                   for p in last.participants)


def test_the_public_never_names_a_firer_nor_a_bolt_that_broke_nothing(festivals):
    looked = 0
    for before, state in pairs_of(festivals):
        c = continuum(state)
        text = public_text(before, state)
        for firer, n, bolt in c.bolts:  # no bolt as the host's log or the tabs write one
            for shown in (f"{bolt.element.value} at {bolt.cell}", f"{bolt.element.value} {bolt.cell}",
                          f"{bolt.cell} {bolt.element.value}", f"{bolt.cell} | {bolt.element.value}"):
                assert shown not in text, (firer, n, bolt)
        assert not [line for line in views.log(c) if line in text]
        for word in ("fired by", "share", "contribut", "bolts of", "helped", "advantage", "singularity"):
            assert word not in text, word
        # The tiles shown broken are exactly those broken: a bolt that broke nothing shows nowhere
        # (its cell only where another broke that very tile in that round).
        tiles = GAME.public_view(state)["continuum tiles broken"]
        shown_tiles = set(zip(tiles["round"], tiles["board"], tiles["cell"]))
        broken = {(t.round, t.board, t.cell) for t in c.tile_breaks}
        assert shown_tiles == broken
        for firer, n, bolt in idle(c):
            for board in c.participants:
                if board != firer:
                    assert ((n, board, bolt.cell) in shown_tiles) == ((n, board, bolt.cell) in broken)
                    looked += 1
        if before is not None and continuum(before) is not None and continuum(before).rounds_played:
            # the round's announcement: the tiles broken that round, board by board, and no others
            lines = re.finditer(r"^- (\S+)'s board: (.*) broken$", GAME.announcement(before, state), re.M)
            told = {(m.group(1), cell) for m in lines for cell in m.group(2).split(", ")}
            assert told == {(t.board, t.cell) for t in c.tile_breaks if t.round == c.rounds_played}
    assert looked > 300  # hundreds of idle bolts looked at (425 with these seeds)


def test_no_public_text_shows_a_ward_not_broken(festivals):
    looked = 0
    for before, state in pairs_of(festivals):
        c = continuum(state)
        text = public_text(before, state)
        broken_cells = {" ".join(w.ward.cells) for w in c.ward_breaks}
        shown = GAME.public_view(state)["continuum wards broken"]
        assert sorted(map(tuple, shown.to_numpy().tolist())) == sorted(
            (w.round, w.board, w.ward.element.value, w.ward.points, " ".join(w.ward.cells)) for w in c.ward_breaks)
        for owner in c.participants:
            for ward in standing(c, owner):
                cells_text = " ".join(ward.cells)
                assert ward.label == NEUTRAL_LABEL or ward.label not in text, (owner, ward)
                assert cells_text in broken_cells or cells_text not in text, (owner, ward)
                assert f"{owner}'s {ward.element.value} ward worth {ward.points}" not in text or any(
                    w.board == owner and (w.ward.element, w.ward.points) == (ward.element, ward.points)
                    for w in c.ward_breaks)
                looked += 1
    assert looked > 500


def test_the_public_stays_the_same_whatever_the_firers_and_the_idle_bolts_and_the_standing_wards(festivals):
    """Twins of each state keeping the public facts: the bolts that broke nothing left out, the
    standing wards passing their elements and points round, and (before the end) two participants'
    bolts fired by each other. The public view, the standings, the announcements and their picture
    of the boards stay."""
    checked = pictured = 0
    for states in festivals:
        for before, state, after in zip([None, *states], states, [*states[1:], None]):
            c = continuum(state)
            if c is None or not c.boards:
                continue

            def twin(s):
                t = continuum(s)
                if t is None or not t.boards:
                    return s
                t = hidden(t, t.participants)
                if not (after or state).over:
                    t = swapped(t, *t.participants[:2])
                return with_continuum(s, t)

            assert same(public_of(before and twin(before), twin(state)), public_of(before, state))
            if state.round % 2:  # the announcement's picture of the boards (some states: it takes a while)
                picture = GAME.picture(state)
                assert GAME.picture(twin(state)) == picture
                pictured += picture is not None
            if after is not None:
                assert GAME.announcement(twin(state), twin(after)) == GAME.announcement(state, after)
            # the twin is no copy: the owners' own books change
            assert not same(reader_of(twin(state), c.participants[0]), reader_of(state, c.participants[0]))
            checked += 1
    assert checked >= 12 and pictured >= 4


def test_another_players_book_never_holds_this_players_board_or_bolts(festivals):
    looked = 0
    for _, state in pairs_of(festivals):
        c = continuum(state)
        for reader in state.players:
            frames, _, _ = reader_of(state, reader)
            text = reader_text(state, reader)
            if reader not in c.participants:
                assert not {"my board", "my wards", "my bolts", "my continuum"} & set(frames)
            else:
                # Their own board, wards and bolts, nobody else's.
                board = c.boards[reader]
                broken = rules.broken_cells(c, reader)
                assert frames["my board"].to_numpy().tolist() == grid_of(board, broken)
                assert frames["my wards"]["cells"].tolist() == [" ".join(w.cells) for w in board.wards]
                mine = frames["my bolts"]
                assert sorted(zip(mine["round"], mine["cell"], mine["element"])) == sorted(
                    (n, b.cell, b.element.value) for f, n, b in c.bolts if f == reader)
                for word in ("advantage", "singularity", "neutral break"):
                    assert word not in Texts(strings({"my bolts": mine}))
                # what a bolt did: the tiles and wards it counts in, never how a tile broke
                did = re.compile(r"no tile broken by it so far|broke \S+'s [A-H][1-8](, \S+'s [A-H][1-8])*"
                                 r"(; helped break \S+'s (fire|water|wind|earth|neutral) ward worth [1246]"
                                 r"(, \S+'s (fire|water|wind|earth|neutral) ward worth [1246])*)?")
                assert all(did.fullmatch(v) for v in mine["what it did"]), mine["what it did"].tolist()
            own = {" ".join(w.cells) for w in c.boards[reader].wards} if reader in c.participants else set()
            public = {" ".join(w.ward.cells) for w in c.ward_breaks}
            for owner in c.participants:
                if owner == reader:
                    continue
                for ward in standing(c, owner):
                    cells_text = " ".join(ward.cells)
                    assert ward.label == NEUTRAL_LABEL or ward.label not in text, (reader, owner, ward)
                    # (one's own or a broken ward may hold these cells and more: D5 E5 D6 E6 E7)
                    assert any(cells_text in seen for seen in own | public) or cells_text not in text, \
                        (reader, owner, ward)
                    looked += 1
    assert looked > 2000


def test_changing_the_others_boards_and_bolts_changes_nothing_a_player_reads(festivals):
    checked = 0
    for _, state in pairs_of(festivals):
        c = continuum(state)
        for reader in state.players:
            others = [p for p in c.participants if p != reader]
            twin = with_continuum(state, hidden(c, others))
            assert same(reader_of(twin, reader), reader_of(state, reader)), reader
            checked += 1
        # and the owner's own book does change
        owner = c.participants[-1]
        assert not same(reader_of(with_continuum(state, hidden(c, [owner])), owner), reader_of(state, owner))
    assert checked > 100
