"""How we reach Google: a gspread client from a service-account key or an OAuth login, whose HTTP
client retries what is worth retrying and then gives up with a message the host can act on.

gspread 6.2.1's `BackOffHTTPClient` retries forever; `RetryingHTTPClient` retries for a little
over a minute (the quota's window).

Books are read and written from several threads at once (`in_flight.each_book`) through the one
client and its one session. What that shares, and why it is safe:

- requests documents no threading contract for a `Session` (psf/requests#2766; its maintainers
  advise one per thread). What a request changes in a session is its cookie jar (every other
  field is only read once set up): our session takes no cookies, which Google's APIs do not need,
  so the jar never changes. The connection pools beneath are urllib3's, which are thread-safe.
- google-auth's `AuthorizedSession` refreshes an expired token in `before_request` without a lock
  (googleapis/google-auth-library-python#1780): threads finding it expired together would each
  fetch one. `request` refreshes it first, under a lock, so one thread does and the others wait
  for it.
- Retries are per request: each thread waits out its own 429 or 5xx, with the same patience.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, MutableMapping
from http.cookiejar import DefaultCookiePolicy
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import gspread
import requests
from requests.adapters import DEFAULT_POOLSIZE, HTTPAdapter
from google.auth.credentials import Credentials
from google.auth.exceptions import RefreshError, TransportError
from google.auth.transport.requests import Request
from gspread.exceptions import APIError
from gspread.http_client import FileType, HTTPClient, ParamsType

from sheets_host.kit.errors import BookError

# gspread.oauth caches the user's token here instead of under ~/.config/gspread.
TOKEN_FILE = gspread.auth.get_config_dir("sheets-host") / "authorized_user.json"
# Requests in flight at once by default (`GoogleBackend.in_flight`). Google publishes no limit on
# concurrent requests, only per-minute quotas, which sending together does not change. With 12, a
# game of up to 24 books besides the host's (a 20-player game has 21) is read in two round trips,
# and written in two.
IN_FLIGHT = 12
# Drive reports its own rate limits as 403 with one of these reasons.
_DRIVE_RATE_REASONS = {"rateLimitExceeded", "userRateLimitExceeded"}


class RetryingHTTPClient(HTTPClient):
    """gspread's HTTP client, retrying rate limits, server errors and dropped connections.

    Waits 2, 4, 8, 16, 30, 30 s (or what Retry-After asks, up to a minute) until at least 70 s
    have gone by, since the per-minute quota has refilled by then: 7 tries over 90 s at most
    without Retry-After.
    """

    patience = 70.0  # seconds of waiting before giving up
    longest_wait = 30.0

    def __init__(self, auth: Credentials, session: requests.Session | None = None) -> None:
        super().__init__(auth, session)
        self.sleep: Callable[[float], object] = time.sleep
        # gspread waits forever by default; a hung connection should become a retried Timeout.
        self.timeout = (10, 120)
        # Shared by the threads that send requests at once (see the module's docstring).
        self.session.cookies.set_policy(DefaultCookiePolicy(allowed_domains=[]))
        # requests keeps 10 connections a host; more requests in flight would each open one and
        # throw it away after, with a warning.
        self.session.mount("https://", HTTPAdapter(pool_maxsize=max(IN_FLIGHT, DEFAULT_POOLSIZE)))
        self._refreshing = threading.Lock()

    def _fresh_token(self) -> None:
        """The credentials refreshed if they must be, by one thread at a time."""
        auth = getattr(self, "auth", None)  # None when gspread was handed a session instead
        if auth is None or auth.valid:
            return
        with self._refreshing:
            if not auth.valid:
                auth.refresh(Request())  # not through our session: its own refresh would recurse

    def request(
        self,
        method: str,
        endpoint: str,
        params: ParamsType | None = None,
        data: bytes | None = None,
        json: Mapping[str, Any] | None = None,
        files: FileType = None,
        headers: MutableMapping[str, str] | None = None,
    ) -> requests.Response:
        waited, tries = 0.0, 0
        while True:
            tries += 1
            try:
                self._fresh_token()
                return super().request(method, endpoint, params=params, data=data, json=json, files=files, headers=headers)
            except APIError as e:
                if not _transient(e):
                    raise
                failure, retry_after = f"answered {e.response.status_code} ({_meaning(e)})", _retry_after(e.response)
                advice = ("if it keeps happening, something else is using the same account's quota"
                          if e.response.status_code == 429 else
                          "if it keeps happening, see https://www.google.com/appsstatus/dashboard/")
            except (requests.ConnectionError, requests.Timeout, TransportError) as e:
                failure, retry_after = f"could not be reached ({type(e).__name__})", None
                advice = "if it keeps happening, check this machine's network connection"
            except RefreshError as e:
                raise BookError(
                    f"Google refused the credentials ({e}); check the key file, or for --auth oauth "
                    f"delete {TOKEN_FILE} to log in again"
                ) from None
            if waited >= self.patience:
                break
            delay = retry_after if retry_after is not None else min(2.0**tries, self.longest_wait)
            self.sleep(delay)
            waited += delay
        url = urlsplit(endpoint)
        service = "Google Sheets" if url.hostname == "sheets.googleapis.com" else "Google Drive"
        raise BookError(
            f"{service} {failure} {tries} times over {waited:g} s for {method.upper()} {url.path}; "
            f"Google's quota refills each minute: wait a minute and run the command again ({advice})"
        )


def drive_reason(error: APIError) -> str | None:
    """Drive's machine-readable reason ('storageQuotaExceeded'...); Sheets errors carry none."""
    details = error.error.get("errors") or [{}]
    return details[0].get("reason")


