"""What Spirit Chain shows: how to submit and the cells' choices, the public `duel`, `auctions`,
`summonings` and `cards` tabs, each player's `my duel` and `inventory`, what the resolver did
with each part of each submission (`fates`), the announcement of a phase part, the standings,
and what `simulate` measures.

Decks, locks and reserve time are a player's secrets: they appear in their own views only. Of an
Auction only the winning bids and the ties are public.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from sheets_host.kit.game import Example, Fate, HowTo
from sheets_host.kit.layout import Palette, tint
from sheets_host.kit.result import DEATH_MATCH, ELIMINATION, Change, GameResult
from . import colours, rules
from .cards import Card, CardBook, Element, Rank, Title
from .rules import SLOTS, Seat, Summoning, Upgrade
from .state import RESERVE_TIME, Lot, LotResult, Phase, Played, SpiritChainState, SpiritChainSubmission
from .timing import STAMP

# ---- what to submit ------------------------------------------------------------------------


def how_to_submit(state: SpiritChainState, player: str) -> HowTo:
    if state.over:
        return HowTo(("The duel is over: nothing to submit.",))
    seat, phase = state.seat(player), state.phase
    now = f"Cycle {state.cycle}, {phase.label}"
    if not state.must_answer(seat):
        return HowTo((f"{now}: nothing to submit, {nothing_due(state)}.",))
    timed = state.clock.window is not None
    lines = [f"{now}: one row is one submission, complete in itself (like one message).",
             f"'{STAMP}': when you submitted, in UTC, e.g. 2026-11-23 18:00:05; blank means the time the row "
             "is first read.",
             *((f"Window: {timing_text(state)}.",
                "The latest valid row within the window counts, else the earliest valid one in reserve time.")
               if timed else ("Time controls are off: your last valid row counts.",))]
    free, book = state.free(seat), state.rules.cards
    if phase is Phase.AUCTION:
        lights = state.lights[seat]
        first = min(3, lights)
        typed = {"bid 1": str(first), "bid 3": str(min(5, lights - first))}
        lines += ["'bid 1' to 'bid 5': the lights you bid on each card (blank is 0); losing bids are refunded.",
                  f"Your bids may total at most your {lights} lights; tied bids win nobody the card.",
                  _fit("Cards: ", [f"{lot.number} {lot.card}" for lot in state.open_lot()])]
        default = "you bid 0 on every card"
    elif phase is Phase.UPGRADES:
        due = state.upgrades_due(seat)
        typed = {"upgrade": upgrade_text(due[0])}
        lines += ["'upgrade': no, yes, or the spirits to make, comma-separated (e.g. FIRE II x2).",
                  "You must answer: with an upgrade available, silence spends your reserve time.",
                  "yes makes every upgrade whose result is forced; a Rank IV needs its two Rank III named.",
                  _fit("Upgrades your cards allow: ", [upgrade_text(u) for u in due])]
        default = "no upgrade"
    else:
        titles = [t for t, _ in book.in_order(free)]
        typed = dict(zip(Phase.SLOTS.columns, (titles + ["empty"] * SLOTS)[:SLOTS]))
        lines += ["'slot 1' to 'slot 3': a card of your deck each (ELEMENT RANK such as FIRE II, or a name).",
                  "Blank or 'empty' leaves a slot empty; a card in two slots needs two copies.",
                  _fit("Cards you may play: ", [f"{t} x{n}" if n > 1 else t for t, n in book.in_order(free)])]
        default = "every slot is empty"
    header = (STAMP, *phase.columns)  # the columns this part reads; the tab's others stay blank
    return HowTo(tuple(lines), (Example(header, (tuple(typed.get(c, "") for c in header),)),), default)


def submit_choices(state: SpiritChainState, player: str) -> dict[str, list[str]]:
    if state.over:
        return {}
    seat = state.seat(player)
    if state.phase is Phase.UPGRADES:
        due = state.upgrades_due(seat)
        if not due:
            return {}
        _, fours = rules.forced_upgrades(state.rules.cards, state.free(seat))
        words = ["no"] + ([] if fours else ["yes"])  # 'yes' cannot choose a Rank IV's element
        return {"upgrade": list(dict.fromkeys(words + [upgrade_text(u) for u in due]))}
    if state.phase is Phase.SLOTS:
        titles = [t for t, _ in state.rules.cards.in_order(state.free(seat))]
        return {c: titles + ["empty"] for c in Phase.SLOTS.columns} if titles else {}
    return {}


# The columns naming an element or a card: the cards' and a hand's, the auctions', the slots a
# summoning fills (each player's, in the public `summonings`), and what a player types in them.
CARD_COLUMNS = ("element", "card", *(f"slot {k}" for k in range(1, SLOTS + 1)), "* played")


def palettes() -> tuple[Palette, ...]:
    """Elements in the picture's card colours, and every spirit (ELEMENT RANK) in its element's,
    where a column names an element or a card."""
    out = {"neutral": tint(colours.COLOURS[None])}
    for element in Element:
        colour = tint(colours.COLOURS[element])
        out[element.value] = colour
        out.update({f"{element.name} {rank.name}": colour for rank in Rank})
    return (Palette(out, CARD_COLUMNS),)


def describe(state: SpiritChainState, move: SpiritChainSubmission) -> str:
    """One line saying what will count, part by part."""
    return "; ".join(what for _, what in what_parts(state, move))


def what_parts(state: SpiritChainState, move: SpiritChainSubmission) -> list[tuple[str, str]]:
    """Each part of `move` (`SpiritChainSubmission.parts`), as the player reads it before the
    phase part is resolved."""
    lot = {f"bid {lot.number}": lot for lot in state.open_lot()}
    out = []
    for key, value in move.parts():
        if key in lot:
            bid = f"bid {value}" if value else "no bid"  # a bid of 0 is no bid
            out.append((key, f"{bid} on card {lot[key].number} ({lot[key].card})"))
        elif key == RESERVE_TIME:
            out.append((key, f"costs {value} reserve period{'s' if value != 1 else ''}"))
        elif move.phase is Phase.UPGRADES:
            out.append((key, f"upgrade to {upgrade_text(value)}" if value else "no upgrade"))
        else:
            out.append((key, f"{key} {value or 'empty'}"))
    return out


def fates(before: SpiritChainState, after: SpiritChainState,
          moves: Sequence[SpiritChainSubmission]) -> dict[str, list[Fate]]:
    """What the phase part just resolved did with each part of the move it took from each player
    (`phases.resolve`'s): a bid won counts, and one outbid or tied is refunded and does not; each
    upgrade is made; each slot's card is played, and its fate is the summoning's; the reserve
    periods are spent. From the state the resolver made: the lots' results, the summoning's."""
    closed = {f"bid {lot.number}": lot for lot in after.lots if lot.cycle == before.cycle} \
        if before.phase is Phase.AUCTION else {}
    played = after.last_summoning() if before.phase is Phase.SLOTS else None
    slotted = dict(zip(Phase.SLOTS.columns, clashes(after, *played))) if played else {}
    out = {}
    for seat, (player, move) in enumerate(zip(before.players, moves)):
        told = []
        for (key, value), (_, what) in zip(move.parts(), what_parts(before, move)):
            if key in closed:
                told.append(_bid_fate(after, seat, key, what, closed[key], value))
            elif key in slotted:
                told.append(Fate(key, f"{key} {_played_text(slotted[key], seat)}"))
            elif key == RESERVE_TIME:
                told.append(Fate(key, f"{what} ({after.reserve[seat]} left)"))
            else:
                told.append(Fate(key, what))
        out[player] = told
    return out


def _bid_fate(after: SpiritChainState, seat: Seat, key: str, what: str, lot: Lot, bid: int) -> Fate:
    """A bid won counts; one outbid or tied does not, and is refunded; no bid is just that."""
    card = f"card {lot.number} ({lot.card})"
    if lot.winner == seat:
        return Fate(key, f"{what}: won for {lot.price}")
    if not bid:
        return Fate(key, what)
    if lot.result == LotResult.TIE:
        return Fate(key, what, f"tied bids on {card}: nobody wins it, your bid is refunded")
    return Fate(key, what, f"{after.players[lot.winner]} won {card} for {lot.price}, your bid is refunded")


# ---- the end -----------------------------------------------------------------------------


def standings(state: SpiritChainState) -> pd.DataFrame:
    w, why = state.winner()
    order = [w, 1 - w] if w is not None else sorted((0, 1), key=lambda k: -state.lights[k])
    rows = []
    for rank, k in enumerate(order, 1):
        if w is None:
            rank = 1 + sum(1 for j in (0, 1) if state.lights[j] > state.lights[k])
        result = "" if w is None else (f"winner: {why}" if k == w else "loses the Death Match")
        rows.append({"rank": rank, "player": state.players[k], "lights": state.lights[k], "result": result})
    return pd.DataFrame(rows, columns=["rank", "player", "lights", "result"])


def result(state: SpiritChainState) -> GameResult | None:
    """What the Death Match gives the season: its loser leaves it."""
    end = state.end()
    if end is None:
        return None
    winner, loser = state.players[end.winner], state.players[1 - end.winner]
    return GameResult(DEATH_MATCH, tuple(state.players), (winner,),
                      (Change(loser, ELIMINATION, 1, "lost the Death Match"),), loser=loser)


def summary(state: SpiritChainState) -> dict[str, float]:
    end = state.end()
    w = end.winner
    return {"summonings": float(len(state.played) // 2), "ended at the cycle cap": float(end.ending.at_cap),
            "decided by the Death Match Opponent": float(end.ending.by_opponent),
            "winner's lights": float(state.lights[w]), "loser's lights": float(state.lights[1 - w])}


# ---- the books ---------------------------------------------------------------------------


def timing_text(state: SpiritChainState) -> str:
    clock = state.clock
    if clock.window is None:
        return "time controls off: your last valid row counts"
    return (f"{clock.window.total_seconds():g} s from the opening, then reserve time "
            f"({clock.period.total_seconds():g} s periods)")


def phase_text(state: SpiritChainState) -> str:
    return "the duel is over" if state.over else f"{state.phase.label}, cycle {state.cycle}"


def public_view(state: SpiritChainState) -> dict[str, pd.DataFrame]:
    p = state.players
    w, why = state.winner()
    duel = [("phase open", phase_text(state)),
            ("time to submit", "" if state.over else timing_text(state)),
            *((f"{p[k]}: lights", state.lights[k]) for k in (0, 1)),
            ("Death Match Opponent", p[state.rules.opponent]),
            ("result", f"{p[w]} wins the Death Match: {why}" if w is not None else "")]
    book = state.rules.cards
    auctions = pd.DataFrame([{
        "cycle": lot.cycle, "card no": lot.number, "card": lot.card, "name": book[lot.card].name,
        "effect": str(book[lot.card].effect), "result": _lot_text(state, lot)} for lot in state.lots],
        columns=["cycle", "card no", "card", "name", "effect", "result"])
    return {"duel": _pairs(duel), "auctions": auctions, "summonings": _summonings(state),
            "cards": _card_table(book)}


def _summonings(state: SpiritChainState) -> pd.DataFrame:
    a, b = state.players
    columns = ["cycle", "slot", f"{a} played", f"{a}: what happened", f"{b} played", f"{b}: what happened"]
    rows = []
    pairs = [state.played[i:i + 2] for i in range(0, len(state.played), 2)]
    for first, second in pairs:
        one, two = (first, second) if first.seat == 0 else (second, first)
        for k, c in enumerate(clashes(state, one, two), 1):
            rows.append([one.cycle, k, c.cards[0] and c.cards[0].title, _fate_text(c, 0),
                         c.cards[1] and c.cards[1].title, _fate_text(c, 1)])
        rows.append([one.cycle, "lights after", one.lights, "", two.lights, ""])
    return pd.DataFrame(rows, columns=columns, dtype=object)


def private_view(state: SpiritChainState, player: str) -> dict[str, pd.DataFrame]:
    seat, book = state.seat(player), state.rules.cards
    other = state.players[1 - seat]
    free = state.free(seat)
    due = rules.available_upgrades(book, free)
    mine = [("player", player), ("phase open", phase_text(state)),
            ("submit now", "" if state.over else _instructions(state, seat)),
            ("time to submit", "" if state.over else timing_text(state)),
            ("reserve time left", f"{state.reserve[seat]} period{'s' if state.reserve[seat] != 1 else ''} of "
                                  f"{state.clock.period.total_seconds():g} s"),
            ("my lights", state.lights[seat]), (f"{other}'s lights", state.lights[1 - seat]),
            ("upgrades my cards allow (made in Summoning part 1)", ", ".join(upgrade_text(u) for u in due) or "none"),
            ("imprisoned this summoning", cards_text(state.locked[seat]))]
    inventory = pd.DataFrame([{
        "card": t, "name": book[t].name, "element": book[t].element.name if book[t].element else "neutral",
        "rank": book[t].rank.name if book[t].rank else "", "effect": str(book[t].effect), "count": n,
        "imprisoned": state.locked[seat].get(t, 0)} for t, n in book.in_order(state.decks[seat])],
        columns=["card", "name", "element", "rank", "effect", "count", "imprisoned"])
    return {"my duel": _pairs(mine), "inventory": inventory}


def nothing_due(state: SpiritChainState) -> str:
    """Why a duellist who need not answer (`must_answer`) has nothing to submit."""
    return "no upgrade is available to you" if state.phase is Phase.UPGRADES else "you have no card to play"


def _instructions(state: SpiritChainState, seat: Seat) -> str:
    if state.phase is Phase.AUCTION:
        cards = "; ".join(f"bid {lot.number}: {lot.card}" for lot in state.open_lot())
        return f"your bids, at most {state.lights[seat]} lights in all ({cards})"
    if not state.must_answer(seat):
        return f"nothing: {nothing_due(state)}"
    if state.phase is Phase.UPGRADES:
        return "'upgrade': no, yes, or the spirits to make (you must say yes or no)"
    return f"'slot 1' to 'slot 3': cards you may play: {cards_text(state.free(seat))}"


def announcement(title: str, before: SpiritChainState, after: SpiritChainState) -> str:
    p = after.players
    lines = [f"## {title}: cycle {before.cycle}, {before.phase.label} resolved", ""]
    if before.phase is Phase.AUCTION:
        lines += ["| card | | result |", "|---:|---|---|"]
        for lot in after.lots:
            if lot.cycle == before.cycle:
                lines.append(f"| {lot.number} | {_card_label(after.rules.cards[lot.card])} | {_lot_text(after, lot)} |")
    elif before.phase is Phase.UPGRADES:
        lines.append("Upgrades are private: each player's inventory is in their own book.")
    else:
        one, two = after.last_summoning()
        lines += [f"| slot | {p[0]} | {p[1]} |", "|---:|---|---|"]
        for k, c in enumerate(clashes(after, one, two), 1):
            lines.append(f"| {k} | {_played_text(c, 0)} | {_played_text(c, 1)} |")
    lines += ["", "Lights: " + ", ".join(f"**{p[k]}** {after.lights[k]}" for k in (0, 1)), ""]
    w, why = after.winner()
    if w is not None:
        lines.append(f"### {p[w]} wins the Death Match: {why}")
    else:
        lines.append(f"**Now open: {phase_text(after)}**; {timing_text(after)}.")
        if after.phase is Phase.AUCTION:
            lines.append("Cards: " + ", ".join(f"{lot.number}. {lot.card}" for lot in after.open_lot()))
    return "\n".join(lines) + "\n"


def summoning_lines(players: Sequence[str], s: Summoning) -> list[str]:
    """The host's log of a summoning: each slot pair, then each player's damage, heals and lights."""
    lines = [f"slot {k}: {players[0]}'s {_played_text(c, 0)}; {players[1]}'s {_played_text(c, 1)}"
             for k, c in enumerate(s.clashes, 1)]
    lines += [f"{players[k]} takes {s.damage[k]} damage and heals {s.healed[k]}: {s.lights[k]} lights"
              for k in (0, 1)]
    return lines


# ---- text of the parts -------------------------------------------------------------------


def clashes(state: SpiritChainState, one: Played, two: Played) -> tuple[rules.Clash, ...]:
    """What a summoning did in each slot, from the cards played (the state does not store it)."""
    book = state.rules.cards
    return tuple(rules.clash(a and book[a], b and book[b]) for a, b in zip(one.slots, two.slots))


def _fate_text(c: rules.Clash, side: Seat) -> str:
    card, fate = c.cards[side], c.fates[side]
    if card is None:
        return "empty"
    parts = [fate.value]
    if fate is rules.Fate.RESOLVED and c.failed[side]:
        parts.append("failed")
    if c.imprisons[side]:
        parts.append("imprisons the opposing spirit")
    if not card.is_spirit and fate is not rules.Fate.DESTROYED:
        parts.append("used up" if c.leaves_deck(side) else "kept")
    return ", ".join(parts)


def _played_text(c: rules.Clash, side: Seat) -> str:
    card = c.cards[side]
    return "empty" if card is None else f"{card.title}: {_fate_text(c, side)}"


def _lot_text(state: SpiritChainState, lot: Lot) -> str:
    if lot.result == LotResult.OPEN:
        return "open: bid now"
    if lot.result == LotResult.TIE:
        return "tied bids: nobody wins it"
    return f"won by {state.players[lot.winner]} for {lot.price}"


def _card_label(card: Card) -> str:
    """'EARTH I (Pixie): damage 3; shield 4', or 'SMITE: damage 12'."""
    name = f" ({card.name})" if card.name != card.title else ""
    return f"{card.title}{name}: {card.effect}"


def upgrade_text(u: Upgrade) -> str:
    return f"{u.target} from {' + '.join(u.sources)}" if u.target.endswith(" IV") else u.target


def cards_text(deck: Mapping[Title, int]) -> str:
    return ", ".join(f"{t} x{n}" if n > 1 else t for t, n in sorted(deck.items()) if n) or "none"


def _fit(prefix: str, items: Sequence[str], width: int = 150) -> str:
    """`prefix` and the items, comma-separated, as many as fit in about `width` characters.

    >>> _fit("Cards: ", ["EARTH I", "FIRE II"]), _fit("", ["EARTH I"] * 40, 30)
    ('Cards: EARTH I, FIRE II.', 'EARTH I, EARTH I and 38 more.')
    """
    shown: list[str] = []
    for item in items:
        left = len(items) - len(shown) - 1
        tail = f" and {left} more" if left else ""
        if shown and len(prefix) + len(", ".join(shown + [item])) + len(tail) + 1 > width:
            return f"{prefix}{', '.join(shown)} and {len(items) - len(shown)} more."
        shown.append(item)
    return f"{prefix}{', '.join(shown) or 'none'}."


def _pairs(rows: Sequence[tuple[str, object]]) -> pd.DataFrame:
    return pd.DataFrame([list(r) for r in rows], columns=["what", "value"], dtype=object)


def _card_table(book: CardBook) -> pd.DataFrame:
    return pd.DataFrame([{"card": c.title, "name": c.name, "element": c.element.name if c.element else "neutral",
                          "rank": c.rank.name if c.rank else "", "effect": str(c.effect),
                          "auction weight": c.weight} for c in book.cards])
