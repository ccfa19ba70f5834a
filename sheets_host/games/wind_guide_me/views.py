"""What each reader sees of Wind Guide Me.

Public: each site's seating, occupied positions and stone count, and its total power once it holds
3 stones; never who placed a stone or its power. At the end: every stone's power, each site's
vector or why it failed, and the standings. Private: the player's stones left, open sites,
artefacts and missed rounds, their seating, and where each of their stones asked to go and landed.
Also what a player reads to submit (`how_to_submit`, the dropdowns) and the host's summary.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from sheets_host.kit.game import Example, Fate, HowTo, defaults_fired
from sheets_host.kit.result import MAIN_MATCH, POWER_OF_DARK, POWER_OF_LIGHT, TOKEN, Change, GameResult, Owed
from . import rounds, rules
from .read import SUBMIT_TAB, placement_text
from .rules import POSITIONS
from .state import (FAKE_PART, MISSED_PART, TITLE, Kind, Player, Site, WindState, WindSubmission, hand_text,
                    numbers_text)


def how_to_submit(state: WindState, player: Player) -> HowTo:
    s = state.settings
    if state.over:
        return HowTo(("The game is over: nothing to submit.",))
    hand, sites = state.hand(player), state.open_sites(player)
    lines = [f"Round {state.round} of {s.rounds}: place {s.per_round} stone(s), one row each.",
             "kind: stone for an ordinary wind stone from your hand (a blank kind also means stone).",
             "site: a site you sit at and have not used, a different one for each stone; "
             f"yours: {numbers_text(sites)}.",
             f"position: 1 is the top of the site's circle, then clockwise to {POSITIONS}.",
             f"stone: the power of a stone from your hand; your stones: {hand_text(hand)}.",
             "A position asked for by several stones goes to the player seated first clockwise from it "
             "(itself included).",
             "The other stones move clockwise to the next free position; your seats: the seating rows of "
             "your 'private' tab."]
    if state.light_ready(player):
        lines.append(f"Power of Light (once a game): on one stone's row, its new power in 'light' (up to "
                     f"{rules.LIGHT_REACH} away, {rules.MIN_POWER} to {rules.MAX_POWER}).")
    if state.dark_ready(player):
        lines.append("Power of Dark (once a game): one more row, kind fake, at a site you sit at where no "
                     "real stone of yours goes this round; 'stone' is its stated power.")
    return HowTo(tuple(lines), _examples(state, player),
                 f"nothing is placed and a penalty of {s.missed_penalty:g} is taken off your final score")


def _examples(state: WindState, player: Player) -> tuple[Example, ...]:
    """Example rows made of the player's own stones, open sites and free positions."""
    pool = sorted(state.hand(player).elements(), reverse=True)
    sites = state.open_sites(player)
    stones = [(site, _free_position(state, site, player), power)
              for site, power in zip(sites, pool)][:state.settings.per_round]
    if not stones:
        return ()
    header = tuple(SUBMIT_TAB.header)
    examples = [Example(header, tuple(("stone", str(site), str(position), str(power), "")
                                      for site, position, power in stones))]
    site, position, power = stones[0]
    if state.light_ready(player):
        new = power - 2 if power - 2 >= rules.MIN_POWER else power + 2
        examples.append(Example(header, (("stone", str(site), str(position), str(power), str(new)),),
                                f"with Power of Light, your {power} placed as a {new}"))
    if state.dark_ready(player):
        other = next(iter(state.fake_sites(player, {site for site, _, _ in stones})), None)
        if other is not None:
            examples.append(Example(header, (("fake", str(other), str(_free_position(state, other, player)),
                                              str(pool[-1]), ""),),
                                    f"a fake stone (any stated power from {rules.MIN_POWER} to {rules.MAX_POWER})"))
    return tuple(examples)


def _free_position(state: WindState, site: Site, player: Player) -> int:
    """The player's own seat at `site` when free, else the first free position (for examples)."""
    seat = state.sites[site - 1].index(player) + 1
    board = state.boards[site]
    return next((k for k in (seat, *range(1, POSITIONS + 1)) if k not in board), seat)


