"""Saving a user's file safely, and noticing when someone else changed it.

``atomic_write_bytes(path, data)`` replaces a file so that a reader (or a crash) sees the old or
the new content, never half of it, and otherwise behaves like writing the file in place:

- the file keeps its permission bits (a new file gets the usual ``0666 & ~umask``) and, where
  allowed, its owner and group;
- a read-only file (no write bit, or not writable by this user) is refused with
  :class:`ReadOnlyError` and left untouched;
- a symbolic link stays a link: its final target receives the new content;
- the temporary file is ``.NAME.<pid>.<random>.tmp`` next to the target; temporary files left by a
  process that no longer runs (killed mid-save) are removed by the next save of that file
  (:func:`remove_stale_temps`).

``FileStamp.of(path)`` records what a file looked like (size, modification time, content hash)
so that a later save can tell whether another program changed it meanwhile
(``stamp.changed_on_disk(path)``). Nothing here imports Qt.
"""
from __future__ import annotations

import hashlib
import os
import secrets
import stat
import time
from dataclasses import dataclass
from pathlib import Path

#: a temporary file older than this is removed even when its process id is alive (ids are reused)
STALE_AFTER_S = 3600.0


class ReadOnlyError(PermissionError):
    """The file to be replaced is read-only; nothing was written."""


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, keeping its mode, owner and links (see module).

    Raises :class:`ReadOnlyError` for a read-only file and ``OSError`` when the folder cannot be
    written; in both cases the file is unchanged and no temporary file is left behind."""
    target = Path(os.path.realpath(path))
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and is_read_only(target, st):
        raise ReadOnlyError(13, "the file is read-only", str(path))
    folder = target.parent
    remove_stale_temps(target)
    tmp = folder / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if st is None else 0o600)
    try:
        if st is not None:
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


def is_read_only(path: str | Path, st: os.stat_result | None = None) -> bool:
    """True when ``path`` has no write permission bit at all, or this user may not write it
    (root may write anything, but a 0444 file still says "do not change me")."""
    st = st or os.stat(path)
    return not (st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) or not os.access(path, os.W_OK)


def remove_stale_temps(target: str | Path) -> list[Path]:
    """Remove ``.NAME.*.tmp`` files next to ``target`` whose writer is gone; returns them.

    A temporary file names its writer's process id; one whose process no longer runs, one without a
    process id (written by an older version) or one older than :data:`STALE_AFTER_S` is stale."""
    target = Path(target)
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
        if owned and not old and _pid_alive(int(pid_text)):
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


def _pid_alive(pid: int) -> bool:
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
        try:
            st = os.stat(path)
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            return None
        return cls(st.st_size, st.st_mtime_ns, digest)

    def changed_on_disk(self, path: str | Path) -> bool:
        """True when ``path`` no longer holds the content this stamp saw (touching it without
        changing the bytes does not count; a deleted file does)."""
        try:
            st = os.stat(path)
        except OSError:
            return True
        if (st.st_size, st.st_mtime_ns) == (self.size, self.mtime_ns):
            return False
        now = FileStamp.of(path)
        return now is None or now.sha256 != self.sha256
