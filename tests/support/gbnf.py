"""Whether a GBNF grammar accepts a text, asked of llama.cpp's own grammar sampler.

The text is tokenized with a real model's vocabulary and fed token by token: a token the grammar
forbids gets a logit of minus infinity; at the end, the end-of-generation token must be allowed.
"""

from __future__ import annotations

import ctypes
import math

from pi_ai.api.local._engine import Engine
from pi_ai.api.local._llama_lib import TokenData, TokenDataArray


def grammar_accepts(engine: Engine, grammar: str, text: str) -> bool:
    lib = engine.lib
    sampler = lib.llama_sampler_init_grammar(engine.vocab, grammar.encode(), b"root")
    assert sampler, "llama.cpp could not parse the grammar"
    try:
        for token in engine.tokenize(text):
            if not _allowed(engine, sampler, token):
                return False
            lib.llama_sampler_accept(sampler, token)
        return _allowed(engine, sampler, int(lib.llama_vocab_eos(engine.vocab)))
    finally:
        lib.llama_sampler_free(sampler)


def _allowed(engine: Engine, sampler: int, token: int) -> bool:
    data = (TokenData * 1)(TokenData(token, 0.0, 0.0))
    candidates = TokenDataArray(data, 1, -1, False)
    engine.lib.llama_sampler_apply(sampler, ctypes.byref(candidates))
    return not math.isinf(data[0].logit)