def submit_choices(state: WindState, player: Player) -> dict[str, list[str]]:
    """The submit tab's dropdowns: what the state allows `player` this round."""
    if state.over:
        return {}
    hand = state.hand(player)
    dark = state.dark_ready(player)
    sites = state.seated_sites(player) if dark else state.open_sites(player)
    powers = range(rules.MIN_POWER, rules.MAX_POWER + 1)
    choices = {"kind": [k.value for k in Kind] if dark else [Kind.STONE.value],
               "site": [str(n) for n in sites],
               "position": [str(k) for k in range(1, POSITIONS + 1)],
               "stone": [str(p) for p in powers if dark or hand[p] > 0]}
    if state.light_ready(player):
        choices["light"] = [str(p) for p in powers
                            if any(state.light_refusal(player, h, p) is None for h in hand if hand[h] > 0)]
    return choices


def public_view(state: WindState) -> dict[str, pd.DataFrame]:
    over = state.over
    act = rounds.activations(state) if over else {}
    rows = []
    for n, seats in enumerate(state.sites, 1):
        board = state.boards[n]
        row = {"site": n, **{f"position {k}": p for k, p in enumerate(seats, 1)},
               "occupied": ", ".join(str(p) for p in sorted(board)) or "none", "stones": len(board),
               "total power": rules.total_power(board) if len(board) >= 3 else None}
        if over:
            a = act[n]
            row.update({"powers by position": " ".join(str(board[k].power) if k in board else "-"
                                                       for k in range(1, POSITIONS + 1)),
                        "failed": a.failed or "", "length": None if a.failed else a.length,
                        "angle (degrees clockwise from position 1)": None if a.direction is None else
                        round((90 - math.degrees(a.direction)) % 360, 2)})
        rows.append(row)
    tabs = {"sites": pd.DataFrame(rows)}
    if over:
        tabs["standings"] = standings(state)
    return tabs


def private_view(state: WindState, player: Player) -> dict[str, pd.DataFrame]:
    mine = [p for p in state.placed if p.stone.player == player]
    stones = pd.DataFrame([{
        "round": p.stone.round, "site": p.site, "asked": p.stone.asked, "placed at": p.position,
        "kind": Kind.of(p.stone).value, "from hand": p.stone.from_hand or None,
        "power": p.stone.power, "status": f"gone in round {p.gone}" if p.gone else "standing"}
        for p in mine], columns=["round", "site", "asked", "placed at", "kind", "from hand", "power", "status"])
    me = [("round to play", state.round if not state.over else "game over"),
          ("stones left", hand_text(state.hand(player))),
          ("open sites", numbers_text(state.open_sites(player))),
          ("Power of Light", _artefact(player in state.settings.light_holders, state.light_ready(player))),
          ("Power of Dark", _artefact(player in state.settings.dark_holders, state.dark_ready(player))),
          ("missed rounds", state.missed_rounds(player)),
          ("contested positions", "a position asked for by several stones goes to the player seated first "
                                  "clockwise from it (itself included); the others move on clockwise")]
    used = {p.site: p.stone.round for p in mine if not p.stone.fake}
    for n in state.seated_sites(player):
        seats, board = state.sites[n - 1], state.boards[n]
        me.append((f"seating, site {n}",
                   ", ".join(f"{k} {p}" + (" (you)" if p == player else "") for k, p in enumerate(seats, 1))
                   + f"; occupied: {', '.join(map(str, sorted(board))) or 'none'}; "
                   + (f"you used it in round {used[n]}" if n in used else "open to you")))
    return {"private": pd.DataFrame(me, columns=["what", "value"]), "my stones": stones}


def fates(before: WindState, after: WindState,
          submissions: Mapping[Player, WindSubmission | None]) -> dict[Player, list[Fate]]:
    """What the round just played did with each part of each player's submission, read from where
    their stones landed (`after.placed`): a stone moved on clockwise says where to; a fake that
    found no room at a full site did not count; one that stands says when it went, if it went at
    once; a player who placed nothing has the missed round."""
    r, last = before.round, before.round == before.settings.rounds
    out = {}
    for player in after.players:
        if (r, player) in after.missed:
            out[player] = [Fate(MISSED_PART, f"nothing placed: a penalty of {after.settings.missed_penalty:g} off "
                                             "your final score")]
            continue
        landed = {(p.site, p.stone.fake): p for p in after.placed if p.stone.player == player and p.stone.round == r}
        out[player] = []
        for key, asked in submissions[player].parts():
            fake = key == FAKE_PART
            what, placed = placement_text(asked, fake), landed.get((asked.site, fake))
            if placed is None:  # only a fake finds no room: a site's five seats fit every real stone
                out[player].append(Fate(key, what, f"site {asked.site} was full: no position was left for it"))
                continue
            if placed.position != asked.position:
                what += f", moved on to position {placed.position}"
            if placed.gone:
                what += "; gone at the end of the " + ("game" if last else "round: its site holds 4 stones")
            out[player].append(Fate(key, what))
    return out


