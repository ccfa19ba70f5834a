"""Who sees what in the Academy of Witchcraft Arts, over whole bot festivals of 8 to 10 players.

Private to each player: the garnets they hold (the host's `garnets` tab; only their own `my
festival` shows them), their pregame list, the garnets spent on it, whether it was drawn and
whether they were turned away (the host's `preferences` tab); and in Alchemy their holdings (gems
until the end, coins, materials, machines) and what they harvested, bought, made and sold. Public:
who plays which event, Alchemy's final gems, and the endgame (places, averages, winners, the
candidate, garnets earned).

Two kinds of checks, on every state of each festival:

- Non-interference: change one player's secrets (a twin state) and every view that may not see
  them stays the same (the public view, the standings, the announcements, every other player's
  book and instructions), while that player's own book changes.
- Distinctive values: players hold garnets 8013, 8113, ... and spend 1007, 1017, ... on their
  lists (one stays silent and is drawn), Alchemy starts with 4321 coins: those numbers, each
  player's list, and their Alchemy texts (`moonpetal ×3, quartz ×1`, `tin bird: 15.00 × 0.75 =
  11.25`) are looked for in the public texts and in the other players' texts, in memory and in
  the .xlsx books of a demo (every sheet, hidden ones too, with notes and dropdown lists).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction

import openpyxl
import pandas as pd
import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine, play
from sheets_host.engine.play import bot_names, bot_states, default_settings
from sheets_host.events.alchemy.state import GOLD
from sheets_host.events.alchemy.views import gems_text, stock_text
from sheets_host.festival import bots as festival_bots
from sheets_host.festival.pregame import Preference
from sheets_host.festival.state import FestivalSubmission
from sheets_host.games import get_game
from sheets_host.kit.game import rng_for
from sheets_host.kit.layout import lay_out_tab

from tests.conftest import fixed_clock

ACADEMY = "academy-of-witchcraft-arts"
GAME = get_game(ACADEMY)
# seed, players, the events' bots, whether every list puts Alchemy first (so that some are turned away)
FESTIVALS = ((3, 10, "random", True), (8, 9, "greedy", False), (21, 8, "random", False))
SILENT = 2  # the third player types no list: theirs is drawn, nothing spent
COINS = 4321  # Alchemy's starting coins in memory: 4-digit coins, unlike any other number in a book


def held(i: int) -> int:
    """The garnets the i-th player holds before the pregame (after spending: 7006, 7096, ...)."""
    return 8013 + 100 * i


def spent(i: int) -> int:
    return 0 if i == SILENT else 1007 + 10 * i


def pregame_move(state, player: str, move: FestivalSubmission, crowd: bool) -> FestivalSubmission:
    """The bot's list with the player's distinctive spending (and Alchemy first if `crowd`), or
    nothing for the silent player."""
    i = list(GAME.players(state)).index(player)
    if i == SILENT:
        return FestivalSubmission()
    u = move.preference
    if crowd and u.first != "alchemy":
        u = replace(u, first="alchemy", second=u.first)
    return replace(move, preference=replace(u, garnets=spent(i)))


def festival(seed: int, players: int, strategy: str, crowd: bool) -> list:
    """Every state of a bot festival: the host typed the garnets, the lists spent distinctively."""
    names = bot_names(players)
    defaults = default_settings(GAME)
    config = {**defaults["config"], "alchemy starting coins": COINS}
    start = GAME.setup(names, seed, config, defaults["data"])
    start = replace(start, garnets={p: held(i) for i, p in enumerate(names)})
    moves = {p: pregame_move(start, p, GAME.bot(start, p, rng_for(seed, 1, f"bot/{p}")), crowd) for p in names}
    after = GAME.resolve(start, moves, rng_for(seed, 1, "resolve")).state
    return [start, *bot_states(GAME, names, seed, config, defaults["data"], state=after, strategy=strategy)]


@pytest.fixture(scope="module")
def festivals():
    return [festival(*f) for f in FESTIVALS]


# ---- what a reader is shown, as text ------------------------------------------------------------


@dataclass
class Seen:
    """A reader's texts: every whole cell (and line) as text, and every whole number in them."""

    cells: set[str]
    numbers: set[int]

    @classmethod
    def of(cls, values) -> Seen:
        cells, numbers = set(), set()
        for v in values:
            if v is None or (isinstance(v, float) and v != v):
                continue
            if isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer():
                numbers.add(int(v))
            text = str(v).strip()
            cells.add(text)
            # A commitment or a salt (hex) says nothing of what it commits to: its digits are no number.
            numbers.update(int(n) for n in re.findall(r"(?<![\d.])(\d+)(?!\d|\.\d)", HEX.sub("", text)))
        return cls(cells, numbers)

    def text(self) -> str:
        return "\n".join(sorted(self.cells))


