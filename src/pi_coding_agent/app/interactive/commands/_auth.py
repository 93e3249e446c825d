"""``/login`` and ``/logout`` as Pi's TUI runs them.

``/login`` asks how to sign in (an account, or an API key), then which provider (a search
list), then runs the provider's flow in a dialog in the editor's place: the URL to open
(handed to ``xdg-open`` as Pi does, best effort), the device code to enter, the key to
type. ``/login <provider>`` skips the questions it can, and the editor completes the
provider's id after ``/login `` (``login_completions``). ``/logout`` lists the stored
credentials and removes the chosen one; environment variables and ``models.json`` stay.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
from typing import TYPE_CHECKING, Protocol

from pi_coding_agent.app.interactive.selectors import (
    LoginDialog,
    ProviderRow,
    ProviderSelector,
    SelectDialog,
    auth_type_label,
)
from pi_coding_agent.core.auth import AuthFileError, LoginOption, login_options, stored_credentials
from pi_coding_agent.core.auth import login as sign_in
from pi_coding_agent.core.auth import logout as sign_out
from pi_tui import Suggestion, fuzzy_filter

if TYPE_CHECKING:
    from pi_ai import Model
    from pi_ai.oauth import AuthEvent, AuthPrompt
    from pi_coding_agent.app.interactive._parts import Notices, Renderer, Spawn
    from pi_coding_agent.app.interactive._ui import InteractiveUI
    from pi_coding_agent.app.interactive.components import Footer
    from pi_coding_agent.core.auth import Credentials
    from pi_coding_agent.runtime.agent_session import AgentSession


class AuthCommandHost(Protocol):
    """What sign-in uses: the session's catalog and model, the dialogs, the footer."""

    @property
    def session(self) -> AgentSession: ...
    @property
    def transcript(self) -> Notices: ...
    @property
    def ui(self) -> InteractiveUI: ...
    @property
    def footer(self) -> Footer: ...
    @property
    def tui(self) -> Renderer: ...
    @property
    def spawn(self) -> Spawn: ...
    def warn_extra_usage(self, model: Model | None = None) -> None: ...
    def update_provider_count(self) -> None: ...

ACCOUNT = "Sign in with an account"
API_KEY = "Sign in with an API key"
ABORTED = "This operation was aborted"
# Shown above Amazon Bedrock's key questions, as Pi does (it points at its providers.md).
BEDROCK_DETAILS = (
    ("text", "You can also use an AWS profile, IAM keys, or role-based credentials."),
    ("muted", "See:"),
    ("accent", "  docs/providers/bedrock.md (in the Pi for Python repository)"),
)
NOTHING_STORED = (
    "No stored credentials to remove. /logout only removes credentials saved by /login; "
    "environment variables and models.json config are unchanged."
)


def _credentials(host: AuthCommandHost) -> Credentials:
    return host.session.catalog.credentials


def _row(credentials: Credentials, option: LoginOption) -> ProviderRow:
    status_type = status_source = None
    if option.configured:
        status_type = "oauth" if credentials.is_oauth(option.provider) else "api_key"
        status_source = credentials.auth_source(option.provider)
    return ProviderRow(
        option.provider, option.name, option.auth_type, option.method, status_type, status_source
    )


def _rows(host: AuthCommandHost, auth_type: str | None = None) -> list[ProviderRow]:
    credentials = _credentials(host)
    options = login_options(
        credentials, "oauth" if auth_type == "oauth" else "api_key" if auth_type else None
    )
    return [_row(credentials, option) for option in options]


def login_completions(host: AuthCommandHost, prefix: str) -> list[Suggestion] | None:
    """What Pi offers after ``/login ``: each provider once, by name, its id to insert and
    ``Name · subscription/API key`` beside it, fuzzy-matched on id, name and ways to sign in."""
    providers: dict[str, tuple[str, list[str]]] = {}
    for option in login_options(_credentials(host)):
        kinds = providers.setdefault(option.provider, (option.name, []))[1]
        if option.auth_type not in kinds:
            kinds.append(option.auth_type)
            kinds.sort(key=lambda kind: kind != "oauth")
    ordered = sorted(providers.items(), key=lambda item: item[1][0].casefold())

    def searched(item: tuple[str, tuple[str, list[str]]]) -> str:
        provider, (name, kinds) = item
        return " ".join([provider, name, *(f"{kind} {auth_type_label(kind)}" for kind in kinds)])

    items = []
    for provider, (name, kinds) in fuzzy_filter(ordered, prefix, searched):
        ways = "/".join(auth_type_label(kind) for kind in kinds)
        items.append(Suggestion(provider, provider, ways if name == provider else f"{name} · {ways}"))
    return items or None


