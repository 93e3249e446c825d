class NodeUnavailable(Exception):  # noqa: N818 - reads as a state, like FileNotFoundError
    """No Node new enough for Pi's extensions could be found or installed (the message says why)."""
