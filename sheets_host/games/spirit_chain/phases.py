"""Spirit Chain's phase parts applied to the duel, each one engine round: the Auction, Summoning
part 1 (upgrades) and Summoning part 2 (slots: the summoning, after which the next cycle's
Auction is drawn unless the duel is over). The rules themselves are in `rules`; this applies them
to the state and writes the host's log.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from . import rules
from .cards import LANTERN, CardBook
from .state import Lot, LotResult, Phase, Played, Rules, SpiritChainState, SpiritChainSubmission, blank
from .views import summoning_lines, upgrade_text


def start(players: Sequence[str], r: Rules, rng: random.Random) -> SpiritChainState:
    """The duel before cycle 1's Auction: full lanterns, the whole reserve, empty decks."""
    return SpiritChainState(tuple(players), 1, Phase.AUCTION, (LANTERN, LANTERN), (r.reserve, r.reserve), ({}, {}),
                            ({}, {}), _lot(r.cards, 1, rng), (), r)


def _lot(book: CardBook, cycle: int, rng: random.Random) -> tuple[Lot, ...]:
    """A cycle's Auction: five cards drawn, open."""
    return tuple(Lot(cycle, k, c.title) for k, c in enumerate(book.draw_lot(rng), 1))


def resolve(state: SpiritChainState, submissions: Mapping[str, SpiritChainSubmission | None],
            rng: random.Random) -> tuple[SpiritChainState, list[str], tuple[SpiritChainSubmission, ...]]:
    """The open phase part with every player's submission (the blank one when missing or for
    another phase), after the reserve periods they cost; the state after it, the log, and the
    moves it took, by seat."""
    moves = []
    for player in state.players:
        move = submissions.get(player) or blank(state.phase)
        moves.append(move if move.phase is state.phase else blank(state.phase))
    reserve = tuple(max(0, r - m.reserve_used) for r, m in zip(state.reserve, moves))
    log = [f"{p} spends {m.reserve_used} reserve period{'s' if m.reserve_used != 1 else ''} ({r} left)"
           for p, m, r in zip(state.players, moves, reserve) if m.reserve_used]
    state = replace(state, reserve=reserve)
    resolver = {Phase.AUCTION: _auction, Phase.UPGRADES: _upgrades, Phase.SLOTS: _summoning}
    return resolver[state.phase](state, moves, rng, log), log, tuple(moves)


def _auction(state: SpiritChainState, moves: list[SpiritChainSubmission], rng: random.Random,
             log: list[str]) -> SpiritChainState:
    sales = rules.auction([m.bids for m in moves])
    open_lot = state.open_lot()
    decks = [Counter(d) for d in state.decks]
    lights = list(state.lights)
    closed = {}
    for lot, sale in zip(open_lot, sales):
        if sale.winner is None:
            closed[lot.number] = replace(lot, result=LotResult.TIE)
            log.append(f"card {lot.number} {lot.card}: tie, nobody wins it")
            continue
        decks[sale.winner][lot.card] += 1
        lights[sale.winner] -= sale.price
        closed[lot.number] = replace(lot, result=LotResult.WON, winner=sale.winner, price=sale.price)
        log.append(f"card {lot.number} {lot.card}: won by {state.players[sale.winner]} for {sale.price}")
    for p, m in zip(state.players, moves):
        log.append(f"{p} bid {', '.join(map(str, m.bids))}")
    lots = tuple(closed.get(lot.number, lot) if lot.result == LotResult.OPEN else lot for lot in state.lots)
    return replace(state, phase=Phase.UPGRADES, lights=tuple(lights), decks=tuple(decks), lots=lots)


def _upgrades(state: SpiritChainState, moves: list[SpiritChainSubmission], rng: random.Random,
              log: list[str]) -> SpiritChainState:
    book, decks = state.rules.cards, []
    for seat, move in enumerate(moves):
        free = rules.apply_upgrades(book, state.free(seat), move.upgrades)
        decks.append(free + Counter(state.locked[seat]))
        if move.upgrades:
            log.append(f"{state.players[seat]} makes {', '.join(upgrade_text(u) for u in move.upgrades)}")
    return replace(state, phase=Phase.SLOTS, decks=tuple(decks))


def _summoning(state: SpiritChainState, moves: list[SpiritChainSubmission], rng: random.Random,
               log: list[str]) -> SpiritChainState:
    book = state.rules.cards
    slots = [tuple(book[t] if t else None for t in m.slots) for m in moves]
    s = rules.summon(state.lights, slots)
    log.extend(summoning_lines(state.players, s))
    decks = tuple(+(Counter(state.decks[k]) - Counter(s.leaving[k])) for k in (0, 1))
    locked = tuple(Counter(s.locked[k]) for k in (0, 1))
    played = state.played + tuple(Played(state.cycle, k, moves[k].slots, s.lights[k]) for k in (0, 1))
    after = replace(state, cycle=state.cycle + 1, phase=Phase.AUCTION, lights=s.lights, decks=decks,
                    locked=locked, played=played)
    if not after.over:
        after = replace(after, lots=after.lots + _lot(book, after.cycle, rng))
    else:
        w, why = after.winner()
        log.append(f"{state.players[w]} wins the Death Match: {why}")
    return after
