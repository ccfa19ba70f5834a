"""What Pyramid Superiority's day did with each part of a submission (issue 34): a bid, a star
attempt, a rotation, a piece, a position, each chip transfer. Every "counted" and "not counted" in
a participant's `my submissions` is the ledger's record of the stage, and agrees with their
`my statement`."""

import random

import pandas as pd

from sheets_host.engine import commands as engine
from sheets_host.engine.commands import HISTORY
from sheets_host.games.pyramid_superiority.meadows import Construction, Meadow, Proposal, Transfer
from sheets_host.games.pyramid_superiority.rules import BY_NAME
from sheets_host.kit.game import Fate

from tests.conftest import fixed_clock
from .test_pyramid_superiority_game import (ADA, BLAISE, CORA, DMITRI, EMMY, FELIX, GAME, HEADER, HEDY, NAMES, TL, TR,
                                            days, fresh, rows, statement, step)


def test_each_row_gives_its_part_and_a_defaulted_bid_star_or_piece_is_a_part_without_a_row():
    guest = GAME.parse(fresh(), DMITRI, rows(DMITRI, ("rotate", 90, None), ("bid", 4, None)))
    assert guest.parts == {"bid": ((None, 3),), "star": (), "rotate": ((None, 2),)}
    player = GAME.parse(step(fresh()), ADA, rows(ADA, ("send", 3, "Hedy"), ("bid", 6, None), ("send", 2, "Emmy")))
    assert player.parts == {"bid": ((None, 3),), "piece": (), "send 1": ((None, 2),), "send 2": ((None, 4),)}


def test_a_rotation_of_0_turns_nothing_and_says_so_on_its_row():
    parsed = GAME.parse(fresh(), DMITRI, rows(DMITRI, ("bid", 4, None), ("rotate", "none", None),
                                              ("rotate", 90, None)))
    (problem,) = parsed.problems
    assert problem.row == 3 and "no turn: the piece goes as it is; row dropped" in problem.message
    assert parsed.submission.rotation == 1
    assert parsed.parts["rotate"] == ((None, 4),)


def test_a_guest_s_bid_star_and_rotation_as_the_proposal_stage_used_them():
    subs = {DMITRI: Proposal(5, TL, 1), EMMY: Proposal(10, TR), FELIX: Proposal(21, TL)}
    fates = GAME.resolve(fresh(), subs, random.Random(0)).fates
    assert fates[DMITRI] == (Fate("bid", "bid 5: Emmy's piece was proposed"),
                             Fate("star", "star attempt on top-left: the star went on top-left"),
                             Fate("rotate", "turned 90°", "your piece was not proposed: it was not turned and cost "
                                                          "nothing"))
    assert fates[EMMY][0] == Fate("bid", "bid 10: your piece was proposed")
    assert fates[FELIX][0] == Fate("bid", "bid 21", "it was more than your chips: it counted as 0")
    assert set(fates) == set(fresh().settings.guests)  # players have no stage on day 1


def test_a_player_s_parts_as_the_construction_stage_used_them():
    state = step(fresh())
    subs = {ADA: Construction(40, Meadow.GREEN, 1, BY_NAME["base 5"], (Transfer(HEDY, 8), Transfer(EMMY, 1))),
            BLAISE: Construction(3, Meadow.RED, 0, BY_NAME["base 1"]), CORA: Construction(60)}
    outcome = GAME.resolve(state, subs, random.Random(0))
    fates, after = outcome.fates, outcome.state
    assert fates[ADA] == (Fate("bid", "bid 40: you won the right to build"),
                          Fate("piece", "the Green Meadow's piece"), Fate("position", "at base 5"),
                          Fate("rotate", "turned 90° (5 chips)"),
                          Fate("send 1", "send 8 to Hedy", "more than your 5 chips"),
                          Fate("send 2", "send 1 to Emmy"))
    # The rotation's 5 chips left 5: `my statement` says the same of the transfer.
    assert "sending 8 to Hedy dropped: more than your 5 chips" in statement(after, ADA)
    assert fates[BLAISE] == (Fate("bid", "bid 3: Ada won the right to build"),
                             Fate("piece", "the Red Meadow's piece", "Ada won the right to build"),
                             Fate("position", "at base 1", "Ada won the right to build"))
    assert fates[CORA][0] == Fate("bid", "bid 60", "it was more than your chips and garnets: it counted as 0")