def _transient(error: APIError) -> bool:
    # The HTTP status, not error.code: gspread sets that to -1 when the body is not JSON, as with
    # the HTML pages of Google's front ends for 502.
    status = error.response.status_code
    return status == 429 or status >= 500 or (status == 403 and drive_reason(error) in _DRIVE_RATE_REASONS)


def _meaning(error: APIError) -> str:
    if error.response.status_code == 429:
        return "quota: 60 requests a minute per user"
    if error.response.status_code == 403:
        return f"Drive rate limit: {drive_reason(error)}"
    return "a server error"


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    return min(float(value), 60.0) if value.replace(".", "", 1).isdigit() else None


def connect(auth: str, credentials: Path) -> gspread.Client:
    """A client logged in with a service-account key (auth="service") or as a person (auth="oauth",
    `credentials` then being the OAuth client file; the login is cached in TOKEN_FILE)."""
    if auth not in ("service", "oauth"):
        raise BookError(f"unknown auth {auth!r}; allowed: service, oauth")
    if not credentials.is_file():
        raise BookError(f"no Google credentials at {credentials}: pass the {'service-account key' if auth == 'service' else 'OAuth client'} JSON file")
    try:
        if auth == "service":
            return gspread.service_account(filename=credentials, http_client=RetryingHTTPClient)
        return _oauth(credentials)
    except ValueError as e:  # malformed JSON, or the other kind of key file
        raise BookError(f"{credentials} is not a valid {'service-account key' if auth == 'service' else 'OAuth client'} file: {e}") from None


def _oauth(credentials: Path) -> gspread.Client:
    """gspread.oauth with the cached token private to the user: it holds a refresh token and the
    OAuth client's secret. The umask makes a new file private; chmod fixes one cached before."""
    TOKEN_FILE.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    TOKEN_FILE.parent.chmod(0o700)
    umask = os.umask(0o077)
    try:
        return gspread.oauth(credentials_filename=credentials, authorized_user_filename=TOKEN_FILE, http_client=RetryingHTTPClient)
    finally:
        os.umask(umask)
        if TOKEN_FILE.exists():
            TOKEN_FILE.chmod(0o600)
