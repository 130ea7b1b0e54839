"""One HTTP exchange with an OpenAI-compatible server, bounded in time and size (standard library only).

`exchange` sends a request and reads the whole answer within `limit_s` seconds counted from when it is sent
(connect, send, status, every read: one budget, not a timeout per read), refusing a body over `max_body` bytes.
Every failure is an `HTTPFailure` that says whether another attempt may help and quotes the server's own words.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
import urllib.request
from typing import Any

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
ERROR_CHARS = 300  # of a server's error body in an error line
_READ = 65536


class HTTPFailure(Exception):
    """A failed exchange: `why` is one line; `retryable` says whether another attempt may succeed."""

    def __init__(self, why: str, retryable: bool, *, timed_out: bool = False, status: int | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(why)
        self.why, self.retryable, self.timed_out = why, retryable, timed_out
        self.status, self.retry_after = status, retry_after


def escaped(text: str, limit: int = ERROR_CHARS) -> str:
    """`text` on one line, safe for a terminal: control and other unprintable characters as escapes, cut at
    `limit` characters.
    """
    out = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
    return out if len(out) <= limit else f"{out[:limit]}… ({len(out)} chars)"


def error_text(raw: bytes, limit: int = ERROR_CHARS) -> str:
    """What a server said in an error body: `error.message` (OpenAI, vLLM, llama.cpp), `detail` or `message`
    when the body is JSON, else the body itself; escaped and cut (`escaped`).
    """
    text = raw.decode("utf-8", "replace")
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        said = next((payload[k] for k in ("error", "detail", "message") if payload.get(k)), None)
        if isinstance(said, dict) and said.get("message"):
            said = said["message"]
        if said is not None:
            text = said if isinstance(said, str) else json.dumps(said, ensure_ascii=False)
    return escaped(text.strip(), limit) or "(empty body)"


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:  # an HTTP date: not worth parsing for a backoff hint
        return None


def _connection(url: str, limit_s: float) -> tuple[http.client.HTTPConnection, str]:
    """A connection for `url` (through the environment's proxy, as urllib would) and the request target."""
    parts = urllib.parse.urlsplit(url)
    https = parts.scheme == "https"
    host, port = parts.hostname or "", parts.port or (443 if https else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    proxy = urllib.request.getproxies().get(parts.scheme)
    if proxy and not urllib.request.proxy_bypass(host):
        p = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        if https:
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(p.hostname or "", p.port or 80,
                                                                           timeout=limit_s)
            conn.set_tunnel(host, port)
            return conn, target
        return http.client.HTTPConnection(p.hostname or "", p.port or 80, timeout=limit_s), url
    cls = http.client.HTTPSConnection if https else http.client.HTTPConnection
    return cls(host, port, timeout=limit_s), target


def exchange(method: str, url: str, body: bytes | None, headers: dict[str, str], limit_s: float,
             max_body: int) -> bytes:
    """Send one request; return the body of a 2xx answer. Raise `HTTPFailure` for anything else: an HTTP error
    status (with the server's words), no answer within `limit_s`, a refused or dropped connection, a truncated
    body or one over `max_body` bytes.
    """
    deadline = time.monotonic() + limit_s

    def left() -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        return remaining

    conn, target = _connection(url, limit_s)
    try:
        conn.request(method, target, body=body, headers=headers)
        sock = conn.sock  # the response keeps reading from it after a `Connection: close` answer drops conn.sock
        assert sock is not None
        sock.settimeout(left())
        response = conn.getresponse()
        chunks, size = [], 0
        cap = max_body if 200 <= response.status < 300 else 65536  # an error page is only quoted
        while True:
            sock.settimeout(left())
            chunk = response.read1(_READ)
            if not chunk:
                break
            size += len(chunk)
            if size > cap:
                if cap == max_body:
                    raise HTTPFailure(f"response body over {max_body} bytes (max_body); not read", False)
                break
            chunks.append(chunk)
        raw = b"".join(chunks)
        if response.length and size <= cap:  # the connection closed before Content-Length bytes came
            raise http.client.IncompleteRead(raw, response.length)
    except HTTPFailure:
        raise
    except TimeoutError as exc:
        raise HTTPFailure(f"timeout: no complete answer within {limit_s:.3g}s", True, timed_out=True) from exc
    except ConnectionRefusedError as exc:
        raise HTTPFailure("connection refused", True) from exc
    except http.client.IncompleteRead as exc:
        raise HTTPFailure(f"truncated body ({len(exc.partial)} bytes, "
                          f"{exc.expected if exc.expected is not None else 'more'} missing)", True) from exc
    except (OSError, http.client.HTTPException) as exc:  # resets, DNS, a server that closed without answering
        detail = str(exc) or type(exc).__name__
        raise HTTPFailure(f"connection error: {escaped(detail)}", True) from exc
    finally:
        conn.close()
    if not 200 <= response.status < 300:
        raise HTTPFailure(f"HTTP {response.status}: {error_text(raw)}", response.status in RETRY_STATUS,
                          status=response.status, retry_after=_retry_after(response.getheader("Retry-After")))
    return raw


def post_json(url: str, payload: dict[str, Any], api_key: str, limit_s: float, max_body: int) -> bytes:
    """POST `payload` as JSON (`exchange`)."""
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {api_key}"}
    return exchange("POST", url, json.dumps(payload).encode(), headers, limit_s, max_body)


def get_json(url: str, api_key: str, limit_s: float, max_body: int = 1 << 20) -> Any:
    """GET `url` and decode its JSON body (None if it is not JSON)."""
    raw = exchange("GET", url, None, {"Authorization": f"Bearer {api_key}"}, limit_s, max_body)
    try:
        return json.loads(raw)
    except ValueError:
        return None
