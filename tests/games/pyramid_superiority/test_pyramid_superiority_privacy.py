"""Who sees what, tested as non-interference: change the secrets of one meadow or one participant,
keeping what the text makes public, and every view that may not see them stays the same."""

from dataclasses import replace

import pandas as pd
import pytest

from sheets_host.games.pyramid_superiority.meadows import ROUNDS, Meadow, Transfer

from .test_pyramid_superiority_game import GAME, NAMES, bot_game

GAMES = range(4)


@pytest.fixture(scope="module")
def histories():
    from sheets_host.engine.play import default_settings

    config = {**default_settings(GAME)["config"], "garnets": "Ada: 4, Blaise: 0, Cora: 9"}
    return [bot_game(seed, config=config) for seed in GAMES]


def same(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame]) -> bool:
    return a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a)


def views(state, picture: bool):
    """Every view of `state` by reader: the public (its tabs; the picture if asked, since it is slow
    to draw; the announcement is checked apart), each participant's book and each meadow's book."""
    out = {"public": GAME.public_view(state)}
    if picture:
        out["picture"] = GAME.picture(state)
    out.update({f"player:{n}": GAME.private_view(state, n) for n in NAMES})
    out.update({role: GAME.group_view(state, role) for role in GAME.groups(state)})
    return out


_SEEN: dict[tuple[int, bool], dict] = {}


def changed(state, twin, picture: bool = False) -> set[str]:
    """The readers whose view of `twin` differs from their view of `state`."""
    if (id(state), picture) not in _SEEN:  # the histories live as long as the module: ids stay theirs
        _SEEN[(id(state), picture)] = views(state, picture)
    a, b = _SEEN[(id(state), picture)], views(twin, picture)
    return {role for role in a if not (a[role] == b[role] if role == "picture" else same(a[role], b[role]))}


def meadow_twin(state, meadow: Meadow):
    """The meadow's secrets changed, what is public kept: the pieces its guests hold now, losing bids
    (lowered to 0 while below the winner's), who tried which star cell (the attempts permuted), and
    the proposer's dealt piece with a paid rotation traded for the proposed piece unrotated."""
    r, guests = state.days, state.settings.meadows[meadow]
    result = state.ledger.proposed[(r, meadow)]
    pieces, proposals = dict(state.pieces), dict(state.proposals)
    if r < ROUNDS:
        for g in guests:
            pieces[(r + 1, g)] = pieces[(r + 1, g)].rotated(1)
    top = result.bids[result.winner]
    attempts = [proposals[(r, g)].star for g in guests]
    for i, g in enumerate(guests):
        sub = replace(proposals[(r, g)], star=attempts[(i + 1) % 3])
        if g != result.winner and 0 < result.bids[g] < top:
            sub = replace(sub, bid=0)
        proposals[(r, g)] = sub
    if result.rotation:
        pieces[(r, result.winner)] = pieces[(r, result.winner)].rotated(result.rotation)
        proposals[(r, result.winner)] = replace(proposals[(r, result.winner)], rotation=0)
    return replace(state, pieces=pieces, proposals=proposals)


def transfers_twin(state, player: str):
    """The player's chips sent in the last construction stage: none if they sent some, else 1 chip."""
    key = (state.days - 1, player)
    sub = state.constructions[key]
    if sub.transfers:
        new = ()
    elif state.ledger.purses[player].chips >= 1:
        new = (Transfer(state.settings.guests[state.days % 6], 1),)
    else:
        return None
    return replace(state, constructions={**state.constructions, key: replace(sub, transfers=new)})


def losing_bid_twin(state, player: str):
    """A losing player's bid in the last construction stage lowered to 0."""
    key = (state.days - 1, player)
    built = state.ledger.built[key[0]]
    if player == built.winner or not 0 < built.bids[player] < built.bids[built.winner]:
        return None
    return replace(state, constructions={**state.constructions, key: replace(state.constructions[key], bid=0)})


def during(histories):
    """(state before the day, state after it) for every day with something secret still secret."""
    for states in histories:
        for before, after in zip(states, states[1:]):
            if after.days <= ROUNDS:  # day 15 ends the game: its standings reveal the chip bonuses
                yield before, after


@pytest.mark.slow(14)
def test_a_meadow_s_bids_star_attempts_and_pieces_reach_only_that_meadow_and_its_guests(histories):
    tried = 0
    for before, state in during(histories):
        for meadow in (Meadow.RED, Meadow.GREEN):
            twin = meadow_twin(state, meadow)
            assert GAME.announcement(before, state) == GAME.announcement(before, twin)
            allowed = {f"meadow:{meadow.value}", *(f"player:{g}" for g in state.settings.meadows[meadow])}
            diff = changed(state, twin, picture=True)
            assert diff <= allowed, diff
            tried += f"meadow:{meadow.value}" in diff
    assert tried > 80  # the twins did change something secret


