"""Image detection by content and preparation for a model (size, format, orientation).

Detection looks at the first bytes only: JPEG, PNG (not animated), GIF, WebP and BMP are
images; anything else is read as text, whatever its name. Preparation decodes with Pillow
(imported on first use, so text reads never pay for it), applies the EXIF orientation,
converts formats a model does not take (BMP) to PNG, and shrinks images that are over
2000x2000 pixels or whose base64 payload would reach 4.5 MB, or over the current model's own
limits (Pi 1.6's ``inputLimits.images.resize``, a ``ResizeProfile``).
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_ai import ImageResize

SNIFF_BYTES = 4100
MAX_WIDTH = 2000
MAX_HEIGHT = 2000
MAX_BASE64_BYTES = int(4.5 * 1024 * 1024)
JPEG_QUALITIES = (85, 70, 55, 40)
"""The lower JPEG qualities tried, after the profile's own, when nothing fits."""

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CONVERT_FAILED = "[Image omitted: could not be converted to a supported inline image format.]"
RESIZE_FAILED = "[Image omitted: could not be resized below the inline image size limit.]"


def detect_image_mime(head: bytes) -> str | None:
    """The MIME type of a supported image from its first bytes, else ``None``."""
    if head.startswith(b"\xff\xd8\xff"):
        return None if len(head) > 3 and head[3] == 0xF7 else "image/jpeg"
    if head.startswith(_PNG_SIGNATURE):
        return "image/png" if _is_png(head) and not _is_animated_png(head) else None
    if head.startswith(b"GIF"):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"BM") and _is_bmp(head):
        return "image/bmp"
    return None


def detect_supported_image_mime_type_from_file(path: str) -> str | None:
    with open(path, "rb") as handle:
        return detect_image_mime(handle.read(SNIFF_BYTES))


def _u32be(data: bytes, offset: int) -> int:
    chunk = data[offset : offset + 4].ljust(4, b"\0")
    return int.from_bytes(chunk, "big")


def _u32le(data: bytes, offset: int) -> int:
    return int.from_bytes(data[offset : offset + 4].ljust(4, b"\0"), "little")


def _u16le(data: bytes, offset: int) -> int:
    return int.from_bytes(data[offset : offset + 2].ljust(2, b"\0"), "little")


def _is_png(data: bytes) -> bool:
    return len(data) >= 16 and _u32be(data, 8) == 13 and data[12:16] == b"IHDR"


def _is_animated_png(data: bytes) -> bool:
    offset = len(_PNG_SIGNATURE)
    while offset + 8 <= len(data):
        length = _u32be(data, offset)
        kind = data[offset + 4 : offset + 8]
        if kind == b"acTL":
            return True
        if kind == b"IDAT":
            return False
        following = offset + 8 + length + 4
        if following <= offset or following > len(data):
            return False
        offset = following
    return False


def _is_bmp(data: bytes) -> bool:
    if len(data) < 26:
        return False
    declared_size = _u32le(data, 2)
    pixel_offset = _u32le(data, 10)
    dib_size = _u32le(data, 14)
    if declared_size != 0 and declared_size < 26:
        return False
    if pixel_offset < 14 + dib_size:
        return False
    if declared_size != 0 and pixel_offset >= declared_size:
        return False
    if dib_size == 12:
        planes, bits = _u16le(data, 22), _u16le(data, 24)
    elif 40 <= dib_size <= 124:
        if len(data) < 30:
            return False
        planes, bits = _u16le(data, 26), _u16le(data, 28)
    else:
        return False
    return planes == 1 and bits in (1, 4, 8, 16, 24, 32)


@dataclass(frozen=True, slots=True)
class ResizeProfile:
    """The bounds an image is shrunk to: Pi's defaults, or a model's ``inputLimits.images.resize``."""

    max_width: int = MAX_WIDTH
    max_height: int = MAX_HEIGHT
    max_bytes: int = MAX_BASE64_BYTES
    """Largest base64 payload, in bytes (exclusive)."""
    jpeg_quality: int = 80

    @classmethod
    def of(cls, resize: ImageResize | None) -> ResizeProfile:
        """A model's profile, each bound it leaves out taken from the defaults (as Pi 1.6 merges them)."""
        if resize is None:
            return DEFAULT_PROFILE
        default = DEFAULT_PROFILE
        return cls(
            max_width=resize.max_width if resize.max_width is not None else default.max_width,
            max_height=resize.max_height if resize.max_height is not None else default.max_height,
            max_bytes=resize.max_bytes if resize.max_bytes is not None else default.max_bytes,
            jpeg_quality=resize.jpeg_quality if resize.jpeg_quality is not None else default.jpeg_quality,
        )


DEFAULT_PROFILE = ResizeProfile()


@dataclass(slots=True)
class ProcessedImage:
    ok: bool
    data: str = ""
    mime_type: str = ""
    hints: list[str] = field(default_factory=list)
    message: str = ""


_INLINE_TYPES = {
    "image/png": "image/png",
    "image/jpeg": "image/jpeg",
    "image/jpg": "image/jpeg",
    "image/gif": "image/gif",
    "image/webp": "image/webp",
}


def _base64_size(num_bytes: int) -> int:
    return math.ceil(num_bytes / 3) * 4


