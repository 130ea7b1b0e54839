"""An agent that calls any OpenAI-compatible ``/chat/completions`` server (vLLM, llama.cpp, hosted endpoints).

Standard library only. Tools go to the server natively. Every call's outcome is data: ``last_calls`` says, per
observation, whether it was answered, answered after retries (and why) or failed (and the cause), and ``stats``
counts HTTP requests, retries, timeouts and failed calls. A failed call returns an empty assistant message
(the env loop never sees an exception) except when the server looks dead: ``stop_after`` failed calls in a row
raise `AgentUnavailable`, and so does a failed `check_server`.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from livesim.agents.base import Action, AgentUnavailable, BaseAgent, Observation
from livesim.agents.chat_http import HTTPFailure, escaped, get_json, post_json
from livesim.parsing import format_tool_call, openai_call_parts

TOOL_CHOICES = ("auto", "required", "none", "omit")
MAX_BODY = 8 << 20  # bytes of one answer; a chat completion is kilobytes


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


def content_text(content: Any) -> str:
    """A message's ``content`` as text: a string, or OpenAI's list of parts (the text parts, joined)."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        return "".join(p if isinstance(p, str) else str(p.get("text") or "") if isinstance(p, dict) else ""
                       for p in content)
    raise TypeError(f"content is {type(content).__name__}")


def _count(value: Any) -> int:
    """A token count as the server wrote it (an int, or a number in a string); anything else is 0."""
    try:
        return max(0, int(float(value)))
    except (TypeError, ValueError, OverflowError):
        return 0


