"""Whether a GBNF grammar accepts a text, asked of llama.cpp's own grammar sampler.

The text is tokenized with a real model's vocabulary and fed token by token: a token the grammar
forbids gets a logit of minus infinity; at the end, the end-of-generation token must be allowed.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any


def grammar_accepts(llama: Any, grammar: str, text: str) -> bool:
    import llama_cpp

    vocab = llama_cpp.llama_model_get_vocab(llama.model)
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
    assert sampler, "llama.cpp could not parse the grammar"
    try:
        tokens = [int(t) for t in llama.tokenize(text.encode(), add_bos=False, special=True)]
        for token in tokens:
            if not _allowed(llama_cpp, sampler, token):
                return False
            llama_cpp.llama_sampler_accept(sampler, token)
        return _allowed(llama_cpp, sampler, int(llama.token_eos()))
    finally:
        llama_cpp.llama_sampler_free(sampler)


def _allowed(llama_cpp: Any, sampler: Any, token: int) -> bool:
    data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
    candidates = llama_cpp.llama_token_data_array(data, 1, -1, False)
    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(candidates))
    return not math.isinf(data[0].logit)
