"""`record` and `verify`: the game's record after the game, and anyone's check of it (`docs/verify.md`)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sheets_host.kit.console import echo
from sheets_host.kit.errors import SheetsHostError
from .options import AUTH, BACKEND, CREDENTIALS, WHERE_HELP, Auth, BackendName, friendly, open_where


@friendly
def record(where: str = typer.Argument(..., metavar="WHERE", help=WHERE_HELP),
           out: Path = typer.Argument(..., metavar="OUT", help="The record's file (JSON), e.g. wgm-record.json."),
           force: bool = typer.Option(False, "--force", help="Write it before the game is over: it reveals the seed "
                                                             "and every salt so far."),
           backend: Optional[BackendName] = BACKEND, credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Write the game's record after the game: its settings and data, the seed, every commitment
    with its salt and what it commits to, and each round's host inputs; give it to the players
    with the public book, so that anyone can run `verify`.

    Example: sheets-host record games/wgm wgm-record.json
    """
    from sheets_host.engine.record import write_record

    written = write_record(open_where(where, backend, credentials, auth), out, force=force)
    rounds = len(written["rounds"])
    echo(f"{written['title']}: the record of {rounds} round(s) written to {out}"
         + ("" if written["complete"] else " (the game is not over: written with --force)"))


@friendly
def verify(record_file: Optional[Path] = typer.Argument(None, metavar="RECORD", help="A game's record (`sheets-host "
                                                        "record`); or, during the game, --mine instead."),
           mine: Optional[str] = typer.Option(None, "--mine", metavar="BOOK", help="Your own book (players/NAME.xlsx, "
                                              "or its Google id or URL), during the game: its 'my commitments' "
                                              "checked, and with --against, against the public book."),
           against: list[str] = typer.Option([], "--against", metavar="PUBLIC", help="What was published (repeatable): "
                                             "the public book (.xlsx), a game's folder (its public book and "
                                             "announcements), a folder of round-NN.md announcements, or the public "
                                             "spreadsheet's Google id or URL."),
           root: list[str] = typer.Option([], "--root", metavar="ROOT", help="A round root you kept from an "
                                          "announcement (repeatable): it must be in the record's chain."),
           roots: Optional[Path] = typer.Option(None, "--roots", metavar="FILE", help="A file of roots you kept: "
                                                "saved announcements or notes; every 64-digit commitment in it is "
                                                "checked as --root."),
           credentials: Optional[Path] = CREDENTIALS, auth: Auth = AUTH):
    """Check a game's record, offline: the seed and every commitment recomputed, the chain of roots,
    the game played again from the record alone, the roots you kept found in it, and what that gives
    compared with what was published, cell by cell. One line a check, then every redo, undo and
    host edit of the state; exits 1 when one fails. During the game, --mine BOOK checks your own
    commitments instead: that each gives what your book shows and, with --against, that the public
    book publishes it as yours, that the round's root holds it and that the chain is whole.

    Example: sheets-host verify wgm-record.json --root 675e7684... --against games/wgm/public.xlsx

    Example: sheets-host verify --mine players/Ann.xlsx --against games/wgm/public.xlsx
    """
    from sheets_host.engine import verify as verifying

    if (record_file is None) == (mine is None):
        raise SheetsHostError("give a game's record (verify RECORD), or, during the game, your own book "
                              "(verify --mine BOOK), not both" if mine else
                              "give a game's record (verify RECORD) or your own book (verify --mine BOOK)")
    if mine is not None:
        return _verify_mine(verifying, mine, against, bool(root or roots), credentials, auth)
    checked = verifying.load_record(record_file)
    if checked.get("complete") is False:
        echo(f"the record was written before the game's end (record --force): it holds {len(checked['rounds'])} "
             "round(s), and says nothing of what came after", fg=typer.colors.YELLOW)
    kept = [_root(r) for r in root] + (_roots_file(roots) if roots else [])
    sources = [_published(verifying, where, credentials, auth) for where in against] or [None]
    failed = 0
    for n, published in enumerate(sources):
        checks = verifying.verify(checked, published, kept if n == 0 else ())
        failed += print_checks(checks)
        if published is not None:
            echo(f"{published.where}: {verifying.compared(checks)}")
    if kept:
        echo(f"{len(set(kept))} root(s) you kept looked for in the record's chain")
    if not against and not kept:
        echo("nothing published and no root kept was given (--against, --root): the record was checked against "
             "itself only")
    done = verifying.history(checked)
    echo("what the host did besides resolving: " + ("nothing (no redo, no undo, no edit of the state)" if not done else
                                                    f"{len(done)} thing(s)"))
    for line in done:
        echo(f"  {line}")
    verdict(failed)


