"""The multi-line prompt editor and its completion."""

from pi_tui.editor._buffer import TextBuffer
from pi_tui.editor._complete import Completer, Suggestion
from pi_tui.editor._editor import Editor

__all__ = ["Completer", "Editor", "Suggestion", "TextBuffer"]