HEX = re.compile(r"\b[0-9a-f]{32}(?:[0-9a-f]{32})?\b")


def frame_values(frames: dict[str, pd.DataFrame]) -> list:
    return [v for name, f in frames.items() for v in (name, *f.columns, *f.to_numpy().ravel().tolist())]


def public_seen(game, before, state) -> Seen:
    """The public book's tabs, the standings and the announcement of the round that led here."""
    values = frame_values(game.public_view(state)) + frame_values({"standings": game.standings(state)})
    if before is not None:
        values += game.announcement(before, state).splitlines()
    return Seen.of(values)


def player_seen(game, state, player: str) -> Seen:
    """A player's book: their views, their instructions and their dropdowns."""
    values = frame_values(game.private_view(state, player))
    values += [line for block in game.how_to_submit(state, player) for line in block.words().splitlines()]
    for tab in game.submit_tabs(state, player):
        values += [v for vs in game.submit_choices(state, player, tab.name).values() for v in vs]
    return Seen.of(values)


@dataclass
class Secrets:
    """One player's private values at a state: numbers (all of 4 digits here) and whole cells."""

    numbers: set[int]
    cells: set[str]
    phrases: set[str]  # what the public may not hold even inside a longer text (gems: until the end)


def secrets(state, player: str) -> Secrets:
    numbers, cells, phrases = {state.garnets[player]}, set(), set()
    titles = {e.name: e.title for e in state.plan.events}
    if state.assignment is not None:
        u = state.preferences[player]
        listed = f"first {titles[u.first]}, then {titles[u.second]}"
        cells.add(f"drawn (no valid list): {listed}" if player in state.drawn else listed)
        phrases.add(listed)
        numbers |= {u.garnets} - {0}
        cells |= {f"{titles[e]}: it was full" for e in (u.first, u.second) if e not in state.plays(player)}
    alchemy = state.events.get("alchemy")
    if alchemy is not None and player in alchemy.participants:
        a, h = alchemy.alchemy, alchemy.holdings(player)
        numbers |= {h.coins} if h.coins >= 1000 else set()
        texts = {stock_text(a, h.materials), ", ".join(h.machines), ", ".join(c for c in a.constructs if c in h.sold)}
        if not state.over and h.gems:  # not a cell for other readers: gems of a round may look alike
            phrases.add(gems_text(h.gems))
        for result in alchemy.history:
            r = result.reports[player]
            sales = [f"{s.construct}: {gems_text(a.constructs[s.construct].value)} × {float(s.multiplier):g} = "
                     f"{gems_text(s.gems)}" for s in r.sales]
            texts |= {stock_text(a, r.harvested), ", ".join(f"{m} ×{n}" for m, n in r.bought), ", ".join(r.made),
                      ", ".join(r.failed), "; ".join(sales)}
            phrases.update(sales)
        texts -= {"", "nothing", "0.00", *a.materials, *a.constructs, *a.machines}  # one name: any dropdown has it
        cells |= texts
        phrases |= {t for t in texts if "×" in t}
    return Secrets(numbers, cells, phrases)


def alchemy_names(state) -> set[str]:
    """Every location, material, construct and machine name: nothing public names one (the text:
    "Locations, constructs, and sales will not be revealed"), but gold's garnet at the end."""
    a = state.plan.data
    names = {r["location"] for r in a["alchemy locations"]} | {r["material"] for r in a["alchemy materials"]}
    names |= {r["construct"] for r in a["alchemy constructs"]} | {r["machine"] for r in a["alchemy machines"]}
    return names - ({GOLD} if state.over else set())


