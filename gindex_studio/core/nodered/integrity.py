"""An exact record of a folder tree, to tell later whether anything in it changed.

:func:`record` notes every entry under the folder: its kind (file, folder, symbolic link, other),
its permission bits, a file's size and SHA-256, a link's target, and each entry's ``lstat``
identity (inode, size, mtime and ctime in nanoseconds). :func:`changes` walks the tree again and
hashes only the files whose identity differs from the record: a write, a rename over, a
truncation or a ``touch`` always moves ``ctime``, which no unprivileged process can set back, so
a file whose identity is unchanged has unchanged content. The walk alone is cheap (tens of
milliseconds for Node-RED's 7,800 entries); hashing everything would cost about ten times more.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

FORMAT = 1
#: one entry: [kind, mode, size, mtime_ns, ctime_ns, inode, sha256 (file) | target (link) | None]
Entry = list


def _walk(root: Path) -> dict[str, os.stat_result]:
    """Every entry under ``root`` (not ``root`` itself) by its path relative to it, with its lstat."""
    out: dict[str, os.stat_result] = {}
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(os.path.join(root, rel) if rel else root) as it:
            for e in it:
                path = f"{rel}/{e.name}" if rel else e.name
                st = e.stat(follow_symlinks=False)
                out[path] = st
                if stat.S_ISDIR(st.st_mode):
                    stack.append(path)
    return out


def _kind(st: os.stat_result) -> str:
    if stat.S_ISREG(st.st_mode):
        return "file"
    if stat.S_ISDIR(st.st_mode):
        return "folder"
    if stat.S_ISLNK(st.st_mode):
        return "link"
    return "other"


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _entry(root: Path, rel: str, st: os.stat_result, content: str | None = None) -> Entry:
    kind = _kind(st)
    if content is None:
        if kind == "file":
            content = _sha256(root / rel)
        elif kind == "link":
            content = os.readlink(root / rel)
    return [kind, stat.S_IMODE(st.st_mode), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, content]


def record(root: Path) -> dict:
    """The record of the tree under ``root`` (every entry, every file hashed)."""
    return {"format": FORMAT, "entries": {rel: _entry(root, rel, st) for rel, st in sorted(_walk(root).items())}}


def save(manifest: dict, path: Path) -> None:
    """Write ``manifest`` to ``path`` atomically (a temporary file renamed over it)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(manifest, separators=(",", ":")), encoding="utf-8")
    os.replace(tmp, path)


def load(path: Path) -> dict | None:
    """The manifest saved at ``path``; None when it is missing, unreadable or of another format."""
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(m, dict) or m.get("format") != FORMAT or not isinstance(m.get("entries"), dict):
        return None
    return m


def changes(root: Path, manifest: dict) -> tuple[list[tuple[str, str]], bool]:
    """([(path, what)], refreshed): what differs between the tree and its record, sorted by path
    (``what``: "added", "removed", "changed", "mode changed", "now a <kind>"), and whether entries
    whose identity moved but whose content did not were updated in ``manifest`` (then save it, so
    the next check is cheap again)."""
    entries: dict[str, Entry] = manifest["entries"]
    now = _walk(root)
    found: list[tuple[str, str]] = [(rel, "removed") for rel in entries if rel not in now]
    refreshed = False
    for rel, st in now.items():
        old = entries.get(rel)
        if old is None:
            found.append((rel, "added"))
            continue
        kind = _kind(st)
        if kind != old[0]:
            found.append((rel, f"now a {kind}"))
        elif stat.S_IMODE(st.st_mode) != old[1]:
            found.append((rel, "mode changed"))
        elif kind == "link":
            if os.readlink(root / rel) != old[6]:
                found.append((rel, "changed"))
        elif kind == "file" and [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino] != old[2:6]:
            if st.st_size != old[2] or _sha256(root / rel) != old[6]:
                found.append((rel, "changed"))
            else:
                entries[rel] = _entry(root, rel, st, old[6])
                refreshed = True
    return sorted(found), refreshed
