"""Our own ctypes binding of the few llama.cpp C functions the ``local`` API uses.

Any shared library that exports llama.cpp's C API works: the prebuilt one from the ``xllamacpp``
wheel (the default runtime) or ``libllama.so`` of the llama-cpp-python source build (the fallback).
Being ours, it does not depend on either project's Python layer.

Struct layouts change between llama.cpp versions, so they are touched as little as possible: the
model and context parameters are taken from llama.cpp's own defaults as opaque blocks, and only
``n_ctx`` (the first field of the context parameters, there since the start) is written; the
thread counts are set afterwards through ``llama_set_n_threads``. The defaults are checked before
use, so a library with another layout is refused with a message instead of misread. The batch and
token-data structs are small and have kept their shape for years.
"""

from __future__ import annotations

import ctypes
import os
import threading
from ctypes import POINTER, c_bool, c_char_p, c_float, c_int32, c_size_t, c_uint32, c_void_p
from typing import Any

LIBRARY_ENV = "PI_LOCAL_LIBLLAMA"
"""The shared library to load when the caller did not name one (``use_library``)."""

_OPAQUE_WORDS = 256
"""Room for a parameter struct passed by value (1 KiB; llama.cpp's are a few hundred bytes).
Structs this large travel in memory on x86-64 and arm64, so a larger block than the callee's
struct is harmless: it reads its own size."""

_CONTEXT_DEFAULTS = (512, 2048, 512, 1)
"""llama.cpp's default ``n_ctx, n_batch, n_ubatch, n_seq_max``: how we recognise its layout."""


class LibraryError(Exception):
    """The library cannot be loaded or is not a llama.cpp we understand; the message says why."""


class _Opaque(ctypes.Structure):
    _fields_ = [("words", c_uint32 * _OPAQUE_WORDS)]


class Batch(ctypes.Structure):
    _fields_ = [
        ("n_tokens", c_int32),
        ("token", POINTER(c_int32)),
        ("embd", POINTER(c_float)),
        ("pos", POINTER(c_int32)),
        ("n_seq_id", POINTER(c_int32)),
        ("seq_id", POINTER(POINTER(c_int32))),
        ("logits", POINTER(ctypes.c_int8)),
    ]


class TokenData(ctypes.Structure):
    _fields_ = [("id", c_int32), ("logit", c_float), ("p", c_float)]


class TokenDataArray(ctypes.Structure):
    _fields_ = [("data", POINTER(TokenData)), ("size", c_size_t), ("selected", ctypes.c_int64), ("sorted", c_bool)]


class _ChainParams(ctypes.Structure):
    _fields_ = [("no_perf", c_bool)]


LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, c_char_p, c_void_p)
ABORT_CALLBACK = ctypes.CFUNCTYPE(c_bool, c_void_p)

