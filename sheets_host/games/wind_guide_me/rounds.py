"""A round of Wind Guide Me played on the whole state, and the scores it leads to.

The single rules (placing stones, fakes disappearing, a site's activation, a score) are in
`rules.py`, over small values; this module puts them together on the state, so the imports go one
way: rules <- state <- rounds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from .rules import Activation, Placed, Request, activate, fakes_disappear, place_stones, score, without_fakes
from .state import WindState, WindSubmission


def play_round(state: WindState, submissions: Mapping[str, WindSubmission | None]) -> tuple[WindState, list[str]]:
    """One round, every submission at once: the stones asking for each site are placed together
    (`place_stones`); a player with no stone places nothing (a missed round). Fakes disappear at
    the start of the last round, after the placing wherever their site holds 4 stones
    (`fakes_disappear`), and at the end of the last round (the game is over). Returns the new
    state and the host's log."""
    r, log = state.round, []
    last = r == state.settings.rounds
    placed = list(state.placed)
    if last:
        placed = _fakes_gone(placed, r, lambda p: True, log, "at the start of the last round")
    boards = {n: without_fakes(board) if last else board for n, board in state.boards.items()}
    requests: dict[int, list[Request]] = {}
    missed = list(state.missed)
    for player in state.players:
        submission = submissions.get(player)
        if submission is None or submission.missed or not submission.stones:
            missed.append((r, player))
            log.append(f"{player} placed nothing: missed-round penalty")
            continue
        for s in submission.stones:
            requests.setdefault(s.site, []).append(Request(player, s.position, s.power, False, s.from_hand))
        if submission.fake:
            f = submission.fake
            requests.setdefault(f.site, []).append(Request(player, f.position, f.power, True, 0))
    for site, site_requests in sorted(requests.items()):
        before = boards[site]
        after = place_stones(state.sites[site - 1], before, site_requests, r)
        for position, stone in before.items():
            if after.get(position) is not stone:  # a fake yielded to a real stone
                placed = [Placed(p.site, p.position, p.stone, r)
                          if (p.site, p.position, p.stone, p.gone) == (site, position, stone, 0) else p
                          for p in placed]
                log.append(f"site {site}: {stone.player}'s fake stone at position {position} yields")
        for position, stone in sorted(after.items()):
            if before.get(position) is not stone:
                placed.append(Placed(site, position, stone))
                kind = "fake stone" if stone.fake else "stone"
                log.append(f"site {site}: {stone.player}'s {kind} of power {stone.power} asked for "
                           f"position {stone.asked}, placed at {position}")
        for request in site_requests:
            if request.fake and not any(s.fake and s.player == request.player for s in after.values()):
                log.append(f"site {site}: {request.player}'s fake stone found no room")
        boards[site] = after
    placed = _fakes_gone(placed, r, lambda p: p.position not in fakes_disappear(boards[p.site]), log,
                         "its site holds 4 stones")
    if last:
        placed = _fakes_gone(placed, r, lambda p: True, log, "the game is over")
    return replace(state, placed=tuple(placed), missed=tuple(missed)), log


def _fakes_gone(placed: list[Placed], r: int, which: Callable[[Placed], bool], log: list[str],
                why: str) -> list[Placed]:
    """`placed` with every standing fake that `which` picks gone in round `r`, each logged."""
    out = []
    for p in placed:
        if p.stone.fake and not p.gone and which(p):
            log.append(f"site {p.site}: {p.stone.player}'s fake stone at position {p.position} disappears ({why})")
            p = Placed(p.site, p.position, p.stone, r)
        out.append(p)
    return out


def activations(state: WindState) -> dict[int, Activation]:
    """Every site's activation, from the stones standing at the end."""
    return {n: activate(board, state.settings.collapse_over) for n, board in state.boards.items()}


def scores(state: WindState) -> dict[str, tuple[float, float, float]]:
    """player -> (distance, penalty, score), full precision."""
    act = activations(state)
    out = {}
    for player in state.players:
        vectors = [(act[n].x, act[n].y) for n in sorted(state.used_sites(player)) if not act[n].failed]
        penalty = state.missed_rounds(player) * state.settings.missed_penalty
        distance = score(vectors, 0.0)
        out[player] = (distance, penalty, distance - penalty)
    return out
