"""Writing the books other than the host's: what each reader sees after a commit.

Everything written here is computed from the host book alone (the state, the rounds, the archive
and the log), so a delivery that a crash interrupted is finished later exactly as it would have
been. Each book records, in its hidden engine tab, the host commit it shows: a book behind the
host is finished by the next command; a book ahead of it means the host book is an old copy.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from . import cells
from .backends import ENGINE_TAB, Backend, Book
from .errors import SchemaErrors
from .game import Game
from .host import Session, frame, read_commit

HISTORY = "my submissions"
ANNOUNCEMENTS_HEADER = ["round", "announcement"]


def kv(pairs: Sequence[tuple[str, object]], header=("what", "value")) -> pd.DataFrame:
    return pd.DataFrame([list(p) for p in pairs], columns=list(header), dtype=object)


def delivered(data: pd.DataFrame | None) -> int:
    """The host commit a book shows, from its engine tab (a copy of the host's): -1 for a book never
    delivered to, or whose engine tab was damaged (it is then delivered to again)."""
    try:
        return read_commit(data).version if data is not None and not data.empty else -1
    except SchemaErrors:
        return -1


def status_frame(session: Session, player: str | None, lines: Sequence[tuple] = ()) -> pd.DataFrame:
    open_round = session.open_round
    rows: list[tuple] = [("game", session.game.title)]
    if player:
        rows.append(("player", player))
    rows += [("round open", open_round["round"] if open_round else "game over"),
             ("deadline", (open_round or {}).get("deadline") or "none set")]
    if open_round and open_round["status"] == "locked":
        rows.append(("submissions", f"locked at {open_round['frozen at']}: later edits are ignored"))
    if player:
        rows.append(("how to submit", session.game.how_to_submit(session.state)))
    return kv(rows + list(lines))


def history_frame(session: Session, player: str) -> pd.DataFrame:
    """Every round's submission of one player as it was read, what each row did, and why a row
    was dropped; from the archive and the log, so it is the same after a crash, a redo or an undo."""
    header = session.game.submit_tab.header
    log = session.tabs.get("log", pd.DataFrame()).to_dict("records")
    out = []
    for record in session.rounds:
        if record["status"] != "resolved":
            continue
        number, attempt = record["round"], record["attempt"]
        mine = [e for e in log if cells.text(e.get("player")) == player and cells.text(e.get("round")) == str(number)
                and cells.text(e.get("attempt")) == str(attempt)]
        by_row: dict[str, list[str]] = {}
        general = []
        for e in mine:
            if cells.text(e.get("kind")) == "problem":
                where = cells.text(e.get("row"))
                (by_row.setdefault(where, []) if where else general).append(cells.text(e.get("message")))
            elif cells.text(e.get("kind")) in ("submission", "default"):
                general.append(("what counted: " if cells.text(e.get("kind")) == "submission" else "")
                               + cells.text(e.get("message")))
        for row in session.attempt_rows(number, attempt)[player]:
            out.append({"round": number, "row": row.row, **{h: row.values.get(h) for h in header},
                        "what happened": "; ".join(by_row.get(str(row.row), [])) or "counted"})
        for line in general:
            out.append({"round": number, "what happened": line})
    return frame(out, ["round", "row", *header, "what happened"])


def announcements(existing: pd.DataFrame | None, round_number: int, text: str | None) -> pd.DataFrame:
    """The public announcements tab with round `round_number`'s replaced by `text` (removed when None)."""
    rows = [] if existing is None or existing.empty else [
        r for r in existing.to_dict("records") if cells.text(r.get("round")) not in ("", str(round_number))]
    if text is not None:
        rows.append({"round": round_number, "announcement": text})
    rows.sort(key=lambda r: int(float(cells.text(r["round"]))) if cells.text(r["round"]).replace(".", "", 1).isdigit() else 0)
    return frame(rows, ANNOUNCEMENTS_HEADER)


def deliver(session: Session, state: Any, books: Mapping[str, Book], *,
            submits: Mapping[str, pd.DataFrame | None], announcements_tab: pd.DataFrame | None = None) -> None:
    """Write every non-host book (by role) for the host's current commit: the public view, each
    player's private view, status and history (and `submits[player]` as their submit tab when
    given), each group's view; then the book's engine tab."""
    game = session.game
    stamp_tab = session.commit.frame()
    for role, book in books.items():
        kind, _, name = role.partition(":")
        protect = {}
        if role == "public":
            tabs = {**game.public_view(state), "status": status_frame(session, None)}
            if announcements_tab is not None:
                tabs["announcements"] = announcements_tab
        elif kind == "player":
            tabs = {**game.private_view(state, name), "status": status_frame(session, name),
                    HISTORY: history_frame(session, name)}
            if submits.get(name) is not None:
                tabs["submit"] = submits[name]
                protect = {"submit": False}
        else:
            tabs = {**game.group_view(state, role), "status": status_frame(session, None)}
        book.write({**tabs, ENGINE_TAB: stamp_tab}, protect=protect, hidden=(ENGINE_TAB,))


def empty_submit(game: Game) -> pd.DataFrame:
    return pd.DataFrame(columns=game.submit_tab.header)


def other_books(session: Session) -> dict[str, Book]:
    """Every book but the host's, by role: public, players', groups'."""
    roles = ["public", *(f"player:{p}" for p in session.players), *session.game.groups(session.state)]
    return {role: session.backend.book(role) for role in roles}


def player_books(session: Session) -> dict[str, Book]:
    return {f"player:{p}": session.backend.book(f"player:{p}") for p in session.players}


# ---- announcement files -------------------------------------------------------------------------


def _replace(path: Path, data: bytes) -> None:
    """Write a file whole or not at all (a crash leaves the old file, or none)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_files(backend: Backend, game: Game, state: Any, round_number: int, text: str) -> list[Path]:
    folder = backend.output_dir()
    folder.mkdir(parents=True, exist_ok=True)
    md = folder / f"round-{round_number:02d}.md"
    _replace(md, text.encode())
    files = [md]
    png = game.picture(state)
    if png:
        path = folder / f"round-{round_number:02d}.png"
        _replace(path, png)
        files.append(path)
    return files


def remove_files(backend: Backend, after: int) -> None:
    """Remove announcement files of rounds after `after` (undone rounds), and temporary files
    a crash left behind."""
    folder = backend.output_dir()
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        stem = path.name.split(".")[0]
        if path.name.startswith(".") and path.name.endswith(".tmp"):
            path.unlink(missing_ok=True)
        elif stem.startswith("round-") and stem[6:].isdigit() and int(stem[6:]) > after:
            path.unlink(missing_ok=True)

