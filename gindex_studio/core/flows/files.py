"""Saving a user's file safely, and noticing when someone else changed it.

``atomic_write_bytes(path, data)`` replaces a file so that a reader (or a crash) sees the old or
the new content, never half of it, and otherwise behaves like writing the file in place:

- the file keeps its permission bits (a new file gets the usual ``0666 & ~umask``) and, where
  allowed, its owner and group;
- a read-only file (no write bit, or not writable by this user) is refused with
  :class:`ReadOnlyError` and left untouched; so is a name that is no regular file (a named pipe,
  a device, a socket, a folder: :class:`UserFileError`), never opened, blocked on or replaced;
- an ``OSError`` of the write (a full disk) names the file it was saving;
- a symbolic link stays a link: its final target receives the new content;
- the file's user extended attributes (``user.*``) are copied to the new file;
- a file with several hard links is written in place, so that every link sees the new content:
  first a complete copy is written and synced beside it and renamed ``.NAME.<pid>.<random>.redo``
  (so the disk is known to hold all of it), then the space is reserved in the file itself
  (``posix_fallocate``) before its bytes are overwritten, then the copy is removed; if writing in
  place fails, the old bytes are put back and the error raised. A save killed meanwhile (``kill
  -9``, a power cut) leaves the ``.redo`` copy beside the name that was saved: the next save, the
  studio's open, or a read of that name through :func:`read_user_bytes` finishes the save from the
  copy (:func:`finish_interrupted_saves`), and every link sees the result. (A read through another
  name of the file, before then, cannot know of the copy: a program reading only that name sees
  the half-written file until the saved name is read or saved again.)
- the temporary file is ``.NAME.<pid>.<random>.tmp`` next to the target; temporary files left by a
  process that no longer runs (killed mid-save) are removed by the next save of that file
  (:func:`remove_stale_temps`).

``FileStamp.of(path)`` records what a file looked like (size, modification time, content hash)
so that a later save can tell whether another program changed it meanwhile
(``stamp.changed_on_disk(path)``). Nothing here imports Qt.

Reading a file the user named goes through :func:`read_user_bytes` (or :func:`check_user_file`):
only a regular file is read (a named pipe, a device, a socket or a folder is refused without
reading it: ``os.stat`` first, then ``open`` with ``O_NONBLOCK`` and ``fstat`` on the open file, so
a pipe swapped in meanwhile cannot block), and only up to :func:`max_input_bytes` (256 MiB unless
``$GINDEX_MAX_INPUT_MB`` says otherwise). Refusals are :class:`UserFileError` with one line that
names the file and says what is wrong.
"""
from __future__ import annotations

import errno
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")

#: a temporary file older than this is removed even when its process id is alive (ids are reused)
STALE_AFTER_S = 3600.0


#: the largest input file read by default, in MiB (flows, experiments, studies, programs, includes,
#: library files); ``$GINDEX_MAX_INPUT_MB`` raises or lowers it
MAX_INPUT_MB = 256
MAX_INPUT_ENV = "GINDEX_MAX_INPUT_MB"


#: files at least this large take a second or more to read and parse, in calls nothing interrupts
#: (the command line reads them in a child process it can stop: ``cli.bounded``; a read here never
#: forks)
LARGE_READ_BYTES = 16 << 20


class UserFileError(OSError):
    """A file the user named cannot be read as one: missing, not a regular file, too large or
    unreadable. ``str(e)`` is the one line to show (``PATH: reason``)."""

    def __init__(self, path, reason: str, errno_: int = 0):
        super().__init__(errno_, reason, str(path))
        self.path, self.reason = str(path), reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def max_input_bytes() -> int:
    """The size limit of input files in bytes: ``$GINDEX_MAX_INPUT_MB`` MiB (a positive number),
    else :data:`MAX_INPUT_MB`. A malformed value is ignored (the default applies)."""
    text = os.environ.get(MAX_INPUT_ENV, "").strip()
    try:
        mb = float(text) if text else MAX_INPUT_MB
    except ValueError:
        mb = MAX_INPUT_MB
    if not mb > 0:  # zero, negative or not a number
        mb = MAX_INPUT_MB
    return int(min(mb, 1 << 40) * (1 << 20))


def _size_text(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} bytes"


