"""Host edits that would make the game's history one replay cannot reproduce are refused by every
command, naming the tab, row and cell and saying what to do; the ones a host may make are
followed by replay (issue 24)."""

from __future__ import annotations

import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.kit.errors import SchemaErrors

from tests.conftest import PLAYERS, fixed_clock
from .test_host_operations import _edit_host, host, new, resolve, submit_all


def played(backend, rounds: int = 2):
    new(backend)
    for _ in range(rounds):
        submit_all(backend)
        resolve(backend)


def every_command_refuses(backend, message: str) -> None:
    for command in (lambda: engine.check(backend, fixed_clock), lambda: resolve(backend),
                    lambda: engine.lock(backend, fixed_clock), lambda: engine.status(backend, fixed_clock)):
        with pytest.raises(SchemaErrors, match=message):
            command()


def archive_row(backend, round_number: int, player: str) -> int:
    """The sheet row of `player`'s first archived row of the attempt `round_number` was resolved with."""
    archive, rounds = host(backend, "archive"), host(backend, "rounds")
    attempt = int(rounds.loc[rounds["round"] == round_number, "attempt"].iloc[0])
    where = archive[(archive["round"] == round_number) & (archive["attempt"] == attempt) & (archive["player"] == player)]
    return int(where.index[0])


def edit_archive(backend, row: int, delete: bool = False, **values) -> None:
    def change(data):
        if delete:
            return data.drop(index=row)
        data = data.copy()
        for column, value in values.items():
            data.loc[row, column] = value
        return data
    _edit_host(backend, "archive", change)


def agrees_with_replay(backend, tmp_path) -> None:
    copy = XlsxBackend(tmp_path / "replayed")
    engine.replay(backend, copy, fixed_clock)
    game = engine.open_session(backend, fixed_clock)
    assert game.game.dump(engine.open_session(copy, fixed_clock).state) == game.game.dump(game.state)


# ---- the archive of a resolved round ---------------------------------------------------------------


@pytest.mark.parametrize("delete", [False, True])
def test_an_earlier_round_s_archived_rows_can_never_change(folder_backend, delete):
    played(folder_backend)
    # A later row of the attempt, so naming the attempt's first row would not do.
    row = archive_row(folder_backend, 1, PLAYERS[3])
    edit_archive(folder_backend, row, delete=delete, site=99)
    named = (rf"tab 'archive', row {row}: .* 14 rows then, 13 rows now, a row deleted here" if delete else
             rf"tab 'archive', row {row}, column 'site': '99' is not what round 1 was resolved with")
    every_command_refuses(folder_backend, named)
    message = r"tab 'archive', row.*round 1 was resolved with.*cannot change"
    every_command_refuses(folder_backend, message)
    with pytest.raises(SchemaErrors, match=message):
        resolve(folder_backend, redo=True)


@pytest.mark.parametrize("delete", [False, True])
def test_the_last_round_s_archived_rows_are_corrected_only_by_a_redo(folder_backend, tmp_path, delete):
    played(folder_backend)
    row = archive_row(folder_backend, 2, PLAYERS[0])
    edit_archive(folder_backend, row, delete=delete, site=21)
    every_command_refuses(folder_backend, r"tab 'archive', row.*round 2 was resolved with.*resolve --redo")
    resolve(folder_backend, redo=True)
    engine.check(folder_backend, fixed_clock)
    agrees_with_replay(folder_backend, tmp_path)


def test_undo_takes_back_an_edited_last_round(folder_backend, tmp_path):
    played(folder_backend)
    edit_archive(folder_backend, archive_row(folder_backend, 2, PLAYERS[0]), site=21)
    engine.undo(folder_backend, fixed_clock)
    resolve(folder_backend)
    agrees_with_replay(folder_backend, tmp_path)


# ---- settings, data and the players ----------------------------------------------------------------


def set_config(backend, key: str, value: object) -> None:
    _edit_host(backend, "config", lambda d: d.assign(value=d["value"].where(d["key"] != key, value)))


def config_row(backend, key: str) -> int:
    config = host(backend, "config")
    return int(config.index[config["key"] == key][0])


def test_the_seed_is_fixed_once_round_one_is_resolved(folder_backend):
    new(folder_backend)
    set_config(folder_backend, "seed", 8)
    engine.check(folder_backend, fixed_clock)  # before round 1, the host may still choose
    submit_all(folder_backend)
    resolve(folder_backend)
    set_config(folder_backend, "seed", 9)
    row = config_row(folder_backend, "seed")
    every_command_refuses(folder_backend, rf"tab 'config', row {row}, column 'value': '9' is not 8, the seed round 1 "
                                          r"was resolved with.*start a new game for a new seed")


def test_a_game_setting_is_fixed_once_round_one_is_resolved(folder_backend):
    played(folder_backend, rounds=1)
    set_config(folder_backend, "collapse over", 30)
    row = config_row(folder_backend, "collapse over")
    every_command_refuses(folder_backend, rf"tab 'config', row {row}, column 'value': '30' is not 25, the collapse "
                                          "over round 1 was resolved with")


def test_a_host_decision_and_the_schedule_may_change_at_any_time(folder_backend, tmp_path):
    played(folder_backend, rounds=1)
    set_config(folder_backend, "elimination candidate", PLAYERS[2])
    set_config(folder_backend, "round hours", 48)
    engine.check(folder_backend, fixed_clock)
    submit_all(folder_backend)
    resolve(folder_backend)
    agrees_with_replay(folder_backend, tmp_path)


def test_the_hand_is_fixed_once_round_one_is_resolved(folder_backend):
    new(folder_backend)
    _edit_host(folder_backend, "hand", lambda d: d.drop(index=d.index[-1]))
    engine.check(folder_backend, fixed_clock)  # before round 1, the host may still choose
    submit_all(folder_backend)
    resolve(folder_backend)
    _edit_host(folder_backend, "hand", lambda d: d.drop(index=d.index[2]))
    every_command_refuses(folder_backend, r"tab 'hand', row 4: .* round 1 was resolved with.*put it back")


def test_renaming_a_player_is_refused_naming_the_players_tab(folder_backend):
    played(folder_backend, rounds=1)
    _edit_host(folder_backend, "players", lambda d: d.assign(player=d["player"].replace(PLAYERS[1], "Anna")))
    every_command_refuses(folder_backend, rf"tab 'players', row 3, column 'player': 'Anna' is not {PLAYERS[1]}.*"
                                          "names are fixed once the game is made")