async def login(host: AuthCommandHost, arguments: str) -> None:
    if not arguments:
        _ask_auth_type(host, None)
        return
    wanted = arguments.strip().lower()
    matches = [r for r in _rows(host) if wanted in (r.provider.lower(), r.name.lower())]
    if len(matches) == 1:
        _start(host, matches[0])
    elif matches and len({r.provider for r in matches}) == 1:
        _ask_auth_type(host, matches)
    else:
        _ask_provider(host, None, arguments.strip())


def _ask_auth_type(host: AuthCommandHost, rows: list[ProviderRow] | None) -> None:
    oauth = next((r for r in rows or [] if r.auth_type == "oauth"), None)
    account = _login_label(host, oauth) or ACCOUNT
    kinds = {r.auth_type for r in rows} if rows else {"oauth", "api_key"}
    options = [label for kind, label in (("oauth", account), ("api_key", API_KEY)) if kind in kinds]
    if rows and len(options) == 1:
        _start(host, rows[0])
        return
    title = f"Select authentication method for {rows[0].name}:" if rows else "Select authentication method:"

    def chosen(label: str) -> None:
        close()
        kind = "oauth" if label == account else "api_key"
        if rows:
            _start(host, next(r for r in rows if r.auth_type == kind))
        else:
            _ask_provider(host, kind)

    def close() -> None:
        host.ui.close_selector()
        host.tui.request_render()

    host.ui.show_selector(SelectDialog(host.ui.context(), title, options, chosen, close))


def _login_label(host: AuthCommandHost, row: ProviderRow | None) -> str | None:
    if row is None:
        return None
    flow = _credentials(host).oauth_flow(row.provider)
    return flow.login_label if flow is not None else None


def _ask_provider(host: AuthCommandHost, auth_type: str | None, search: str = "") -> None:
    rows = _rows(host, auth_type)
    if not rows:
        empty = {
            "oauth": "No subscription providers available.",
            "api_key": "No API key providers available.",
        }
        host.transcript.status(empty.get(auth_type or "", "No login providers available."))
        return

    def chosen(row: ProviderRow) -> None:
        host.ui.close_selector()
        _start(host, row)

    def cancel() -> None:
        host.ui.close_selector()
        if auth_type:
            _ask_auth_type(host, None)

    host.ui.show_selector(ProviderSelector(host.ui.context(), "login", rows, chosen, cancel, search=search))


def _start(host: AuthCommandHost, row: ProviderRow) -> None:
    host.spawn(_run_login(host, row))


async def _run_login(host: AuthCommandHost, row: ProviderRow) -> None:
    from pi_ai.oauth import LoginCallbacks, LoginCancelled, OAuthError

    ctx = host.ui.context()
    flow = asyncio.current_task()

    def stop() -> None:
        if flow is not None:
            flow.cancel()

    dialog = LoginDialog(ctx, f"Login to {row.name}", stop)
    if row.provider == "amazon-bedrock" and row.auth_type == "api_key":
        dialog.show_details(BEDROCK_DETAILS)
    host.ui.show_selector(dialog)
    done = host.ui.close_selector  # a question of the flow may have replaced the dialog's own close

    callbacks = LoginCallbacks(prompt=lambda q: _prompt(host, dialog, q), notify=lambda e: _notify(dialog, e))
    action = "Logged in to" if row.auth_type == "oauth" else "Saved API key for"
    failed = "Failed to login to" if row.auth_type == "oauth" else "Failed to save API key for"
    try:
        await sign_in(
            _credentials(host), row.provider, callbacks, "oauth" if row.auth_type == "oauth" else "api_key"
        )
    except asyncio.CancelledError:
        if not dialog.cancelled.is_set():
            raise
        done()
        # Escape while the flow waits on the server (a device-code poll) aborts the request, and
        # Pi reports that as a failure; only a cancelled question is a quiet cancel.
        host.transcript.error(f"{failed} {row.name}: {ABORTED}")
        return
    except LoginCancelled:
        done()
        return
    except (OAuthError, AuthFileError) as error:
        done()
        host.transcript.error(f"{failed} {row.name}: {error}")
        return
    done()
    await _signed_in(host, row, action)


async def _signed_in(host: AuthCommandHost, row: ProviderRow, action: str) -> None:
    """What follows a sign-in: the model (when there was none), the footer, the message."""
    selected, problem = await _pick_model(host, row.provider, f"{action} {row.name}")
    host.update_provider_count()
    host.footer.invalidate()
    chosen = f" Selected {selected}." if selected else ""
    host.transcript.status(f"{action} {row.name}.{chosen} Credentials saved to {_credentials(host).storage.path}")
    if problem:
        host.transcript.error(problem)
    else:
        host.warn_extra_usage()


