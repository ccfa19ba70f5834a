"""What the command line sends to the players' own channels: `remind` (each player whose submission
is missing or does not count, a private nudge now) and the private receipts `check` sends
(`discord.private`). Light to import, as `main` is: the engine is imported when a command runs."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sheets_host.kit.console import echo
from sheets_host.kit.errors import SheetsHostError
from .options import (AUTH, BACKEND, CREDENTIALS, PRIVATE_WEBHOOKS, WHERE_HELP, Auth, BackendName, friendly,
                      open_where, webhooks_for)

NO_RECEIPTS = typer.Option(False, "--no-receipts", help="Send no private receipts, even with the players' webhooks.")


def _public(where: str) -> str | None:
    """The public channel's webhook, when one is set: no player's address may be it."""
    try:
        return webhooks_for(where, None, None, public=True)[0]
    except SheetsHostError:
        return None


def receipts(where: str, private_webhooks: Path | None, no_receipts: bool):
    """`check`'s private receipts (engine.check's `then`): with the players' webhooks file (its
    option, environment variable or file), unless `no_receipts`; else None."""
    from sheets_host.discord.private import Private

    path = None if no_receipts else webhooks_for(where, None, private_webhooks, public=False)[1]
    return Private(path, _public(where)) if path else None


@friendly
def remind(where: str = typer.Argument(..., metavar="WHERE", help=WHERE_HELP),
           private_webhooks: Optional[Path] = PRIVATE_WEBHOOKS,
           dry_run: bool = typer.Option(False, "--dry-run", help="Print each nudge (player and text); send nothing."),
           backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Nudge now, in their own channel, each player whose submission is missing or does not count:
    what is wrong, and the deadline. For a host without `watch`, which nudges at each reminder.

    It checks first, as `check` does (each player's status tab is brought up to date). A nudge
    already sent with the same content is not sent again.

    Example: sheets-host remind games/wgm --dry-run
    """
    from sheets_host.discord.private import Private
    from sheets_host.engine import commands as engine

    path = webhooks_for(where, None, private_webhooks, public=False)[1]
    if path is None:
        raise SheetsHostError("no players' webhooks file: give --private-webhooks PATH, set SHEETS_HOST_WEBHOOKS, or "
                              "put a .sheets-host-webhooks file in this folder or the game's (one line a player: "
                              "name, then their private channel's webhook address). Without one, `check` brings "
                              "every player's status tab up to date: it says what is missing or wrong")
    nudges = Private(path, _public(where), receipts=False, nudge="remind", dry_run=dry_run)
    report = engine.check(open_where(where, backend, credentials, auth), then=nudges)
    if dry_run:
        for player, message in nudges.planned:
            echo(f"{player}:\n{message.content}\n")
        echo(f"{report.name}: {len(nudges.planned)} nudge{'' if len(nudges.planned) == 1 else 's'} would be sent"
             + (f"; no private webhook for {', '.join(nudges.unsent)}" if nudges.unsent else "") + ".")
    else:
        echo(f"{report.name}: {nudges.said()}.")
