"""`sheets-host extend`: a host moves the open round's deadline (`engine.deadlines`), and the players
hear of it: their status tabs, and a short post in the public channel."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sheets_host.kit.console import echo
from .options import (AUTH, BACKEND, CREDENTIALS, WEBHOOK, WHERE_HELP, Auth, BackendName, friendly, open_where,
                      webhooks_for)


@friendly
def extend(where: str = typer.Argument(..., metavar="WHERE", help=WHERE_HELP),
           hours: Optional[float] = typer.Option(None, "--hours", help="Move the deadline this many hours later "
                                                                       "(negative: earlier)."),
           to: Optional[str] = typer.Option(None, "--to", metavar="TIME",
                                            help="The new deadline, UTC: \"2026-11-24 18:00\"."),
           every_later: bool = typer.Option(False, "--all", help="Every later deadline moves with it; without "
                                                                  "it they keep their schedule (round hours)."),
           no_post: bool = typer.Option(False, "--no-post", help="Post nothing to Discord (the players' status tabs "
                                                                 "still say it)."),
           webhook: Optional[str] = WEBHOOK,
           backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Move the open round's deadline: every player's status tab says the new one, the public
    channel gets a short post (unless --no-post), and `watch` locks and reminds by it. Refused
    once the round is locked.

    Example: sheets-host extend games/wgm --hours 24 --all
    """
    from sheets_host.discord.announce import Message
    from sheets_host.discord.post import send_to_discord, shown
    from sheets_host.engine.deadlines import extend as move
    from sheets_host.engine.host import now_utc

    # The address first: a missing one stops the command before anything moved.
    url = None if no_post else webhooks_for(where, webhook, None, public=True, instead=(
        "add --no-post to move the deadline without a post (the players' status tabs still say it)"))[0]
    done = move(open_where(where, backend, credentials, auth), hours=hours, to=to, every_later=every_later)
    said = done.said(now_utc())
    echo(said)
    if url:
        send_to_discord(url, Message(said), None)
        echo(f"posted to {shown(url)}")
