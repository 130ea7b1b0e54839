"""A tiny OpenAI-compatible chat server on 127.0.0.1 for tests: scripted replies and injected faults."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = str | dict[str, Any]


def completion(message: dict[str, Any], model: str = "stub") -> dict[str, Any]:
    """Wrap an assistant message in a chat.completion body."""
    return {
        "id": "chatcmpl-stub", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
    }


class StubChatServer:
    """Answers ``POST /v1/chat/completions`` from a queue of replies, then from ``responder``.

    ``fail_next(n, mode)`` makes the next ``n`` requests fail: ``"500"`` (HTTP 500), ``"timeout"`` (sleep
    ``delay`` seconds before answering), ``"malformed"`` (200 with a non-JSON body), ``"empty"`` (200 with
    ``{}``). ``delay`` also applies to every request when set with ``slow(seconds)``.
    """

    def __init__(self, responder: Callable[[dict[str, Any]], Reply] | None = None) -> None:
        self.responder = responder or (lambda body: "ok")
        self.replies: deque[Reply] = deque()
        self.faults: deque[str] = deque()
        self.requests: list[dict[str, Any]] = []
        self.timeout_delay = 1.0
        self.latency = 0.0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def fail_next(self, n: int, mode: str = "500", delay: float = 1.0) -> None:
        if mode not in {"500", "timeout", "malformed", "empty"}:
            raise ValueError(f"expected mode in 500/timeout/malformed/empty, got {mode!r}")
        self.timeout_delay = delay
        self.faults.extend([mode] * n)

    def slow(self, seconds: float) -> None:
        self.latency = seconds

    def __enter__(self) -> StubChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next(self, body: dict[str, Any]) -> tuple[str | None, Reply]:
        with self._lock:
            self.requests.append(body)
            fault = self.faults.popleft() if self.faults else None
            reply = self.replies.popleft() if self.replies else None
        if fault is not None and reply is not None:  # a failed request does not consume a scripted reply
            with self._lock:
                self.replies.appendleft(reply)
        if reply is None:
            reply = self.responder(body)
        return fault, reply

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def _send(self, status: int, payload: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # the client gave up (timeout); nothing to do
                    pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, b'{"error": "not found"}')
                    return
                body = json.loads(raw or b"{}")
                with stub._lock:
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                try:
                    fault, reply = stub._next(body)
                    if stub.latency:
                        time.sleep(stub.latency)
                    if fault == "500":
                        self._send(500, b'{"error": "boom"}')
                    elif fault == "timeout":
                        time.sleep(stub.timeout_delay)
                        late = completion({"role": "assistant", "content": "late"})
                        self._send(200, json.dumps(late).encode())
                    elif fault == "malformed":
                        self._send(200, b"this is not json {")
                    elif fault == "empty":
                        self._send(200, b"{}")
                    else:
                        message = {"role": "assistant", "content": reply} if isinstance(reply, str) else reply
                        self._send(200, json.dumps(completion(message, body.get("model", "stub"))).encode())
                finally:
                    with stub._lock:
                        stub.in_flight -= 1

        return Handler
