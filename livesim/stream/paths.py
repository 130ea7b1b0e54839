"""Every file and folder livesim reads or writes goes through here, so no path can destroy data, hang or trace back.

Reads take regular files only, of bounded size, opened without blocking (a FIFO or device is refused, not
waited on). Output files are never symbolic links or inputs of the same run, replace an existing file only when
asked, and are locked while written; a whole file is written to a temporary sibling and renamed, so a kill or a
full disk leaves the old file. Output folders carry a marker naming their kind (only a folder with the stage's
own marker is replaced), are locked for the whole run, and are built in a temporary sibling swapped in by one
rename, so a kill leaves the old folder or the new one; the next write reclaims what a killed one left.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import io
import json
import os
import re
import secrets
import shutil
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from livesim.stream.procs import Terminated, sigterm_as_exit

__all__ = ["MARKER", "MAX_FILE_BYTES", "MAX_PROMPT_FILE_BYTES", "PathProblem", "append_text", "atomic_output",
           "check_output_dir", "check_output_file", "claim_dir", "copy_tree", "marker_kind", "open_output", "owned",
           "publish_dir", "read_bytes", "read_text", "reclaim", "remove_stale_temps", "save_figure", "shown",
           "write_bytes", "write_marker", "write_text"]

MAX_FILE_BYTES = 8 << 20
"""Largest data file read unless a caller says otherwise (8 MiB)."""
MAX_PROMPT_FILE_BYTES = 256 << 20
"""Largest prompt set read (JSONL of prompts, such as IFEval's 541 prompts in about 0.5 MB)."""
_SHOWN_CHARS = 200
StrPath = str | os.PathLike[str]


class PathProblem(ValueError):
    """A path that cannot be read or written as asked; the message is one line."""


def shown(path: object) -> str:
    """`path` for a message: control characters (terminal escapes, newlines) escaped, at most 200 characters."""
    s = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    out = "".join(c if c.isprintable() else repr(c)[1:-1] for c in s[: _SHOWN_CHARS + 1])
    return out if len(s) <= _SHOWN_CHARS else out[:_SHOWN_CHARS] + "..."


def _reason(e: BaseException) -> str:
    if isinstance(e, OSError) and e.errno == errno.ELOOP:
        return "a loop of symbolic links"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return shown(str(e).splitlines()[0] if str(e) else type(e).__name__)


# --- reading ---------------------------------------------------------------------------------------------------
def read_bytes(path: StrPath, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `max_bytes`; `PathProblem` (one line, no path) otherwise.

    A FIFO, device, socket or directory is refused after a non-blocking open, so nothing waits on a writer or
    reads forever. `FileNotFoundError` is raised as is, so callers can say what they looked for.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as e:  # ValueError: an embedded NUL byte
        raise PathProblem(f"cannot read it: {_reason(e)}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise PathProblem("is a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise PathProblem("is not a regular file (a device, pipe or socket)")
        if st.st_size > max_bytes:
            raise PathProblem(f"is {st.st_size} bytes; at most {max_bytes} bytes are read")
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise PathProblem(f"cannot read it: {_reason(e)}") from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise PathProblem(f"is more than {max_bytes} bytes; at most {max_bytes} bytes are read")
    return b"".join(chunks)


def read_text(path: StrPath, max_bytes: int = MAX_FILE_BYTES) -> str:
    """`read_bytes` decoded as UTF-8; `PathProblem` if it is not UTF-8."""
    raw = read_bytes(path, max_bytes)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PathProblem(f"not UTF-8 text: {e.reason} at byte {e.start}") from None


# --- output files ----------------------------------------------------------------------------------------------
def _same(a: StrPath, b: StrPath) -> bool:
    """Whether two paths name one file: by device and inode when both exist, else by resolved name."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        try:
            return os.path.realpath(a) == os.path.realpath(b)
        except (OSError, ValueError):
            return False


def check_output_file(target: StrPath, *, inputs: Iterable[StrPath] = (), force: bool = False,
                      flag: str = "--out", force_flag: str = "--force") -> None:
    """Refuse (`PathProblem`, naming `flag` and the path) an output file livesim must not write: an input of the
    same run, a symbolic link, a directory or anything else that is not a regular file, an existing file without
    `force`, a path whose folder is not a folder.
    """
    where = f"{flag} {shown(target)}"
    try:
        path = Path(target)
        for src in inputs:
            if _same(src, path):
                raise PathProblem(f"{where} is the input file {shown(src)}; a run never writes over its input")
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):  # the second: the parent is a file (said below)
            st = None
        if st is not None:
            if stat.S_ISLNK(st.st_mode):
                raise PathProblem(f"{where} is a symbolic link; livesim does not write through links (give the "
                                  "file itself)")
            if stat.S_ISDIR(st.st_mode):
                raise PathProblem(f"{where} is a directory; give a file name")
            if not stat.S_ISREG(st.st_mode):
                raise PathProblem(f"{where} exists and is not a regular file")
            if not force:
                raise PathProblem(f"{where} already exists; pass {force_flag} to overwrite it")
        parent = path.parent
        if parent.exists() and not parent.is_dir():
            raise PathProblem(f"{where}: {shown(parent)} is not a directory")
    except (OSError, ValueError) as e:
        if isinstance(e, PathProblem):
            raise
        raise PathProblem(f"{where} is not a usable path ({_reason(e)})") from None


def open_output(target: StrPath, *, inputs: Iterable[StrPath] = (), force: bool = False,
                flag: str = "--out") -> IO[str]:
    """Open an output file for writing text, locked against other writers until closed.

    Never follows a symbolic link; without `force` it only creates a new file. The checks of `check_output_file`
    are made again on the open file (by inode), so a file swapped in since is refused, and nothing is truncated
    before the lock is held.
    """
    check_output_file(target, inputs=inputs, force=force, flag=flag)
    where = f"{flag} {shown(target)}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | (0 if force else os.O_EXCL)
    try:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, flags, 0o644)
    except FileExistsError:
        raise PathProblem(f"{where} already exists; pass --force to overwrite it") from None
    except OSError as e:
        raise PathProblem(f"{where}: cannot write it: {_reason(e)}") from None
    try:
        _lock_or_refuse(fd, where, "file")
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise PathProblem(f"{where} exists and is not a regular file")
        for src in inputs:
            with contextlib.suppress(OSError, ValueError):
                s = os.stat(src)
                if (s.st_dev, s.st_ino) == (st.st_dev, st.st_ino):
                    raise PathProblem(f"{where} is the input file {shown(src)}; a run never writes over its input")
        os.ftruncate(fd, 0)
        return os.fdopen(fd, "w", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


_TEMP_NAME = re.compile(r"\..+\.tmp-(\d+)-[0-9a-f]{8}\Z", re.DOTALL)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: alive, another user's
        return True
    return True


def remove_stale_temps(folder: StrPath) -> list[Path]:
    """Remove the temporary files `.NAME.tmp-PID-HEX` in `folder` whose writer (PID) is dead: what a killed
    whole-file write left. Folders and the files of live writers are left alone. Returns what was removed.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for e in entries:
        m = _TEMP_NAME.match(e.name)
        if m is None or _pid_alive(int(m.group(1))):
            continue
        with contextlib.suppress(OSError):
            if e.is_file(follow_symlinks=False):
                os.unlink(e.path)
                removed.append(Path(e.path))
    return removed


@contextlib.contextmanager
def atomic_output(target: StrPath, *, inputs: Iterable[StrPath] = (), force: bool = True, flag: str = "--out",
                  binary: bool = False) -> Iterator[IO[Any]]:
    """Yield a file to write a whole output file into: a temporary sibling `.NAME.tmp-PID-HEX`, renamed over
    `target` when the block ends without an error, so a kill, a full disk or an error leaves the old file (or
    none). Refuses what `check_output_file` refuses (an input, a link, an existing file without `force`). A
    write error is a one-line `PathProblem`; stale temporary files of dead writers in the folder are removed.
    """
    check_output_file(target, inputs=inputs, force=force, flag=flag)
    path = Path(target)
    where = f"{flag} {shown(target)}"
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    fh: IO[Any] | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temps(path.parent)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        fh = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")
        yield fh
        fh.close()
        if not force and os.path.lexists(path):  # one that appeared meanwhile is not replaced either
            raise PathProblem(f"{where} already exists; pass --force to overwrite it")
        os.replace(tmp, path)
    except BaseException as e:
        if fh is not None:
            with contextlib.suppress(OSError):
                fh.close()
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(e, OSError):
            raise PathProblem(f"{where}: cannot write it ({_reason(e)}); "
                              f"{'the old file is unchanged' if path.exists() else 'nothing was written'}") from None
        raise


def write_bytes(target: StrPath, data: bytes, *, inputs: Iterable[StrPath] = (), force: bool = True,
                flag: str = "--out") -> None:
    """Write a whole output file through `atomic_output` (a kill or a full disk leaves the old file)."""
    with atomic_output(target, inputs=inputs, force=force, flag=flag, binary=True) as f:
        f.write(data)


def write_text(target: StrPath, text: str, *, inputs: Iterable[StrPath] = (), force: bool = True,
               flag: str = "--out") -> None:
    """Write a whole output text file (UTF-8) through `atomic_output`."""
    write_bytes(target, text.encode("utf-8"), inputs=inputs, force=force, flag=flag)


def save_figure(fig: Any, target: StrPath, *, flag: str = "--out", **kwargs: Any) -> None:
    """A matplotlib figure saved (format from the suffix) through `write_bytes`."""
    buf = io.BytesIO()
    fig.savefig(buf, format=Path(target).suffix.lstrip(".") or "png", **kwargs)
    write_bytes(target, buf.getvalue(), flag=flag)


def append_text(target: StrPath, text: str, *, flag: str = "--out") -> None:
    """Append `text` to a log file (created if missing): never through a symbolic link, only to a regular
    file, under its lock; a write error is a one-line `PathProblem`.
    """
    where = f"{flag} {shown(target)}"
    try:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise PathProblem(f"{where}: cannot write it ({_reason(e)})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PathProblem(f"{where} exists and is not a regular file")
        fcntl.flock(fd, fcntl.LOCK_EX)
        data = text.encode("utf-8")
        while data:
            data = data[os.write(fd, data):]
    except OSError as e:
        raise PathProblem(f"{where}: cannot write it ({_reason(e)})") from None
    finally:
        os.close(fd)


# --- output folders --------------------------------------------------------------------------------------------
MARKER = ".livesim-output"
"""The file in every output folder livesim publishes: JSON naming the kind of output, so a folder is replaced
only by the stage that wrote it (never because it holds a file of a common name, such as stats.json)."""


def marker_kind(folder: StrPath) -> str | None:
    """The kind named by `folder`'s marker (None: no marker, or not one livesim wrote)."""
    try:
        data = json.loads(read_bytes(Path(folder) / MARKER, 4096))
    except (OSError, ValueError):
        return None
    kind = data.get("kind") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def owned(kind: str) -> Callable[[Path], bool]:
    """Whether a folder carries the marker of `kind` (the default ownership test of `check_output_dir`)."""
    return lambda folder: marker_kind(folder) == kind


def write_marker(folder: StrPath, kind: str) -> None:
    """Mark `folder` as an output of `kind` (see `MARKER`)."""
    write_text(Path(folder) / MARKER, json.dumps({"kind": kind, "written_by": "livesim"}) + "\n", flag="marker")


def check_output_dir(out: StrPath, *, kind: str, is_ours: Callable[[Path], bool] | None = None,
                     flag: str = "--out", inputs: Iterable[StrPath] = ()) -> None:
    """Refuse (`PathProblem`) an output folder that publishing would harm: an input of the same run (or a folder
    holding one), a symbolic link, something that is not a folder, or a folder that holds files and is not a
    `kind` that may be replaced: by default, a folder whose `MARKER` names `kind` (`is_ours` to decide otherwise).
    """
    is_ours = owned(kind) if is_ours is None else is_ours
    where = f"{flag} {shown(out)}"
    try:
        path = Path(out)
        for src in inputs:
            real, real_out = os.path.realpath(src), os.path.realpath(path)
            if _same(src, path) or real.startswith(real_out + os.sep):
                raise PathProblem(f"{where} holds the input {shown(src)}; a run never writes over its input")
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            if path.parent.exists() and not path.parent.is_dir():
                raise PathProblem(f"{where}: {shown(path.parent)} is not a directory") from None
            return
        if stat.S_ISLNK(st.st_mode):
            raise PathProblem(f"{where} is a symbolic link; give the folder itself")
        if not stat.S_ISDIR(st.st_mode):
            raise PathProblem(f"{where} exists and is not a folder")
        if any(path.iterdir()) and not is_ours(path):
            raise PathProblem(f"{where} is a folder with other files in it (not a {kind} written by livesim); "
                              "choose a new or empty folder")
    except (OSError, ValueError) as e:
        if isinstance(e, PathProblem):
            raise
        raise PathProblem(f"{where} is not a usable path ({_reason(e)})") from None


def _lock_or_refuse(fd: int, where: str, what: str) -> None:
    """Take `fd`'s exclusive lock, or refuse: another process is writing the same output."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise PathProblem(f"{where} is being written by another process; wait for it or choose another "
                          f"{what}") from None


_HELD: set[str] = set()  # lock files this process holds (`claim_dir`): a publish inside takes them as held


@contextlib.contextmanager
def _lock(path: Path, where: str, claim: bool = False) -> Iterator[None]:
    key = os.path.abspath(path)
    if key in _HELD:
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise PathProblem(f"{where}: cannot write there ({_reason(e)})") from None
    try:
        _lock_or_refuse(fd, where, "folder")
        if claim:
            _HELD.add(key)
        yield
    finally:
        if claim:
            _HELD.discard(key)
        os.close(fd)  # the lock file stays: removing it would let two writers lock two different files


def _siblings(out: Path, tag: str) -> list[Path]:
    prefix = f".{out.name}.{tag}-"
    return sorted((p for p in out.parent.iterdir() if p.name.startswith(prefix)), key=lambda p: p.lstat().st_mtime)


def _remove(p: Path) -> None:
    if p.is_symlink() or not p.is_dir():
        p.unlink(missing_ok=True)
    else:
        shutil.rmtree(p, ignore_errors=True)


def reclaim(out: Path) -> None:
    """Clean what a killed publish of `out` left (the caller holds the lock): temporary folders are removed; an old
    folder moved aside is put back when `out` is missing, removed otherwise.
    """
    for tmp in _siblings(out, "tmp"):
        _remove(tmp)
    for old in reversed(_siblings(out, "old")):
        if not out.exists() and not out.is_symlink() and old.is_dir() and not old.is_symlink():
            os.rename(old, out)
        else:
            _remove(old)


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(tmp: Path, out: Path) -> None:
    if not out.exists():
        os.rename(tmp, out)
    elif _exchange(tmp, out):
        shutil.rmtree(tmp, ignore_errors=True)  # now the old folder; a kill here leaves it for `reclaim`
    else:
        old = out.parent / f".{out.name}.old-{os.getpid()}-{secrets.token_hex(4)}"
        os.rename(out, old)  # a kill between the renames: `reclaim` puts the old folder back
        os.rename(tmp, out)
        shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def publish_dir(out: StrPath, *, kind: str, is_ours: Callable[[Path], bool] | None = None, flag: str = "--out",
                inputs: Iterable[StrPath] = ()) -> Iterator[Path]:
    """Yield an empty temporary folder beside `out`; when the block ends without an error, it gets the `kind`
    marker and becomes `out`.

    `out` is replaced only if it is missing, empty or a `kind` (its marker); see `check_output_dir`. A lock file
    `.<name>.lock` beside `out` keeps a second writer out (it is refused, not made to wait; `claim_dir` holds it
    for a whole run). On an error the temporary folder is removed and `out` is untouched.
    """
    path = Path(os.path.abspath(out))  # `.` and `dir/..` get a name and a parent to put the siblings in
    inputs = list(inputs)
    if not path.name:
        raise PathProblem(f"{flag} {shown(out)} is the root folder")
    check_output_dir(path, is_ours=is_ours, kind=kind, flag=flag, inputs=inputs)
    with _lock(path.parent / f".{path.name}.lock", f"{flag} {shown(out)}"):
        reclaim(path)
        tmp = path.parent / f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
        tmp.mkdir()
        try:
            yield tmp
            write_marker(tmp, kind)
            check_output_dir(path, is_ours=is_ours, kind=kind, flag=flag, inputs=inputs)  # what came meanwhile
            os.chmod(tmp, 0o755)
            _swap_in(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise


def copy_tree(source: StrPath, target: StrPath, *, kind: str, flag: str = "--out") -> None:
    """Copy the folder `source` (symbolic links as links) to `target` through `publish_dir` (marked `kind`)."""
    with publish_dir(target, kind=kind, flag=flag) as tmp:
        shutil.copytree(source, tmp, symlinks=True, dirs_exist_ok=True)


def _lock_path(out: StrPath) -> tuple[Path, Path]:
    path = Path(os.path.abspath(out))
    return path, path.parent / f".{path.name}.lock"


@contextlib.contextmanager
def claim_dir(out: StrPath, *, kind: str, is_ours: Callable[[Path], bool] | None = None, flag: str = "--out",
              inputs: Iterable[StrPath] = ()) -> Iterator[Path]:
    """Hold `out` for a whole run, before any work: refused (`PathProblem`) if `publish_dir` would refuse it, if
    its parent cannot be written (a read-only folder), or while another process holds it. A `publish_dir` of
    the same folder inside the block uses the held lock.
    """
    path, lock = _lock_path(out)
    if not path.name:
        raise PathProblem(f"{flag} {shown(out)} is the root folder")
    check_output_dir(path, is_ours=is_ours, kind=kind, flag=flag, inputs=inputs)
    where = f"{flag} {shown(out)}"
    if lock.parent.exists() and not os.access(lock.parent, os.W_OK):
        raise PathProblem(f"{where}: cannot write in {shown(lock.parent)} (the folder is read-only)")
    existed = path.exists()
    with _lock(lock, where, claim=True), sigterm_as_exit():
        try:
            yield path
        except (KeyboardInterrupt, Terminated):
            print(f"interrupted: {where} {'is as it was' if existed else 'was not created'}; nothing "
                  "half-written was left there", file=sys.stderr)
            raise
