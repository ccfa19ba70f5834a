"""Spirit Chain's submit tab, and its rows read into a `SpiritChainSubmission`.

One row is one submission, complete in itself: the columns of the phase part open now. A row is
refused, naming its cell, when a cell cannot be read (a `CellError`: not a number, no card), when
what it says is not legal now (the state's and the rules' checks: `bids_problem`, `slot_problem`,
`upgrade_problem`), or when it is ambiguous (a Rank IV whose two Rank III the player must name).
Of the valid rows, the time controls choose the one that counts (`timing`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from sheets_host.kit import cells
from sheets_host.kit.cells import CellError, Problem, SubmitRow
from sheets_host.kit.game import Parsed, Window
from sheets_host.kit.table import Column, TabSchema
from . import rules
from .cards import LANTERN, Card, CardBook, Rank, is_empty_word
from .rules import Seat, Upgrade
from .state import PHASES, Phase, SpiritChainState, SpiritChainSubmission, blank
from .timing import STAMP, Choice
from .views import cards_text, describe, upgrade_text

NO_WORDS = ("no", "n", "none", "pass", "decline", "no upgrade", "no upgrades", "dont upgrade", "don't upgrade")
YES_WORDS = ("yes", "y", "all", "upgrade", "upgrade all")

SUBMIT_TAB = TabSchema("submit", (
    Column(STAMP, doc="when you submitted, in UTC, e.g. 2026-11-23 18:00:05; blank: the time the row is first read"),
    *(Column(c, doc=f"Auction only: the lights you bid on card {k} of the open Auction (0 to {LANTERN}; blank is 0)")
      for k, c in enumerate(Phase.AUCTION.columns, 1)),
    Column("upgrade", doc="Summoning part 1 only: no, yes, or the spirits to make, e.g. EARTH II, "
                          "WIND IV from WIND III + FIRE III"),
    *(Column(c, doc=f"Summoning part 2 only: the card you play in slot {k}, from your deck (ELEMENT RANK such as "
                    "FIRE II, or an action's name); blank or empty: no card")
      for k, c in enumerate(Phase.SLOTS.columns, 1)),
), "One row is one submission, complete in itself: fill the columns of the phase part open now.")


def parse(state: SpiritChainState, player: str, rows: Sequence[SubmitRow],
          window: Window) -> Parsed[SpiritChainSubmission]:
    """The submission that counts, each of its parts named with the row it came from; every
    other valid row says why it does not count (the time controls passed it over)."""
    seat, phase, clock = state.seat(player), state.phase, state.clock
    problems: list[Problem] = []
    times, moves, valid = [], [], []
    for row in rows:
        stamp, move = _read_row(state, seat, row, window, clock.window is not None, problems)
        if move is not None:
            times.append(stamp)
            moves.append(move)
            valid.append(row)
    choice: Choice = clock.choose(times, window.opened, window.frozen, state.reserve[seat], state.must_answer(seat))
    counts = "" if choice.index is None else f" (row {valid[choice.index].row})"
    problems += [row.problem(None, f"{why}{counts}; this row does not count")
                 for row, why in zip(valid, choice.passed) if why]
    problems.sort(key=lambda p: p.row)  # each row's problems in the order of the rows
    if choice.index is None:
        if rows or choice.periods:
            problems.append(Problem(player, f"no valid submission counts ({choice.when}): the blank "
                                            f"submission is taken ({describe(state, blank(phase))})"))
        if choice.periods:
            move = blank(phase, choice.periods)
            return Parsed(move, tuple(problems), f"the blank submission: {describe(state, move)}",
                          {key: () for key, _ in move.parts()})
        return Parsed(None, tuple(problems), "nothing")
    move, row = replace(moves[choice.index], reserve_used=choice.periods), valid[choice.index]
    return Parsed(move, tuple(problems), f"row {row.row}, {choice.when}: {describe(state, move)}",
                  {key: (row.ref,) for key, _ in move.parts()})


def stamped_column(state: SpiritChainState) -> str | None:
    return STAMP if state.clock.window is not None else None


def settled(state: SpiritChainState, player: str, rows: Sequence[SubmitRow], window: Window) -> datetime | None:
    seat, clock = state.seat(player), state.clock
    if clock.window is None or window.opened is None or window.frozen is None:
        return None
    if not state.must_answer(seat):
        return window.opened
    moves = (_read_row(state, seat, row, window, True, []) for row in rows)
    times = [stamp or window.frozen for stamp, move in moves if move is not None]
    return clock.settled(times, window.opened, state.reserve[seat])


def boundaries(state: SpiritChainState, player: str, opened: datetime) -> list[datetime]:
    seat = state.seat(player)
    if not state.must_answer(seat):  # their latest row counts whenever it came
        return []
    return state.clock.boundaries(opened, state.reserve[seat])


def soonest_boundary(state: SpiritChainState) -> timedelta | None:
    return min((c.window for c in state.rules.clocks.values() if c.window is not None), default=None)


def _read_row(state: SpiritChainState, seat: Seat, row: SubmitRow, window: Window, timed: bool,
              problems: list[Problem]) -> tuple[datetime | None, SpiritChainSubmission | None]:
    """(time, submission) of one row, or (None, None) when the row is not a valid submission."""
    stamp = None
    if timed and not cells.is_blank(row.get(STAMP)):
        stamp = row.read(STAMP, lambda v: cells.as_time(v, "when you submitted"), problems,
                         "this row does not count")
        if stamp is None:
            return None, None
        at = cells.quote(row.get(STAMP))
        if window.opened and stamp < window.opened:
            problems.append(row.problem(STAMP, f"{at} is before this phase opened "
                                               f"({window.opened:%Y-%m-%d %H:%M:%S} UTC); this row does not count"))
            return None, None
        if window.frozen and stamp > window.frozen:
            problems.append(row.problem(STAMP, f"{at} is after the submissions were read "
                                               f"({window.frozen:%Y-%m-%d %H:%M:%S} UTC); this row does not count"))
            return None, None
    phase = state.phase
    for other in PHASES:
        for column in other.columns:
            if other is not phase and not cells.is_blank(row.get(column)):
                problems.append(row.problem(column, (
                    f"{cells.quote(row.get(column))} is for the {other.label}, but the {phase.label} is open: "
                    f"fill {', '.join(phase.columns)}; this row does not count")))
                return None, None
    reader = {Phase.AUCTION: _read_bids, Phase.UPGRADES: _read_upgrades, Phase.SLOTS: _read_slots}[phase]
    move = reader(state, seat, row, problems)
    return (stamp, move) if move is not None else (None, None)


def _read_bids(state: SpiritChainState, seat: Seat, row: SubmitRow,
               problems: list[Problem]) -> SpiritChainSubmission | None:
    if all(cells.is_blank(row.get(c)) for c in Phase.AUCTION.columns):  # a time alone says nothing
        problems.append(row.problem("bid 1", "no bid is filled: write your bids in 'bid 1' to 'bid 5' "
                                             "(0 to bid nothing on a card); this row does not count"))
        return None
    bids, lot = [], state.open_lot()
    for column, card in zip(Phase.AUCTION.columns, lot):
        bid = row.read(column, lambda v: 0 if cells.is_blank(v) else cells.as_int(
            v, 0, LANTERN, f"a bid in lights on {card.card}"), problems, "this row does not count")
        if bid is None:
            return None
        bids.append(bid)
    why = state.bids_problem(seat, tuple(bids))
    if why:
        problems.append(row.problem(None, f"{why}: this submission is invalid and does not count"))
        return None
    return SpiritChainSubmission(Phase.AUCTION, bids=tuple(bids))


def _read_upgrades(state: SpiritChainState, seat: Seat, row: SubmitRow,
                   problems: list[Problem]) -> SpiritChainSubmission | None:
    book, free = state.rules.cards, state.free(seat)
    raw = row.get("upgrade")
    text = cells.text(raw)
    word = text.casefold().replace("’", "'").strip(" .!")  # phones type a curly apostrophe

    def refuse(message: str) -> None:
        problems.append(row.problem("upgrade", f"{message}; this row does not count"))

    if not text:
        refuse("say no, yes, or the spirits to make (e.g. EARTH II, WIND IV from WIND III + FIRE III)")
        return None
    if word in NO_WORDS:
        return SpiritChainSubmission(Phase.UPGRADES)
    if not state.upgrades_due(seat):
        refuse(f"{cells.quote(text)}: no upgrade is available to you (your spirits: {cards_text(free)})")
        return None
    if word in YES_WORDS:
        made, fours = rules.forced_upgrades(book, free)
        if fours:
            refuse(f"'yes' cannot choose a Rank IV's element: name the upgrades, e.g. "
                   f"{', '.join(upgrade_text(u) for u in made + fours[:1])}")
            return None
        return SpiritChainSubmission(Phase.UPGRADES, upgrades=tuple(made))
    work, made = Counter(free), []
    for item in _upgrade_items(text):
        times, named = _times(item)
        target_text, _, partners_text = named.casefold().partition(" from ")
        try:
            target = book.read(target_text, "a spirit to make")
            partners = [book.read(p, "a Rank III spirit") for p in
                        partners_text.replace("&", "+").replace(" and ", "+").split("+") if p.strip()]
        except CellError as e:
            refuse(f"{cells.quote(item)}: {e}")
            return None
        if not times:
            refuse(f"{cells.quote(item)}: make a spirit once or more (e.g. {target.title} x2)")
            return None
        for _ in range(times):
            upgrade = _upgrade_for(book, target, partners, work)
            if isinstance(upgrade, str):
                refuse(f"{cells.quote(item)}: {upgrade}")
                return None
            why = rules.upgrade_problem(book, upgrade, work)
            if why:
                refuse(f"{cells.quote(item)}: {why}")
                return None
            work = rules.apply_upgrades(book, work, [upgrade])
            made.append(upgrade)
    return SpiritChainSubmission(Phase.UPGRADES, upgrades=tuple(made))


def _upgrade_for(book: CardBook, target: Card, partners: list[Card], free: Counter) -> Upgrade | str:
    """The upgrade a player names, or why it cannot be read."""
    if not target.is_spirit or target.rank is Rank.I:
        return f"{target.title} is not made by an upgrade (Rank II, III and IV spirits are)"
    if target.rank is not Rank.IV:
        upgrade = rules.upgrade_to(book, target)
        if partners and {p.title for p in partners} != set(upgrade.sources):
            return f"a {target.title} is made from {len(upgrade.sources)} {upgrade.sources[0]}"
        return upgrade
    if len(partners) > 2:
        return "a Rank IV is made from two Rank III spirits"
    if partners:
        return rules.upgrade_to(book, target, partners)
    options = {u.sources: u for u in rules.available_upgrades(book, free) if u.target == target.title}
    if len(options) == 1:
        return options.popitem()[1]
    if not options:
        return rules.upgrade_problem(book, rules.upgrade_to(book, target), free) or \
            f"no two Rank III spirits free to make {target.title}"
    return (f"name the two Rank III spirits it is made from, e.g. "
            f"{' or '.join(upgrade_text(u) for u in options.values())}")


def _read_slots(state: SpiritChainState, seat: Seat, row: SubmitRow,
                problems: list[Problem]) -> SpiritChainSubmission | None:
    book = state.rules.cards
    if all(cells.is_blank(row.get(c)) for c in Phase.SLOTS.columns):  # a time alone says nothing
        problems.append(row.problem("slot 1", "no slot is filled: write a card or 'empty' in 'slot 1' to "
                                              "'slot 3'; this row does not count"))
        return None
    used: Counter = Counter()
    slots = []
    for column in Phase.SLOTS.columns:
        raw = row.get(column)
        if is_empty_word(raw):
            slots.append(None)
            continue
        card = row.read(column, lambda v: book.read(v, "a card"), problems, "this row does not count")
        if card is None:
            return None
        title = card.title
        why = state.slot_problem(seat, title, used)
        if why:
            problems.append(row.problem(column, f"{why} (you may play: {cards_text(state.free(seat))}); "
                                                "this row does not count"))
            return None
        used[title] += 1
        slots.append(title)
    return SpiritChainSubmission(Phase.SLOTS, slots=tuple(slots))


def submit_rows(submission: SpiritChainSubmission) -> list[dict]:
    """How a submission is typed into the submit tab (the inverse of `parse`)."""
    row: dict[str, object] = {c: None for c in SUBMIT_TAB.header}
    if submission.phase is Phase.AUCTION:
        row.update(zip(Phase.AUCTION.columns, submission.bids))
    elif submission.phase is Phase.UPGRADES:
        row["upgrade"] = ", ".join(upgrade_text(u) for u in submission.upgrades) or "no"
    else:
        row.update(zip(Phase.SLOTS.columns, (t or "empty" for t in submission.slots)))
    return [row]


def _upgrade_items(text: str) -> list[str]:
    """The upgrades a cell names: separated by commas, semicolons or new lines, or by 'and', '&'
    or '+' where no 'from' follows (there they join a Rank IV's two Rank III spirits).

    >>> _upgrade_items("EARTH II and fire ii; WIND IV from WIND III + FIRE III")
    ['EARTH II', 'fire ii', 'WIND IV from WIND III + FIRE III']
    """
    items = []
    for chunk in re.split(r"[,;\n]", text):
        parts = [chunk] if re.search(r"\sfrom\s", chunk, re.IGNORECASE) else \
            re.split(r"\s+and\s+|[&+]", chunk, flags=re.IGNORECASE)
        items += [p.strip() for p in parts if p.strip()]
    return items


def _times(item: str) -> tuple[int, str]:
    """How many times an upgrade is named ('FIRE II x2', '2x FIRE II', '2 × FIRE II'), and the rest.

    >>> _times("FIRE II x2"), _times("2x Salamander"), _times("Phoenix"), _times("WIND IV from FIRE III")
    ((2, 'FIRE II'), (2, 'Salamander'), (1, 'Phoenix'), (1, 'WIND IV from FIRE III'))
    """
    m = re.fullmatch(r"(\d+)\s*(?:[x×*]\s+|[×*]\s*)(.+)", item, re.IGNORECASE)
    if m:
        return _count(m.group(1)), m.group(2)
    m = re.fullmatch(r"(.+?)(?:\s+[x×*]\s*|\s*[×*]\s*)(\d+)", item, re.IGNORECASE)
    return (_count(m.group(2)), m.group(1)) if m else (1, item)


def _count(digits: str) -> int:
    """A typed count; one past a million stands for any larger one (int() refuses 4,300 digits),
    which runs out of spirits, and is refused, all the same.

    >>> _count("007"), _count("9" * 5000)
    (7, 1000001)
    """
    return int(digits) if len(digits.lstrip("0")) <= 6 else 10**6 + 1
