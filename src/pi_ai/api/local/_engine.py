"""One loaded GGUF model in this process, and token generation on a worker thread.

The llama.cpp library (``_llama_lib``) is loaded only here and only when a ``local`` model is used.
The model and its context are kept for the life of the process (one at a time), so the KV cache
carries the prompt prefix from one turn to the next: only the tokens after the longest common
prefix are evaluated again. Generation holds a lock (one request at a time per model) and stops
between tokens, or inside a long prompt evaluation through llama.cpp's abort callback, when asked.
"""

from __future__ import annotations

import codecs
import ctypes
import hashlib
import os
import random
import threading
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pi_ai.api.local._llama_lib import ABORT_CALLBACK, Library, LibraryError, library

THREADS_ENV = "PI_LOCAL_THREADS"

TOP_K, TOP_P, MIN_P = 40, 0.95, 0.05
"""Sampling filters at a temperature above 0 (llama.cpp's usual ones); at 0 the top token is taken."""


MIN_PERSISTED = 256
"""A fixed prefix shorter than this is evaluated each time (reading its state costs about as much)."""
KEPT_STATES = 8
"""Prefix states kept on disk; the least recently used beyond this are removed."""

_state_dir: Path | None = None


def use_prefix_cache(folder: str | None) -> None:
    """Keep the KV state of each prompt's fixed prefix in ``folder`` (None: keep none)."""
    global _state_dir
    _state_dir = Path(folder) if folder else None


class EngineError(Exception):
    """The runtime or the model file cannot be used; the message says why in one line."""


