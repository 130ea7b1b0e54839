"""Instructions one grade costs, counted by callgrind (a figure that does not move with the machine's load).

    python bench/grading_instructions.py                 # both runs under valgrind; prints M instructions a grade
    python bench/grading_instructions.py --tree /tmp/ref # the same for another checkout's `livesim` (its root)

It builds 160 requests (seeds 120000-120159, the 16 intents in turn) and grades each gold reply once to warm the
caches; the `grade` run then grades each gold reply and the same reply with a remark after it (320 grades). The
figure is (instructions of `grade` - instructions of `build`) / 320. Needs `valgrind` on the PATH; about five minutes
a tree on one core of the 2-core development machine. `--run build|grade` is the inner step.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

SEED0, REQUESTS = 120000, 160


def _inner(mode: str) -> None:
    from livesim.runs.calibration import build_request, grade_text
    from livesim.world.phrasing import INTENTS

    sims = [build_request(SEED0 + k, INTENTS[k % len(INTENTS)]) for k in range(REQUESTS)]
    texts = [" ".join(s.request.truth.say) for s in sims]
    for s, t in zip(sims, texts, strict=True):
        grade_text(s, t)  # warm caches in both modes
    if mode == "grade":
        for s, t in zip(sims, texts, strict=True):
            grade_text(s, t)
            grade_text(s, t + " Thanks for watching!")


def _count(mode: str, tree: str | None) -> int:
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = os.path.abspath(tree)
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                          os.path.abspath(__file__), "--run", mode], env=env, capture_output=True, text=True,
                         cwd="/" if tree else None, check=True)
    m = re.search(r"Collected\s*:\s*([0-9]+)", out.stderr)
    if m is None:
        raise SystemExit(f"error: no instruction count in valgrind's output: {out.stderr[-300:]!r}")
    return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", help="root of another checkout whose livesim package to measure")
    ap.add_argument("--run", choices=("build", "grade"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.run:
        _inner(a.run)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("error: valgrind is not on the PATH (apt install valgrind)")
    if a.tree and not os.path.isdir(os.path.join(a.tree, "livesim")):
        raise SystemExit(f"error: {a.tree} holds no livesim package")
    build, grade = _count("build", a.tree), _count("grade", a.tree)
    print(f"{a.tree or 'this tree'}: {(grade - build) / (2 * REQUESTS) / 1e6:.3f} M instructions a grade")


if __name__ == "__main__":
    main()