def kind_problem(st: os.stat_result, what: str) -> str | None:
    """Why a file of this stat is not readable as ``what`` ("is a named pipe (FIFO), not ..."),
    None for a regular file."""
    m = st.st_mode
    if stat.S_ISREG(m):
        return None
    if stat.S_ISDIR(m):
        return f"is a folder, not {what}"
    if stat.S_ISFIFO(m):
        return f"is a named pipe (FIFO), not {what}; give a regular file"
    if stat.S_ISCHR(m) or stat.S_ISBLK(m):
        return f"is a device, not {what}; give a regular file"
    if stat.S_ISSOCK(m):
        return f"is a socket, not {what}; give a regular file"
    return f"is not a regular file, not {what}"


def _size_problem(size: int) -> str | None:
    limit = max_input_bytes()
    if size > limit:
        return (f"is {_size_text(size)}, larger than the {_size_text(limit)} limit for input files "
                f"(${MAX_INPUT_ENV} raises it)")
    return None


def check_user_file(path: str | Path, what: str = "a file") -> os.stat_result:
    """The stat of ``path`` when it is a regular file within the size limit (symbolic links
    followed); else :class:`UserFileError`. Never opens the file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UserFileError(path, "no such file", errno.ENOENT) from None
    except NotADirectoryError:
        raise UserFileError(path, "no such file (a part of the path is not a folder)", errno.ENOTDIR) from None
    except (OSError, ValueError) as e:
        raise UserFileError(path, f"cannot read ({getattr(e, 'strerror', None) or e})",
                            getattr(e, "errno", 0) or 0) from None
    why = kind_problem(st, what) or _size_problem(st.st_size)
    if why:
        raise UserFileError(path, why, errno.EINVAL)
    return st


def path_problem(path: str | Path, what: str = "a file") -> str | None:
    """``PATH: reason`` when ``path`` exists but cannot be read as ``what`` (a pipe, a device, a
    socket, too large, unreadable); None when it is missing or readable. For the message of a
    command that found neither a folder nor a file where it expected one (``... or "no such file"``)."""
    try:
        check_user_file(path, what)
    except UserFileError as e:
        return None if e.errno in (errno.ENOENT, errno.ENOTDIR) else str(e)
    return None


def read_user_bytes(path: str | Path, what: str = "a file") -> bytes:
    """The bytes of a regular file the user named, refusing anything else without blocking (see
    module). Raises :class:`UserFileError` with one line."""
    st = check_user_file(path, what)
    if st.st_nlink > 1 and finish_interrupted_saves(path):  # a torn in-place save: finished first
        st = check_user_file(path, what)
    limit = max_input_bytes()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError:
        raise UserFileError(path, f"is a folder, not {what}", errno.EISDIR) from None
    except OSError as e:
        raise UserFileError(path, f"cannot read ({e.strerror or e})", e.errno or 0) from None
    try:
        st = os.fstat(fd)  # what was opened, in case the name was swapped since the stat
        why = kind_problem(st, what) or _size_problem(st.st_size)
        if why:
            raise UserFileError(path, why, errno.EINVAL)
        parts, total = [], 0
        want = st.st_size + 1 if st.st_size else 1 << 16
        while True:
            part = os.read(fd, min(max(want, 1 << 16), limit + 1 - total))
            if not part:
                break
            parts.append(part)
            total += len(part)
            if total > limit:  # grew while being read
                raise UserFileError(path, _size_problem(total) or "grew while being read", errno.EFBIG)
        return b"".join(parts)
    except UserFileError:
        raise
    except OSError as e:
        raise UserFileError(path, f"cannot read ({e.strerror or e})", e.errno or 0) from None
    finally:
        os.close(fd)


def read_user_text(path: str | Path, what: str = "a file", errors: str = "strict") -> str:
    """:func:`read_user_bytes` decoded as UTF-8; a file that is not UTF-8 (with ``errors="strict"``)
    raises :class:`UserFileError` naming it."""
    data = read_user_bytes(path, what)
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as e:
        raise UserFileError(path, f"not UTF-8 text (byte {e.start})", errno.EILSEQ) from None


class ReadOnlyError(PermissionError):
    """The file to be replaced is read-only; nothing was written."""


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, keeping its mode, owner and links (see module).

    Raises :class:`ReadOnlyError` for a read-only file, :class:`UserFileError` for a name that is
    no regular file and ``OSError`` (naming ``path``) when the folder cannot be written or the disk
    is full; in every case the file is unchanged and no temporary file is left behind."""
    target = Path(os.path.realpath(path))
    st = check_output_name(path)
    if st is not None and is_read_only(target, st):
        raise ReadOnlyError(13, "the file is read-only", str(path))
    try:
        _replace_atomically(target, st, data)
    except OSError as e:
        if e.filename is None:  # a write's error (ENOSPC) names no file: the one being saved
            raise OSError(e.errno, e.strerror, str(path)) from None
        raise


