"""The one exception long work raises when it is cancelled."""


class Cancelled(Exception):
    """Long work stopped because its cancel token was set (nothing partial is returned)."""
