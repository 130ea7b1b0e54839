"""A suite request's stored conversation (`livesim.hat.samples` line) as Markdown: the viewer's request, each
model turn with the tool calls the env ran and what answered it, the reply, and its grade with the reasons.
"""

from __future__ import annotations

from typing import Any

from livesim.grading.terms import Grade, ToolCallRecord
from livesim.render.transcript import _fence, action_text, call_text, grade_lines

_KEEP = {"\n", "\t"}


def plain(text: Any) -> str:
    """`text` with control characters (terminal escapes) written out, newlines and tabs kept."""
    s = str(text)
    return "".join(c if c.isprintable() or c in _KEEP else repr(c)[1:-1] for c in s)


def _calls(turn: dict[str, Any]) -> list[str]:
    out = []
    for c in turn.get("calls") or []:
        try:
            out.append(call_text(ToolCallRecord.model_validate(c)))
        except ValueError:
            out.append(plain(c))
    return out


def sample_markdown(sample: dict[str, Any], row: str = "", suite: str = "") -> str:
    """One stored request (QA or T4) as Markdown."""
    where = " · ".join(x for x in (row, suite) if x)
    if "prompt" in sample:  # T4
        verdict = "follows" if sample.get("prompt_strict") else "does not follow"
        out = [f"## {plain(sample['id'])}" + (f" · {where}" if where else "") + f" · {verdict} every instruction "
               "(strict)", "", "### Prompt", "", *_fence(plain(sample.get("prompt", ""))), "", "### Response", "",
               *_fence(plain(sample.get("response", "")) or "(empty)"), "",
               "instructions (strict / loose): " + ", ".join(
                   f"{i} {'ok' if s else 'no'}/{'ok' if lo else 'no'}"
                   for i, s, lo in zip(sample.get("instruction_ids", []), sample.get("strict", []),
                                       sample.get("loose", []), strict=False))]
        return "\n".join(out) + "\n"
    head = f"## {plain(sample['id'])}" + (f" · {where}" if where else "")
    head += f" · intent {plain(sample.get('intent', '?'))}"
    head += (f" · accuracy {sample.get('accuracy', 0):g} · effectiveness {sample.get('effectiveness', 0):g} · "
             f"reward {float(sample.get('reward', 0)):.3f}")
    out = [head, "", "### Viewer", "", *_fence(plain(sample.get("request", "(not stored)")))]
    previous: list[list[str]] = []
    for n, turn in enumerate(sample.get("turn_log") or [], start=1):
        tokens = turn.get("tokens")
        out += ["", f"### Turn {n}" + (f" · {tokens['prompt']} prompt / {tokens['completion']} completion tokens"
                                       if tokens else ""), ""]
        for who, text in previous:
            out += [f"{plain(who)}:", "", *_fence(plain(text)), ""]
        out += ["model:", "", *_fence(plain(action_text(turn.get("action", ""))) or "(empty)")]
        calls = _calls(turn)
        if calls:
            out += ["", "tool calls:", *[f"- {plain(c)}" for c in calls]]
        if turn.get("hooks"):
            out += ["", "blocked by hooks:", *[f"- {plain(h)}" for h in turn["hooks"]]]
        previous = turn.get("answered") or []
    out.append("")
    counts = f"{sample.get('turns', 0)} turn(s), {sample.get('parse_errors', 0)} parse error(s)"
    if sample.get("fallback"):
        out += [f"### Fallback reply (the harness's, sent for the model) · {counts}", ""]
        if sample.get("reply"):
            out += ["the model's last reply, not sent:", "", *_fence(plain(sample["reply"]))]
    else:
        out += [f"### Reply · {counts}", "", *_fence(plain(sample.get("reply", "")) or "(empty)")]
    grade = sample.get("grade")
    if grade:
        try:
            g = Grade.model_validate(grade)
            out += ["", *[plain(x) for x in grade_lines(g)]]
            if g.violations:
                out.append(f"violations: {plain('; '.join(g.violations))}")
        except ValueError:
            out += ["", f"grade: {plain(grade)}"]
    gen = sample.get("generation")
    if gen:
        out += ["", f"generation: {gen['prompt_tokens']} prompt and {gen['completion_tokens']} completion tokens "
                f"over {gen['turns']} turn(s)"]
    return "\n".join(out) + "\n"
