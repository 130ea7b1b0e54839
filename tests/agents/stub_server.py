"""A small OpenAI-compatible server on 127.0.0.1 (an ephemeral port) for tests: scripted replies, injected faults.

It answers ``POST /v1/chat/completions``, ``GET /v1/models`` and (when ``slots`` is set) llama.cpp's
``GET /props``, and counts every HTTP request it receives (``hits``, also at ``GET /stats``), so tests need no
counting proxy. Run as a script it serves until killed, for trying the CLI by hand:
``python tests/agents/stub_server.py --port 8011 --one-slot --slow 0.5 --die-after 3``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = str | dict[str, Any]

FAULTS = ("500", "status", "timeout", "malformed", "garbage", "empty", "truncate", "drop", "drip", "huge")
"""What `fail_next` can make a request do:

- ``500``: HTTP 500 with a JSON error body; ``status``: the given status and body (``Retry-After`` if set);
- ``timeout``: answer correctly after ``delay`` seconds; ``drip``: send a correct body one byte every
  ``delay`` seconds (every read is quick, the whole answer is slow);
- ``malformed``: 200 with a non-JSON body; ``garbage``: 200 with random-looking bytes and control characters;
  ``empty``: 200 with ``{}``; ``huge``: 200 with a body of ``size`` bytes;
- ``truncate``: a Content-Length larger than the body, then the connection closes; ``drop``: the
  connection closes with no answer at all.
