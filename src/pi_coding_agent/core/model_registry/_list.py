"""``pi --list-models [search]``: the table Pi prints, column for column."""

from __future__ import annotations

from collections.abc import Sequence

from pi_ai import Model
from pi_coding_agent.core.model_registry._collate import collation_key, fuzzy_filter_all


def format_token_count(count: int) -> str:
    """200000 -> ``200K``, 16384 -> ``16.4K``, 1000000 -> ``1M`` (JavaScript rounding)."""
    for size, suffix in ((1_000_000, "M"), (1_000, "K")):
        if count >= size:
            value = count / size
            if value == int(value):
                return f"{int(value)}{suffix}"
            return f"{_to_fixed_1(value)}{suffix}"
    return str(count)


def _to_fixed_1(value: float) -> str:
    """``Number.prototype.toFixed(1)``: round half away from zero on the exact decimal value."""
    from decimal import ROUND_HALF_UP, Decimal

    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def matching_models(models: Sequence[Model], search: str | None) -> list[Model]:
    """Pi's fuzzy match of ``search`` on ``provider id``; all of ``models`` without one."""
    return [m for m in models if fuzzy_filter_all(search, f"{m.provider} {m.id}")] if search else list(models)


def model_table(models: Sequence[Model], search: str | None) -> list[str]:
    """The lines to print (without newlines); a message line when nothing matches."""
    chosen = matching_models(models, search)
    if not chosen:
        return [f'No models matching "{search}"']
    chosen.sort(key=lambda m: (collation_key(m.provider), collation_key(m.id)))
    header = ("provider", "model", "context", "max-out", "thinking", "images")
    rows = [
        (
            m.provider,
            m.id,
            format_token_count(m.context_window),
            format_token_count(m.max_tokens),
            "yes" if m.reasoning else "no",
            "yes" if "image" in m.input else "no",
        )
        for m in chosen
    ]
    widths = [max(len(header[i]), *(len(row[i]) for row in rows)) for i in range(len(header))]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)) for line in (header, *rows)]
