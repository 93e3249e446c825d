"""pi_ai: one message model for every LLM provider, a streaming protocol where errors are
values, and the wire adapters that translate between the two.

Names are loaded on first access (PEP 562) so ``import pi_ai`` stays cheap for programs that
only need part of it. Each name is declared once, below, as an explicit re-export that type
checkers read; ``lazy_attributes`` derives the runtime map and ``__all__`` from it. Two names exist for the layers built
on top rather than for Pi compatibility: ``WireStruct`` (the base of every struct written to
a wire or a file, for their own message and entry types) and ``lazy_attributes`` (the
first-access loading their package ``__init__`` modules use too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_ai._lazy import lazy_attributes as lazy_attributes

if TYPE_CHECKING:
    from pi_ai._abort import AbortController as AbortController
    from pi_ai._abort import AbortError as AbortError
    from pi_ai._abort import AbortSignal as AbortSignal
    from pi_ai._classify import AssistantClassification as AssistantClassification
    from pi_ai._classify import ClassifierModel as ClassifierModel
    from pi_ai._classify import classifier_error as classifier_error
    from pi_ai._classify import classify as classify
    from pi_ai._classify import get_classifier_model as get_classifier_model
    from pi_ai._classify import get_classifier_models as get_classifier_models
    from pi_ai._classify import get_classifier_providers as get_classifier_providers
    from pi_ai._classify import register_classifier_api as register_classifier_api
    from pi_ai._codec import DecodeError as DecodeError
    from pi_ai._codec import absent_keys as absent_keys
    from pi_ai._codec import convert as convert
    from pi_ai._codec import decode as decode
    from pi_ai._codec import decode_message as decode_message
    from pi_ai._codec import encode as encode
    from pi_ai._codec import message_from_dict as message_from_dict
    from pi_ai._codec import note_absent_counts as note_absent_counts
    from pi_ai._codec import to_builtins as to_builtins
    from pi_ai._context import Context as Context
    from pi_ai._context import Tool as Tool
    from pi_ai._env_keys import api_key_env_vars as api_key_env_vars
    from pi_ai._env_keys import get_env_api_key as get_env_api_key
    from pi_ai._estimate import ContextEstimate as ContextEstimate
    from pi_ai._estimate import calculate_context_tokens as calculate_context_tokens
    from pi_ai._estimate import estimate_context_tokens as estimate_context_tokens
    from pi_ai._estimate import estimate_message_tokens as estimate_message_tokens
    from pi_ai._estimate import (
        estimate_text_and_image_content_tokens as estimate_text_and_image_content_tokens,
    )
    from pi_ai._estimate import estimate_text_tokens as estimate_text_tokens
    from pi_ai._event_stream import DEFAULT_RESPONSE_TIMEOUT_MS as DEFAULT_RESPONSE_TIMEOUT_MS
    from pi_ai._event_stream import AssistantMessageEventStream as AssistantMessageEventStream
    from pi_ai._event_stream import empty_assistant_message as empty_assistant_message
    from pi_ai._event_stream import now_ms as now_ms
    from pi_ai._event_stream import start_stream as start_stream
    from pi_ai._events import AssistantMessageEvent as AssistantMessageEvent
    from pi_ai._events import DoneEvent as DoneEvent
    from pi_ai._events import ErrorEvent as ErrorEvent
    from pi_ai._events import StartEvent as StartEvent
    from pi_ai._events import TextDeltaEvent as TextDeltaEvent
    from pi_ai._events import TextEndEvent as TextEndEvent
    from pi_ai._events import TextStartEvent as TextStartEvent
    from pi_ai._events import ThinkingDeltaEvent as ThinkingDeltaEvent
    from pi_ai._events import ThinkingEndEvent as ThinkingEndEvent
    from pi_ai._events import ThinkingStartEvent as ThinkingStartEvent
    from pi_ai._events import ToolCallDeltaEvent as ToolCallDeltaEvent
    from pi_ai._events import ToolCallEndEvent as ToolCallEndEvent
    from pi_ai._events import ToolCallStartEvent as ToolCallStartEvent
    from pi_ai._images import AssistantImages as AssistantImages
    from pi_ai._images import ImagesContext as ImagesContext
    from pi_ai._images import ImagesModel as ImagesModel
    from pi_ai._images import ImagesOptions as ImagesOptions
    from pi_ai._images import generate_images as generate_images
    from pi_ai._images import get_image_model as get_image_model
    from pi_ai._images import get_image_models as get_image_models
    from pi_ai._images import get_image_providers as get_image_providers
    from pi_ai._images import register_images_api as register_images_api
    from pi_ai._images_models import CredentialStore as CredentialStore
    from pi_ai._images_models import ImagesModels as ImagesModels
    from pi_ai._images_models import InMemoryCredentialStore as InMemoryCredentialStore
    from pi_ai._messages import ABSENT_COUNT as ABSENT_COUNT
    from pi_ai._messages import AssistantMessage as AssistantMessage
    from pi_ai._messages import ContentBlock as ContentBlock
    from pi_ai._messages import ContextMessage as ContextMessage
    from pi_ai._messages import DeferredHandle as DeferredHandle
    from pi_ai._messages import Diagnostic as Diagnostic
    from pi_ai._messages import DiagnosticError as DiagnosticError
    from pi_ai._messages import ImageContent as ImageContent
    from pi_ai._messages import Message as Message
    from pi_ai._messages import StopReason as StopReason
    from pi_ai._messages import SystemMessage as SystemMessage
    from pi_ai._messages import TextContent as TextContent
    from pi_ai._messages import ThinkingContent as ThinkingContent
    from pi_ai._messages import ToolCall as ToolCall
    from pi_ai._messages import ToolResultMessage as ToolResultMessage
    from pi_ai._messages import Usage as Usage
    from pi_ai._messages import UsageCost as UsageCost
    from pi_ai._messages import UserMessage as UserMessage
    from pi_ai._messages import WireStruct as WireStruct
    from pi_ai._model import THINKING_LEVELS as THINKING_LEVELS
    from pi_ai._model import CostTier as CostTier
    from pi_ai._model import ImageInputLimits as ImageInputLimits
    from pi_ai._model import ImageResize as ImageResize
    from pi_ai._model import InputLimits as InputLimits
    from pi_ai._model import Model as Model
    from pi_ai._model import ModelCost as ModelCost
    from pi_ai._model import PromptCache as PromptCache
    from pi_ai._model import ThinkingLevel as ThinkingLevel
    from pi_ai._model import calculate_cost as calculate_cost
    from pi_ai._model import clamp_thinking_level as clamp_thinking_level
    from pi_ai._model import get_supported_thinking_levels as get_supported_thinking_levels
    from pi_ai._model import models_are_equal as models_are_equal
    from pi_ai._options import CacheRetention as CacheRetention
    from pi_ai._options import ReasoningLevel as ReasoningLevel
    from pi_ai._options import ResponseInfo as ResponseInfo
    from pi_ai._options import SimpleStreamOptions as SimpleStreamOptions
    from pi_ai._options import StreamOptions as StreamOptions
    from pi_ai._options import ThinkingBudgets as ThinkingBudgets
    from pi_ai._overflow import is_context_overflow as is_context_overflow
    from pi_ai._overflow import is_recoverable_length as is_recoverable_length
    from pi_ai._partial_json import ARGUMENTS_ERROR_KEY as ARGUMENTS_ERROR_KEY
    from pi_ai._partial_json import parse_streaming_json as parse_streaming_json
    from pi_ai._provider_auth import ProviderAuth as ProviderAuth
    from pi_ai._provider_auth import provider_env_names as provider_env_names
    from pi_ai._provider_auth import resolve_provider_auth as resolve_provider_auth
    from pi_ai._provider_ids import LEGACY_PROVIDER_IDS as LEGACY_PROVIDER_IDS
    from pi_ai._provider_ids import canonical_provider as canonical_provider
    from pi_ai._provider_ids import canonical_reference as canonical_reference
    from pi_ai._provider_ids import legacy_provider_ids as legacy_provider_ids
    from pi_ai._registry import ApiImplementation as ApiImplementation
    from pi_ai._registry import complete as complete
    from pi_ai._registry import complete_simple as complete_simple
    from pi_ai._registry import get_api as get_api
    from pi_ai._registry import register_api as register_api
    from pi_ai._registry import registered_apis as registered_apis
    from pi_ai._registry import stream as stream
    from pi_ai._registry import stream_simple as stream_simple
    from pi_ai._registry import unregister_apis as unregister_apis
    from pi_ai._retry import is_retryable_assistant_error as is_retryable_assistant_error
    from pi_ai._session_resources import cleanup_session_resources as cleanup_session_resources
    from pi_ai._text import content_text as content_text
    from pi_ai._transcript import current_system_message as current_system_message
    from pi_ai._transcript import current_tools as current_tools
    from pi_ai._transcript import prepare_context as prepare_context
    from pi_ai._transcript import render_system_message_update as render_system_message_update
    from pi_ai._transcript import system_message_text as system_message_text
    from pi_ai._transcript import takes_system_messages_in_place as takes_system_messages_in_place
    from pi_ai._transform_messages import transform_messages as transform_messages
    from pi_ai.models import ModelRegistry as ModelRegistry
    from pi_ai.models import get_model as get_model
    from pi_ai.models import get_models as get_models
    from pi_ai.models import get_providers as get_providers


__getattr__, __dir__ = lazy_attributes(globals())
