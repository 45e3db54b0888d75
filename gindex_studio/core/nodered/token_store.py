"""Where the studio keeps the admin token of the user's Node-RED (Preferences), never in plain text
among the settings: the desktop keyring (``keyring`` from PyPI: Secret Service, KWallet, macOS
Keychain, Windows Credential Locker) where there is one, else a file only the user can read and
write (mode 0600, in the user's config folder, its folder 0700).

Only one place holds the token: saving it in one removes it from the other. A keyring that
refuses to store it (locked, no D-Bus) is left for the file, and :attr:`TokenStore.where` says so.
"""
from __future__ import annotations

import os
from pathlib import Path

from gindex_studio.core.nodered.secrets import TokenError, read_token_file

SERVICE = "gindex-studio"
ACCOUNT = "node-red-admin-token"
FILE_NAME = "node-red-token"


def desktop_keyring():
    """The desktop keyring backend, or None when there is none (``keyring`` not installed, or only
    its "fail" and "null" backends)."""
    try:
        import keyring
        from keyring.backends import fail, null
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:  # a broken keyring configuration is no keyring  # noqa: BLE001
        return None
    return None if isinstance(backend, (fail.Keyring, null.Keyring)) else backend


class TokenStore:
    """The token's place for a config ``folder`` (the file's folder); ``backend``: a keyring backend
    (default: :func:`desktop_keyring`; None: the file)."""

    def __init__(self, folder: Path, backend="desktop"):
        self.path = Path(folder) / FILE_NAME
        self.backend = desktop_keyring() if backend == "desktop" else backend
        self.refused: str | None = None  # why the keyring did not take the token, when it did not

    @property
    def where(self) -> str:
        """Where a token saved now is kept, in words for the Preferences dialog."""
        if self.backend is not None and self.refused is None:
            return f"the desktop keyring ({type(self.backend).__name__})"
        why = f"the desktop keyring refused it: {self.refused}" if self.refused else "there is no desktop keyring here"
        return f"{self.path}, a file only you can read (mode 0600): {why}"

    def get(self) -> str:
        """The token kept, or "" (none, or its file is not private: then it is not used)."""
        if self.backend is not None:
            try:
                token = self.backend.get_password(SERVICE, ACCOUNT)
            except Exception:  # a locked or unreachable keyring: the file may hold it  # noqa: BLE001
                token = None
            if token:
                return token
        try:
            return read_token_file(self.path)
        except TokenError:
            return ""

    def set(self, token: str) -> None:
        """Keep ``token`` ("" forgets it) in one place: the keyring, else the private file."""
        token = token.strip()
        if self.backend is not None:
            try:
                if token:
                    self.backend.set_password(SERVICE, ACCOUNT, token)
                elif self.backend.get_password(SERVICE, ACCOUNT) is not None:
                    self.backend.delete_password(SERVICE, ACCOUNT)
                self.refused = None
                self._remove_file()
                return
            except Exception as e:  # noqa: BLE001
                self.refused = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        if token:
            self._write_file(token)
        else:
            self._remove_file()

    def _write_file(self, token: str) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{FILE_NAME}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            os.fchmod(fd, 0o600)  # whatever the umask
            os.write(fd, (token + "\n").encode())
        finally:
            os.close(fd)
        os.replace(tmp, self.path)

    def _remove_file(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