def test_a_player_s_transfers_reach_only_them_and_the_guests_who_get_the_chips(histories):
    tried = 0
    for before, state in during(histories):
        if state.days < 2 or state.days - 1 >= ROUNDS:
            continue
        for player in state.settings.players:
            twin = transfers_twin(state, player)
            if twin is None:
                continue
            receivers = {t.guest for t in state.constructions[(state.days - 1, player)].transfers} | \
                        {t.guest for t in twin.constructions[(state.days - 1, player)].transfers}
            assert GAME.announcement(before, state) == GAME.announcement(before, twin)
            diff = changed(state, twin)
            assert diff == {f"player:{player}", *(f"player:{g}" for g in receivers)}, diff
            tried += 1
    assert tried > 30


def test_a_player_s_garnets_reach_only_them(histories):
    for _, state in during(histories):
        for player in state.settings.players:
            if any("counts as 0" in e.what or "dropped" in e.what for e in state.ledger.statements.get(player, [])):
                continue  # more garnets would have changed what counted
            garnets = {**state.settings.garnets, player: state.settings.garnets.get(player, 0) + 3}
            twin = replace(state, settings=replace(state.settings, garnets=garnets))
            assert changed(state, twin) == {f"player:{player}"}


def test_players_bids_are_told_to_the_players_only(histories):
    tried = 0
    for before, state in during(histories):
        if state.days < 2:
            continue
        for player in state.settings.players:
            twin = losing_bid_twin(state, player)
            if twin is None:
                continue
            assert GAME.announcement(before, state) == GAME.announcement(before, twin)
            assert changed(state, twin) == {f"player:{p}" for p in state.settings.players}
            tried += 1
    assert tried > 10


def test_a_meadow_book_holds_only_its_own_meadow(histories):
    for _, state in during(histories):
        for meadow, other in ((Meadow.RED, Meadow.GREEN), (Meadow.GREEN, Meadow.RED)):
            book = GAME.group_view(state, f"meadow:{meadow.value}")
            text = " ".join(frame.to_csv() for frame in book.values())
            outsiders = state.settings.meadows[other] + state.settings.players
            assert not any(name in text for name in outsiders)
            assert "chips" not in text  # chips are each guest's own
            assert set(book["pieces"]["guest"]) <= set(state.settings.meadows[meadow])


def test_chips_are_in_their_holder_s_book_only(histories):
    state = histories[0][8]
    for name in NAMES:
        me = dict(zip(*GAME.private_view(state, name)["me"].T.values))
        assert me["chips"] == state.ledger.purses[name].chips
    public = " ".join(frame.to_csv() for frame in GAME.public_view(state).values())
    assert "chips" not in public and "garnet" not in public


# ---- what each reader does see -------------------------------------------------------------------


def test_the_public_sees_types_proposed_pieces_with_stars_points_and_the_pyramid(histories):
    state = histories[0][9]
    public = GAME.public_view(state)
    assert len(public["proposed pieces"]) == 2 * 9
    red9 = state.ledger.proposed[(9, Meadow.RED)].piece
    row = public["proposed pieces"].iloc[-2]
    assert (row["round"], row["meadow"], row["star"]) == (9, "Red Meadow", red9.star.value)
    assert row[red9.star.value].endswith("★")
    points = dict(zip(public["participants"]["participant"], public["participants"]["points"]))
    assert points == {n: state.ledger.points(n) for n in NAMES}  # guests' and players' points
    built = public["pyramid"].dropna(subset=["round built"])
    assert set(built["position"]) == {p.name for p in state.ledger.pyramid}
    assert "bid" not in " ".join(public["points"]["what"])


def test_a_meadow_book_shows_its_guests_bids_star_attempts_and_pieces(histories):
    state = histories[1][5]
    book = GAME.group_view(state, "meadow:green")
    result = state.ledger.proposed[(5, Meadow.GREEN)]
    rows = book["proposals"][book["proposals"]["round"] == 5]
    assert dict(zip(rows["guest"], rows["bid"])) == dict(result.bids)
    assert dict(zip(rows["guest"], rows["star attempt"])) == {g: c.value for g, c in result.attempts.items()}
    now = book["pieces"][book["pieces"]["round"] == 6]  # the pieces of the round being played
    assert list(now["guest"]) == list(state.settings.meadows[Meadow.GREEN])


def test_players_see_every_player_s_bid_and_the_winner_s_choice(histories):
    state = histories[2][10]
    table = GAME.private_view(state, "Cora")["construction"]
    built = state.ledger.built[9]
    row = table[table["round"] == 9].iloc[0]
    assert {p: row[f"bid: {p}"] for p in state.settings.players} == dict(built.bids)
    assert (row["winner"], row["piece"], row["position"]) == (built.winner, built.meadow.title, built.position.name)
    assert "construction" not in GAME.private_view(state, "Dmitri")  # guests are not told


def test_a_guest_sees_how_many_chips_they_received_but_not_from_whom(histories):
    for states in histories:
        state = states[-1]
        for guest in state.settings.guests:
            lines = GAME.private_view(state, guest)["my statement"]
            got = lines[lines["what"] == "chips from a player"]
            sent = [-e.chips for p in state.settings.players for e in state.ledger.statements.get(p, [])
                    if e.what == f"sent to {guest}"]
            assert sorted(got["chips"]) == sorted(sent)
            assert not any(p in " ".join(lines["what"]) for p in state.settings.players)
