"""Every process pool the project starts is `livesim.stream.procs.worker_pool` (workers that die with their parent
on SIGTERM, SIGKILL and Ctrl-C; `test_procs.py` kills the parent and finds no child left): an AST scan finds each
pool constructor (`ProcessPoolExecutor`, `multiprocessing.Pool`, a context's `Pool`) outside that module and fails
on one that is not in the commented allow-list. A pool built by hand outlives a killed parent (the attack bench's
did: its workers ran on after `kill` of the command)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCANNED = ("livesim", "hat", "scripts", "bench", "agents", "envs", "examples", "tools")
LAYER = {"livesim/stream/procs.py"}
ALLOWED = {
    # Gymnasium's AsyncVectorEnv owns its worker processes and closes them with the env (`close()`)
    "envs/vector.py",
    # the benchmark's vector rows start AsyncVectorEnv workers the same way; a benchmark, not a user's run
    "bench/bench_env.py",
}


def pools(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("multiprocessing"):
            found += [(node.lineno, a.name) for a in node.names if a.name in ("Pool", "Process")]
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id == "ProcessPoolExecutor":
                found.append((node.lineno, f.id))
            elif isinstance(f, ast.Attribute) and f.attr in ("ProcessPoolExecutor", "Pool", "Process"):
                found.append((node.lineno, f.attr))
    return found


def test_every_process_pool_is_the_worker_pool() -> None:
    bad = []
    for path in sorted(p for d in SCANNED for p in (ROOT / d).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in LAYER or rel in ALLOWED:
            continue
        bad += [f"{rel}:{line}: {name}" for line, name in pools(ast.parse(path.read_text(encoding="utf-8")))]
    assert bad == []


@pytest.mark.parametrize("code", ["ProcessPoolExecutor(2)", "cf.ProcessPoolExecutor(2, mp_context=ctx)",
                                  "multiprocessing.Pool(4)", "get_context('spawn').Pool(2)", "mp.Process(target=f)",
                                  "from multiprocessing import Pool", "from multiprocessing import Process"])
def test_the_scan_finds_each_kind_of_pool(code: str) -> None:
    assert pools(ast.parse(code))


def test_the_scan_leaves_other_pools_alone() -> None:
    assert pools(ast.parse("Pool(fragments)\nthread_pool.submit(f)\nconcurrent.futures.ThreadPoolExecutor(2)")) == []
