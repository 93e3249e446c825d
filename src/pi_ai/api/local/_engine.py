"""One loaded GGUF model in this process, and token generation on a worker thread.

llama-cpp-python is imported only here and only when a ``local`` model is used. The ``Llama``
object is kept for the life of the process (one at a time), so its KV cache carries the prompt
prefix from one turn to the next: llama-cpp-python re-evaluates only the tokens after the longest
common prefix. Generation holds a lock (one request at a time per model) and stops between tokens, or
inside a long prompt evaluation through llama.cpp's abort callback, when asked.
"""

from __future__ import annotations

import codecs
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

THREADS_ENV = "PI_LOCAL_THREADS"


class EngineError(Exception):
    """The runtime or the model file cannot be used; the message says why in one line."""


def thread_count() -> int:
    """``PI_LOCAL_THREADS``, else the CPUs this process may run on (llama.cpp decodes fastest with
    one thread per core; OpenMP threads wait passively so a busy machine does not stall them)."""
    configured = os.environ.get(THREADS_ENV, "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, len(os.sched_getaffinity(0)))


def _import_llama() -> Any:
    # Spinning OpenMP workers made decoding 20x slower on a loaded 2-core machine (see
    # docs/providers/local.md); PASSIVE must be set before the OpenMP runtime starts.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp
    except ImportError as error:
        raise EngineError(
            f"the local model runtime (llama-cpp-python) is not installed ({error}); "
            "run pi with --provider local once to set it up"
        ) from None
    return llama_cpp


@dataclass
class Generated:
    finish_reason: str
    """``stop`` (end of turn), ``length`` (output cap) or ``aborted``."""
    prompt_tokens: int
    reused_tokens: int
    output_tokens: int


class Engine:
    """A loaded model: tokenizer, chat template and the generation loop."""

    def __init__(self, path: str, n_ctx: int) -> None:
        llama_cpp = _import_llama()
        self.path = path
        threads = thread_count()
        try:
            self.llama = llama_cpp.Llama(
                model_path=path, n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads, verbose=False
            )
        except (ValueError, RuntimeError, OSError) as error:
            raise EngineError(f"cannot load model file {path}: {error}") from None
        self.n_ctx = int(self.llama.n_ctx())
        self.lock = threading.Lock()
        self._abort = threading.Event()
        self._stop = threading.Event()
        # Kept on the instance: llama.cpp holds only a pointer to the ctypes callback.
        self._abort_callback = llama_cpp.ggml_abort_callback(lambda _data: self._abort.is_set())
        llama_cpp.llama_set_abort_callback(self.llama.ctx, self._abort_callback, None)
        metadata = self.llama.metadata
        self.chat_template: str | None = metadata.get("tokenizer.chat_template")
        self.eos_text = self._token_text(self.llama.token_eos())
        self.bos_text = self._token_text(self.llama.token_bos())

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        return bytes(self.llama.detokenize([token], special=True)).decode("utf-8", "replace")

    def tokenize(self, text: str) -> list[int]:
        return list(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def reusable_prefix(self, tokens: list[int]) -> int:
        """How many leading ``tokens`` are already in the KV cache from the previous call."""
        cached = self.llama.input_ids[: self.llama.n_tokens]
        count = 0
        for old, new in zip(cached, tokens, strict=False):
            if int(old) != new:
                break
            count += 1
        return count

    def request_abort(self) -> None:
        self._abort.set()

    def request_stop(self) -> None:
        """End the current generation after the token being sampled (the turn is complete enough)."""
        self._stop.set()

    def generate(
        self,
        tokens: list[int],
        *,
        grammar: str | None,
        max_tokens: int,
        temperature: float,
        on_text: Callable[[str], bool],
    ) -> Generated:
        """Sample up to ``max_tokens`` after ``tokens``, passing text pieces to ``on_text``.

        ``on_text`` returns True once the rest of the turn is free text; sampling then goes on
        without the grammar, which costs a check of the whole vocabulary per token (a plain answer
        decoded about three times faster so). Call with ``lock`` held, from a worker thread.
        """
        llama_cpp = _import_llama()
        self._abort.clear()
        self._stop.clear()
        reused = self.reusable_prefix(tokens)
        history = list(tokens)
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        constraint = llama_cpp.LlamaGrammar.from_string(grammar, verbose=False) if grammar else None
        vocab = llama_cpp.llama_model_get_vocab(self.llama.model)
        produced = 0
        finish = "length"
        try:
            while finish == "length" and produced < max_tokens:
                relaxed = False
                for token in self.llama.generate(
                    history, temp=temperature, grammar=constraint, repeat_penalty=1.0
                ):
                    if self._abort.is_set():
                        finish = "aborted"
                        break
                    if self._stop.is_set():
                        finish = "stop"
                        break
                    if llama_cpp.llama_vocab_is_eog(vocab, token):
                        finish = "stop"
                        break
                    history.append(token)
                    produced += 1
                    text = decoder.decode(bytes(self.llama.detokenize([token])))
                    free = bool(text) and on_text(text)
                    if produced >= max_tokens or len(history) >= self.n_ctx:
                        break
                    if free and constraint is not None:
                        constraint, relaxed = None, True
                        break
                if not relaxed:
                    break
        except RuntimeError:
            if not self._abort.is_set():
                raise
            finish = "aborted"
        tail = decoder.decode(b"", final=True)
        if tail:
            on_text(tail)
        return Generated(finish, len(tokens), reused, produced)


_loaded: Engine | None = None
_loading = threading.Lock()


def load_engine(path: str, n_ctx: int) -> Engine:
    """The engine for ``path``, loading it (and unloading another model) on first use."""
    global _loaded
    with _loading:
        if _loaded is not None and _loaded.path == path and _loaded.n_ctx == n_ctx:
            return _loaded
        if not os.path.isfile(path):
            raise EngineError(f"model file {path} does not exist")
        if _loaded is not None:
            with _loaded.lock:
                _loaded.llama.close()
            _loaded = None
        _loaded = Engine(path, n_ctx)
        return _loaded