def test_a_winner_s_rotation_not_paid_and_position_moved_are_not_counted():
    state = step(fresh())
    subs = {ADA: Construction(48, Meadow.RED, 1, BY_NAME["middle 1"])}
    fates = GAME.resolve(state, subs, random.Random(0)).fates
    (bid, piece, position, rotate) = fates[ADA]
    assert bid.counted and piece.counted
    assert position == Fate("position", "at middle 1", "middle 1 needs base 1, base 2, base 4, base 5 below it; "
                            "base 1, base 2, base 4, base 5 are empty: built at base 1, the default position, instead")
    assert rotate == Fate("rotate", "turned 90°", "you could not pay 5 chips for it after your bid")
    assert fates[BLAISE] == (Fate("bid", "bid 0: Ada won the right to build"),  # the default: no position typed
                             Fate("piece", "the Red Meadow's piece", "Ada won the right to build"))
    silent = GAME.resolve(state, {}, random.Random(0)).fates[BLAISE]  # three bids of 0: fire beats grass
    assert silent[1] == Fate("piece", "the Red Meadow's piece, built at base 1, the default position")


def test_no_transfer_counts_in_the_last_construction_stage():
    state = days(fresh(), 14)
    fates = GAME.resolve(state, {ADA: Construction(1, transfers=(Transfer(HEDY, 1),))}, random.Random(0)).fates
    assert fates[ADA][-1] == Fate("send 1", "send 1 to Hedy", "no transfers in the last construction stage")
    assert set(fates) == set(state.settings.players)  # guests have no stage on day 15


def _type(backend, name, *typed):
    backend.book(f"player:{name}").write({"submit": pd.DataFrame(list(typed), columns=HEADER)})


def _happened(backend, name):
    history = backend.book(f"player:{name}").read([HISTORY])[HISTORY]
    return dict(zip(history["what you typed"].astype(str), history["what happened"]))


def test_my_submissions_says_what_the_stages_did_as_my_statement_does(folder_backend):
    engine.new_game(folder_backend, "pyramid-superiority", NAMES, 3, clock=fixed_clock)
    _type(folder_backend, DMITRI, ["bid", 5, None], ["star", "top-left", None], ["rotate", 90, None])
    _type(folder_backend, EMMY, ["bid", 10, None], ["star", "top-right", None])
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    _type(folder_backend, ADA, ["bid", 40, None], ["piece", "green", None], ["rotate", 90, None],
          ["position", "base 5", None], ["send", 8, HEDY])
    _type(folder_backend, BLAISE, ["bid", 3, None], ["piece", "red", None], ["position", "base 1", None])
    engine.resolve(folder_backend, early=True, clock=fixed_clock)
    ada = _happened(folder_backend, ADA)
    assert ada["what: send, value: 8, to: Hedy"] == "not counted: more than your 5 chips"
    assert ada["what: rotate, value: 90"] == "counted"
    mine = folder_backend.book(f"player:{ADA}").read(["my statement"])["my statement"]
    assert "sending 8 to Hedy dropped: more than your 5 chips" in mine["what"].tolist()
    blaise = _happened(folder_backend, BLAISE)
    assert blaise["what: bid, value: 3"] == "counted"
    assert blaise["what: piece, value: red"] == blaise["what: position, value: base 1"] == \
        "not counted: Ada won the right to build"
    dmitri = _happened(folder_backend, DMITRI)
    assert dmitri["what: rotate, value: 90"] == \
        "not counted: your piece was not proposed: it was not turned and cost nothing"
    assert dmitri["what: bid, value: 5"] == "counted"
