"""``SessionAssembly``: every session of a run built from one set of options, the first and
each replacement; ``/reload`` changes what is built from then on."""

from __future__ import annotations

import dataclasses
import json

from pi_ai.faux import FauxProvider
from pi_coding_agent.core.auth import AuthStorage
from pi_coding_agent.core.model_registry import ModelCatalog, ScopedModel
from pi_coding_agent.core.session import SessionManager
from pi_coding_agent.runtime.agent_session import (
    CreateAgentSessionOptions,
    ResourceChoice,
    SessionAssembly,
    create_agent_session,
    load_run_resources,
    with_resources,
)
from tests.pi_coding_agent.runtime.agent_session._support import Env, models_json, write_settings


def _options(env: Env, **settings: object) -> CreateAgentSessionOptions:
    models = models_json({"id": "faux-1"}, {"id": "faux-2"})
    (env.agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")
    catalog = ModelCatalog.load(env.agent_dir, AuthStorage.load(env.agent_dir / "auth.json"))
    return CreateAgentSessionOptions(
        cwd=str(env.work),
        agent_dir=env.agent_dir,
        settings=write_settings(env, **settings),
        catalog=catalog,
        session_manager=SessionManager.in_memory(str(env.work)),
        tools=[],
    )


def _scoped(options: CreateAgentSessionOptions) -> CreateAgentSessionOptions:
    second = options.catalog.find("faux", "faux-2")
    assert second is not None
    return dataclasses.replace(options, scoped_models=[ScopedModel(second, None)])


def test_a_new_session_starts_in_scope_only_when_asked(env: Env, faux: FauxProvider) -> None:
    options = _scoped(_options(env, defaultProvider="faux", defaultModel="faux-1"))
    sdk = create_agent_session(options).session
    assert sdk.model is not None and sdk.model.id == "faux-1"  # the SDK keeps Pi's createAgentSession rule
    cli = SessionAssembly(options, start_in_scope=True).build(SessionManager.in_memory(str(env.work))).session
    assert cli.model is not None and cli.model.id == "faux-2"  # the CLI's: the first scoped model


async def test_replacements_are_built_like_the_first_session(env: Env, faux: FauxProvider) -> None:
    assembly = SessionAssembly(_scoped(_options(env)), start_in_scope=True)
    first = assembly.build(assembly.options.session_manager).session
    runtime = assembly.runtime(first)
    await runtime.new_session()
    replacement = runtime.session
    assert replacement is not first and replacement.session_manager is not first.session_manager
    assert replacement.model is not None and replacement.model.id == "faux-2"
    assert replacement.scoped_models == first.scoped_models


def test_reload_changes_what_is_built_from_then_on(env: Env, faux: FauxProvider) -> None:
    options = _options(env)
    choice = ResourceChoice(no_themes=True, no_extensions=True)
    settings = options.settings
    resources = load_run_resources(choice, cwd=str(env.work), session_cwd=str(env.work), agent_dir=env.agent_dir, settings=settings)
    assembly = SessionAssembly(with_resources(options, resources), resources=resources)
    before = assembly.build(SessionManager.in_memory(str(env.work))).session
    (env.work / "AGENTS.md").write_text("Always answer in haiku.", encoding="utf-8")
    fresh = write_settings(env, shellCommandPrefix="set -e")
    reloaded = load_run_resources(choice, cwd=str(env.work), session_cwd=str(env.work), agent_dir=env.agent_dir, settings=fresh)
    assembly.reload(fresh, reloaded)
    after = assembly.build(SessionManager.in_memory(str(env.work))).session
    assert "Always answer in haiku." not in before.system_prompt
    assert "Always answer in haiku." in after.system_prompt
    assert after.settings is fresh and before.settings is settings
