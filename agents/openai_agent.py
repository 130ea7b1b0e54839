"""An agent that calls any OpenAI-compatible ``/chat/completions`` server (e.g. ``vllm serve``).

Standard library only (urllib). Tools go to the server natively; failures never raise into the env loop:
after bounded, deterministic retries the agent returns an empty assistant message and records the error.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from livesim.agents.base import Action, BaseAgent, Observation
from livesim.parsing import format_tool_call, openai_call_parts

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class _Retryable(Exception):
    """A failure worth another attempt (timeout, connection error, 5xx)."""


def tools_as_text(tools: list[dict[str, Any]]) -> str:
    """Describe tools in a system-prompt block (Hermes style) for servers without native tool support."""
    lines = "\n".join(json.dumps(tool, ensure_ascii=False) for tool in tools)
    return (
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n"
        f"<tools>\n{lines}\n</tools>"
        "\n\nFor each function call, return a json object with function name and arguments within "
        '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": '
        "<args-json-object>}\n</tool_call>"
    )


def native_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI wire format: string arguments, typed calls with ids, tool results linked by ``tool_call_id``."""
    out = []
    for n, msg in enumerate(messages):
        msg = dict(msg)
        if msg.get("tool_calls"):
            calls = []
            for k, call in enumerate(msg["tool_calls"]):
                fn = dict(call.get("function", call))
                args = fn.get("arguments", {})
                if isinstance(args, str):
                    try:
                        json.loads(args)
                    except ValueError:  # servers json.loads arguments: keep broken ones as a JSON string
                        args = json.dumps(args, ensure_ascii=False)
                else:
                    args = json.dumps(args, ensure_ascii=False)
                fn["arguments"] = args
                calls.append({"id": call.get("id") or f"call_{n}_{k}", "type": "function",
                              "function": {"name": fn.get("name", ""), "arguments": fn["arguments"]}})
            msg["tool_calls"] = calls
        out.append(msg)
    return out


