"""`livesim view`: a record in the dashboard, the whole conversation of a request, a Markdown transcript, or a
folder of eval records listed with their rewards to pick from.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table

from livesim.cli.view_samples import add_results_args, cmd_view_results, is_results
from livesim.render.terminal import visible
from livesim.render.transcript import clock, conversations, markdown
from livesim.runs.live import play
from livesim.stream.paths import PathProblem, read_bytes, shown, write_text


def _fail(msg: str) -> int:
    print(f"error: {visible(msg)}", file=sys.stderr)
    return 2


def _not_a_record(path: str) -> str | None:
    """Why a file that is valid JSON is not a record (None if it is not JSON at all or is a record line).

    Only a regular file is read again (bounded): a FIFO or device was refused by the record reader, once.
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        data = json.loads(read_bytes(path, 16 << 20))
    except (OSError, ValueError):  # PathProblem is a ValueError
        return None
    if isinstance(data, dict) and "kind" not in data:
        if "mean_reward" in data and "record" in data:
            return (f"{path} is the summary of an eval run (valid JSON), not a record; view the run's folder "
                    f"(livesim view {Path(path).parent}) or one of its seed-NNNNN.jsonl records")
        return (f"{path} is valid JSON but not a livesim record; records are JSONL files written by "
                "`livesim run --record FILE` or `livesim eval --record DIR`")
    return None


def _print_markdown(text: str, out: str | None, force: bool = False, source: str | None = None) -> None:
    """`text` (escaped by the transcript) to a TTY as Markdown, to stdout as is, or to the file `out`: written
    whole through the path layer, never over `source` or a link, an existing file only with `force`.
    """
    if out:
        write_text(out, text, inputs=[source] if source else [], force=force, flag="-o")
        print(f"wrote {shown(out)}", file=sys.stderr)
    elif sys.stdout.isatty():
        Console().print(Markdown(text))
    else:
        sys.stdout.write(text)


def _show_record(record: Any, args: argparse.Namespace, request: int | None) -> int:
    """One record: its transcript, one request's conversation, or the dashboard (then a one-request
    record's conversation).
    """
    reqs = conversations(record)
    if request is not None and request not in {r.index for r in reqs}:
        have = f"{reqs[0].index}-{reqs[-1].index}" if reqs else "none"
        return _fail(f"--request {request}: {record.source} has no request {request} (it has {have})")
    if args.transcript or request is not None:
        try:
            _print_markdown(markdown(record, None if request is None else [request], system=args.system), args.out,
                            getattr(args, "force", False), record.source)
        except PathProblem as e:
            return _fail(str(e))
        return 0
    play(record.lines(), speed=args.speed, step=args.step, frames=args.frames,
         live=False if args.no_live else None)
    if len(reqs) == 1:
        _print_markdown(markdown(record, system=args.system), None)
    elif reqs:
        print(f"the whole conversation of a request: livesim view {shown(record.source)} --request N "
              f"(N = {reqs[0].index}-{reqs[-1].index}); all of them: --transcript", file=sys.stderr)
    return 0


def _listing(folder: Path, open_record: Any) -> list[tuple[Path, Any]]:
    rows: list[tuple[Path, Any]] = []
    for path in sorted(folder.glob("*.jsonl")):
        opened = open_record(str(path))
        rows.append((path, opened if isinstance(opened, str) else opened[0]))
    return rows


def _list_table(folder: Path, rows: list[tuple[Path, Any]]) -> Table:
    table = Table(title=visible(f"{folder}: {len(rows)} record(s)", markup=True))
    for col in ("#", "file", "requests", "reward", "intents", "first comment"):
        table.add_column(col, justify="right" if col in ("#", "requests", "reward") else "left",
                         overflow="ellipsis", no_wrap=col != "first comment", max_width=60)
    for i, (path, rec) in enumerate(rows):
        if isinstance(rec, str):
            table.add_row(str(i), visible(path.name, markup=True), "", "", "",
                          visible(f"unreadable: {rec}", markup=True))
            continue
        reqs = conversations(rec)
        rewards = [r.reward for r in reqs if r.reward is not None]
        reward = f"{sum(rewards) / len(rewards):.3f}" if rewards else "-"
        first = reqs[0] if reqs else None
        comment = f"{clock(first.comments[0].t)} {first.comments[0].name}: {first.comments[0].text}" \
            if first and first.comments else ""
        cells = (path.name, ", ".join(first.intents) if first else "", comment)  # file, model and viewer text
        name, intents, said = (visible(c, markup=True) for c in cells)
        table.add_row(str(i), name, str(len(reqs)), reward, intents, said)
    return table


def _pick(n: int) -> int | None:
    while True:
        try:
            text = input(f"record to view (0-{n - 1}, Enter to quit): ").strip()
        except EOFError:
            return None
        if not text:
            return None
        if text.isdigit() and int(text) < n:
            return int(text)
        print(f"expected a number from 0 to {n - 1}", file=sys.stderr)


def cmd_view(args: argparse.Namespace, open_record: Any) -> int:
    """`open_record(path)` gives (record, edited lines) or the one-line reason a file is refused."""
    if args.request is not None and args.request < 0:
        return _fail(f"--request must be >= 0, got {args.request}")
    if is_results(args.file):  # suite evaluations: their stored conversations
        return cmd_view_results(args)
    folder = Path(args.file)
    if folder.is_dir():
        rows = _listing(folder, open_record)
        if not rows:
            return _fail(f"{args.file} is a directory with no records (*.jsonl); expected a record file or a folder "
                         "written by `livesim eval --record DIR`")
        if args.request is not None:
            if args.request >= len(rows):
                return _fail(f"--request {args.request}: {args.file} lists records 0-{len(rows) - 1}")
            choice = int(args.request)
        else:
            Console(width=None if sys.stdout.isatty() else 160).print(_list_table(folder, rows))
            if not (sys.stdin.isatty() and sys.stdout.isatty()):
                print(f"view one: livesim view {shown(args.file)} --request N", file=sys.stderr)
                return 0
            picked = _pick(len(rows))
            if picked is None:
                return 0
            choice = picked
        _, rec = rows[choice]
        if isinstance(rec, str):
            return _fail(rec)
        return _show_record(rec, args, None)
    opened = open_record(args.file)
    if isinstance(opened, str):
        return _fail(_not_a_record(args.file) or opened)
    return _show_record(opened[0], args, args.request)


def add_view_args(p: argparse.ArgumentParser) -> None:
    """The options of `view` beyond the dashboard's."""
    p.add_argument("--request", type=int, default=None, metavar="N",
                   help="show the whole conversation of request N; with a folder: view the N-th record listed; "
                        "with suite results: request N of --row and --suite")
    p.add_argument("--transcript", action="store_true",
                   help="print the conversations as Markdown (every request, or --request N) instead of the dashboard")
    p.add_argument("-o", "--out", default=None, metavar="FILE",
                   help="with --transcript: write it to FILE (never over the record; an existing FILE needs --force)")
    p.add_argument("--force", action="store_true", help="let -o replace an existing file")
    p.add_argument("--system", action="store_true", help="include the system prompt in the conversations")
    add_results_args(p)