def check_output_name(path: str | Path) -> os.stat_result | None:
    """The stat of the file ``path`` names (links followed), None when there is none yet;
    :class:`UserFileError` when it is no regular file (a pipe, a device, a socket, a folder: never
    opened). For a command to check all its outputs before writing any."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise UserFileError(path, kind_problem(st, "a file to write"), errno.EINVAL)
    return st


def _replace_atomically(target: Path, st: os.stat_result | None, data: bytes) -> None:
    folder = target.parent
    remove_stale_temps(target)
    tmp = folder / f".{target.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if st is None else 0o600)
    try:
        if st is not None:
            _copy_user_xattrs(target, fd)
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
            if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(fd, st.st_uid, st.st_gid)
                except OSError:
                    pass  # only root may give a file away; the content is what matters
        with os.fdopen(fd, "wb") as f:
            fd = -1
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if st is not None and st.st_nlink > 1:
            redo = tmp.with_name(tmp.name[: -len(".tmp")] + ".redo")
            os.rename(tmp, redo)  # the complete copy, under the name that says "finish me"
            tmp = redo
            _fsync_folder(folder)
            _write_in_place(target, data)
            os.unlink(redo)
        else:
            os.replace(tmp, target)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_folder(folder)


def _copy_user_xattrs(source: Path, fd: int) -> None:
    """Copy ``user.*`` extended attributes of ``source`` to the open file ``fd`` (best effort:
    not every file system has them)."""
    if not hasattr(os, "listxattr"):
        return
    try:
        names = [n for n in os.listxattr(source) if n.startswith("user.")]
    except OSError:
        return
    for name in names:
        try:
            os.setxattr(fd, name, os.getxattr(source, name))
        except OSError:
            pass


def _write_in_place(target: Path, data: bytes) -> None:
    """Overwrite a hard-linked file's bytes (see module): space reserved first; on a failure the
    old bytes are written back before the error is raised."""
    fd = os.open(target, os.O_RDWR)
    try:
        old = b""
        while part := os.read(fd, 1 << 20):
            old += part
        if hasattr(os, "posix_fallocate") and len(data) > len(old):
            try:
                os.posix_fallocate(fd, 0, len(data))
            except OSError as e:
                if e.errno not in (errno.EOPNOTSUPP, errno.EINVAL, getattr(errno, "ENOTSUP", -1)):
                    raise  # ENOSPC: nothing was changed
        try:
            _pwrite_all(fd, data)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        except BaseException:
            _pwrite_all(fd, old)
            os.ftruncate(fd, len(old))
            raise
    finally:
        os.close(fd)


def _pwrite_all(fd: int, data: bytes) -> None:
    view, done = memoryview(data), 0
    while done < len(data):
        done += os.pwrite(fd, view[done:], done)


def is_read_only(path: str | Path, st: os.stat_result | None = None) -> bool:
    """True when ``path`` has no write permission bit at all, or this user may not write it
    (root may write anything, but a 0444 file still says "do not change me")."""
    st = st or os.stat(path)
    return not (st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) or not os.access(path, os.W_OK)


def finish_interrupted_saves(target: str | Path) -> list[Path]:
    """Finish the in-place saves of the hard-linked file ``target`` whose writer was killed: the
    complete copy each left (``.NAME.<pid>.<random>.redo``, oldest first) is written into the file
    (every link sees it) and removed. Returns the copies used. Best effort: a copy that cannot be
    applied now (read-only folder, full disk) is left for the next try."""
    target = Path(target)
    try:
        copies = sorted(target.parent.glob(f".{_glob_escape(target.name)}.*.redo"), key=_mtime)
    except OSError:
        return []
    done = []
    for redo in copies:
        pid_text = redo.name[len(target.name) + 2:].split(".", 1)[0]
        if pid_text.isdigit() and pid_alive(int(pid_text)) and time.time() - _mtime(redo) < STALE_AFTER_S:
            continue  # its save is under way
        try:
            if os.path.lexists(target):
                _write_in_place(Path(os.path.realpath(target)), redo.read_bytes())
                os.unlink(redo)
            else:  # the file went meanwhile: the copy becomes it
                os.replace(redo, target)
        except OSError:
            continue
        done.append(redo)
    return done


def _mtime(p: Path) -> float:
    try:
        return p.lstat().st_mtime
    except OSError:
        return 0.0


def remove_stale_temps(target: str | Path) -> list[Path]:
    """Finish interrupted in-place saves of ``target`` (:func:`finish_interrupted_saves`), then
    remove ``.NAME.*.tmp`` files next to it whose writer is gone; returns the files removed.

    A temporary file names its writer's process id; one whose process no longer runs, one without a
    process id (written by an older version) or one older than :data:`STALE_AFTER_S` is stale."""
    target = Path(target)
    finish_interrupted_saves(target)
    removed = []
    try:
        candidates = list(target.parent.glob(f".{_glob_escape(target.name)}.*.tmp"))
    except OSError:
        return removed
    now = time.time()
    for tmp in candidates:
        middle = tmp.name[len(target.name) + 2 : -len(".tmp")]
        pid_text = middle.split(".", 1)[0]
        try:
            old = now - tmp.lstat().st_mtime > STALE_AFTER_S
        except OSError:
            continue
        owned = pid_text.isdigit() and "." in middle
        if owned and not old and pid_alive(int(pid_text)):
            continue
        if not owned and not old and now - tmp.lstat().st_mtime < 60:
            continue  # an older version's save may be under way right now
        try:
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass
    return removed


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def pid_alive(pid: int) -> bool:
    """True when a process ``pid`` runs (this one, or one we may not signal)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every system can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@dataclass(frozen=True)