def _text_messages(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Plain-text conversation: tools in the system prompt, calls and results as tagged text."""
    out: list[dict[str, Any]] = []
    block = tools_as_text(tools) if tools else ""
    if messages and messages[0].get("role") == "system":
        out.append({"role": "system", "content": f"{messages[0].get('content') or ''}\n\n{block}".strip()})
        messages = messages[1:]
    elif block:
        out.append({"role": "system", "content": block})
    for msg in messages:
        role, content = msg.get("role"), msg.get("content") or ""
        if role == "tool":
            text = f"<tool_response>\n{content}\n</tool_response>"
            if out and out[-1]["role"] == "user" and out[-1]["content"].endswith("</tool_response>"):
                out[-1]["content"] += "\n" + text
            else:
                out.append({"role": "user", "content": text})
        elif role == "assistant" and msg.get("tool_calls"):
            parts = [content] if content else []
            for call in msg["tool_calls"]:
                parts.append(format_tool_call(*openai_call_parts(call)))
            out.append({"role": "assistant", "content": "\n".join(parts)})
        else:
            out.append({"role": role, "content": content})
    return out


class OpenAIAgent(BaseAgent):
    """Chat completions over HTTP, with native tools, retries with backoff and a thread pool for batches.

    ``act`` returns the server's assistant message ``{"role", "content", "tool_calls"?}``. On a malformed
    body, a non-retryable HTTP error or exhausted retries it returns ``{"role": "assistant", "content": ""}``,
    adds one to ``stats["errors"]`` and appends the reason to ``error_log``. ``stats["generate_seconds"]`` is
    wall time inside ``act``/``act_batch`` (so tokens/s counts concurrency); ``request_seconds`` sums requests.
    Retry ``k`` (from 0) waits ``min(backoff * 2**k, max_backoff)`` seconds: no jitter, so runs replay.
    """

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "EMPTY",
        timeout: float = 30.0,
        max_retries: int = 3,
        concurrency: int = 8,
        temperature: float = 0.0,
        max_tokens: int = 512,
        tools_native: bool = True,
        *,
        top_p: float | None = None,
        seed: int | None = None,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        if max_retries < 0 or concurrency < 1 or timeout <= 0:
            raise ValueError(
                "expected max_retries >= 0, concurrency >= 1, timeout > 0, "
                f"got {max_retries}, {concurrency}, {timeout}"
            )
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key, self.timeout = model, api_key, timeout
        self.max_retries, self.concurrency = max_retries, concurrency
        self.temperature, self.max_tokens, self.tools_native = temperature, max_tokens, tools_native
        self.top_p, self.seed, self.backoff, self.max_backoff = top_p, seed, backoff, max_backoff
        self.extra_body = dict(extra_body or {})
        self.error_log: list[str] = []
        self.last_latencies: list[float] = []
        self._lock = threading.Lock()
        self.stats.update(requests=0, retries=0, errors=0, prompt_tokens=0, completion_tokens=0,
                          request_seconds=0.0, generate_seconds=0.0, observations=0)

    @property
    def tokens_per_second(self) -> float:
        """Completion tokens (as the server reports them) per wall-clock second spent acting."""
        secs = self.stats["generate_seconds"]
        return self.stats["completion_tokens"] / secs if secs > 0 else 0.0

    def request_body(self, observation: Observation) -> dict[str, Any]:
        """Build the JSON body sent for one observation."""
        messages = list(observation.get("messages", []))
        tools = observation.get("tools") or []
        body: dict[str, Any] = {
            "model": self.model, "temperature": self.temperature, "max_tokens": self.max_tokens,
        }
        if self.tools_native:
            body["messages"] = native_messages(messages)
            if tools:
                body["tools"] = tools
        else:
            body["messages"] = _text_messages(messages, tools)
        if self.top_p is not None:
            body["top_p"] = self.top_p
        if self.seed is not None:
            body["seed"] = self.seed
        body.update(self.extra_body)
        return body

    def act(self, observation: Observation) -> Action:
        return self.act_batch([observation])[0]

    def act_batch(self, observations: list[Observation]) -> list[Action]:
        """Send up to ``concurrency`` requests at once; results keep the input order."""
        if not observations:
            return []
        t0 = time.perf_counter()
        if len(observations) == 1:
            results = [self._complete(observations[0])]
        else:
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(observations))) as pool:
                results = list(pool.map(self._complete, observations))
        self._record(generate_seconds=time.perf_counter() - t0, observations=len(observations))
        self.last_latencies = [latency for _, latency in results]
        return [reply for reply, _ in results]

    def _record(self, **deltas: float) -> None:
        with self._lock:
            for key, value in deltas.items():
                self.stats[key] = self.stats.get(key, 0) + value

    def _fail(self, reason: str) -> dict[str, Any]:
        with self._lock:
            self.stats["errors"] += 1
            self.error_log.append(reason)
            del self.error_log[:-100]
        return {"role": "assistant", "content": ""}

    def _complete(self, observation: Observation) -> tuple[dict[str, Any], float]:
        data = json.dumps(self.request_body(observation)).encode()
        start = time.perf_counter()
        last_error = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                self._record(retries=1)
                time.sleep(min(self.backoff * 2 ** (attempt - 1), self.max_backoff))
            try:
                raw = self._post(data)
            except _Retryable as exc:
                last_error = str(exc)
                continue
            except urllib.error.HTTPError as exc:
                return self._fail(f"HTTP {exc.code}: {exc.reason}"), time.perf_counter() - start
            except Exception as exc:  # noqa: BLE001 - the env loop must never see an exception
                return self._fail(f"{type(exc).__name__}: {exc}"), time.perf_counter() - start
            return self._parse(raw), time.perf_counter() - start
        reply = self._fail(f"gave up after {self.max_retries + 1} attempts: {last_error}")
        return reply, time.perf_counter() - start

    def _post(self, data: bytes) -> bytes:
        request = urllib.request.Request(self.url, data=data, method="POST", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"})
        t0 = time.perf_counter()
        self._record(requests=1)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            if exc.code in RETRY_STATUS:
                raise _Retryable(f"HTTP {exc.code}") from exc
            raise
        except TimeoutError as exc:
            raise _Retryable("timeout") from exc
        except urllib.error.URLError as exc:
            raise _Retryable(f"connection error: {exc.reason}") from exc
        except (OSError, http.client.HTTPException) as exc:  # resets and truncated reads
            raise _Retryable(f"connection error: {exc}") from exc
        finally:
            self._record(request_seconds=time.perf_counter() - t0)

    def _parse(self, raw: bytes) -> dict[str, Any]:
        try:
            payload = json.loads(raw)
            message = payload["choices"][0]["message"]
            if not isinstance(message, dict):
                raise TypeError(f"message is {type(message).__name__}")
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            return self._fail(f"malformed response ({type(exc).__name__}: {exc}): {raw[:200]!r}")
        usage = payload.get("usage") or {}
        if isinstance(usage, dict):
            self._record(prompt_tokens=usage.get("prompt_tokens") or 0,
                         completion_tokens=usage.get("completion_tokens") or 0)
        reply: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
        if message.get("tool_calls"):
            reply["tool_calls"] = message["tool_calls"]
        if message.get("reasoning_content"):
            reply["reasoning_content"] = message["reasoning_content"]
        return reply
