"""The one error of the Node runtime setup."""


class NodeUnavailable(Exception):
    """No Node new enough for Pi's extensions could be found or installed (the message says why)."""
