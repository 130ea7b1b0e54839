"""Child processes that die with their parent: worker pools and subprocesses are never left running, holding the
parent's pipes (or, on a GPU, its memory), after the parent ends by SIGTERM, SIGKILL or Ctrl-C.

Three layers, each for what the others cannot see: every worker asks the kernel to kill it when its parent dies
(Linux `PR_SET_PDEATHSIG`, the only guard against SIGKILL); SIGTERM is turned into an exception in the parent so
its `finally` blocks run; and a pool ended by any exception kills its workers instead of waiting for them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["Terminated", "WorkerDied", "die_with_parent", "group_guard", "sigterm_as_exit", "worker_pool"]

_PR_SET_PDEATHSIG = 1


class WorkerDied(RuntimeError):
    """A worker process ended without a result (killed, out of memory); the message is one line."""


def die_with_parent(parent: int | None = None, sig: int = signal.SIGKILL) -> None:
    """Have the kernel send `sig` to this process when its parent dies (Linux; elsewhere nothing). With `parent`
    (the pid the caller expects), exit at once if the parent is already gone, which the kernel would not report.
    Safe as a pool initializer and as a `preexec_fn`.
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os._exit(1)


class Terminated(SystemExit):
    """SIGTERM, raised in the main thread by `sigterm_as_exit`."""


@contextlib.contextmanager
def sigterm_as_exit() -> Iterator[None]:
    """In the main thread, SIGTERM raises SystemExit(143) for the block (so pools and children are ended by the
    `finally` blocks they are in); elsewhere, or where a handler is already set, nothing changes.
    """
    import threading

    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None):
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise Terminated(128 + signum)

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _kill_workers(pool: Any) -> None:
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(Exception):
            p.kill()
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(5)
    # let the pool's manager thread finish its cleanup (it closes the wake-up pipe): otherwise the interpreter's exit
    # hook may write to that pipe as it is closed and print an "Exception ignored" traceback after the one-line error
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        with contextlib.suppress(Exception):
            manager.join(5)


@contextlib.contextmanager
def worker_pool(workers: int, what: str = "worker") -> Iterator[Any]:
    """A `ProcessPoolExecutor` of `workers` spawned processes that die with this one (see the module doc).

    Leaving the block normally waits for the workers; leaving it by an exception (Ctrl-C, SIGTERM, an error)
    kills them. A worker that dies without a result raises `WorkerDied` (one line naming `what`).
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # spawn, not fork: the parent may hold CUDA or threads
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=die_with_parent, initargs=(os.getpid(),))
    try:
        with sigterm_as_exit():
            yield pool
    except BrokenProcessPool:
        _kill_workers(pool)
        raise WorkerDied(f"a {what} process died before it finished (killed, or out of memory); its work is "
                         "lost and nothing was written") from None
    except BaseException:
        _kill_workers(pool)
        raise
    pool.shutdown(wait=True)


_GUARD = """
import os, signal, sys, time
pgid = int(sys.argv[1])
sys.stdin.buffer.read()  # returns when the parent closes the pipe or dies, whatever ended it
for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 0.0)):
    try:
        os.killpg(pgid, sig)
    except OSError:
        break
    end = time.monotonic() + wait
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except OSError:
            sys.exit(0)
        time.sleep(0.1)
"""


@contextlib.contextmanager
def group_guard(pgid: int) -> Iterator[None]:
    """For the block, a small watcher process that ends the process group `pgid` (SIGTERM, then SIGKILL after
    10 s) as soon as this process lets go of it: at the end of the block, or when this process dies by any
    signal, SIGKILL included (its end of a pipe closes). For a child started with `start_new_session=True`,
    whose own children `PR_SET_PDEATHSIG` does not reach.
    """
    import subprocess

    guard = subprocess.Popen([sys.executable, "-c", _GUARD, str(pgid)], stdin=subprocess.PIPE,
                             start_new_session=True)  # out of the terminal's reach: Ctrl-C does not end it early
    try:
        yield
    finally:
        if guard.stdin is not None:
            guard.stdin.close()
        with contextlib.suppress(Exception):
            guard.wait(15)