def _verify_mine(verifying, book: str, against: list[str], kept: bool, credentials: Path | None, auth: Auth) -> None:
    """`verify --mine`: a player's own commitments, during the game (`engine.mine`)."""
    from sheets_host.engine.mine import check_mine

    if kept:
        raise SheetsHostError("--root and --roots look for roots in a game's record: give the record (verify RECORD "
                              "--root ...), not --mine")
    if len(against) > 1:
        raise SheetsHostError("--mine checks your book against one public book: give --against once")
    public = _published(verifying, against[0], credentials, auth) if against else None
    checks = check_mine(_book(book, credentials, auth), public.tabs or {} if public else None,
                        public.where if public else "")
    failed = print_checks(checks)
    if public is None:
        echo("your book was checked against itself only: give the public book (--against PUBLIC) to check that "
             "the host published your commitments and that each round's root holds yours")
    verdict(failed)


def print_checks(checks) -> int:
    """Each check's lines; how many failed."""
    for check in checks:
        for line in check.lines():
            echo(line, fg=None if check.ok else typer.colors.RED)
    return sum(not c.ok for c in checks)


def verdict(failed: int) -> None:
    echo(f"{failed} check(s) failed" if failed else "every check passed")
    if failed:
        raise typer.Exit(1)


def _root(text: str) -> str:
    from sheets_host.kit.commitment import DIGITS

    root = text.strip().strip("`").lower()
    if not DIGITS.fullmatch(root):
        raise SheetsHostError(f"--root {text}: not a root (64 hex digits, as an announcement's 'Round root' shows it)")
    return root


def _roots_file(path: Path) -> list[str]:
    from sheets_host.engine.chain import kept_roots

    try:
        found = kept_roots(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as e:
        raise SheetsHostError(f"--roots {path}: cannot be read ({e.strerror})") from None
    if not found:
        raise SheetsHostError(f"--roots {path}: holds no root (64 hex digits): nothing to check")
    return found


def _published(verifying, where: str, credentials: Path | None, auth: Auth):
    """What was published at `where`: a public book, a game's folder, announcements, or a Google id."""
    from sheets_host.backends.xlsx.backend import XlsxBook

    path = Path(where)
    if path.is_dir():
        public = path / "public.xlsx"
        folder = path / "announcements" if (path / "announcements").is_dir() else path
        tabs = XlsxBook(public, public.name).read() if public.is_file() else None
        return verifying.Published(tabs, verifying.announcement_files(folder), str(path))
    return verifying.Published(_book(where, credentials, auth, "--against", "a public book, a game's folder, a "
                                     "folder of announcements"), {}, where)


def _book(where: str, credentials: Path | None, auth: Auth, option: str = "--mine",
          forms: str = "your own book (players/NAME.xlsx)"):
    """The tabs of one book: an .xlsx file, or a Google spreadsheet's id or URL (read as `verify`
    reads a public spreadsheet: the player's own credentials open their own book)."""
    from sheets_host.backends.xlsx.backend import XlsxBook

    path = Path(where)
    if path.is_file():
        return XlsxBook(path, path.name).read()
    if path.is_dir() or (not where.startswith("https://docs.google.com") and (path.suffix or "/" in where)):
        raise SheetsHostError(f"{option} {where}: no such file{' or folder' * (option == '--against')} (give {forms}, "
                              "or a Google spreadsheet's id or URL)")
    google = open_where(where, BackendName.gsheets, credentials, auth)
    google.bind({"book": where})
    return google.book("book").read()
