"""Drive v3 as the fake (`sheets_host.fakes.google`) answers it, mixed into FakeGoogle: files created,
updated (trashed, appProperties), listed by a query on appProperties, deleted; permissions created,
or refused as Drive refuses them:

- an address with no Google account (`no_google_account`) shared with ``sendNotificationEmail=false``:
  400 ``invalidSharingRequest``, "You are trying to invite ... you must check the "Notify people"
  box" (Drive gives such an address access only through the invitation it emails);
- a sharing policy (`sharing_domain`: only addresses of that domain, no link open to anyone). A file
  in My Drive meets the Workspace's policy: 400 ``shareOutNotPermitted`` for an address outside,
  400 ``publishOutNotPermitted`` (with an empty user message, as observed live) for ``anyone``. A file
  in a folder (the fake's shared drives) meets the drive's ``domainUsersOnly`` restriction: 403
  ``teamDriveDomainUsersOnlyRestriction`` for both.

Creating a permission the file already has (same type and address) changes its role and answers
it, so a command run again after a kill shares nothing twice.

Every change to a file, by a request or by a person typing (`FakeGoogle.put_values`), sets its
``modifiedTime`` from the fake's `clock` and adds it to Drive's change log, read as ``changes.list``
reads it: from a page token (``changes.getStartPageToken``), each file changed since then once,
with its latest ``time``, then the token to start from next time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from .google_model import FakeFile, GoogleError

SHEETS_MIME = "application/vnd.google-apps.spreadsheet"
# The terms of a files.list query the fake understands, joined by "and"; anything else is refused.
_TERM = re.compile(r"appProperties has \{ key='(?P<key>[^']*)' and value='(?P<value>[^']*)' \}"
                   r"|trashed = (?P<trashed>true|false)|'(?P<parent>[^']*)' in parents")


class Drive:
    """Drive's files and permissions, mixed into FakeGoogle."""

    files: dict[str, FakeFile]
    _file: Callable[[str], FakeFile]
    add_spreadsheet: Callable[..., str]
    service_account_quota: bool
    _created: str | None

    def __init__(self) -> None:
        super().__init__()
        self.no_google_account: set[str] = set()  # addresses Drive knows no Google account for
        self.sharing_domain: str | None = None  # a policy: share only within this domain, never with anyone
        self.clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc)  # Google's, for modifiedTime
        self.changed: list[tuple[str, str]] = []  # Drive's change log: (file, modifiedTime), oldest first

    def touch(self, sid: str) -> None:
        """`sid` changed now: its modifiedTime, and an entry in the change log."""
        file = self.files[sid]
        file.modified = self.clock().astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        self.changed.append((sid, file.modified))

    def _start_token(self, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        return {"kind": "drive#startPageToken", "startPageToken": str(len(self.changed) + 1)}

    def _list_changes(self, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        token = query.get("pageToken", [""])[0]
        if not token.isdigit() or not 0 < int(token) <= len(self.changed) + 1:
            raise GoogleError(400, "Invalid Value", "invalid")
        start, size = int(token) - 1, int(query.get("pageSize", ["100"])[0])
        page = self.changed[start:start + size]
        latest = {sid: at for sid, at in page}  # each file once, at its latest change
        reply: dict[str, Any] = {"kind": "drive#changeList", "changes": [
            {"kind": "drive#change", "changeType": "file", "fileId": sid, "time": at, "removed": sid not in self.files,
             **({"file": _resource(self.files[sid])} if sid in self.files else {})} for sid, at in latest.items()]}
        if start + size < len(self.changed):
            reply["nextPageToken"] = str(start + size + 1)
        else:
            reply["newStartPageToken"] = str(len(self.changed) + 1)
        return reply

    def _create_file(self, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        if body.get("mimeType") != SHEETS_MIME:
            raise GoogleError(400, f"fake: only spreadsheets can be created, not {body.get('mimeType')!r}")
        parents = body.get("parents", [])
        if self.service_account_quota and not parents:
            raise GoogleError(403, "The user's Drive storage quota has been exceeded.", "storageQuotaExceeded")
        if parents and query.get("supportsAllDrives", [""])[0].lower() != "true":
            raise GoogleError(404, f"File not found: {parents[0]}.", "notFound")  # shared drives need the flag
        sid = self.add_spreadsheet(body.get("name", "Untitled spreadsheet"))
        self.files[sid].parents = list(parents)
        self.files[sid].app_properties = dict(body.get("appProperties", {}))
        self._created = sid
        return _resource(self.files[sid])

    def _update_file(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        file = self._file(sid)
        if unknown := sorted(body.keys() - {"trashed", "appProperties"}):
            raise GoogleError(400, f"fake: files.update of {unknown} is not modelled")
        file.trashed = body.get("trashed", file.trashed)
        for key, value in body.get("appProperties", {}).items():
            if value is None:  # Drive's way to remove a property
                file.app_properties.pop(key, None)
            else:
                file.app_properties[key] = value
        return _resource(file)

    def _list_files(self, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        q = query.get("q", [""])[0]
        terms, at = [], 0
        while (m := _TERM.match(q, at)) is not None:
            terms.append(m)
            at = m.end()
            if q.startswith(" and ", at):
                at += len(" and ")
            else:
                break
        if not q or at != len(q):
            raise GoogleError(400, "Invalid Value", "invalid")
        every_drive = query.get("includeItemsFromAllDrives", [""])[0] == "true"

        def wanted(file: FakeFile) -> bool:
            if file.parents and not every_drive:  # a shared drive's files are listed only when asked for
                return False
            return all((t["key"] is None or file.app_properties.get(t["key"]) == t["value"])
                       and (t["trashed"] is None or file.trashed == (t["trashed"] == "true"))
                       and (t["parent"] is None or t["parent"] in file.parents) for t in terms)

        return {"kind": "drive#fileList", "incompleteSearch": False,
                "files": [_resource(f) for f in self.files.values() if wanted(f)]}

    def _delete_file(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        self._file(sid)
        del self.files[sid]
        return {}

    def _create_permission(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        file = self._file(sid)
        kind, email = body.get("type"), body.get("emailAddress")
        if body.get("role") not in ("reader", "commenter", "writer") or kind not in ("user", "group", "anyone"):
            raise GoogleError(400, f"fake: bad permission {body}")
        if kind != "anyone" and not email:
            raise GoogleError(400, "The permission emailAddress field is required.")
        notify = query.get("sendNotificationEmail", ["true"]) != ["false"]
        if kind == "anyone" and "sendNotificationEmail" in query and notify:
            raise GoogleError(400, "fake: sendNotificationEmail is allowed only when sharing with users or groups", "badRequest")
        self._check_policy(file, kind, email)
        if kind != "anyone" and email in self.no_google_account and not notify:
            raise GoogleError(400, f'Bad Request. User message: "You are trying to invite {email}. Since there is no Google '
                                   'account associated with this email address, you must check the "Notify people" box '
                                   'to invite this recipient."', "invalidSharingRequest")
        permission = next((p for p in file.permissions if p["type"] == kind and p.get("emailAddress") == email), None)
        if permission is None:
            permission = {"kind": "drive#permission", "id": f"perm{len(file.permissions) + 1}", "type": kind}
            if email:
                permission["emailAddress"] = email
            file.permissions.append(permission)
        permission.update(role=body["role"], notified=notify)
        return {k: v for k, v in permission.items() if k != "notified"}

    def _check_policy(self, file: FakeFile, kind: str, email: str | None) -> None:
        domain = self.sharing_domain
        if domain is None or (kind != "anyone" and (email or "").rpartition("@")[2].casefold() == domain.casefold()):
            return
        if file.parents:
            # The reason is Drive's; the wording of its message is not verified against a live drive.
            raise GoogleError(403, "Sharing is restricted to members of the shared drive's domain.",
                              "teamDriveDomainUsersOnlyRestriction")
        if kind == "anyone":
            raise GoogleError(400, 'Bad Request. User message: ""', "publishOutNotPermitted")
        raise GoogleError(400, f'Bad Request. User message: "This email address is linked to a personal Google Account. '
                               f"{domain} doesn't allow sharing with personal accounts.\"", "shareOutNotPermitted")


def _resource(file: FakeFile) -> dict[str, Any]:
    reply = {"kind": "drive#file", "id": file.id, "name": file.name, "mimeType": SHEETS_MIME}
    if file.modified:
        reply["modifiedTime"] = file.modified
    if file.app_properties:
        reply["appProperties"] = dict(file.app_properties)
    return reply
