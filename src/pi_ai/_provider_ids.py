"""Provider ids Pi has renamed, and the one place that maps an old id to the current one.

Pi 1.6 renamed ``azure-openai-responses`` to ``azure`` and dropped the old id outright (its
files name the provider ``azure``; a 0.85 file naming the old id is a provider it no longer
knows). Files written by Pi 0.85 keep working here: wherever a provider id comes from the
user (``--provider``, ``--model old/id``, settings, ``auth.json`` keys, ``models.json`` keys,
session entries), the old id means the new provider.
"""

from __future__ import annotations

LEGACY_PROVIDER_IDS: dict[str, str] = {"azure-openai-responses": "azure"}
"""Old provider id -> the id Pi 1.6 uses for the same provider."""


def canonical_provider(provider: str) -> str:
    """The current id of ``provider`` (itself unless it is a renamed one; case-insensitive)."""
    return LEGACY_PROVIDER_IDS.get(provider.lower(), provider)


def legacy_provider_ids(provider: str) -> list[str]:
    """The old ids that also name ``provider`` (``azure`` -> ``["azure-openai-responses"]``)."""
    return [old for old, new in LEGACY_PROVIDER_IDS.items() if new == provider]


def canonical_reference(reference: str) -> str:
    """``old-provider/model`` -> ``new-provider/model``; other references unchanged."""
    provider, slash, rest = reference.partition("/")
    if not slash:
        return reference
    current = canonical_provider(provider.strip())
    return f"{current}/{rest}" if current != provider.strip() else reference