class OpenAIAgent(BaseAgent):
    """Chat completions over HTTP: native tools, bounded retries with seeded jittered backoff, a thread pool.

    ``act`` returns the server's assistant message ``{"role", "content", "tool_calls"?}`` (``content`` given as a
    list of parts is joined into text). A call is one observation; it may take several HTTP requests:

    - each attempt must complete (connect, send, the whole body) within ``timeout`` seconds from when it is
      sent, and the whole call (attempts and waits) within ``deadline`` (default ``2 * timeout``);
    - timeouts, refused or dropped connections, truncated bodies, 408/409/425/429 and 5xx are retried up to
      ``max_retries`` times; retry ``k`` (from 0) waits ``min(backoff * 2**k, max_backoff)`` times a factor in
      [0.5, 1) drawn from ``seed`` and the call's number (so a run replays its waits), or the server's
      ``Retry-After`` if longer (capped at ``max_backoff``);
    - other 4xx, a body that is not a chat completion or over ``max_body`` bytes fail at once.

    A failed call returns ``{"role": "assistant", "content": ""}``, adds one to ``stats["errors"]`` and its cause
    (with the server's own words, escaped and cut) to ``error_log``. ``last_calls`` holds, per observation of the
    last batch, ``{"outcome": "answered"|"retried"|"failed", "attempts", "retries": [why...], "error"?}``.
    ``stop_after`` failed calls in a row (0: never) raise `AgentUnavailable`: a dead server stops the run.

    ``concurrency=None`` asks the server (llama.cpp's ``/props`` ``total_slots``) in `check_server`, else 1, so
    a one-slot local server is not flooded. ``tool_choice`` is sent when tools are offered natively ("omit":
    not sent). ``stats["generate_seconds"]`` is wall time inside ``act``/``act_batch``; ``request_seconds``
    sums requests. ``api_key`` defaults to ``$LIVESIM_API_KEY`` (else "EMPTY"), which records do not keep.
    """

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "EMPTY",
        timeout: float = 60.0,
        max_retries: int = 2,
        concurrency: int | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        tools_native: bool = True,
        *,
        top_p: float | None = None,
        seed: int | None = None,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        extra_body: dict[str, Any] | None = None,
        tool_choice: str | dict[str, Any] = "auto",
        deadline: float | None = None,
        max_body: int = MAX_BODY,
        stop_after: int = 5,
        health_check: bool = True,
    ) -> None:
        super().__init__()
        if max_retries < 0 or (concurrency is not None and concurrency < 1) or timeout <= 0 or stop_after < 0:
            raise ValueError(
                "expected max_retries >= 0, concurrency >= 1 (or None: ask the server), timeout > 0, "
                f"stop_after >= 0, got {max_retries}, {concurrency}, {timeout}, {stop_after}"
            )
        if not (isinstance(tool_choice, dict) or tool_choice in TOOL_CHOICES):
            raise ValueError(f"expected tool_choice in {'/'.join(TOOL_CHOICES)} or an object, got {tool_choice!r}")
        if (deadline is not None and deadline <= 0) or max_body < 1 or backoff < 0 or max_backoff < 0:
            raise ValueError(f"expected deadline > 0, max_body >= 1, backoff >= 0, max_backoff >= 0, "
                             f"got {deadline}, {max_body}, {backoff}, {max_backoff}")
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        # a key from the environment stays out of the records (they keep the agent's arguments)
        self.api_key = os.environ.get("LIVESIM_API_KEY", api_key) if api_key == "EMPTY" else api_key
        self.model, self.timeout = model, timeout
        self.deadline = deadline if deadline is not None else 2 * timeout
        self.max_retries, self.max_body, self.stop_after = max_retries, max_body, stop_after
        self.concurrency = concurrency or 1
        self.concurrency_from = "argument" if concurrency else "default"
        self.temperature, self.max_tokens, self.tools_native = temperature, max_tokens, tools_native
        self.top_p, self.seed, self.backoff, self.max_backoff = top_p, seed, backoff, max_backoff
        self.tool_choice, self.health_check = tool_choice, health_check
        self.extra_body = dict(extra_body or {})
        self.error_log: list[str] = []
        self.last_latencies: list[float] = []
        self.last_calls: list[dict[str, Any]] = []
        self.sleep = time.sleep  # tests swap it to see the waits without waiting
        self._lock = threading.Lock()
        self._calls = 0  # numbers calls, so each call's backoff draws are its own
        self._streak: list[str] = []  # causes of the failed calls since the last answered one
        self.stats.update(requests=0, retries=0, errors=0, timeouts=0, retried_calls=0, probe_requests=0,
                          prompt_tokens=0, completion_tokens=0, request_seconds=0.0, generate_seconds=0.0,
                          observations=0)

    @property
    def tokens_per_second(self) -> float:
        """Completion tokens (as the server reports them) per wall-clock second spent acting."""
        secs = self.stats["generate_seconds"]
        return self.stats["completion_tokens"] / secs if secs > 0 else 0.0

    def check_server(self) -> None:
        """One cheap request before the first episode (``GET /models``): raise `AgentUnavailable` with the URL
        and the cause if the server cannot be reached, hangs, refuses the key or fails; a server without
        ``/models`` (404/405) passes. With ``concurrency=None``, also read llama.cpp's slot count.
        """
        if not self.health_check:
            return
        limit = min(self.timeout, 10.0)
        self._record(probe_requests=1)
        try:
            get_json(self.base_url + "/models", self.api_key, limit)
        except HTTPFailure as exc:
            if exc.status not in (404, 405):
                raise AgentUnavailable(f"the model server at {self.base_url} failed a health check "
                                       f"(GET /models): {exc.why}") from None
        if self.concurrency_from == "default":
            self._probe_slots(limit)

    def _probe_slots(self, limit: float) -> None:
        root = self.base_url[:-3] if self.base_url.endswith("/v1") else self.base_url
        self._record(probe_requests=1)
        try:
            props = get_json(root + "/props", self.api_key, limit)
        except HTTPFailure:
            return
        slots = props.get("total_slots") if isinstance(props, dict) else None
        if isinstance(slots, int) and not isinstance(slots, bool) and slots >= 1:
            self.concurrency, self.concurrency_from = min(slots, 64), "server"

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
                if self.tool_choice != "omit":
                    body["tool_choice"] = self.tool_choice
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
        with self._lock:
            first, self._calls = self._calls, self._calls + len(observations)
        jobs = [(obs, first + k) for k, obs in enumerate(observations)]
        if len(observations) == 1 or self.concurrency == 1:
            results = [self._complete(*job) for job in jobs]
        else:
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(observations))) as pool:
                results = list(pool.map(lambda job: self._complete(*job), jobs))
        self._record(generate_seconds=time.perf_counter() - t0, observations=len(observations))
        self.last_latencies = [latency for _, latency, _ in results]
        self.last_calls = [call for _, _, call in results]
        for call in self.last_calls:  # in input order, so where a run stops does not depend on thread timing
            self._streak = self._streak + [call["error"]] if call["outcome"] == "failed" else []
        if self.stop_after and len(self._streak) >= self.stop_after:
            raise AgentUnavailable(f"the model server at {self.base_url} failed {len(self._streak)} calls in a "
                                   f"row; last: {self._streak[-1]}")
        return [reply for reply, _, _ in results]

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

    def backoff_delay(self, call: int, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry `retry` (from 0) of call number `call`: seeded equal jitter."""
        base = min(self.backoff * 2 ** retry, self.max_backoff)
        delay = base * (0.5 + 0.5 * random.Random(f"{self.seed or 0}:{call}:{retry}").random())
        return max(delay, min(retry_after, self.max_backoff)) if retry_after else delay

    def _complete(self, observation: Observation, call: int) -> tuple[dict[str, Any], float, dict[str, Any]]:
        payload = self.request_body(observation)
        start = time.monotonic()
        end = start + self.deadline
        retries: list[str] = []
        while True:
            try:
                reply = self._parse(self._post(payload, min(self.timeout, end - time.monotonic())))
            except HTTPFailure as exc:
                failure = exc
            else:
                if retries:
                    self._record(retried_calls=1)
                outcome = {"outcome": "retried" if retries else "answered", "attempts": len(retries) + 1,
                           "retries": retries}
                return reply, time.monotonic() - start, outcome
            attempts = len(retries) + 1
            if failure.retryable and len(retries) < self.max_retries:
                delay = self.backoff_delay(call, len(retries), failure.retry_after)
                if time.monotonic() + delay < end - 0.01:
                    retries.append(failure.why)
                    self._record(retries=1)
                    self.sleep(delay)
                    continue
                cause = f"gave up after {attempts} attempts (deadline {self.deadline:g}s): {failure.why}"
            elif failure.retryable and attempts > 1:
                cause = f"gave up after {attempts} attempts: {failure.why}"
            else:
                cause = failure.why
            outcome = {"outcome": "failed", "attempts": attempts, "retries": retries, "error": cause}
            return self._fail(cause), time.monotonic() - start, outcome

    def _post(self, payload: dict[str, Any], limit_s: float) -> bytes:
        if limit_s <= 0.01:
            raise HTTPFailure(f"timeout: the call's deadline ({self.deadline:g}s) passed", False, timed_out=True)
        t0 = time.perf_counter()
        self._record(requests=1)
        try:
            return post_json(self.url, payload, self.api_key, limit_s, self.max_body)
        except HTTPFailure as exc:
            if exc.timed_out:
                self._record(timeouts=1)
            raise
        finally:
            self._record(request_seconds=time.perf_counter() - t0)

    def _parse(self, raw: bytes) -> dict[str, Any]:
        """The assistant message of a chat completion; `HTTPFailure` (not retried) if the body is not one."""
        try:
            payload = json.loads(raw)
            message = payload["choices"][0]["message"]
            if not isinstance(message, dict):
                raise TypeError(f"message is {type(message).__name__}")
            content = content_text(message.get("content"))
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise HTTPFailure(f"malformed response ({type(exc).__name__}: {escaped(str(exc), 80)}): "
                              f"{escaped(raw[:200].decode('utf-8', 'replace'), 200)}", False) from None
        usage = payload.get("usage") if isinstance(payload, dict) else None
        if isinstance(usage, dict):
            self._record(prompt_tokens=_count(usage.get("prompt_tokens")),
                         completion_tokens=_count(usage.get("completion_tokens")))
        reply: dict[str, Any] = {"role": "assistant", "content": content}
        if message.get("tool_calls"):
            reply["tool_calls"] = message["tool_calls"]
        if message.get("reasoning_content"):
            reply["reasoning_content"] = message["reasoning_content"]
        return reply