_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "llama_backend_init": (None, []),
    "llama_log_set": (None, [LOG_CALLBACK, c_void_p]),
    "llama_model_default_params": (_Opaque, []),
    "llama_model_load_from_file": (c_void_p, [c_char_p, _Opaque]),
    "llama_model_free": (None, [c_void_p]),
    "llama_model_get_vocab": (c_void_p, [c_void_p]),
    "llama_model_meta_val_str": (c_int32, [c_void_p, c_char_p, c_char_p, c_size_t]),
    "llama_context_default_params": (_Opaque, []),
    "llama_init_from_model": (c_void_p, [c_void_p, _Opaque]),
    "llama_free": (None, [c_void_p]),
    "llama_n_ctx": (c_uint32, [c_void_p]),
    "llama_n_batch": (c_uint32, [c_void_p]),
    "llama_set_n_threads": (None, [c_void_p, c_int32, c_int32]),
    "llama_set_abort_callback": (None, [c_void_p, ABORT_CALLBACK, c_void_p]),
    "llama_get_memory": (c_void_p, [c_void_p]),
    "llama_memory_seq_rm": (c_bool, [c_void_p, c_int32, c_int32, c_int32]),
    "llama_memory_clear": (None, [c_void_p, c_bool]),
    "llama_vocab_bos": (c_int32, [c_void_p]),
    "llama_vocab_eos": (c_int32, [c_void_p]),
    "llama_vocab_is_eog": (c_bool, [c_void_p, c_int32]),
    "llama_tokenize": (c_int32, [c_void_p, c_char_p, c_int32, POINTER(c_int32), c_int32, c_bool, c_bool]),
    "llama_token_to_piece": (c_int32, [c_void_p, c_int32, c_char_p, c_int32, c_int32, c_bool]),
    "llama_batch_get_one": (Batch, [POINTER(c_int32), c_int32]),
    "llama_decode": (c_int32, [c_void_p, Batch]),
    "llama_sampler_chain_default_params": (_ChainParams, []),
    "llama_sampler_chain_init": (c_void_p, [_ChainParams]),
    "llama_sampler_chain_add": (None, [c_void_p, c_void_p]),
    "llama_sampler_init_grammar": (c_void_p, [c_void_p, c_char_p, c_char_p]),
    "llama_sampler_init_greedy": (c_void_p, []),
    "llama_sampler_init_top_k": (c_void_p, [c_int32]),
    "llama_sampler_init_top_p": (c_void_p, [c_float, c_size_t]),
    "llama_sampler_init_min_p": (c_void_p, [c_float, c_size_t]),
    "llama_sampler_init_temp": (c_void_p, [c_float]),
    "llama_sampler_init_dist": (c_void_p, [c_uint32]),
    "llama_sampler_sample": (c_int32, [c_void_p, c_void_p, c_int32]),
    "llama_sampler_apply": (None, [c_void_p, POINTER(TokenDataArray)]),
    "llama_sampler_accept": (None, [c_void_p, c_int32]),
    "llama_sampler_free": (None, [c_void_p]),
    "llama_state_seq_get_size": (c_size_t, [c_void_p, c_int32]),
    "llama_state_seq_get_data": (c_size_t, [c_void_p, POINTER(ctypes.c_uint8), c_size_t, c_int32]),
    "llama_state_seq_set_data": (c_size_t, [c_void_p, POINTER(ctypes.c_uint8), c_size_t, c_int32]),
}


def _drop_log(_level: int, _text: bytes | None, _data: int | None) -> None:
    """llama.cpp's log goes nowhere: load details and timings are not the user's business."""


_quiet = LOG_CALLBACK(_drop_log)


class Library:
    """The loaded shared library with the signatures above declared; ``lib.llama_decode(...)``."""

    def __init__(self, path: str) -> None:
        try:
            self.cdll = ctypes.CDLL(path)
        except OSError as error:
            raise LibraryError(f"cannot load the llama.cpp library {path}: {error}") from None
        self.path = path
        missing = [name for name in _SIGNATURES if not hasattr(self.cdll, name)]
        if missing:
            raise LibraryError(f"{path} is not a llama.cpp this pi knows: it lacks {', '.join(missing[:3])}")
        for name, (restype, argtypes) in _SIGNATURES.items():
            function = getattr(self.cdll, name)
            function.restype, function.argtypes = restype, argtypes
        self.cdll.llama_log_set(_quiet, None)
        self.cdll.llama_backend_init()
        defaults = tuple(self.cdll.llama_context_default_params().words[:4])
        if defaults != _CONTEXT_DEFAULTS:
            raise LibraryError(f"{path}: unexpected llama.cpp context parameters {defaults}; this pi cannot use it")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cdll, name)

    def context_params(self, n_ctx: int) -> _Opaque:
        params: _Opaque = self.cdll.llama_context_default_params()
        params.words[0] = n_ctx
        return params


_library: Library | None = None
_chosen: str | None = None
_guard = threading.Lock()


def use_library(path: str) -> None:
    """Name the shared library to load on first use (the setup calls this with the runtime it installed)."""
    global _chosen
    _chosen = path


def library() -> Library:
    """The llama.cpp library, loaded once per process; raises ``LibraryError``."""
    global _library
    with _guard:
        path = _chosen or os.environ.get(LIBRARY_ENV)
        if _library is not None and (path is None or path == _library.path):
            return _library
        if not path:
            raise LibraryError(
                "the local model runtime is not installed; run pi with --provider local once to set it up"
            )
        # Spinning OpenMP workers made decoding 20x slower on a loaded 2-core machine (see
        # docs/providers/local.md); PASSIVE must be set before the OpenMP runtime starts.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        _library = Library(path)
        return _library
