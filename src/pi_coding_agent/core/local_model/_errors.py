"""The one error the setup raises."""


class SetupError(Exception):
    """A setup step failed; the message is one line naming what and where (logs are kept)."""
