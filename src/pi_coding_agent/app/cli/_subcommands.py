"""The words Pi reads as a subcommand when they come first that are not built yet; each is
refused with a line naming what is missing, so the word never reaches a model as a prompt (Pi's
``main``: auth, then the experimental server and client, then the package and config commands,
all decided by the first argument alone). ``pi auth`` (``_auth_command``) and the package and
config commands (``pi_coding_agent.customize.packages``) are built and run before this check; what is
left are the experimental server and client, words only with ``PI_EXPERIMENTAL=1``."""

from __future__ import annotations

TYPE_CHECKING = False  # as in ``_args``: this runs before ``pi --version`` answers
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

_EXPERIMENTAL = {
    "server": "experimental session server",
    "client": "experimental session client",
}


def unbuilt_subcommand(args: Sequence[str], env: Mapping[str, str]) -> str | None:
    """The error for a subcommand this implementation does not have, or None for a normal run."""
    if not args:
        return None
    word = args[0]
    missing = _EXPERIMENTAL.get(word) if env.get("PI_EXPERIMENTAL") == "1" else None
    if missing is None:
        return None
    return f"Error: pi {word} is not built yet in this implementation ({missing})"
