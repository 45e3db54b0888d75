"""Desktop keyrings for tests (``keyring.set_keyring(...)``): one in memory, one that is locked."""
from __future__ import annotations

from contextlib import contextmanager

import keyring
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import KeyringLocked


class MemoryKeyring(KeyringBackend):
    """A desktop keyring standing in for Secret Service & co (in memory)."""

    priority = 10

    def __init__(self):
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.items.get((service, username))

    def set_password(self, service, username, password):
        self.items[(service, username)] = password

    def delete_password(self, service, username):
        del self.items[(service, username)]


class LockedKeyring(MemoryKeyring):
    """A keyring that refuses to store anything (locked, as Secret Service is before its unlock)."""

    def set_password(self, service, username, password):
        raise KeyringLocked("the keyring is locked")


@contextmanager
def using(backend):
    """``backend`` is the desktop keyring in the block; none again afterwards (as tests/conftest.py sets)."""
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(fail.Keyring())