def process_image(
    data: bytes, mime_type: str, *, auto_resize: bool = True, profile: ResizeProfile = DEFAULT_PROFILE
) -> ProcessedImage:
    """Make an image fit for a model, or explain in one line why it was left out."""
    base_type = mime_type.split(";", maxsplit=1)[0].strip().lower()
    inline = _INLINE_TYPES.get(base_type)
    converted_from: str | None = None
    if inline is None:
        png = _convert_to_png(data)
        if png is None:
            return ProcessedImage(ok=False, message=CONVERT_FAILED)
        data, inline, converted_from = png, "image/png", base_type
    if not auto_resize:
        hints = [f"[Image converted from {converted_from} to {inline}.]"] if converted_from else []
        return ProcessedImage(
            ok=True, data=base64.b64encode(data).decode("ascii"), mime_type=inline, hints=hints
        )
    resized = _resize(data, inline, profile)
    if resized is None:
        return ProcessedImage(ok=False, message=RESIZE_FAILED)
    hints = []
    if converted_from and converted_from != resized.mime_type:
        hints.append(f"[Image converted from {converted_from} to {resized.mime_type}.]")
    if resized.was_resized:
        scale = resized.original_width / resized.width
        hints.append(
            f"[Image: original {resized.original_width}x{resized.original_height}, "
            f"displayed at {resized.width}x{resized.height}. "
            f"Multiply coordinates by {scale:.2f} to map to original image.]"
        )
    return ProcessedImage(ok=True, data=resized.data, mime_type=resized.mime_type, hints=hints)


def _pillow() -> Any:
    try:
        from PIL import Image, ImageOps
    except ImportError:  # pragma: no cover - Pillow is a declared dependency
        return None
    return Image, ImageOps


def _open_oriented(data: bytes) -> Any:
    modules = _pillow()
    if modules is None:
        return None
    image_module, image_ops = modules
    image = image_module.open(io.BytesIO(data))
    image.load()
    return image_ops.exif_transpose(image)


def _convert_to_png(data: bytes) -> bytes | None:
    try:
        image = _open_oriented(data)
        if image is None:
            return None
        out = io.BytesIO()
        _png_ready(image).save(out, format="PNG")
        return out.getvalue()
    except Exception:
        return None


def _png_ready(image: Any) -> Any:
    return image if image.mode in ("RGB", "RGBA", "L", "LA", "P", "1", "I;16") else image.convert("RGBA")


@dataclass(slots=True)
class _Resized:
    data: str
    mime_type: str
    original_width: int
    original_height: int
    width: int
    height: int
    was_resized: bool


def _resize(data: bytes, mime_type: str, profile: ResizeProfile) -> _Resized | None:
    try:
        image = _open_oriented(data)
    except Exception:
        return None
    if image is None:
        return None
    try:
        width, height = image.size
        if width <= profile.max_width and height <= profile.max_height and _base64_size(len(data)) < profile.max_bytes:
            return _Resized(
                base64.b64encode(data).decode("ascii"), mime_type, width, height, width, height, False
            )
        target_w, target_h = width, height
        if target_w > profile.max_width:
            target_h = _js_round(target_h * profile.max_width / target_w)
            target_w = profile.max_width
        if target_h > profile.max_height:
            target_w = _js_round(target_w * profile.max_height / target_h)
            target_h = profile.max_height
        from PIL import Image

        while True:
            scaled = image.resize((max(1, target_w), max(1, target_h)), Image.Resampling.LANCZOS)
            for encoded, kind in _encodings(scaled, profile.jpeg_quality):
                if len(encoded) < profile.max_bytes:
                    return _Resized(encoded, kind, width, height, target_w, target_h, True)
            if target_w == 1 and target_h == 1:
                return None
            next_w = 1 if target_w == 1 else max(1, math.floor(target_w * 0.75))
            next_h = 1 if target_h == 1 else max(1, math.floor(target_h * 0.75))
            if (next_w, next_h) == (target_w, target_h):
                return None
            target_w, target_h = next_w, next_h
    except Exception:
        return None


def _encoded(image: Any, kind: str, quality: int = 0) -> str:
    out = io.BytesIO()
    if kind == "image/png":
        _png_ready(image).save(out, format="PNG")
    else:
        image.convert("RGB").save(out, format="JPEG", quality=quality)
    return base64.b64encode(out.getvalue()).decode("ascii")


def _encodings(image: Any, quality: int) -> Iterator[tuple[str, str]]:
    """The smaller of PNG and JPEG at the profile's quality first, then the other, then JPEG at
    lower qualities (produced lazily; the first under the limit wins). Pi 1.6 prefers the smaller
    of the two; 0.85 always tried PNG first."""
    png, jpeg = _encoded(image, "image/png"), _encoded(image, "image/jpeg", quality)
    first, second = ((jpeg, "image/jpeg"), (png, "image/png")) if len(jpeg) < len(png) else ((png, "image/png"), (jpeg, "image/jpeg"))
    yield first
    yield second
    for lower in JPEG_QUALITIES:
        if lower != quality:
            yield _encoded(image, "image/jpeg", lower), "image/jpeg"


def _js_round(value: float) -> int:
    """``Math.round``: halves go up."""
    return math.floor(value + 0.5)
