"""Every file and folder livesim reads or writes goes through here, so no path can destroy data, hang or trace back.

Reads take regular files only, of bounded size, opened without blocking (a FIFO or device is refused, not
waited on). Output files are never symbolic links or inputs of the same run, replace an existing file only when
asked, and are locked while written. Output folders are built in a temporary sibling and swapped in by one
rename under a lock, so a kill leaves the old folder or the new one; the next publish reclaims what it left.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

__all__ = ["MAX_FILE_BYTES", "MAX_PROMPT_FILE_BYTES", "PathProblem", "check_output_dir", "check_output_file",
           "open_output", "publish_dir", "read_bytes", "read_text", "reclaim", "shown", "write_bytes",
           "write_text"]

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


def write_text(target: StrPath, text: str, *, inputs: Iterable[StrPath] = (), flag: str = "--out") -> None:
    """Write a whole output file (replacing a regular file there) through a temporary sibling and one rename,
    so a kill leaves the old file or the new one. Refuses what `check_output_file` refuses with `force`.
    """
    write_bytes(target, text.encode("utf-8"), inputs=inputs, flag=flag)


def write_bytes(target: StrPath, data: bytes, *, inputs: Iterable[StrPath] = (), flag: str = "--out") -> None:
    """`write_text` for bytes (a compressed file): one rename, so a kill leaves the old file or the new one."""
    check_output_file(target, inputs=inputs, force=True, flag=flag)
    path = Path(target)
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "xb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(e, OSError):
            raise PathProblem(f"{flag} {shown(target)}: cannot write it ({_reason(e)})") from None
        raise


# --- output folders --------------------------------------------------------------------------------------------
def check_output_dir(out: StrPath, *, is_ours: Callable[[Path], bool], kind: str, flag: str = "--out",
                     inputs: Iterable[StrPath] = ()) -> None:
    """Refuse (`PathProblem`) an output folder that publishing would harm: an input of the same run (or a folder
    holding one), a symbolic link, something that is not a folder, or a folder that holds files and is not a
    `kind` (as `is_ours` tells) that may be replaced.
    """
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
            raise PathProblem(f"{where} is a folder with other files in it (not a {kind}); choose a new or empty "
                              "folder")
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


@contextlib.contextmanager
def _lock(path: Path, where: str) -> Iterator[None]:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise PathProblem(f"{where}: cannot write there ({_reason(e)})") from None
    try:
        _lock_or_refuse(fd, where, "folder")
        yield
    finally:
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
def publish_dir(out: StrPath, *, is_ours: Callable[[Path], bool], kind: str, flag: str = "--out",
                inputs: Iterable[StrPath] = ()) -> Iterator[Path]:
    """Yield an empty temporary folder beside `out`; when the block ends without an error, it becomes `out`.

    `out` is replaced only if it is missing, empty or a `kind` (`is_ours`); see `check_output_dir`. A lock file
    `.<name>.lock` beside `out` keeps a second writer out (it is refused, not made to wait). On an error the
    temporary folder is removed and `out` is untouched.
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
            check_output_dir(path, is_ours=is_ours, kind=kind, flag=flag, inputs=inputs)  # what came meanwhile
            os.chmod(tmp, 0o755)
            _swap_in(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
