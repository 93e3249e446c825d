"""The multi-line prompt editor and its completion."""

from pi_tui.editor._buffer import TextBuffer
from pi_tui.editor._complete import Completer, Completion, CompletionSource, Suggestion
from pi_tui.editor._editor import Editor

__all__ = ["Completer", "Completion", "CompletionSource", "Editor", "Suggestion", "TextBuffer"]
