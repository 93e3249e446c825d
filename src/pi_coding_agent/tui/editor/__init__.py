"""The multi-line prompt editor and its completion."""
