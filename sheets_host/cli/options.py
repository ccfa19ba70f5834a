"""What the `sheets-host` commands share: the backend options, how a game's place is opened, and
the one way an error a host can cause is printed. Each command module registers its commands on
`main.app`; this module imports neither, so the command modules never import each other.
"""

from __future__ import annotations

import functools
import os
import sys
from enum import Enum
from pathlib import Path

import typer

from sheets_host.kit.console import echo
from sheets_host.kit.errors import SheetsHostError

WHERE_HELP = "The game: a folder, or the host spreadsheet's id or URL."


class BackendName(str, Enum):
    xlsx = "xlsx"
    gsheets = "gsheets"


class Auth(str, Enum):
    service = "service"
    oauth = "oauth"


BACKEND = typer.Option(None, "--backend", help="xlsx (a folder; the default) or gsheets (a host spreadsheet id or URL).")
CREDENTIALS = typer.Option(None, "--credentials", help="Google: a service-account key file or an OAuth client file.")
WEBHOOK = typer.Option(None, "--webhook", metavar="URL", help="The Discord channel's webhook address "
                       "(else $SHEETS_HOST_WEBHOOK, else a .sheets-host-webhook file).")
PRIVATE_WEBHOOKS = typer.Option(None, "--private-webhooks", metavar="PATH", help="A file of each player's private "
                                "channel webhook, one line a player: name, then address (else $SHEETS_HOST_WEBHOOKS, "
                                "else a .sheets-host-webhooks file). Without one, nothing goes to the players' own channels "
                                "(private pictures, receipts, nudges).")
REASON = typer.Option(None, "--reason", metavar="TEXT", help="Why (a redo, an undo, or your edit of the state "
                     "since the last round): published in the round's root and announcement, listed by verify.")
AUTH = typer.Option(Auth.service, "--auth", help="Google: 'service' (service account) or 'oauth' (log in as yourself).")


def friendly(fn):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except BrokenPipeError:  # the reader went away (`| head -1`): nothing more to print, no error
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's flush fails quietly
            except (OSError, ValueError):  # io.UnsupportedOperation: not a real file (a test's runner)
                pass
            raise typer.Exit(0) from None
        except (SheetsHostError, OSError) as e:  # a file a host can fix (permissions, a full disk)
            echo(f"error: {e}", fg=typer.colors.RED, err=True)
            raise typer.Exit(2) from None

    return run


def open_where(where: str, backend: BackendName | None, credentials: Path | None = None, auth: Auth = Auth.service,
             **options):
    from sheets_host.backends.kinds import open_backend

    kind = backend.value if backend else ("gsheets" if where.startswith("https://docs.google.com") else "xlsx")
    if kind == "gsheets":
        options.update(credentials=str(credentials) if credentials else None, auth=auth.value)
    return open_backend(kind, where, **options)


def player_list(spec: str) -> tuple[list[str], dict[str, str]]:
    players, emails = [], {}
    for item in spec.split(","):
        name, _, email = item.partition("=")
        if name.strip():
            players.append(name.strip())
            if email.strip():
                emails[name.strip()] = email.strip()
    return players, emails


def webhooks_for(where: str, webhook: str | None, private_webhooks: Path | None,
                 public: bool, instead: str = "") -> tuple[str | None, Path | None]:
    """The public channel's webhook address (when `public`) and the players' webhooks file, each
    from its option, its environment variable or its file in the current folder or the game's;
    with no public address, the message says how to do without (`instead`)."""
    from sheets_host.discord import post as posting

    folders = [Path(where)] if Path(where).is_dir() else []
    return (posting.webhook_url(webhook, folders, instead) if public else None,
            posting.webhooks_file(private_webhooks, folders))