class FileStamp:
    """What a file looked like when it was read or written: size, mtime (ns) and a SHA-256."""

    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of(cls, path: str | Path) -> "FileStamp | None":
        """The stamp of ``path`` now (None when it does not exist or cannot be read)."""
        import hashlib  # here, not at the top: the start-up of every command would pay for it

        try:
            st = os.stat(path)
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            return None
        return cls(st.st_size, st.st_mtime_ns, digest)

    def changed_on_disk(self, path: str | Path) -> bool:
        """True when ``path`` no longer holds the content this stamp saw (touching it without
        changing the bytes does not count; a deleted file does). The content hash decides: an
        edit of the same size with its time set back (``cp -p``, ``rsync -t``) is a change."""
        try:
            st = os.stat(path)
        except OSError:
            return True
        if st.st_size != self.size:
            return True
        now = FileStamp.of(path)
        return now is None or now.sha256 != self.sha256


class FolderNotEmptyError(FileExistsError):
    """The output folder already holds files and replacing it was not asked for."""


def write_folder(dest: str | Path, fill: "Callable[[Path], T]", replace: bool = False) -> T:
    """Make the folder ``dest`` whole or not at all: ``fill(tmp)`` writes into a fresh hidden
    folder beside ``dest`` (``.NAME.<pid>.<random>.tmp``), which is then renamed to ``dest``. An
    interrupted run leaves ``dest`` as it was (its temporary folder is removed by the next run).

    ``dest`` may be missing or empty; a folder with files in it raises
    :class:`FolderNotEmptyError` unless ``replace``, which swaps the old folder out whole (no old
    file is mixed with the new ones). Returns what ``fill`` returns."""
    import shutil

    dest = Path(os.path.abspath(dest))
    if dest.exists() and not dest.is_dir():
        raise NotADirectoryError(20, "is not a folder", str(dest))
    if dest.is_dir() and any(dest.iterdir()) and not replace:
        raise FolderNotEmptyError(17, "the folder is not empty", str(dest))
    parent = dest.parent
    parent.mkdir(parents=True, exist_ok=True)
    for old in parent.glob(f".{_glob_escape(dest.name)}.*.tmp"):
        pid = old.name[len(dest.name) + 2:].split(".", 1)[0]
        if old.is_dir() and not (pid.isdigit() and pid_alive(int(pid))):
            shutil.rmtree(old, ignore_errors=True)
    stem = f".{dest.name}.{os.getpid()}.{os.urandom(4).hex()}"
    tmp = parent / f"{stem}.tmp"
    tmp.mkdir()
    try:
        result = fill(tmp)
        if dest.is_dir() and any(dest.iterdir()):
            old = parent / f"{stem}.old.tmp"
            os.rename(dest, old)
            try:
                os.rename(tmp, dest)
            except BaseException:
                os.rename(old, dest)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, dest)  # over an empty folder too
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _fsync_folder(parent)
    return result