def check_public(state, seen: Seen, where: str) -> None:
    text = seen.text().casefold()
    for player in state.players:
        mine = secrets(state, player)
        assert not mine.numbers & seen.numbers, (where, player, mine.numbers & seen.numbers)
        assert not [c for c in mine.cells | mine.phrases if c.casefold() in text], (where, player)
    assert not [n for n in alchemy_names(state) if re.search(rf"\b{re.escape(n.casefold())}\b", text)], where
    for word in ("×", "garnets held", "garnets spent", "drawn", "turned away", "my list", "coins", " then "):
        assert word not in text, (where, word)


def check_player(state, reader: str, seen: Seen, where: str) -> None:
    own = secrets(state, reader)
    assert own.numbers <= seen.numbers and own.cells <= seen.cells, (where, reader)  # the values are there
    for player in state.players:
        if player != reader:
            theirs = secrets(state, player)
            assert not (theirs.numbers - own.numbers) & seen.numbers, (where, reader, player)
            assert not (theirs.cells - own.cells) & seen.cells, (where, reader, player)


# ---- in memory: distinctive values ----------------------------------------------------------------


def test_no_distinctive_private_value_reaches_the_public_or_another_player(festivals):
    looked = 0
    for states in festivals:
        for before, state in zip([None, *states], states):
            where = GAME.round_name(GAME.round(state)) if not state.over else "over"
            check_public(state, public_seen(GAME, before, state), where)
            for reader in state.players:
                check_player(state, reader, player_seen(GAME, state, reader), where)
                looked += len(secrets(state, reader).cells)
    assert looked > 1000  # lists and Alchemy texts were there to be looked for


def test_the_values_are_distinctive_and_reach_their_owner(festivals):
    states = festivals[0]
    pregame, first, last = states[0], states[1], states[-1]
    assert [pregame.garnets[p] for p in pregame.players] == [held(i) for i in range(10)]
    assert first.drawn == (pregame.players[SILENT],)
    assert [first.preferences[p].garnets for p in first.players] == [spent(i) for i in range(10)]
    assert [first.garnets[p] for p in first.players] == [held(i) - spent(i) for i in range(10)]
    turned = [p for p in first.players if first.preferences[p].first not in first.plays(p)]
    assert len(turned) >= 2  # Alchemy first on every list: some were turned away from it
    assert "Alchemy: it was full" in secrets(first, turned[0]).cells
    alchemy = last.events["alchemy"]
    coins = [alchemy.holdings(p).coins for p in alchemy.participants]
    assert len(set(coins)) == len(coins) and min(coins) >= 1000, coins
    ada = dict(GAME.private_view(first, "Ada")["my festival"].to_numpy().tolist())
    assert ada["garnets held"] == held(0) - spent(0) and ada["garnets spent on it"] == spent(0)
    silent = dict(GAME.private_view(first, first.players[SILENT])["my festival"].to_numpy().tolist())
    assert silent["my list"].startswith("drawn (no valid list): first ") and silent["garnets spent on it"] == 0


# ---- in memory: non-interference ----------------------------------------------------------------


def same(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame]) -> bool:
    return a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a)


def garnets_twin(state, player: str):
    return replace(state, garnets={**state.garnets, player: state.garnets[player] + 1})


def list_twin(state, player: str):
    """The player's list the other way round, one garnet more spent, drawn or not the other way."""
    if state.assignment is None:
        return None
    u = state.preferences[player]
    drawn = tuple(p for p in state.players if (p in state.drawn) != (p == player))
    return replace(state, preferences={**state.preferences, player: Preference(u.second, u.first, u.garnets + 1)},
                   drawn=drawn)


def alchemy_twin(state, player: str):
    """The player's last Alchemy round otherwise: 4 more moonpetal harvested and held, 13 coins more, a
    machine more; before the end also a gem more, a construct more made and sold. At the end gems,
    constructs sold and gold decide the public ranking and gold's garnet: those stay."""
    alchemy = state.events.get("alchemy")
    if alchemy is None or not alchemy.history or player not in alchemy.participants:
        return None
    last = alchemy.history[-1]
    r = last.reports[player]
    h = r.after
    machine = next((m for m in alchemy.alchemy.machines if m not in h.machines), None)
    after = replace(h, coins=h.coins + 13, materials={**h.materials, "moonpetal": h.materials.get("moonpetal", 0) + 4},
                    machines=h.machines + ((machine,) if machine else ()))
    report = replace(r, harvested={**r.harvested, "moonpetal": r.harvested.get("moonpetal", 0) + 4},
                     bought=r.bought + (("quartz", 7),), after=after)
    if not state.over:
        extra = next(c for c in alchemy.alchemy.constructs if c not in h.sold)
        report = replace(report, made=r.made + (extra,), after=replace(after, gems=h.gems + Fraction(1),
                                                                        sold=h.sold | {extra}))
    history = alchemy.history[:-1] + (replace(last, reports={**last.reports, player: report}),)
    return replace(state, events={**state.events, "alchemy": replace(alchemy, history=history)})


