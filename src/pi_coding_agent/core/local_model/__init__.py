"""The embedded local model: installing its runtime and weights into a cache folder we own.

``pi`` falls back to it when no provider is configured; ``pi --provider local`` selects it.
The inference itself is ``pi_ai``'s ``local`` API; this package only sets it up. It also knows
a llama.cpp server the user runs (``_llama_server``, ``_llama_client``: ``/llama``'s models, the
``llama.cpp`` provider; ``_huggingface``: models to download). Importing it is
cheap (the catalog entries); building, downloading and checking load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_ai import lazy_attributes
from pi_coding_agent.core.local_model._catalog import HubFile as HubFile
from pi_coding_agent.core.local_model._catalog import LocalModelSpec as LocalModelSpec
from pi_coding_agent.core.local_model._catalog import ModelPart as ModelPart
from pi_coding_agent.core.local_model._catalog import find_spec as find_spec
from pi_coding_agent.core.local_model._catalog import local_model_specs as local_model_specs
from pi_coding_agent.core.local_model._errors import SetupError as SetupError
from pi_coding_agent.core.local_model._paths import cache_root as cache_root
from pi_coding_agent.core.local_model._setup import LOCAL_API as LOCAL_API
from pi_coding_agent.core.local_model._setup import LOCAL_PROVIDER as LOCAL_PROVIDER
from pi_coding_agent.core.local_model._setup import PREFIX_STATES as PREFIX_STATES
from pi_coding_agent.core.local_model._setup import activate_runtime as activate_runtime
from pi_coding_agent.core.local_model._setup import default_local_model as default_local_model
from pi_coding_agent.core.local_model._setup import is_local as is_local
from pi_coding_agent.core.local_model._setup import is_set_up as is_set_up
from pi_coding_agent.core.local_model._setup import local_models as local_models
from pi_coding_agent.core.local_model._setup import prepare_local_model as prepare_local_model

if TYPE_CHECKING:
    from pi_coding_agent.core.local_model._huggingface import RECOMMENDED as RECOMMENDED
    from pi_coding_agent.core.local_model._huggingface import HubDetails as HubDetails
    from pi_coding_agent.core.local_model._huggingface import HubModel as HubModel
    from pi_coding_agent.core.local_model._huggingface import Quantization as Quantization
    from pi_coding_agent.core.local_model._huggingface import hub_details as hub_details
    from pi_coding_agent.core.local_model._huggingface import hub_search as hub_search
    from pi_coding_agent.core.local_model._llama_client import LlamaClient as LlamaClient
    from pi_coding_agent.core.local_model._llama_client import LoadProgress as LoadProgress
    from pi_coding_agent.core.local_model._llama_client import format_bytes as format_bytes
    from pi_coding_agent.core.local_model._llama_server import DEFAULT_SERVER_URL as DEFAULT_SERVER_URL
    from pi_coding_agent.core.local_model._llama_server import LLAMA_COMMAND as LLAMA_COMMAND
    from pi_coding_agent.core.local_model._llama_server import LLAMA_PROVIDER as LLAMA_PROVIDER
    from pi_coding_agent.core.local_model._llama_server import LLAMA_SOURCE as LLAMA_SOURCE
    from pi_coding_agent.core.local_model._llama_server import LlamaServerError as LlamaServerError
    from pi_coding_agent.core.local_model._llama_server import ServerModel as ServerModel
    from pi_coding_agent.core.local_model._llama_server import catalog_entry as catalog_entry
    from pi_coding_agent.core.local_model._llama_server import configured_server as configured_server
    from pi_coding_agent.core.local_model._llama_server import normalize_server_url as normalize_server_url
    from pi_coding_agent.core.local_model._llama_server import provider_config as provider_config
    from pi_coding_agent.core.local_model._llama_server import stored_chat_models as stored_chat_models
    from pi_coding_agent.core.local_model._llama_server import (
        stored_classifier_models as stored_classifier_models,
    )
    from pi_coding_agent.core.local_model._model_files import ensure_model_file as ensure_model_file
    from pi_coding_agent.core.local_model._prebuilt import PrebuiltSpec as PrebuiltSpec
    from pi_coding_agent.core.local_model._prebuilt import install_prebuilt as install_prebuilt
    from pi_coding_agent.core.local_model._prebuilt import prebuilt_misfit as prebuilt_misfit
    from pi_coding_agent.core.local_model._prebuilt import runtime_spec as runtime_spec
    from pi_coding_agent.core.local_model._progress import Progress as Progress
    from pi_coding_agent.core.local_model._progress import StderrProgress as StderrProgress
    from pi_coding_agent.core.local_model._runtime import RuntimeSpec as RuntimeSpec
    from pi_coding_agent.core.local_model._runtime import build_wheel as build_wheel
    from pi_coding_agent.core.local_model._runtime import install_runtime as install_runtime


__getattr__, __dir__ = lazy_attributes(globals())
