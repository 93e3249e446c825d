"""A provider registered from an extension: an OpenAI-compatible server.

``PI_EXAMPLE_BASE_URL`` (default ``http://127.0.0.1:8080/v1``, llama.cpp's port) points it
at the server; ``pi -e examples/extensions/local_provider.py --model local-server/local-model``.
"""

import os


def setup(pi):
    pi.register_provider(
        "local-server",
        {
            "baseUrl": os.environ.get("PI_EXAMPLE_BASE_URL", "http://127.0.0.1:8080/v1"),
            "api": "openai-completions",
            "apiKey": "none",
            "compat": {"supportsDeveloperRole": False},
            "models": [{"id": "local-model", "name": "Local model", "contextWindow": 32768, "maxTokens": 4096}],
        },
    )
