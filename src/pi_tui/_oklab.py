"""OKLab and OKHSL, Björn Ottosson's colour spaces, to and from sRGB.

OKHSL's saturation is relative to the most chroma sRGB holds at a hue and lightness, so
every ``okhsl()`` value is in gamut. The maths is Ottosson's published method
(https://bottosson.github.io/posts/colorpicker/, MIT); the arithmetic follows the order Pi
1.6's ``pi-tui`` uses, so both round to the same 8-bit channels (JavaScript's ``%`` is
``math.fmod``, its ``Math.round`` rounds halves up).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence

Vector = tuple[float, float, float]
Matrix = tuple[Vector, Vector, Vector]

_LINEAR_SRGB_TO_LMS: Matrix = (
    (0.4122214694707629, 0.5363325372617349, 0.0514459932675022),
    (0.2119034958178251, 0.6806995506452344, 0.1073969535369405),
    (0.0883024591900564, 0.2817188391361215, 0.6299787016738222),
)
_LMS_TO_LAB: Matrix = (
    (0.210454268309314, 0.793617774702305, -0.0040720430116193),
    (1.9779985324311684, -2.42859224204858, 0.450593709617411),
    (0.0259040424655478, 0.7827717124575296, -0.8086757549230774),
)
_LAB_TO_LMS: Matrix = (
    (1.0, 0.3963377773761749, 0.2158037573099136),
    (1.0, -0.1055613458156586, -0.0638541728258133),
    (1.0, -0.0894841775298119, -1.2914855480194092),
)
_LMS_TO_LINEAR_SRGB: Matrix = (
    (4.0767416360759583, -3.3077115392580629, 0.2309699031821043),
    (-1.2684379732850315, 2.6097573492876882, -0.341319376002657),
    (-0.0041960761386756, -0.7034186179359362, 1.7076146940746117),
)
# Per sRGB channel: the (a, b) half-plane where it clips first, and the polynomial fit of the
# largest saturation there (Ottosson's constants).
_SATURATION_FIT: tuple[tuple[tuple[float, float], tuple[float, float, float, float, float]], ...] = (
    ((-1.8817031, -0.80936501), (1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245)),
    ((1.8144408, -1.19445267), (0.73956515, -0.45954404, 0.08285427, 0.12541073, -0.14503204)),
    ((0.13110758, 1.81333971), (1.35733652, -0.00915799, -1.1513021, -0.50559606, 0.00692167)),
)
_K1 = 0.206
_K2 = 0.03
_K3 = (1 + _K1) / (1 + _K2)


def js_round(value: float) -> int:
    """JavaScript's ``Math.round``: halves go up (Python's ``round`` goes to even)."""
    return math.floor(value + 0.5)


def js_degrees(value: float) -> float:
    """An angle in [0, 360) the way Pi writes ``((h % 360) + 360) % 360``."""
    return math.fmod(math.fmod(value, 360) + 360, 360)


def _times(matrix: Matrix, vector: Sequence[float]) -> Vector:
    x, y, z = vector
    rows = tuple(row[0] * x + row[1] * y + row[2] * z for row in matrix)
    return rows[0], rows[1], rows[2]


def oklab_to_okhsl_lightness(value: float) -> float:
    """OKLab lightness to OKHSL lightness (Ottosson's toe function)."""
    shifted = _K3 * value - _K1
    return 0.5 * (shifted + math.sqrt(shifted**2 + 4 * _K2 * _K3 * value))


def _okhsl_to_oklab_lightness(value: float) -> float:
    return (value * value + _K1 * value) / (_K3 * (value + _K2))


def _to_srgb(value: float) -> float:
    return 1.055 * value ** (1 / 2.4) - 0.055 if value > 0.0031308 else 12.92 * value


def _to_linear(value: float) -> float:
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def oklab_to_linear_srgb(lab: Sequence[float]) -> Vector:
    """OKLab (L, a, b) to linear sRGB, 0-1 inside the gamut."""
    l_, m_, s_ = _times(_LAB_TO_LMS, lab)
    return _times(_LMS_TO_LINEAR_SRGB, (l_**3, m_**3, s_**3))


def rgb_to_oklab(rgb: Sequence[float]) -> Vector:
    """sRGB channels (0-255) to OKLab (L, a, b)."""
    linear = tuple(_to_linear(channel / 255) for channel in rgb)
    l_, m_, s_ = _times(_LINEAR_SRGB_TO_LMS, linear)
    return _times(_LMS_TO_LAB, (math.cbrt(l_), math.cbrt(m_), math.cbrt(s_)))


def linear_srgb_to_rgb(linear: Sequence[float]) -> tuple[int, int, int]:
    """Linear sRGB to 8-bit channels, clipping what lies outside the gamut."""
    r, g, b = (js_round(min(1.0, max(0.0, _to_srgb(value))) * 255) for value in linear)
    return r, g, b


def _lms_slopes(a: float, b: float) -> Vector:
    rows = tuple(row[1] * a + row[2] * b for row in _LAB_TO_LMS)
    return rows[0], rows[1], rows[2]


def _max_saturation(a: float, b: float) -> float:
    """Largest C/L inside sRGB for the hue direction (a, b): the fit plus one Halley step."""
    channel = next(
        (index for index, ((x, y), _) in enumerate(_SATURATION_FIT) if index == 2 or x * a + y * b > 1), 2
    )
    k0, k1, k2, k3, k4 = _SATURATION_FIT[channel][1]
    weights = _LMS_TO_LINEAR_SRGB[channel]
    saturation = k0 + k1 * a + k2 * b + k3 * a * a + k4 * a * b
    slopes = _lms_slopes(a, b)
    base = [1 + saturation * k for k in slopes]

    def weighted(values: Sequence[float]) -> float:
        total = 0.0
        for index, value in enumerate(values):
            total += weights[index] * value
        return total

    f = weighted([value**3 for value in base])
    f1 = weighted([3 * slopes[index] * value**2 for index, value in enumerate(base)])
    f2 = weighted([6 * slopes[index] ** 2 * value for index, value in enumerate(base)])
    return saturation - (f * f1) / (f1 * f1 - 0.5 * f * f2)


def _cusp(a: float, b: float) -> tuple[float, float]:
    """OKLab lightness and chroma of the most colourful sRGB colour of the hue."""
    saturation = _max_saturation(a, b)
    lightness = math.cbrt(1 / max(oklab_to_linear_srgb((1, saturation * a, saturation * b))))
    return lightness, lightness * saturation


def _max_chroma(a: float, b: float, lightness: float, cusp: tuple[float, float]) -> float:
    """Chroma where the line of constant lightness leaves the sRGB gamut."""
    cusp_l, cusp_c = cusp
    if lightness <= cusp_l:
        return (cusp_c * lightness) / cusp_l
    t = (cusp_c * (lightness - 1)) / (cusp_l - 1)
    slopes = _lms_slopes(a, b)
    lms = [lightness + t * k for k in slopes]
    cubes = [value**3 for value in lms]
    first = [3 * slopes[index] * value**2 for index, value in enumerate(lms)]
    second = [6 * slopes[index] ** 2 * value for index, value in enumerate(lms)]
    steps = []
    for row in _LMS_TO_LINEAR_SRGB:
        f = row[0] * cubes[0] + row[1] * cubes[1] + row[2] * cubes[2] - 1
        f1 = row[0] * first[0] + row[1] * first[1] + row[2] * first[2]
        f2 = row[0] * second[0] + row[1] * second[1] + row[2] * second[2]
        u = f1 / (f1 * f1 - 0.5 * f * f2)
        steps.append(-f * u if u >= 0 else sys.float_info.max)
    return t + min(steps)


def _chroma_stops(lightness: float, a: float, b: float) -> tuple[float, float, float]:
    """OKHSL's reference chromas at a lightness and hue: at s=0 slope, at s=0.8, at s=1."""
    cusp = _cusp(a, b)
    c_max = _max_chroma(a, b, lightness, cusp)
    k = c_max / min(lightness * (cusp[1] / cusp[0]), (1 - lightness) * (cusp[1] / (1 - cusp[0])))
    mid_s = 0.11516993 + 1 / (
        7.4477897
        + 4.1590124 * b
        + a
        * (-2.19557347 + 1.75198401 * b + a * (-2.13704948 - 10.02301043 * b + a * (-4.24894561 + 5.38770819 * b + 4.69891013 * a)))
    )  # fmt: skip
    mid_t = 0.11239642 + 1 / (
        1.6132032
        - 0.68124379 * b
        + a
        * (0.40370612 + 0.90148123 * b + a * (-0.27087943 + 0.6122399 * b + a * (0.00299215 - 0.45399568 * b - 0.14661872 * a)))
    )  # fmt: skip
    c_mid = (
        0.9
        * k
        * math.sqrt(math.sqrt(1 / (1 / (lightness * mid_s) ** 4 + 1 / ((1 - lightness) * mid_t) ** 4)))
    )
    c_0 = math.sqrt(1 / (1 / (lightness * 0.4) ** 2 + 1 / ((1 - lightness) * 0.8) ** 2))
    return c_0, c_mid, c_max


def okhsl_to_rgb(hue: float, saturation: float, lightness: float) -> tuple[int, int, int]:
    """OKHSL (hue in degrees, saturation and lightness 0-1) to 8-bit sRGB channels."""
    big_l = _okhsl_to_oklab_lightness(lightness)
    lab: Vector = (big_l, 0.0, 0.0)
    if 0 < big_l < 1 and saturation > 0:
        angle = (2 * math.pi * js_degrees(hue)) / 360
        a, b = math.cos(angle), math.sin(angle)
        c_0, c_mid, c_max = _chroma_stops(big_l, a, b)
        if saturation < 0.8:
            t = 1.25 * saturation
            k1 = 0.8 * c_0
            chroma = (t * k1) / (1 - (1 - k1 / c_mid) * t)
        else:
            t = 5 * (saturation - 0.8)
            k1 = (0.2 * c_mid**2 * 1.25**2) / c_0
            chroma = c_mid + (t * k1) / (1 - (1 - k1 / (c_max - c_mid)) * t)
        lab = (big_l, chroma * a, chroma * b)
    return linear_srgb_to_rgb(oklab_to_linear_srgb(lab))


def rgb_to_okhsl(rgb: Sequence[float]) -> tuple[float, float, float]:
    """8-bit sRGB channels to OKHSL (hue in degrees, 0 for greys; saturation, lightness 0-1)."""
    big_l, lab_a, lab_b = rgb_to_oklab(rgb)
    chroma = math.hypot(lab_a, lab_b)
    lightness = oklab_to_okhsl_lightness(big_l)
    if chroma < 1e-9 or lightness <= 0 or lightness >= 1:
        return 0.0, 0.0, lightness
    hue = math.fmod((math.atan2(lab_b, lab_a) * 180) / math.pi + 360, 360)
    c_0, c_mid, c_max = _chroma_stops(big_l, lab_a / chroma, lab_b / chroma)
    if chroma < c_mid:
        k1 = 0.8 * c_0
        saturation = 0.8 * (chroma / (k1 + (1 - k1 / c_mid) * chroma))
    else:
        k1 = (0.2 * c_mid**2 * 1.25**2) / c_0
        offset = chroma - c_mid
        saturation = 0.8 + 0.2 * (offset / (k1 + (1 - k1 / (c_max - c_mid)) * offset))
    return hue, min(1.0, max(0.0, saturation)), lightness
