"""``python -m pi_coding_agent.core.local_model setup [MODEL_ID ...]``: run the one-time setup by hand
(``./test`` and CI warm the cache so). Without an id, the default embedded model."""

from __future__ import annotations

import sys

from pi_coding_agent.core.local_model._catalog import default_spec_id, find_spec, local_model_specs
from pi_coding_agent.core.local_model._errors import SetupError
from pi_coding_agent.core.local_model._model_files import ensure_model_file
from pi_coding_agent.core.local_model._prebuilt import runtime_spec
from pi_coding_agent.core.local_model._progress import StderrProgress
from pi_coding_agent.core.local_model._runtime import RuntimeSpec, install_runtime

SOURCE_FLAG = "--with-source-build"
"""Also build llama-cpp-python from source (tests and the bench run its server)."""


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "setup":
        print("usage: python -m pi_coding_agent.core.local_model setup [--with-source-build] [MODEL_ID ...]", file=sys.stderr)
        return 2
    source = SOURCE_FLAG in argv
    ids = [arg for arg in argv[1:] if arg != SOURCE_FLAG]
    specs = [find_spec(model_id) for model_id in ids or [default_spec_id()]]
    if None in specs:
        known = ", ".join(s.id for s in local_model_specs())
        print(f"pi: unknown embedded model in {ids} (known: {known})", file=sys.stderr)
        return 2
    progress = StderrProgress()
    try:
        print(runtime_spec().install(progress))
        if source:
            print(install_runtime(RuntimeSpec(), progress))
        for spec in specs:
            assert spec is not None
            print(ensure_model_file(spec, progress))
    except SetupError as error:
        print(f"pi: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
