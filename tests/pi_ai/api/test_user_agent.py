"""The ``User-Agent`` every adapter sends: Pi 1.6's form with our runtime in Node's place."""

from __future__ import annotations

import platform
import re

from pi_ai.api._common import PI_RELEASE, pi_user_agent
from pi_coding_agent import PI_COMPAT_VERSION


def test_user_agent_has_pi_16s_form_and_names_python() -> None:
    agent = pi_user_agent()
    match = re.fullmatch(r"pi/(\S+) \(([a-z]+); python/(\S+); ([a-z0-9]+)\)", agent)
    assert match is not None, agent
    assert match.group(1) == PI_RELEASE and match.group(3) == platform.python_version()
    assert match.group(4) in ("x64", "arm64", "ia32") or match.group(4) == platform.machine().lower()


def test_user_agent_version_is_the_one_pi_version_prints() -> None:
    assert PI_RELEASE == PI_COMPAT_VERSION