def thread_count() -> int:
    """``PI_LOCAL_THREADS``, else the CPUs this process may run on (llama.cpp decodes fastest with
    one thread per core; OpenMP threads wait passively so a busy machine does not stall them)."""
    configured = os.environ.get(THREADS_ENV, "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, len(os.sched_getaffinity(0)))


def _library() -> Library:
    try:
        return library()
    except LibraryError as error:
        raise EngineError(str(error)) from None


@dataclass
class Generated:
    finish_reason: str
    """``stop`` (end of turn), ``length`` (output cap) or ``aborted``."""
    prompt_tokens: int
    reused_tokens: int
    output_tokens: int
    prefill_seconds: float = 0.0
    """Evaluating the prompt (after what the KV cache or a stored prefix state already held)."""
    first_token_seconds: float = 0.0
    """From the call to the first generated token."""
    restored_tokens: int = 0
    """Prompt tokens whose state was read from disk (part of ``reused_tokens``)."""


class _Aborted(Exception):
    pass


class Engine:
    """A loaded model: tokenizer, chat template, KV cache and the generation loop."""

    def __init__(self, path: str, n_ctx: int) -> None:
        self.lib = _library()
        self.path = path
        self.model = self.lib.llama_model_load_from_file(path.encode(), self.lib.llama_model_default_params())
        if not self.model:
            raise EngineError(f"cannot load model file {path}: llama.cpp could not read it as a GGUF model")
        self.vocab = self.lib.llama_model_get_vocab(self.model)
        self.lock = threading.Lock()
        self._abort = threading.Event()
        self._stop = threading.Event()
        self.ctx = self.lib.llama_init_from_model(self.model, self.lib.context_params(n_ctx))
        if not self.ctx:
            self.lib.llama_model_free(self.model)
            raise EngineError(f"cannot create a context of {n_ctx} tokens for {path} (out of memory?)")
        threads = thread_count()
        self.lib.llama_set_n_threads(self.ctx, threads, threads)
        # Kept on the instance: llama.cpp holds only a pointer to the ctypes callback.
        self._abort_callback = ABORT_CALLBACK(lambda _data: self._abort.is_set())
        self.lib.llama_set_abort_callback(self.ctx, self._abort_callback, None)
        self.n_ctx = int(self.lib.llama_n_ctx(self.ctx))
        self.n_batch = max(1, int(self.lib.llama_n_batch(self.ctx)))
        self.memory = self.lib.llama_get_memory(self.ctx)
        self.cached: list[int] = []
        """The tokens whose keys and values are in the context, in order."""
        self.chat_template: str | None = self.metadata("tokenizer.chat_template")
        self.eos_text = self.token_text(self.lib.llama_vocab_eos(self.vocab), special=True)
        self.bos_text = self.token_text(self.lib.llama_vocab_bos(self.vocab), special=True)

    def metadata(self, key: str) -> str | None:
        size = self.lib.llama_model_meta_val_str(self.model, key.encode(), None, 0)
        if size < 0:
            return None
        buffer = ctypes.create_string_buffer(size + 1)
        self.lib.llama_model_meta_val_str(self.model, key.encode(), buffer, size + 1)
        return buffer.raw[:size].decode("utf-8", "replace")

    def token_bytes(self, token: int, *, special: bool = False) -> bytes:
        buffer = ctypes.create_string_buffer(64)
        size = self.lib.llama_token_to_piece(self.vocab, token, buffer, 64, 0, special)
        if size < 0:
            buffer = ctypes.create_string_buffer(-size)
            size = self.lib.llama_token_to_piece(self.vocab, token, buffer, -size, 0, special)
        return buffer.raw[: max(0, size)]

    def token_text(self, token: int, *, special: bool = False) -> str:
        return "" if token < 0 else self.token_bytes(token, special=special).decode("utf-8", "replace")

    def tokenize(self, text: str) -> list[int]:
        data = text.encode("utf-8")
        room = len(data) + 8
        tokens = (ctypes.c_int32 * room)()
        count = self.lib.llama_tokenize(self.vocab, data, len(data), tokens, room, False, True)
        if count < 0:
            room = -count
            tokens = (ctypes.c_int32 * room)()
            count = self.lib.llama_tokenize(self.vocab, data, len(data), tokens, room, False, True)
        return list(tokens[:count])

    def is_end(self, token: int) -> bool:
        return bool(self.lib.llama_vocab_is_eog(self.vocab, token))

    def reusable_prefix(self, tokens: list[int]) -> int:
        """How many leading ``tokens`` are already in the KV cache from the previous call."""
        count = 0
        for old, new in zip(self.cached, tokens, strict=False):
            if old != new:
                break
            count += 1
        return count

    def request_abort(self) -> None:
        self._abort.set()

    def request_stop(self) -> None:
        """End the current generation after the token being sampled (the turn is complete enough)."""
        self._stop.set()

    def close(self) -> None:
        if self.ctx:
            self.lib.llama_free(self.ctx)
            self.ctx = None
        if self.model:
            self.lib.llama_model_free(self.model)
            self.model = None

    def _decode(self, tokens: list[int]) -> None:
        """Evaluate ``tokens`` after ``cached``, ``n_batch`` at a time; the last one's logits are kept."""
        for start in range(0, len(tokens), self.n_batch):
            chunk = tokens[start : start + self.n_batch]
            array = (ctypes.c_int32 * len(chunk))(*chunk)
            status = self.lib.llama_decode(self.ctx, self.lib.llama_batch_get_one(array, len(chunk)))
            if self._abort.is_set():
                self._forget_from(len(self.cached))
                raise _Aborted
            if status != 0:
                self._forget_from(len(self.cached))
                raise EngineError(f"llama.cpp could not evaluate the prompt (llama_decode returned {status})")
            self.cached.extend(chunk)

    def _forget_from(self, position: int) -> None:
        if not self.lib.llama_memory_seq_rm(self.memory, -1, position, -1):
            self.lib.llama_memory_clear(self.memory, True)
            position = 0
        del self.cached[position:]

    def prefill(self, tokens: list[int], fixed: int = 0) -> tuple[int, int]:
        """Make the KV cache hold ``tokens`` except the last (which ``generate`` evaluates for its
        logits); returns how many were already there and how many of those came from disk.

        The first ``fixed`` tokens (the system prompt and tools) are the same on every run: their
        state is read from the prefix cache when it is there, and written to it when it is not."""
        reused = min(self.reusable_prefix(tokens), len(tokens) - 1)
        fixed = min(fixed, len(tokens) - 1)
        restored, position = 0, reused
        if _state_dir is not None and fixed >= MIN_PERSISTED and reused < fixed:
            path = _state_dir / f"{self._state_key(tokens[:fixed])}.kv"
            if self._restore(path, tokens[:fixed]):
                reused = restored = fixed
            else:
                self._forget_from(reused)
                self._decode(tokens[reused:fixed])
                self._save(path)
            position = fixed
        self._forget_from(position)
        self._decode(tokens[position:-1])
        return reused, restored

    def _state_key(self, prefix: list[int]) -> str:
        digest = hashlib.sha256()
        for path in (self.lib.path, self.path):
            stat = os.stat(path)
            digest.update(f"{os.path.abspath(path)}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
        digest.update(f"{self.n_ctx}\0".encode())
        digest.update(array("i", prefix).tobytes())
        return digest.hexdigest()[:32]

    def _restore(self, path: Path, prefix: list[int]) -> bool:
        try:
            data = path.read_bytes()
        except OSError:
            return False
        self._forget_from(0)
        buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        if not self.lib.llama_state_seq_set_data(self.ctx, buffer, len(data), 0):
            self._forget_from(0)
            path.unlink(missing_ok=True)
            return False
        self.cached = list(prefix)
        os.utime(path)
        return True

    def _save(self, path: Path) -> None:
        """Write the state of what the cache holds now; a failure to write only costs speed."""
        size = int(self.lib.llama_state_seq_get_size(self.ctx, 0))
        buffer = (ctypes.c_uint8 * size)()
        written = int(self.lib.llama_state_seq_get_data(self.ctx, buffer, size, 0))
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial.write_bytes(memoryview(buffer)[:written])
            partial.replace(path)
            states = sorted(path.parent.glob("*.kv"), key=lambda item: item.stat().st_mtime, reverse=True)
            for old in states[KEPT_STATES:]:
                old.unlink(missing_ok=True)
        except OSError:
            partial.unlink(missing_ok=True)

    def _sampler(self, grammar: str | None, temperature: float) -> int:
        lib = self.lib
        chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        if grammar:
            constraint = lib.llama_sampler_init_grammar(self.vocab, grammar.encode(), b"root")
            if not constraint:
                lib.llama_sampler_free(chain)
                raise EngineError("llama.cpp could not parse the turn's grammar")
            lib.llama_sampler_chain_add(chain, constraint)
        if temperature <= 0:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_greedy())
        else:
            for sampler in (
                lib.llama_sampler_init_top_k(TOP_K), lib.llama_sampler_init_top_p(TOP_P, 1),
                lib.llama_sampler_init_min_p(MIN_P, 1), lib.llama_sampler_init_temp(temperature),
                lib.llama_sampler_init_dist(random.getrandbits(32)),
            ):
                lib.llama_sampler_chain_add(chain, sampler)
        return int(chain)

    def generate(
        self, tokens: list[int], *, grammar: str | None, max_tokens: int, temperature: float,
        on_text: Callable[[str], bool], fixed: int = 0,
    ) -> Generated:
        """Sample up to ``max_tokens`` after ``tokens``, passing text pieces to ``on_text``.

        ``on_text`` returns True once the rest of the turn is free text; sampling then goes on
        without the grammar, which costs a check of the whole vocabulary per token (a plain answer
        decoded about three times faster so). Call with ``lock`` held, from a worker thread.
        """
        self._abort.clear()
        self._stop.clear()
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        produced, finish = 0, "length"
        reused = min(self.reusable_prefix(tokens), len(tokens) - 1)
        restored, prefill_seconds, first_token_seconds = 0, 0.0, 0.0
        started = time.monotonic()
        sampler = 0
        try:
            reused, restored = self.prefill(tokens, fixed)
            prefill_seconds = time.monotonic() - started
            pending = tokens[-1]
            sampler = self._sampler(grammar, temperature)
            while produced < max_tokens:
                if self._stop.is_set() or self._abort.is_set():
                    finish = "stop"
                    break
                self._decode([pending])
                token = int(self.lib.llama_sampler_sample(sampler, self.ctx, -1))
                if self.is_end(token):
                    finish = "stop"
                    break
                produced += 1
                if produced == 1:
                    first_token_seconds = time.monotonic() - started
                text = decoder.decode(self.token_bytes(token))
                free = bool(text) and on_text(text)
                pending = token
                if len(self.cached) + 1 >= self.n_ctx:
                    break
                if free and grammar:
                    self.lib.llama_sampler_free(sampler)
                    sampler, grammar = 0, None
                    sampler = self._sampler(None, temperature)
        except _Aborted:
            finish = "aborted"
        finally:
            if sampler:
                self.lib.llama_sampler_free(sampler)
        if self._abort.is_set():
            finish = "aborted"
        tail = decoder.decode(b"", final=True)
        if tail:
            on_text(tail)
        return Generated(finish, len(tokens), reused, produced, prefill_seconds, first_token_seconds, restored)


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
                _loaded.close()
            _loaded = None
        _loaded = Engine(path, n_ctx)
        return _loaded
