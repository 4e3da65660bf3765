"""One polite HTTP client for every service: a User-Agent with the user's contact, each
service's rate limit, retries with backoff on 429 and 503, timeouts, and an on-disk cache.

The cache keeps each answer (200, and 404: "no such DOI" is an answer too) under the URL it
came from, so running the same command again makes no request. Errors become one line
(FetchError); being offline is Offline, so a command can stop at the first one rather than
try every identifier in turn.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from catalog.errors import CatalogError
from catalog.fetching.settings import Settings

RETRIES = 3  # after the first attempt, on 429/503 (and a timeout)
BACKOFF = 2.0  # seconds before the first retry, doubled each time, unless Retry-After says
MAX_WAIT = 60.0  # a Retry-After longer than this is not waited for: the service is down
MAX_BODY = 20 * 1024 * 1024  # a record or a page of them
MAX_FILE = 200 * 1024 * 1024  # a PDF
CACHED_STATUSES = (200, 404)


class FetchError(CatalogError):
    """A service could not give an answer: one line saying which and why."""


class Offline(FetchError):
    """No connection at all (no network, the name does not resolve, refused)."""


@dataclass(frozen=True)
class Response:
    url: str
    status: int
    body: bytes
    content_type: str
    cached: bool = False
    retry_after: float | None = None  # seconds, from a 429's or 503's Retry-After

    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


class Client:
    """`sleep` and `clock` are the waits and the time between requests (tests give their own)."""

    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.sleep = sleep
        self.clock = clock
        self.requests = 0  # made over the network (not from the cache)

    def get(self, service: str, path: str, params: dict[str, str] | None = None, *,
            accept: str = "*/*", fresh: bool = False) -> Response:
        """`fresh`: ask the service even when the cache has an answer (which is replaced)."""
        where = self.settings.service(service)
        url = f"{where.base}{path}" + (f"?{urlencode(params)}" if params else "")
        cached = None if fresh else self._cached(url, accept)
        if cached is not None:
            return cached
        response = self._fetch(service, url, accept, where.interval)
        if response.status in CACHED_STATUSES:
            self._keep(response, accept)
        return response

    def download(self, url: str) -> Response:
        """A file (a PDF) from anywhere on the web, not cached: with $CATALOG_WEB_BASE set it is
        asked at BASE/files/HOST/PATH. arXiv's hosts get arXiv's pause, others a second."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise FetchError(f"{url!r} is not a web address")
        host = parts.netloc.lower()
        arxiv = host == "arxiv.org" or host.endswith(".arxiv.org")
        key = "arxiv" if arxiv else f"host-{host.replace(':', '_')}"
        interval = self.settings.service("arxiv").interval if arxiv else (0.0 if self.settings.base else 1.0)
        if self.settings.base:
            url = f"{self.settings.base.rstrip('/')}/files/{host}{parts.path}" + (f"?{parts.query}" if parts.query else "")
        return self._fetch(key, url, "application/pdf,*/*;q=0.5", interval, limit=MAX_FILE)

    # --- the network ---------------------------------------------------------------------

    def _fetch(self, service: str, url: str, accept: str, interval: float, limit: int = MAX_BODY) -> Response:
        host = urlsplit(url).netloc
        for attempt in range(RETRIES + 1):
            self._wait_turn(service, interval)
            try:
                response = self._once(url, accept, service, limit)
            except TimeoutError:
                if attempt == RETRIES:
                    raise FetchError(f"{host} did not answer within {self.settings.timeout:g} s "
                                     f"({attempt + 1} tries); try again later") from None
                self.sleep(BACKOFF * 2 ** attempt)
                continue
            if response.status not in (429, 503):
                return response
            wait = response.retry_after if response.retry_after is not None else BACKOFF * 2 ** attempt
            if attempt == RETRIES or wait > MAX_WAIT:
                busy = "is limiting requests (429)" if response.status == 429 else "is unavailable (503)"
                raise FetchError(f"{host} {busy}; try again later")
            self.sleep(wait)
        raise AssertionError("unreachable")

    def _once(self, url: str, accept: str, service: str, limit: int = MAX_BODY) -> Response:
        import http.client
        import socket
        import urllib.error
        import urllib.request

        request = urllib.request.Request(url, headers={"User-Agent": self.settings.user_agent,
                                                       "Accept": accept})
        host = urlsplit(url).netloc
        self.requests += 1
        try:
            with urllib.request.urlopen(request, timeout=self.settings.timeout) as answer:
                return _read(url, answer.status, answer, answer.headers, limit)
        except urllib.error.HTTPError as exc:
            return _read(url, exc.code, exc, exc.headers, limit)
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                raise TimeoutError from None
            reason = getattr(exc.reason, "strerror", None) or str(exc.reason)
            raise Offline(f"cannot reach {host} ({reason}); check the network connection") from None
        except (TimeoutError, socket.timeout):
            raise TimeoutError from None
        except http.client.IncompleteRead:
            raise FetchError(f"the answer from {host} was cut short; try again") from None
        except (http.client.HTTPException, ConnectionError) as exc:
            raise FetchError(f"{host} broke off the connection ({type(exc).__name__}); try again") from None
        except OSError as exc:  # TLS failing mid-answer, and the like
            raise FetchError(f"{host} could not be read ({exc.strerror or type(exc).__name__}); try again") from None
        finally:
            self._stamp(service)

    def _wait_turn(self, service: str, interval: float) -> None:
        """Wait until `interval` seconds have passed since this service was last asked, by this
        process or another (the time is a file's in the cache folder)."""
        if interval <= 0:
            return
        stamp = self.settings.cache / f".last-{service}"
        try:
            last = stamp.stat().st_mtime
        except OSError:
            return
        left = last + interval - self.clock()
        if left > 0:
            self.sleep(min(left, interval))

    def _stamp(self, service: str) -> None:
        try:
            self.settings.cache.mkdir(parents=True, exist_ok=True)
            stamp = self.settings.cache / f".last-{service}"
            stamp.touch()
            now = self.clock()
            os.utime(stamp, (now, now))
        except OSError:
            pass  # a cache folder we cannot write only costs politeness across processes

    # --- the cache -------------------------------------------------------------------------

    def _paths(self, url: str, accept: str) -> tuple[Path, Path]:
        digest = hashlib.sha256(f"{accept}\n{url}".encode()).hexdigest()
        folder = self.settings.cache / digest[:2]
        return folder / f"{digest}.body", folder / f"{digest}.json"

    def _cached(self, url: str, accept: str) -> Response | None:
        body_path, meta_path = self._paths(url, accept)
        try:
            meta = json.loads(meta_path.read_text("utf-8"))
            body = body_path.read_bytes()
        except (OSError, ValueError):
            return None
        if meta.get("url") != url or len(body) != meta.get("length"):
            return None  # another URL's file (a hash collision), or a file cut short
        return Response(url, int(meta["status"]), body, str(meta.get("content_type", "")), cached=True)

    def _keep(self, response: Response, accept: str) -> None:
        body_path, meta_path = self._paths(response.url, accept)
        meta = {"url": response.url, "status": response.status, "content_type": response.content_type,
                "length": len(response.body), "fetched_at": int(self.clock())}
        try:
            body_path.parent.mkdir(parents=True, exist_ok=True)
            _write(body_path, response.body)
            _write(meta_path, json.dumps(meta).encode())  # last: a body without it is not used
        except OSError:
            pass  # an unwritable cache means asking again next time, nothing worse


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _read(url: str, status: int, stream, headers, limit: int = MAX_BODY) -> Response:
    body = stream.read(limit + 1)
    if len(body) > limit:
        raise FetchError(f"the answer from {urlsplit(url).netloc} is larger than {limit // 2**20} MB")
    if (headers.get("Content-Encoding") or "").lower() == "gzip":
        import gzip

        body = gzip.decompress(body)
    return Response(url, status, body, headers.get("Content-Type") or "",
                    retry_after=_seconds(headers.get("Retry-After")))


def _seconds(value: str | None) -> float | None:
    """Retry-After in seconds (the HTTP-date form is rare from these services: backoff instead)."""
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None
