"""The terminal dashboard's `Live` loop: record lines -> frames, animated, stepped or printed.

Without a terminal the loop prints the final frame (or `frames` evenly spaced ones) and the summary instead of
animating. The pure renderer is `livesim.render.dashboard`.
"""

from __future__ import annotations

import copy
import sys
import time
from collections.abc import Callable, Iterable

from rich.console import Console
from rich.live import Live

from livesim.render.dashboard import WIDTH, DashboardState, render, summary_table
from livesim.stream.records import RecordHeader, RecordLine, StepRecord


def play(lines: Iterable[RecordLine], console: Console | None = None, *, speed: float = 0.0, step: bool = False,
         frames: int | None = None, live: bool | None = None, read: Callable[[], str] = input,
         sleep: Callable[[float], None] = time.sleep) -> DashboardState:
    """Show record lines as they come.

    `live` (default: whether the console is a terminal) animates a `Live` display, paced at `speed` times
    the stream clock (0: as fast as possible); `step` waits for Enter after each step ('q' runs to the end);
    otherwise `frames` evenly spaced frames (default 1: the final one) are printed. The summary ends it.
    """
    console = console or Console(width=None if sys.stdout.isatty() else WIDTH)
    state = DashboardState()
    live = console.is_terminal if live is None else live
    if step:
        stepping = True
        for line in lines:
            state.apply(line)
            if stepping and isinstance(line, StepRecord):
                if console.is_terminal:
                    console.clear()
                console.print(render(state, console.width))
                console.print("Enter: next step · q then Enter: run to the end", style="dim")
                try:
                    stepping = read().strip().lower() != "q"
                except EOFError:  # stdin closed: run to the end
                    stepping = False
        if not stepping:
            console.print(render(state, console.width))
    elif live and frames is None:
        with Live(render(state, console.width), console=console, auto_refresh=False) as view:
            for line in lines:
                before = state.clock_s
                view.update(render(state.apply(line), console.width), refresh=True)
                if speed > 0 and isinstance(line, StepRecord):
                    sleep(min(max(line.clock_s - before, 0.0) / speed, 2.0))
    else:
        snaps = []
        for line in lines:
            state.apply(line)
            if not isinstance(line, RecordHeader):
                snaps.append(copy.deepcopy(state))
        n = min(max(1, frames or 1), len(snaps))  # evenly spaced, always ending on the last
        for i in sorted({len(snaps) - 1 - round(k * (len(snaps) - 1) / max(n - 1, 1)) for k in range(n)}):
            if n > 1:
                console.rule(f"step {snaps[i].step}")
            console.print(render(snaps[i], console.width))
    if state.summary is not None:
        console.print(summary_table(state.summary, f"{state.title} · {state.agent} · seed {state.seed}"))
    return state