"""


def completion(message: dict[str, Any], model: str = "stub", usage: dict[str, Any] | None = None) -> dict[str, Any]:
    """Wrap an assistant message in a chat.completion body."""
    return {
        "id": "chatcmpl-stub", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": usage if usage is not None else {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
    }


class StubChatServer:
    """Answers chat completions from a queue of replies, then from ``responder``; ``fail_next`` injects faults.

    ``slow(s)`` delays every answer (``one_slot``: one at a time, the others queue); ``die_after(n)`` closes the
    server after ``n`` answered chat requests (later connections are refused); ``usage`` replaces the usage
    block; ``models_status`` makes ``GET /models`` fail.
    ``requests`` holds the chat bodies, ``hits`` the ``(method, path)`` of every HTTP request.
    """

    def __init__(self, responder: Callable[[dict[str, Any]], Reply] | None = None, port: int = 0) -> None:
        self.responder = responder or (lambda body: "ok")
        self.replies: deque[Reply] = deque()
        self.faults: deque[dict[str, Any] | None] = deque()
        self.requests: list[dict[str, Any]] = []
        self.hits: list[tuple[str, str]] = []
        self.latency = 0.0
        self.usage: dict[str, Any] | None = None
        self.slots: int | None = None
        self.models_status = 200
        self.one_slot = False
        self.answered = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._die_after: int | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._slot = threading.Lock()  # with one_slot, answers are computed one at a time (a queue, as llama.cpp)
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def chat_hits(self) -> int:
        """HTTP requests to the chat endpoint (answered or not)."""
        return sum(1 for method, path in self.hits if method == "POST")

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def fail_next(self, n: int, mode: str = "500", delay: float = 1.0, *, status: int = 500, body: str = "",
                  retry_after: float | None = None, size: int = 1 << 20, after: int = 0) -> None:
        """Make `n` chat requests fail as `mode` says (`FAULTS`), once `after` more requests have passed."""
        if mode not in FAULTS:
            raise ValueError(f"expected mode in {'/'.join(FAULTS)}, got {mode!r}")
        self.faults.extend([None] * after)
        self.faults.extend([{"mode": mode, "delay": delay, "status": status, "body": body,
                             "retry_after": retry_after, "size": size}] * n)

    def slow(self, seconds: float) -> None:
        self.latency = seconds

    def die_after(self, n: int) -> None:
        self._die_after = n

    def close(self) -> None:
        """Stop serving and close the listening socket: new connections are refused."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> StubChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        self._thread.join(timeout=5)

    def _next(self, body: dict[str, Any]) -> tuple[dict[str, Any] | None, Reply]:
        with self._lock:
            self.requests.append(body)
            fault = self.faults.popleft() if self.faults else None
            reply = self.replies.popleft() if self.replies else None
            if fault is not None and reply is not None:  # a failed request does not consume a scripted reply
                self.replies.appendleft(reply)
                reply = None
        if reply is None and fault is None:
            reply = self.responder(body)
        return fault, reply if reply is not None else ""

    def _answered(self) -> None:
        with self._lock:
            self.answered += 1
            die = self._die_after is not None and self.answered >= self._die_after
        if die:  # closed before this answer goes out, so the client's next connection is refused
            self.close()  # (handlers run in their own threads: shutdown() can wait for serve_forever here)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def _send(self, status: int, payload: bytes, length: int | None = None,
                      headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload) if length is None else length))
                    self.send_header("Connection", "close")
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                    self.wfile.flush()
                except OSError:  # the client gave up (timeout); nothing to do
                    pass
                self.close_connection = True

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                with stub._lock:
                    stub.hits.append(("GET", self.path))
                path = self.path.rstrip("/")
                if path == "/v1/models":
                    if stub.models_status != 200:
                        self._send(stub.models_status, b'{"error": {"message": "models are not served"}}')
                    else:
                        self._send(200, json.dumps({"object": "list", "data": [{"id": "stub"}]}).encode())
                elif path == "/stats":
                    with stub._lock:
                        stats = {"hits": len(stub.hits), "chat": stub.chat_hits, "answered": stub.answered,
                                 "max_in_flight": stub.max_in_flight}
                    self._send(200, json.dumps(stats).encode())
                elif path == "/props" and stub.slots is not None:
                    self._send(200, json.dumps({"total_slots": stub.slots}).encode())
                else:
                    self._send(404, b'{"error": "not found"}')

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                with stub._lock:
                    stub.hits.append(("POST", self.path))
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, b'{"error": "not found"}')
                    return
                body = json.loads(raw or b"{}")
                with stub._lock:
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                slot = stub._slot if stub.one_slot else contextlib.nullcontext()
                try:  # "in flight": computing an answer (done before it is sent, so a client's next request
                    with slot:  # cannot overlap this one in the count)
                        fault, reply = stub._next(body)
                        if stub.latency:
                            time.sleep(stub.latency)
                finally:
                    with stub._lock:
                        stub.in_flight -= 1
                if fault is None:
                    message = {"role": "assistant", "content": reply} if isinstance(reply, str) else reply
                    answer = completion(message, body.get("model", "stub"), stub.usage)
                    stub._answered()
                    self._send(200, json.dumps(answer).encode())
                else:
                    self._fault(fault)

            def _fault(self, fault: dict[str, Any]) -> None:
                mode, delay = fault["mode"], fault["delay"]
                late = json.dumps(completion({"role": "assistant", "content": "late"})).encode()
                if mode == "500":
                    self._send(500, b'{"error": "boom"}')
                elif mode == "status":
                    extra = {"Retry-After": f"{fault['retry_after']:g}"} if fault["retry_after"] is not None else {}
                    self._send(fault["status"], fault["body"].encode(), headers=extra)
                elif mode == "timeout":
                    time.sleep(delay)
                    self._send(200, late)
                elif mode == "drip":
                    try:
                        self.send_response(200)
                        self.send_header("Content-Length", str(len(late)))
                        self.end_headers()
                        for i in range(len(late)):
                            self.wfile.write(late[i:i + 1])
                            self.wfile.flush()
                            time.sleep(delay)
                    except OSError:
                        pass
                    self.close_connection = True
                elif mode == "malformed":
                    self._send(200, b"this is not json {")
                elif mode == "garbage":
                    self._send(200, bytes(range(256)) * 4)
                elif mode == "empty":
                    self._send(200, b"{}")
                elif mode == "huge":
                    self._send(200, b" " * fault["size"])
                elif mode == "truncate":
                    self._send(200, late[: len(late) // 2], length=len(late))
                elif mode == "drop":
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        return Handler


def main(argv: list[str] | None = None) -> None:
    """Serve on 127.0.0.1 until SIGTERM/SIGINT; print the request counts on stderr at the end."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--reply", default="Thanks for asking!", help="the assistant's text for every answer")
    p.add_argument("--slow", type=float, default=0.0, help="seconds to compute each answer")
    p.add_argument("--one-slot", action="store_true", help="compute one answer at a time (the rest queue)")
    p.add_argument("--slots", type=int, default=None, help="total_slots at GET /props")
    p.add_argument("--die-after", type=int, default=None, help="close after N answered chat requests")
    p.add_argument("--fault", choices=FAULTS, default=None, help="fail the first --faults chat requests so")
    p.add_argument("--faults", type=int, default=1_000_000)
    p.add_argument("--status", type=int, default=500)
    p.add_argument("--body", default="")
    p.add_argument("--delay", type=float, default=1.0)
    args = p.parse_args(argv)
    reply = args.reply
    with StubChatServer(lambda body: reply, port=args.port) as srv:
        srv.slow(args.slow)
        srv.one_slot, srv.slots = args.one_slot, args.slots
        if args.die_after is not None:
            srv.die_after(args.die_after)
        if args.fault:
            srv.fail_next(args.faults, args.fault, args.delay, status=args.status, body=args.body)
        print(srv.base_url, flush=True)
        done = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: done.set())
        try:
            while not done.wait(0.2):
                pass
        except KeyboardInterrupt:
            pass
        print(json.dumps({"hits": len(srv.hits), "chat": srv.chat_hits, "answered": srv.answered,
                          "max_in_flight": srv.max_in_flight}), file=sys.stderr)


if __name__ == "__main__":
    main()
