"""A local HTTP server replaying recorded answers of arXiv, Crossref, DataCite and OpenReview
(tests/data/web/, listed in routes.json), for tests that fetch: $CATALOG_WEB_BASE points the
catalog at it, and each service is asked under /<service>/. A route names its request by path
and by query parameters that are (`query`), are there (`query_has`) or hold a text
(`query_contains`: a search's words); the first that fits answers.

A test can put answers in front of the recorded ones (`server.script(path, [(status, body,
headers), ...])`: a 429 before the answer, an HTML error page, a body cut short) and reads
every request the catalog made in `server.requests`."""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

DATA = Path(__file__).parent / "data" / "web"


@dataclass
class Replay:
    base: str
    requests: list[dict] = field(default_factory=list)
    scripted: dict[str, list[tuple]] = field(default_factory=dict)
    routes: list[dict] = field(default_factory=list)

    def script(self, path: str, answers: list[tuple]) -> None:
        """Answers given, in turn, to requests for `path` (/service/...) before its recorded one.
        An answer is (status, body bytes, headers dict); a body of None with headers
        {"Content-Length": N} larger than nothing is a connection cut short, and a header
        X-Delay: SECONDS holds the answer back that long."""
        self.scripted.setdefault(path, []).extend(answers)

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, bytes, dict]:
        if self.scripted.get(path):
            return self.scripted[path].pop(0)
        for route in self.routes:
            if path == f"/{route['service']}{route['path']}" and all(
                    query.get(k) == v for k, v in route.get("query", {}).items()) and all(
                    query.get(k) for k in route.get("query_has", ())) and all(
                    all(part in query.get(k, "") for part in v)
                    for k, v in route.get("query_contains", {}).items()):
                body = (DATA / route["file"]).read_bytes()
                return route.get("status", 200), body, {"Content-Type": route["type"]}
        return 404, b"no recording for this request", {"Content-Type": "text/plain"}


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close() waits for late answers: none outlives its test

    def handle_error(self, request, client_address) -> None:
        """A client that gave up (a timeout the test asked for) is what the test is about, not an
        error: the default printed a traceback to whatever sys.stderr was at that moment, which
        is the output of the command the test is running when the CLI runner has it."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def start() -> tuple[Replay, ThreadingHTTPServer]:
    replay = Replay("")
    replay.routes = json.loads((DATA / "routes.json").read_text("utf-8"))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802  (http.server's name)
            parts = urlsplit(self.path)
            query = dict(parse_qsl(parts.query, keep_blank_values=True))
            replay.requests.append({"path": parts.path, "query": query,
                                    "user_agent": self.headers.get("User-Agent", "")})
            status, body, headers = replay.answer(parts.path, query)
            if "X-Delay" in headers:  # a service that does not answer in time
                import time

                time.sleep(float(headers["X-Delay"]))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            if body is None:  # cut short: promise bytes that never come
                self.end_headers()
                self.wfile.write(b'{"status":"ok","mess')
                self.wfile.flush()
                self.close_connection = True
                return
            if "Content-Length" not in headers:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = _Server(("127.0.0.1", 0), Handler)
    replay.base = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return replay, server
