"""Drive v3 for the Google backend (`gsheets`): spreadsheets created, found again, trashed, shared.

Called directly with documented parameters: gspread's ``Client.create`` opens the file afterwards
(one Sheets read per new book for nothing) and its ``insert_permission`` sends Drive v2's
``withLink`` and its flags as Python spells them ('False').

**Sharing that Drive refuses.** Drive shares with an address that has no Google account only by
emailing it an invitation: with ``sendNotificationEmail=false`` it answers 400
``invalidSharingRequest``. A Workspace's policy or a shared drive's ``domainUsersOnly`` restriction
refuses addresses outside the domain (``shareOutNotPermitted``,
``teamDriveDomainUsersOnlyRestriction``) or links open to anyone (``publishOutNotPermitted``).
`share` turns each into a message naming the book, the address and what to do.
"""

from __future__ import annotations

from typing import Any

from gspread.exceptions import APIError
from gspread.http_client import HTTPClient
from gspread.urls import DRIVE_FILES_API_V3_URL
from gspread.utils import MimeType

from sheets_host.kit.errors import BookError
from .client import drive_reason

NO_ACCOUNT = "invalidSharingRequest"
# Drive's reasons for a sharing policy's refusal (a Workspace's, or a shared drive's restrictions).
POLICY = {"shareOutNotPermitted", "shareOutNotPermittedToUser", "publishOutNotPermitted",
          "teamDriveDomainUsersOnlyRestriction", "teamDriveTeamMembersOnlyRestriction",
          "cannotShareTeamDriveWithNonGoogleAccounts", "cannotShareTeamDriveTopFolderWithAnyoneOrDomains"}
_ADOPT = "create the spreadsheets yourself, share them as you can and pass --adopt FILE (a CSV of role,spreadsheet id)"


def new_spreadsheet(http: HTTPClient, title: str, *, folder: str | None, account: str | None,
                    properties: dict[str, str]) -> str:
    """A new spreadsheet's id; `properties` are kept as its appProperties (what `find` looks for)."""
    body: dict[str, Any] = {"name": title, "mimeType": MimeType.google_sheets, "appProperties": properties}
    if folder:
        body["parents"] = [folder]
    try:
        reply = http.request("post", DRIVE_FILES_API_V3_URL, json=body, params={"supportsAllDrives": "true"})
    except APIError as e:
        if drive_reason(e) == "storageQuotaExceeded" and account:
            raise BookError(
                "a service account cannot own new spreadsheets: pass --folder with the id of a folder in a shared "
                "drive the service account can edit, or create the spreadsheets yourself, share them with "
                f"{account} and pass --adopt FILE (a CSV of role,spreadsheet id)"
            ) from None
        raise BookError(f"Google Drive refused to create the spreadsheet {title!r}: {e.error.get('message')} (HTTP {e.code})") from None
    return reply.json()["id"]


def find(http: HTTPClient, key: str, value: str, folder: str | None) -> dict[str, dict[str, str]]:
    """id -> appProperties of the spreadsheets not in the trash whose property `key` is `value`."""
    q = f"appProperties has {{ key='{key}' and value='{value}' }} and trashed = false"
    if folder:
        q += f" and '{folder}' in parents"
    params = {"q": q, "fields": "files(id,appProperties)", "pageSize": "1000", "corpora": "allDrives",
              "includeItemsFromAllDrives": "true", "supportsAllDrives": "true"}
    try:
        reply = http.request("get", DRIVE_FILES_API_V3_URL, params=params)
    except APIError as e:
        raise BookError(f"Google Drive refused to list the spreadsheets of this game: {e.error.get('message')} (HTTP {e.code})") from None
    return {f["id"]: f.get("appProperties", {}) for f in reply.json().get("files", [])}


DRIVE_CHANGES_URL = DRIVE_FILES_API_V3_URL.rsplit("/", 1)[0] + "/changes"


def changed_files(http: HTTPClient, token: str | None) -> tuple[set[str] | None, str]:
    """The files changed since `token` (Drive's change log, page by page: one request while fewer
    than 1000 files changed), and the token to ask from next time; with no `token`, None (no
    knowing) and the first token. Google's own cursor: no clock of ours is compared with its times."""
    common = {"supportsAllDrives": "true"}
    try:
        if token is None:
            reply = http.request("get", f"{DRIVE_CHANGES_URL}/startPageToken", params=common).json()
            return None, reply["startPageToken"]
        files: set[str] = set()
        while True:
            reply = http.request("get", DRIVE_CHANGES_URL, params={
                **common, "pageToken": token, "pageSize": "1000", "includeItemsFromAllDrives": "true",
                "fields": "changes(fileId),nextPageToken,newStartPageToken"}).json()
            files |= {c["fileId"] for c in reply.get("changes", []) if "fileId" in c}
            if "newStartPageToken" in reply:
                return files, reply["newStartPageToken"]
            token = reply["nextPageToken"]
    except APIError as e:
        raise BookError(f"Google Drive refused to say which spreadsheets changed: {e.error.get('message')} (HTTP {e.code})") from None


def update(http: HTTPClient, sid: str, body: dict[str, Any]) -> None:
    """files.update of `sid`'s metadata (trashed, appProperties); APIError as Drive answers."""
    http.request("patch", f"{DRIVE_FILES_API_V3_URL}/{sid}", json=body, params={"supportsAllDrives": "true"})


def share(http: HTTPClient, sid: str, what: str, email: str | None, access: str, *, notify: bool,
          adopted: bool = False) -> None:
    """Share spreadsheet `sid` (`what`: "Ann's book (URL)") with `email`, or with anyone holding the
    link when None (never listed in searches). `notify`: Drive emails the person (a flag it allows
    only for users). An adopted book a policy keeps from anyone stays as its owner shared it."""
    body: dict[str, Any] = {"type": "anyone" if email is None else "user", "role": access}
    params = {"supportsAllDrives": "true"}
    if email is None:
        body["allowFileDiscovery"] = False
    else:
        body["emailAddress"] = email
        params["sendNotificationEmail"] = "true" if notify else "false"
    try:
        http.request("post", f"{DRIVE_FILES_API_V3_URL}/{sid}/permissions", json=body, params=params)
    except APIError as e:
        reason = drive_reason(e)
        if adopted and email is None and reason in POLICY:
            return
        whom = email or "anyone with the link"
        raise BookError(f"Google Drive refused to share {what} with {whom}: {e.error.get('message')} "
                        f"({reason + ', ' if reason else ''}HTTP {e.code}){_advice(reason, what, email, notify)}") from None


def _advice(reason: str | None, what: str, email: str | None, notify: bool) -> str:
    player = what.split("'s book", 1)[0] if "'s book" in what else None
    other = f"give {player} another address (--players {player}=...)" if player else "give another address"
    if reason == NO_ACCOUNT and email is not None and not notify:
        return (f": {email} has no Google account, and Drive gives such an address access only through the invitation "
                f"it emails: run the command again with --notify, or {other}, or {_ADOPT}")
    if reason in POLICY and email is None:
        return (": a sharing policy (your Workspace's, or the shared drive's) refuses links open to anyone: share the "
                "public book differently: create it yourself, share it as the policy allows (with the players' "
                "addresses, or your domain) and pass --adopt FILE naming it as `public`, or pass --folder for a "
                "folder whose drive allows public links")
    if reason in POLICY:
        return (f": a sharing policy (your Workspace's, or the shared drive's) refuses {email}: {other} inside what the "
                f"policy allows, have an administrator allow it, or {_ADOPT}")
    return ""
