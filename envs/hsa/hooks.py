"""HSA transforms of hooks: retry-message templates and structure, retry limits, simulated corrections.

Checks, events and parameters never change. Corrections are extra request-time notices that restate what
is in force (their names and limits resolve against the presented harness when sent), so they never block.
"""

from __future__ import annotations

from livesim.envs.hsa.core import Draws, choice, transform
from livesim.envs.hsa.vocab import Vocab
from livesim.harness.core import Harness, Hook


@transform("hook_templates", "hooks")
def hook_templates(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Rewrite retry messages: one structure per harness (bracket, pipe, JSON, XML), a label, verb and fix per hook."""
    structure = int(d.rng("hook_templates").integers(max(len(x) for x in v.hook_structures.values())))
    for hook in h.hooks:
        if hook.check not in v.hook_labels or hook.event not in v.hook_structures:
            continue
        rng = d.rng("hook_templates", hook.key, hook.check)
        templates = v.hook_structures[hook.event]
        hook.retry_template = templates[structure % len(templates)].format(
            label=choice(rng, v.hook_labels[hook.check]), verb=choice(rng, v.hook_verbs[hook.event]),
            fix=choice(rng, v.hook_fixes[hook.check]))
    return h


@transform("hook_limits", "hooks")
def hook_limits(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Draw each blocking hook's retry limit from the split's values (1-4; stress: 4)."""
    for hook in h.hooks:
        if hook.event != "request":
            hook.retry_limit = int(choice(d.rng("hook_limits", hook.key), v.retry_limits))
    return h


@transform("hook_corrections", "hooks")
def hook_corrections(h: Harness, d: Draws, v: Vocab) -> Harness:
    """Add 1-2 operator notices at each request: reminders and corrections that restate what is in force."""
    rng = d.rng("hook_corrections")
    k = int(rng.integers(1, 3))
    keys = [x.key for x in h.hooks]
    frame = sender = ""
    if v.notice_frames:  # one message frame and sender per harness
        frame_rng = d.rng("hook_corrections", "frame")
        frame, sender = choice(frame_rng, v.notice_frames), choice(frame_rng, v.notice_senders)
    for i, idx in enumerate(rng.sample(len(v.notices), k)):
        key = f"notice-{i + 1}"
        message = v.notices[int(idx)]
        if frame:
            message = frame.replace("{s}", sender).replace("{m}", message)
        if key not in keys:
            h.hooks.append(Hook(key=key, check="notice", event="request", params={"message": message},
                                retry_template="{reason}", retry_limit=0))
    return h