TWINS = {"garnets held": garnets_twin, "list": list_twin, "alchemy": alchemy_twin}


def reader_views(state, player: str):
    tabs = GAME.submit_tabs(state, player)
    return (GAME.private_view(state, player), GAME.how_to_submit(state, player),
            [GAME.submit_choices(state, player, t.name) for t in tabs])


def views_equal(a, b) -> bool:
    return same(a[0], b[0]) and a[1:] == b[1:]


def test_changing_one_players_secrets_changes_only_their_own_book(festivals):
    """Each kind of twin changes the player's own book; all of them at once change nothing else."""
    tried = {kind: 0 for kind in TWINS}
    for states in festivals:
        for before, state, after in zip([None, *states], states, [*states[1:], None]):
            public = (GAME.public_view(state), GAME.standings(state))
            told = (before and GAME.announcement(before, state), after and GAME.announcement(state, after))
            base = {p: reader_views(state, p) for p in state.players}
            for player in state.players:
                twin = state
                for kind, make in TWINS.items():
                    one = make(state, player)
                    if one is not None:
                        # Their book changes: its views, or (garnets in the pregame) its instructions.
                        assert not views_equal(reader_views(one, player), base[player]), (player, kind)
                        twin = make(twin, player)
                        tried[kind] += 1
                where = (GAME.round_name(GAME.round(state)), player)
                assert same(GAME.public_view(twin), public[0]) and GAME.standings(twin).equals(public[1]), where
                assert (before and GAME.announcement(before, twin)) == told[0], where
                assert (after and GAME.announcement(twin, after)) == told[1], where
                for other in state.players:
                    if other != player:
                        assert views_equal(reader_views(twin, other), base[other]), (*where, other)
    assert min(tried.values()) > 100, tried


def test_lists_spending_and_alchemy_texts_never_reach_the_public_but_garnets_earned_do(festivals):
    for states in festivals:
        for before, state in zip(states, states[1:]):
            text = public_seen(GAME, before, state).text()
            listed = {p: secrets(state, p).phrases for p in state.players}
            assert not [p for p, phrases in listed.items() if any(x in text for x in phrases)]
            assert "preferences" not in text and "spent" not in text
        final, first = states[-1], states[1]
        table = GAME.public_view(final)["festival"]
        earned = {p: final.garnets[p] - first.garnets[p] for p in final.players}  # what the endgame added
        assert dict(zip(table["player"], table["garnets earned"])) == earned  # public, unlike what they hold


# ---- through .xlsx books: a demo ---------------------------------------------------------------------

DEMO_SEED, DEMO_PLAYERS = 13, 9


def book_values(path) -> list:
    """Every value a reader of the book can reach: each sheet's cells (hidden sheets too), the notes,
    the dropdowns' inline lists."""
    wb = openpyxl.load_workbook(path)
    values = []
    for ws in wb.worksheets:
        values.append(ws.title)
        for row in ws.iter_rows():
            for c in row:
                values.append(c.value)
                if c.comment is not None:
                    values.append(c.comment.text)
        for validation in ws.data_validations.dataValidation:
            values += (validation.formula1 or "").strip('"').split(",")
    return values


