"""Wire adapters, one module per API (``anthropic_messages``, ``openai_completions``, ...).

Each module exposes ``API: ApiImplementation`` and is imported lazily by ``pi_ai._registry``
on first use. Private helpers shared by the adapters: ``_http`` (transport and error
texts), ``_sse`` (incremental SSE decoder).
"""
