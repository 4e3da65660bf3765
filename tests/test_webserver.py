"""tests/webserver.py: the replay server says nothing about a client that stopped waiting."""

from __future__ import annotations

import socket
import time

from tests import webserver


def test_an_answer_to_a_client_that_stopped_waiting_prints_nothing(capsys):
    """What X-Delay tests (a service that does not answer in time): the client has gone when
    the answer comes. socketserver printed a traceback to sys.stderr then, and when a
    command's output was being captured meanwhile (CliRunner), it landed in that output
    (test_web_add's one-line timeout message failed so on a loaded machine)."""
    replay, server = webserver.start()
    replay.script("/crossref/works/10.1/late", [(200, b"{}" * 100_000, {"X-Delay": "0.2"})])
    host, port = server.server_address
    with socket.create_connection((host, port)) as client:
        client.sendall(b"GET /crossref/works/10.1/late HTTP/1.1\r\nHost: x\r\n\r\n")
        while not replay.requests:  # the server has read it: it is waiting to answer
            time.sleep(0.01)
    server.shutdown()
    server.server_close()  # waits for the handler: the answer has been written to no one
    assert capsys.readouterr().err == ""