@pytest.fixture(scope="module")
def demo_books(tmp_path_factory):
    """A demo of 9 bots whose host set Alchemy's starting coins and typed distinctive garnets after
    `new`; after each resolve, the state (from the host book) and what the public and each player
    book hold."""
    folder = tmp_path_factory.mktemp("academy")
    backend = XlsxBackend(folder)
    names = bot_names(DEMO_PLAYERS)
    seen = []
    new_game, bot = engine.new_game, festival_bots.bot

    def typed_garnets(*args, **kwargs):
        session = new_game(*args, **kwargs, settings={"alchemy starting coins": COINS})
        tab = next(s for s in GAME.state_tabs if s.name == "garnets")
        frame = tab.frame([{"player": p, "garnets": held(i)} for i, p in enumerate(names)])
        backend.book("host").write({tab.name: frame},
                                   layouts={tab.name: lay_out_tab(frame, tab, players=names, palettes=GAME.palettes())})
        return session

    def spending(state, player, rng, strategy="random"):
        move = bot(state, player, rng, strategy)
        return pregame_move(state, player, move, crowd=True) if move.preference is not None else move

    def say(line: str) -> None:
        if "resolved" in line:
            state = engine.open_session(backend, fixed_clock).state
            books = {"public": Seen.of(book_values(folder / "public.xlsx"))}
            books |= {p: Seen.of(book_values(folder / "players" / f"{p}.xlsx")) for p in names}
            seen.append((line, state, books))

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "new_game", typed_garnets)
        mp.setattr(festival_bots, "bot", spending)
        play.demo(ACADEMY, backend, DEMO_SEED, players=DEMO_PLAYERS, say=say, clock=fixed_clock)
    return folder, seen


def test_the_demo_books_hold_no_other_players_private_values(demo_books):
    _, seen = demo_books
    assert [line.split(":")[0] for line, _, _ in seen] == ["pregame", *(f"round {n}" for n in range(1, 7))]
    for line, state, books in seen:
        check_public(state, books["public"], line)
        for reader in state.players:
            check_player(state, reader, books[reader], line)  # their own values there, nobody else's


def test_the_demo_spent_and_drew_as_typed(demo_books):
    folder, seen = demo_books
    state = seen[0][1]
    assert state.drawn == (state.players[SILENT],)
    assert [state.preferences[p].garnets for p in state.players] == [spent(i) for i in range(DEMO_PLAYERS)]
    assert [p for p in state.players if state.preferences[p].first not in state.plays(p)]  # turned away
    host = Seen.of(book_values(folder / "host.xlsx"))
    assert {spent(i) for i in range(DEMO_PLAYERS)} - {0} <= host.numbers  # the host's preferences tab
    final = seen[-1][1]
    alchemy = final.events["alchemy"]
    assert final.over and alchemy.participants and all(alchemy.holdings(p).gems > 0 for p in alchemy.participants)
    coins = [alchemy.holdings(p).coins for p in alchemy.participants]
    assert len(set(coins)) == len(coins) and min(coins) >= 1000, coins  # distinctive, so looked for


def test_a_player_sees_the_garnets_the_host_typed_during_the_pregame_and_what_is_left_after(tmp_path):
    """Regression: `my festival` said 'garnets held 0' through the pregame while the status (which
    `check` rewrites) said the number the host typed after `new`. Now only the status says it in
    the pregame, and `my festival` says what is left once the pregame is resolved."""
    backend = XlsxBackend(tmp_path)
    names = bot_names(8)
    engine.new_game(backend, ACADEMY, names, 1, clock=fixed_clock)
    tab = next(s for s in GAME.state_tabs if s.name == "garnets")
    frame = tab.frame([{"player": p, "garnets": held(i)} for i, p in enumerate(names)])
    backend.book("host").write({tab.name: frame}, layouts={tab.name: lay_out_tab(frame, tab, players=names)})
    engine.check(backend, fixed_clock)
    wb = openpyxl.load_workbook(tmp_path / "players" / "Cora.xlsx")
    status = " ".join(str(v) for row in wb["status"].iter_rows(min_row=2, values_only=True) for v in row[1:2])
    assert f"how many of your {held(2)} garnets" in status  # the instructions have it
    mine = dict(wb["my festival"].iter_rows(min_row=2, values_only=True))
    assert "garnets held" not in mine and mine["round open"] == "pregame"
    engine.resolve(backend, early=True, allow_empty=True, clock=fixed_clock)  # everyone silent: nothing spent
    wb = openpyxl.load_workbook(tmp_path / "players" / "Cora.xlsx")
    assert dict(wb["my festival"].iter_rows(min_row=2, values_only=True))["garnets held"] == held(2)