def _artefact(held: bool, ready: bool) -> str:
    return "not held" if not held else ("ready" if ready else "used")


def announcement(before: WindState, after: WindState) -> str:
    r = before.round
    lines = [f"## {TITLE}: round {r} of {after.settings.rounds} resolved", "",
             "| site | occupied positions | stones | total power |", "|---:|---|---:|---:|"]
    for n in range(1, len(after.sites) + 1):
        board = after.boards[n]
        total = rules.total_power(board) if len(board) >= 3 else "hidden"
        lines.append(f"| {n} | {', '.join(map(str, sorted(board))) or '-'} | {len(board)} | {total} |")
    if after.over:
        lines += ["", "### Final standings", "", "| rank | player | score | result |", "|---:|---|---:|---|"]
        for row in standings(after).itertuples():
            lines.append(f"| {row.rank} | {row.player} | {row.score:.2f} | {row.result} |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Ending:
    """The end as the rules decide it: the one home of the standings and the season's `result`."""

    scores: Mapping[Player, tuple[float, float, float]]  # distance, penalty, score
    winners: Sequence[Player]  # tied for the highest score
    lowest: Sequence[Player]  # tied for the lowest score
    tokens: int  # Tokens of Life each winner earns
    candidate: Player | None  # None while the winners' choice among the tied lowest is awaited


def ending(state: WindState) -> Ending:
    scores = rounds.scores(state)
    winners, lowest = rules.top_and_bottom({p: s for p, (_, _, s) in scores.items()})
    ec = state.settings.elimination_candidate
    candidate = lowest[0] if len(lowest) == 1 else ec if ec in lowest else None
    return Ending(scores, winners, lowest, rules.tokens_of_life(winners), candidate)


def standings(state: WindState) -> pd.DataFrame:
    end = ending(state)
    final = {p: s for p, (_, _, s) in end.scores.items()}
    order = sorted(state.players, key=lambda p: -final[p])
    rows = []
    for player in order:
        distance, penalty, score = end.scores[player]
        rank = 1 + sum(1 for q in state.players if final[q] > final[player] + rules.EXACT)
        if player in end.winners:
            result = f"winner: {end.tokens} Token{'s' if end.tokens != 1 else ''} of Life" if end.tokens else \
                     "winner (more than 3 tied: immunity negated)"
        elif player == end.candidate:
            result = "Elimination Candidate"
        elif player in end.lowest and end.candidate is None:
            result = "tied for lowest: the winners choose the Elimination Candidate"
        else:
            result = ""
        rows.append({"rank": rank, "player": player, "distance": round(distance, 2),
                     "missed rounds": state.missed_rounds(player), "penalty": round(penalty, 2),
                     "score": round(score, 2), "result": result})
    return pd.DataFrame(rows)


def result(state: WindState) -> GameResult | None:
    """What the game gives the season: the winners' Tokens of Life, the Elimination Candidate (the
    winners' choice owed while the lowest tie and the host has not typed it), and each artefact
    used, given up."""
    if not state.over:
        return None
    end = ending(state)
    why = ("the sole winner earns 2 Tokens of Life" if len(end.winners) == 1
           else f"{len(end.winners)} tied for the highest score: a Token of Life each")
    changes = [Change(p, TOKEN, end.tokens, why) for p in end.winners if end.tokens]
    for artefact, used in ((POWER_OF_LIGHT, state.light_used), (POWER_OF_DARK, state.dark_used)):
        changes += [Change(p, artefact, -1, f"used in round {r}") for p in state.players if (r := used(p))]
    owed = () if end.candidate else (Owed(tuple(end.winners), "the Elimination Candidate", tuple(end.lowest),
                                          "elimination candidate"),)
    return GameResult(MAIN_MATCH, tuple(state.players), tuple(end.winners), tuple(changes),
                      (end.candidate,) if end.candidate else (), owed=owed)


def summary(state: WindState) -> dict[str, float]:
    act = rounds.activations(state)
    end = ending(state)
    final = [s for _, _, s in end.scores.values()]
    return {"failed sites": sum(1 for a in act.values() if a.failed), "winning score": max(final),
            "lowest score": min(final), "tied winners": float(len(end.winners) > 1),
            **defaults_fired({MISSED_PART: len(state.missed)})}