async def _prompt(host: AuthCommandHost, dialog: LoginDialog, question: AuthPrompt) -> str:
    """A flow's question in the dialog; Escape there is a quiet cancel (``LoginCancelled``)."""
    from pi_ai.oauth import LoginCancelled

    if question.type == "select":
        return await _choose(host, dialog, question)
    try:
        return await dialog.ask(question.message, question.placeholder, manual=question.type == "manual_code")
    except asyncio.CancelledError:
        if dialog.cancelled.is_set():
            raise LoginCancelled() from None
        raise


async def _pick_model(host: AuthCommandHost, provider: str, action: str) -> tuple[str | None, str | None]:
    """Without a model yet, the provider's default becomes the model (and the saved default),
    as after Pi's sign-in; ``(model id, problem)``."""
    from pi_coding_agent.core.model_registry import DEFAULT_MODEL_PER_PROVIDER

    if host.session.model is not None:
        return None, None
    wanted = DEFAULT_MODEL_PER_PROVIDER.get(provider)
    if wanted is None:
        return None, f'{action}, but no default model is configured for provider "{provider}". Use /model to select a model.'
    models = [m for m in host.session.catalog.available() if m.provider == provider]
    if not models:
        return None, f"{action}, but no models are available for that provider. Use /model to select a model."
    model = next((m for m in models if m.id == wanted), None)
    if model is None:
        return None, f'{action}, but its default model "{wanted}" is not available. Use /model to select a model.'
    await host.session.set_model(model, persist=True)
    return model.id, None


async def _choose(host: AuthCommandHost, dialog: LoginDialog, question: AuthPrompt) -> str:
    """A flow's multiple-choice question, in the dialog's place until answered."""
    from pi_ai.oauth import LoginCancelled

    answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    labels = {option.label: option.id for option in question.options}

    def back(value: str | None) -> None:
        host.ui.show_selector(dialog)
        if not answer.done():
            if value is None:
                answer.set_exception(LoginCancelled())
            else:
                answer.set_result(labels[value])

    host.ui.show_selector(
        SelectDialog(host.ui.context(), question.message, list(labels), back, lambda: back(None))
    )
    return await answer


def _notify(dialog: LoginDialog, event: AuthEvent) -> None:
    if event.type == "auth_url":
        dialog.show_url(event.url, event.instructions)
        _open_browser(event.url)
    elif event.type == "device_code":
        dialog.show_device_code(event.user_code, event.verification_uri)
        dialog.show_waiting("Waiting for authentication...")
    elif event.type == "info":
        dialog.show_info(event.message, [(link.url, link.label) for link in event.links])
    else:
        dialog.show_progress(event.message)


def _open_browser(url: str) -> None:
    """Hand ``url`` to ``xdg-open`` (Pi's launcher on Linux) without waiting; no launcher, no harm."""
    opener = shutil.which("xdg-open")
    if opener is None:
        return
    with contextlib.suppress(OSError):
        subprocess.Popen(
            [opener, url],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )


async def logout(host: AuthCommandHost, _: str) -> None:
    credentials = _credentials(host)
    names = {r.provider: r.name for r in _rows(host)}
    rows = sorted(
        (ProviderRow(p, names.get(p, p), kind or "api_key", "", kind or "api_key", "stored credential")
         for p, kind in stored_credentials(credentials.storage)),
        key=lambda r: r.name.casefold(),
    )  # fmt: skip
    if not rows:
        host.transcript.status(NOTHING_STORED)
        return

    def chosen(row: ProviderRow) -> None:
        host.ui.close_selector()
        host.spawn(_remove(host, row))

    def cancel() -> None:
        host.ui.close_selector()
        host.tui.request_render()

    host.ui.show_selector(ProviderSelector(host.ui.context(), "logout", rows, chosen, cancel))


async def _remove(host: AuthCommandHost, row: ProviderRow) -> None:
    try:
        await sign_out(_credentials(host).storage, row.provider)
    except AuthFileError as error:
        host.transcript.error(f"Logout failed: {error}")
        return
    host.update_provider_count()
    host.footer.invalidate()
    if row.auth_type == "oauth":
        host.transcript.status(f"Logged out of {row.name}")
    else:
        host.transcript.status(
            f"Removed stored API key for {row.name}. Environment variables and models.json config are unchanged."
        )


HANDLERS = {"login": login, "logout": logout}
