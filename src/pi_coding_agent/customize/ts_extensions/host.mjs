// The Node side of pi for Python's TypeScript extension host.
//
// Loads Pi extensions with the loader of the Pi install we were given (argv[2], the
// @earendil-works/pi-coding-agent folder), so jiti, its aliases and Pi's own `pi` object are
// the ones Pi uses. The Python runtime drives it over JSON lines on stdin/stdout:
//   Python -> Node  {id, op, ...}              answered by {re: id, ok, result | error, registry?}
//   Node -> Python  {id: "n<k>", call, op, args} answered by {re: "n<k>", ok, result | error}
//   Node -> Python  {notify, op, args}          (no answer)
// `op` on a call names the Python request it happens inside, so a command's ctx.ui.select or
// ctx.newSession reaches the context of that very command. Anything an extension prints goes
// to stderr: stdout carries the protocol only.
import { AsyncLocalStorage } from "node:async_hooks";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import { pathToFileURL } from "node:url";
import { presentAsPiCli } from "./pi_argv.mjs";
import * as remote from "./ui.mjs";

const piRoot = process.argv[2];
presentAsPiCli(piRoot);
// PI_TS_TIMING=<launch epoch seconds>: start-up steps on stderr (bench/ts_extensions_startup.py).
const launched = Number(process.env.PI_TS_TIMING);
const mark = (label) => {
	if (launched) process.stderr.write(`[ts-timing] host: ${label} +${(Date.now() / 1000 - launched).toFixed(3)}s\n`);
};
mark("node runs host.mjs");
const fromPi = (relative) => import(pathToFileURL(path.join(piRoot, "dist", relative)).href);

/**
 * Pi's library and its extension loader, imported as soon as Node runs (while Python goes on
 * with its own start-up). Normally Pi's published bundle (`dist/bundle`, what the `pi` command
 * runs): one file set that loads about three times faster than the ~500 modules of `dist`, and
 * whose loader hands extensions the bundle's own modules for `@earendil-works/*`. Its only
 * exported loader, `discoverAndLoadExtensions`, also looks in `<cwd>/.pi/extensions` (and in an
 * agent folder, given one that does not exist); when that folder is there, Python may have left
 * its extensions out (an untrusted project, settings filters), so the host then takes `dist`'s
 * `loadExtensions`, which loads exactly the paths given.
 * Python asks for the bundle with PI_TS_HOST_BUNDLE=1, in every mode. In the terminal UI the
 * theme and keys set for extensions' components come from `dist`'s small theme and keybindings
 * modules (loaded in the background): Pi keeps its global theme on globalThis, so the bundle's
 * copy sees the one set there; the keybindings and the Kitty flag are set on both pi-tui copies.
 */
const bundled = process.env.PI_TS_HOST_BUNDLE === "1" && !fs.existsSync(path.join(process.cwd(), ".pi", "extensions"));
const piLibrary = bundled ? bundledLibrary() : unbundledLibrary();
piLibrary.catch(() => {}); // a failure is the answer to `load`, not an unhandled rejection

async function bundledLibrary() {
	const pi = await fromPi("bundle/index.js");
	pi.initTheme?.("dark", false);
	bundledTui = await bundleTuiCopy();
	const noAgentDir = path.join(os.tmpdir(), `pi-ts-host-${process.pid}-no-agent-dir`);
	return {
		SessionManager: pi.SessionManager,
		load: (paths, cwd) => pi.discoverAndLoadExtensions(paths, cwd, noAgentDir, pi.createEventBus()),
	};
}

/** The bundle's own copy of pi-tui (what extensions import as `@earendil-works/pi-tui` from
 * it): its keybindings and Kitty flag are its own, set beside `dist`'s (loadKeybindingsLater).
 * Found through the bundle's table of virtual modules, a chunk of the pinned Pi install. */
async function bundleTuiCopy() {
	const chunks = path.join(piRoot, "dist", "bundle", "chunks");
	const name = fs.readdirSync(chunks).find((file) => file.startsWith("virtual-modules-") && file.endsWith(".js"));
	if (!name) return undefined;
	const table = await import(pathToFileURL(path.join(chunks, name)).href);
	return table.VIRTUAL_MODULES?.["@earendil-works/pi-tui"];
}

let bundledTui;

async function unbundledLibrary() {
	const [loader, sessionModule, eventBusModule] = await Promise.all([
		fromPi("core/extensions/loader.js"),
		fromPi("core/session-manager.js"),
		fromPi("core/event-bus.js"),
	]);
	return {
		SessionManager: sessionModule.SessionManager,
		load: (paths, cwd) =>
			loader.loadExtensions(paths, cwd, eventBusModule.createEventBus(), loader.createExtensionRuntime()),
	};
}

const protocolWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
console.log = console.error;
console.info = console.error;

const send = (message) => protocolWrite(`${JSON.stringify(message)}\n`);
const currentOp = new AsyncLocalStorage();
const waiting = new Map();
let nextCall = 0;

function callPython(call, args = {}) {
	const id = `n${++nextCall}`;
	send({ id, call, op: currentOp.getStore() ?? null, args });
	return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}

function notifyPython(notify, args = {}) {
	send({ notify, op: currentOp.getStore() ?? null, args });
}

/** A call whose answer nobody awaits (Pi's void actions): a failure is reported, not thrown. */
function fireAndReport(call, args, extensionPath, event) {
	callPython(call, args).catch((error) => reportError(extensionPath ?? "<ts-host>", event ?? call, error));
}

function errorText(error) {
	return error instanceof Error ? error.message : String(error);
}

function reportError(extensionPath, event, error) {
	notifyPython("error", { extensionPath, event, error: errorText(error) });
}

// ------------------------------------------------------------------ state pushed by Python

const state = {
	cwd: process.cwd(),
	mode: "print",
	hasUI: false,
	model: undefined,
	thinkingLevel: "off",
	sessionName: undefined,
	activeTools: [],
	allTools: [],
	commands: [],
	isIdle: true,
	hasPendingMessages: false,
	systemPrompt: "",
	contextUsage: undefined,
	projectTrusted: false,
	flags: {},
	models: [],
	settings: {},
	mcpServers: [],
};
remote.setLinesListener((cid, width, lines, completing) =>
	send({ notify: "lines", op: null, args: { cid, width, lines, completing } }),
);

const session = { id: undefined, header: undefined, entries: [], leafId: null, file: undefined, manager: undefined };

function applyState(update) {
	if (!update) return;
	const { session: sessionUpdate, theme: themeUpdate, ...rest } = update;
	// Our UI was reset (a new session, /reload): its key listeners and autocomplete providers
	// are gone there, as Pi drops them; Python already unsubscribed its side.
	if (rest.uiResets !== undefined && state.uiResets !== undefined && rest.uiResets !== state.uiResets) dropUiHooks();
	const maxVisibleChanged = rest.autocompleteMaxVisible !== undefined && rest.autocompleteMaxVisible !== state.autocompleteMaxVisible;
	Object.assign(state, rest);
	if (maxVisibleChanged) giveEditorMaxVisible();
	if (themeUpdate) applyTheme(themeUpdate);
	// Keys arrive as our terminal sends them: Pi's key matching must know the Kitty protocol is on.
	if (typeof rest.kittyKeyboard === "boolean") {
		tuiModule?.setKittyProtocolActive?.(rest.kittyKeyboard);
		bundledTui?.setKittyProtocolActive?.(rest.kittyKeyboard);
	}
	for (const [name, value] of Object.entries(state.flags ?? {})) runtime?.flagValues.set(name, value);
	if (sessionUpdate) applySession(sessionUpdate);
}

function applySession(update) {
	if (update.id !== session.id || update.from === 0) {
		session.id = update.id;
		session.entries = [];
	}
	session.header = update.header ?? session.header;
	session.entries = session.entries.slice(0, update.from).concat(update.entries ?? []);
	session.leafId = update.leafId ?? null;
	session.file = update.file ?? undefined;
	session.manager = undefined;
}

let SessionManagerClass;

/** Pi's own SessionManager over the entries Python sent: every read method as in Pi. */
function sessionManager() {
	if (session.manager) return session.manager;
	const manager = SessionManagerClass.inMemory(state.cwd, undefined, [session.header, ...session.entries].filter(Boolean));
	if (session.leafId && manager.getLeafId() !== session.leafId && manager.getEntry(session.leafId)) {
		manager.branch(session.leafId);
	}
	if (session.file) manager.sessionFile = session.file;
	session.manager = manager;
	return manager;
}

const modelRegistry = {
	getAll: () => state.models,
	getAvailable: () => state.models.filter((model) => model.available !== false),
	find: (provider, id) => state.models.find((model) => model.provider === provider && model.id === id),
	getApiKey: async (model) => callPython("getApiKey", { provider: model?.provider }),
	getApiKeyForProvider: async (provider) => callPython("getApiKey", { provider }),
	isUsingOAuth: () => false,
};

// ------------------------------------------------------------------ ctx and ctx.ui

let fallbackTheme;
let themeModule;
let pendingTheme;
let tuiModule;
let keybindings;

/** Our active theme's colours as an instance of Pi's Theme, set as Pi's global theme (what
 * ctx.ui.theme, getMarkdownTheme and the library components read). */
function applyTheme(update) {
	pendingTheme = update;
	if (!themeModule) return;
	try {
		themeModule.setThemeInstance(themeOf(update));
		fallbackTheme = themeModule.theme;
		pendingTheme = undefined;
		remote.invalidateAll();
	} catch (error) {
		reportError("<ts-host>", "theme", error);
	}
}

/** An instance of Pi's Theme from our theme's JSON (`_renderers.theme_json`). */
function themeOf({ name, colors, background, truecolor, appearance, dim }) {
	const fg = {};
	const bg = {};
	for (const [token, value] of Object.entries(colors)) (background.includes(token) ? bg : fg)[token] = value;
	return new themeModule.Theme(fg, bg, truecolor ? "truecolor" : "256color", { name, appearance, dim });
}

/** A Theme instance as our theme JSON (`themeOf` backwards), read through its public getters:
 * each token's escape sequence turned back into a colour ("" for the terminal's own). */
function colorsOf(instance) {
	const model = state.themes?.[0]?.theme;
	if (!model) return undefined;
	const colors = {};
	for (const token of Object.keys(model.colors)) {
		const background = model.background.includes(token);
		let code;
		try {
			code = background ? instance.getBgAnsi(token) : instance.getFgAnsi(token);
		} catch {
			return undefined; // a token the instance does not know
		}
		colors[token] = colorOfSgr(String(code));
	}
	const dim = instance.dimTokens instanceof Set ? [...instance.dimTokens] : [];
	return { name: String(instance.name ?? "<in-memory>"), colors, background: model.background, truecolor: instance.mode !== "256color", appearance: instance.ownAppearance, dim };
}

function colorOfSgr(code) {
	const rgb = code.match(/\[[34]8;2;(\d+);(\d+);(\d+)m/);
	if (rgb) return `#${rgb.slice(1, 4).map((part) => Number(part).toString(16).padStart(2, "0")).join("")}`;
	const indexed = code.match(/\[[34]8;5;(\d+)m/);
	return indexed ? Number(indexed[1]) : "";
}

/** ctx.ui.getAllThemes / getTheme / setTheme: our themes, as Python listed them with their
 * colours (state.themes, interactive mode only). setTheme answers at once, as Pi's does, and
 * has Python switch (by name it also saves the `theme` setting). */
const themeApi = {
	getAllThemes: () => (inTerminal() ? (state.themes ?? []).map(({ name, path }) => ({ name, path: path ?? undefined })) : []),
	getTheme(name) {
		const found = inTerminal() ? state.themes?.find((entry) => entry.name === name) : undefined;
		return found && themeModule ? themeOf(found.theme) : undefined;
	},
	setTheme(themeOrName) {
		if (!inTerminal()) {
			return { success: false, error: state.mode === "rpc" ? "themes cannot be switched over RPC" : "UI not available" };
		}
		if (typeof themeOrName?.getFgAnsi === "function") {
			// A Theme (from getTheme or built by the extension) is drawn with as it is, unsaved, as
			// Pi does: Python gets its colours as our theme JSON.
			const colors = colorsOf(themeOrName);
			if (!colors) return { success: false, error: "the theme's colours cannot be read" };
			callUi("setTheme", { theme: colors, save: false });
			themeModule?.setThemeInstance(themeOrName);
			fallbackTheme = themeModule?.theme ?? fallbackTheme;
			remote.invalidateAll();
			return { success: true };
		}
		const byName = typeof themeOrName === "string";
		const name = byName ? themeOrName : themeOrName?.name;
		const found = state.themes?.find((entry) => entry.name === name);
		if (!found && !byName) return { success: false, error: "only a theme of getAllThemes() can be set here" };
		callUi("setTheme", { name, save: byName });
		if (!found) {
			const system = state.themes?.find((entry) => entry.name === "system");
			if (system) applyTheme(system.theme); // as Pi falls back to it
			return { success: false, error: `there is no theme named '${name}'` };
		}
		applyTheme(found.theme);
		return { success: true };
	},
};

const inputListeners = new Set();

/** ctx.ui.onTerminalInput: Python sends every key here first while any listener is
 * subscribed (op terminalInput, _input.py); none is subscribed outside the terminal, as in Pi. */
function onTerminalInput(handler) {
	if (!inTerminal()) return () => {};
	const entry = { handler };
	inputListeners.add(entry);
	if (inputListeners.size === 1) callUi("terminalInput", { on: true });
	return () => {
		if (inputListeners.delete(entry) && inputListeners.size === 0) callUi("terminalInput", { on: false });
	};
}

/** A key through the listeners in order, as Pi's TUI passes it: consumed, or the data to use. */
function terminalInput(data) {
	let current = data;
	for (const { handler } of [...inputListeners]) {
		let result;
		try {
			result = handler(current);
		} catch (error) {
			reportError("<ts-host>", "terminalInput", error);
			continue;
		}
		if (result?.consume) return { consume: true };
		if (typeof result?.data === "string") current = result.data;
	}
	return { consume: current.length === 0, data: current };
}

const autocompleteFactories = [];
let autocompleteChain;

/** Forget every key listener and autocomplete provider without telling Python. */
function dropUiHooks() {
	inputListeners.clear();
	autocompleteFactories.length = 0;
	autocompleteChain = undefined;
	answeredItems.clear();
	giveEditorProvider();
}

/** ctx.ui.addAutocompleteProvider: each factory wraps the provider before it, the first ours
 * (builtinProvider); Python asks the top one (op autocomplete, _autocomplete.py). */
function addAutocompleteProvider(factory) {
	if (!inTerminal()) return;
	autocompleteFactories.push(factory);
	autocompleteChain = undefined;
	giveEditorProvider();
	if (autocompleteFactories.length === 1) callUi("autocomplete", { on: true });
}

/** Our slash-command, argument and file completions, asked of Python; an item replaces the
 * prefix before the cursor, as Pi's built-in provider applies it. */
const builtinProvider = {
	getSuggestions: (lines, line, col, options) => callPython("builtinCompletions", { lines, line, col, force: Boolean(options?.force) }),
	applyCompletion(lines, line, col, item, prefix) {
		const text = lines[line] ?? "";
		const start = Math.max(0, col - (prefix ?? "").length);
		const changed = [...lines];
		changed[line] = text.slice(0, start) + item.value + text.slice(col);
		return { lines: changed, cursorLine: line, cursorCol: start + item.value.length };
	},
	shouldTriggerFileCompletion(lines, line, col) {
		const before = (lines[line] ?? "").slice(0, col).trim();
		return !(before.startsWith("/") && !before.includes(" ")); // not in a command's name, as Pi
	},
};

function autocompleteProvider() {
	if (!autocompleteChain) {
		let provider = builtinProvider;
		const triggers = [];
		for (const factory of autocompleteFactories) {
			try {
				provider = factory(provider) ?? provider;
				triggers.push(...(provider.triggerCharacters ?? []));
			} catch (error) {
				reportError("<ts-host>", "addAutocompleteProvider", error);
			}
		}
		// The stack's trigger characters are all of its providers', as Pi sets them.
		if (triggers.length > 0) provider.triggerCharacters = [...new Set(triggers)];
		autocompleteChain = provider;
	}
	return autocompleteChain;
}

/** The editor component of setEditorComponent gets the provider stack, as Pi gives its
 * editors: the built-in completions (asked of Python) under the extensions' providers. */
function giveEditorProvider() {
	const editor = remote.componentOf(slots.get("editor"));
	try {
		editor?.setAutocompleteProvider?.(autocompleteProvider());
	} catch (error) {
		reportError("<ts-host>", "setAutocompleteProvider", error);
	}
}

/** The `autocompleteMaxVisible` setting for the editor component, as Pi copies it from its
 * own editor (again when the setting changes). */
function giveEditorMaxVisible() {
	const editor = remote.componentOf(slots.get("editor"));
	if (typeof state.autocompleteMaxVisible !== "number") return;
	try {
		editor?.setAutocompleteMaxVisible?.(state.autocompleteMaxVisible);
	} catch (error) {
		reportError("<ts-host>", "setAutocompleteMaxVisible", error);
	}
}

const answeredItems = new Map();
let nextAnswer = 0;

async function autocomplete({ lines, line, col, force }) {
	const provider = autocompleteProvider();
	const found = await provider.getSuggestions(lines, line, col, { signal: new AbortController().signal, force });
	if (!found || !Array.isArray(found.items) || found.items.length === 0) return null;
	const items = found.items.map((item) => ({ value: String(item.value), label: String(item.label ?? item.value), description: item.description ?? "" }));
	const answer = { items, prefix: String(found.prefix ?? "") };
	// A provider that applies its items itself (not the built-in way) is asked to, with the item
	// as it gave it: Python keeps the answer's id.
	if (typeof provider.applyCompletion === "function" && provider.applyCompletion !== builtinProvider.applyCompletion) {
		answer.id = ++nextAnswer;
		answeredItems.set(answer.id, found.items);
		for (const id of answeredItems.keys()) if (answeredItems.size > 16) answeredItems.delete(id);
	}
	return answer;
}

/** The top provider's applyCompletion for an item of the autocomplete answer `answer`. */
function applyCompletion({ answer, value, lines, line, col, prefix }) {
	const item = answeredItems.get(answer)?.find((candidate) => String(candidate.value) === value) ?? { value, label: value };
	const applied = autocompleteProvider().applyCompletion(lines, line, col, item, prefix);
	if (!applied || !Array.isArray(applied.lines)) return null;
	return { lines: applied.lines.map(String), line: Number(applied.cursorLine) || 0, col: Number(applied.cursorCol) || 0 };
}

const inTerminal = () => state.mode === "tui" && state.hasUI;

function keybindingsManager() {
	return keybindings ?? tuiModule?.getKeybindings?.();
}

/** Mount a factory's component for Python to show; `slot` names what it stands in for. */
async function mountFactory(build, cid) {
	const component = await build(remote.tuiFor(state), fallbackTheme);
	if (component) remote.mount(cid, component);
	return component;
}

const slots = new Map();

function setSlot(slot, factory, method, args) {
	const previous = slots.get(slot);
	if (previous) remote.unmount(previous);
	slots.delete(slot);
	if (!inTerminal()) return;
	if (!factory) {
		callUi(method, { ...args, cid: null });
		return;
	}
	const cid = remote.newCid(slot.split(":")[0]);
	slots.set(slot, cid);
	Promise.resolve(mountFactory(factory, cid)).then(
		(component) => component && callUi(method, { ...args, cid }),
		(error) => reportError("<ts-host>", `ui.${method}`, error),
	);
}

function callUi(method, args) {
	fireAndReport("ui", { method, args }, undefined, `ui.${method}`);
}

function footerData() {
	return {
		getGitBranch: () => state.gitBranch ?? null,
		getExtensionStatuses: () => new Map(Object.entries(state.statuses ?? {})),
		getAvailableProviderCount: () => new Set(state.models.map((model) => model.provider)).size,
		onBranchChange: () => () => {},
	};
}

/** ctx.ui.custom: the component lives here, Python shows it and sends its keys until done(). */
function custom(factory, options) {
	if (!inTerminal()) return Promise.resolve(undefined);
	const cid = remote.newCid("custom");
	return new Promise((resolve, reject) => {
		let finished = false;
		const finish = (value) => {
			if (finished) return;
			finished = true;
			remote.unmount(cid);
			notifyPython("close", { cid });
			resolve(value);
		};
		Promise.resolve(factory(remote.tuiFor(state), fallbackTheme, keybindingsManager(), finish)).then((component) => {
			if (finished) return;
			remote.mount(cid, component);
			const overlayOptions = typeof options?.overlayOptions === "function" ? options.overlayOptions() : options?.overlayOptions;
			callPython("ui", { method: "custom", args: { cid, overlay: Boolean(options?.overlay), overlayOptions } }).then(
				() => finish(undefined),
				(error) => {
					finished = true;
					remote.unmount(cid);
					reject(error);
				},
			);
		}, reject);
	});
}

let editorFactory;

/** ctx.ui.setEditorComponent: the editor lives here (with Pi's editor theme from ours); Python
 * shows it in the editor's place, sends its keys and its text, and hears of its changes and
 * submissions. App keys (interrupt, exit, model cycling...) are ours, handled before it. */
function setEditorComponent(factory) {
	editorFactory = factory;
	const previous = slots.get("editor");
	if (previous) remote.unmount(previous);
	slots.delete("editor");
	if (!inTerminal()) return;
	if (!factory) {
		callUi("setEditorComponent", { cid: null });
		return;
	}
	const cid = remote.newCid("editor");
	try {
		const editorTheme = themeModule?.getEditorTheme?.() ?? fallbackTheme;
		const editor = factory(remote.tuiFor(state), editorTheme, keybindingsManager());
		editor.onSubmit = (text) => notifyPython("editorSubmit", { cid, text });
		editor.onChange = (text) => notifyPython("editorChange", { cid, text });
		slots.set("editor", cid);
		remote.mount(cid, editor);
		giveEditorProvider();
		giveEditorMaxVisible();
		callUi("setEditorComponent", { cid });
	} catch (error) {
		reportError("<ts-host>", "ui.setEditorComponent", error);
	}
}

function uiContext() {
	const ui = (method, args) => callPython("ui", { method, args });
	const fire = (method, args) => fireAndReport("ui", { method, args }, undefined, `ui.${method}`);
	return {
		select: (title, options, opts) => ui("select", { title, options, timeout: opts?.timeout }),
		confirm: (title, message, opts) => ui("confirm", { title, message, timeout: opts?.timeout }),
		input: (title, placeholder, opts) => ui("input", { title, placeholder, timeout: opts?.timeout }),
		editor: (title, prefill) => ui("editor", { title, prefill }),
		notify: (message, type) => fire("notify", { message, type }),
		setStatus: (key, text) => fire("setStatus", { key, text }),
		setWidget: (key, content, options) => {
			if (typeof content === "function") {
				setSlot(`widget:${key}`, content, "setWidgetComponent", { key, placement: options?.placement });
				return;
			}
			const previous = slots.get(`widget:${key}`);
			if (previous) remote.unmount(previous);
			slots.delete(`widget:${key}`);
			fire("setWidget", { key, lines: Array.isArray(content) ? content : content === undefined ? undefined : null, placement: options?.placement });
		},
		setTitle: (title) => fire("setTitle", { title }),
		setEditorText: (text) => fire("setEditorText", { text }),
		pasteToEditor: (text) => fire("setEditorText", { text }),
		getEditorText: () => state.editorText ?? "",
		custom,
		onTerminalInput,
		setWorkingMessage: (message) => fire("setWorkingMessage", { message }),
		setWorkingVisible: (visible) => fire("setWorkingVisible", { visible }),
		setWorkingIndicator: () => {},
		setHiddenThinkingLabel: () => {},
		setFooter: (factory) =>
			setSlot("footer", factory && ((tui, theme) => factory(tui, theme, footerData())), "setFooter", {}),
		setHeader: (factory) => setSlot("header", factory, "setHeader", {}),
		addAutocompleteProvider,
		setEditorComponent,
		getEditorComponent: () => editorFactory,
		get theme() {
			return fallbackTheme;
		},
		...themeApi,
		getToolsExpanded: () => Boolean(state.toolsExpanded),
		setToolsExpanded: (expanded) => {
			state.toolsExpanded = Boolean(expanded);
			fire("setToolsExpanded", { expanded: Boolean(expanded) });
		},
	};
}

function createContext(signal) {
	return {
		get ui() {
			return uiContext();
		},
		get hasUI() {
			return state.hasUI;
		},
		get cwd() {
			return state.cwd;
		},
		get sessionManager() {
			return sessionManager();
		},
		get modelRegistry() {
			return modelRegistry;
		},
		get model() {
			return state.model;
		},
		isIdle: () => state.isIdle,
		isProjectTrusted: () => state.projectTrusted,
		get signal() {
			return signal;
		},
		abort: () => fireAndReport("abort", {}),
		hasPendingMessages: () => state.hasPendingMessages,
		shutdown: () => fireAndReport("shutdown", {}),
		getContextUsage: () => state.contextUsage,
		compact: (options) => {
			callPython("compact", { customInstructions: options?.customInstructions }).then(
				(result) => options?.onComplete?.(result),
				(error) => options?.onError?.(error instanceof Error ? error : new Error(String(error))),
			);
		},
		getSystemPrompt: () => state.systemPrompt,
	};
}

function createCommandContext() {
	const replaced = async (call, args, options) => {
		const result = await callPython(call, args);
		if (!result?.cancelled && options?.withSession) await options.withSession(createCommandContext());
		return { cancelled: Boolean(result?.cancelled) };
	};
	return Object.assign(createContext(undefined), {
		getSystemPromptOptions: () => state.systemPromptOptions ?? {},
		waitForIdle: () => callPython("waitForIdle"),
		newSession: (options) => replaced("newSession", { parentSession: options?.parentSession }, options),
		fork: (entryId, options) => replaced("fork", { entryId, position: options?.position }, options),
		switchSession: (sessionPath, options) => replaced("switchSession", { sessionPath }, options),
		navigateTree: (targetId, options) => callPython("navigateTree", { targetId, summarize: options?.summarize }),
		reload: () => callPython("reload"),
	});
}

// ------------------------------------------------------------------ the runtime Pi's `pi` objects use

let runtime;
let extensions = [];

function bindRuntime() {
	Object.assign(runtime, {
		sendMessage: (message, options) => fireAndReport("sendMessage", { message, options }),
		sendUserMessage: (content, options) => fireAndReport("sendUserMessage", { content, options }),
		appendEntry: (customType, data) => fireAndReport("appendEntry", { customType, data }),
		setSessionName: (name) => {
			state.sessionName = name;
			fireAndReport("setSessionName", { name });
		},
		getSessionName: () => state.sessionName,
		setLabel: (entryId, label) => fireAndReport("setLabel", { entryId, label }),
		getActiveTools: () => state.activeTools,
		getAllTools: () => state.allTools.map(withReach),
		getSettings: () => state.settings,
		setActiveTools: (names) => {
			state.activeTools = names.filter((name) => state.allTools.some((tool) => tool.name === name));
			fireAndReport("setActiveTools", { names });
		},
		refreshTools: () => notifyPython("registry", { registry: describe() }),
		getCommands: () => state.commands,
		setModel: (model) => callPython("setModel", { provider: model?.provider, id: model?.id }),
		getThinkingLevel: () => state.thinkingLevel,
		setThinkingLevel: (level) => {
			state.thinkingLevel = level;
			fireAndReport("setThinkingLevel", { level });
		},
		createContext: () => createContext(undefined),
		reportError: (error) => notifyPython("error", error),
		registerProvider: (name, config) => fireAndReport("registerProvider", { name, config }),
		unregisterProvider: (name) => fireAndReport("unregisterProvider", { name }),
	});
}

/**
 * MCP servers registered with `pi.registerMcpServer()`: Pi's registry checks and keeps those of
 * our extensions, and each change is sent to Python, which connects them. `getMcpServers()`
 * (the registry's `list()`) also returns the servers Python extensions registered, which Python
 * sends with its state. Returns our extensions' servers as they are after loading.
 */
function shareMcpServers() {
	const registry = runtime?.mcpServers;
	if (!registry) return [];
	const own = registry.list.bind(registry);
	registry.list = () => [...(state.mcpServers ?? []), ...own()];
	registry.setChangeListener(() => notifyPython("mcpServers", { servers: own() }));
	return own();
}

/** Pi 1.6's discovery globals: a codemode script using one may reach any tool. */
const DISCOVERY_GLOBALS = /\b(searchTools|describeNamespace|describeTool|ALL_TOOLS)\b/;

/**
 * A tool of `getAllTools()` with its `reachesTools` function when it declares one: a TypeScript
 * extension's own function; for the built-in codemode the words of the script (every tool when
 * it uses a discovery global); for any other tool "all", which may over-match but never misses.
 */
function withReach(tool) {
	if (!tool.reachesTools) return tool;
	const own = extensions.flatMap((extension) => {
		const found = extension.tools.get(tool.name)?.definition;
		return typeof found?.reachesTools === "function" ? [found.reachesTools] : [];
	})[0];
	const builtinCodemode = (input) => {
		const code = input?.code;
		if (typeof code !== "string") return [];
		return DISCOVERY_GLOBALS.test(code) ? "all" : (code.match(/\w+/g) ?? []);
	};
	const reach = own ?? (tool.name === "codemode" && tool.source === "builtin" ? builtinCodemode : () => "all");
	const { source: _source, ...shown } = tool;
	return { ...shown, reachesTools: reach };
}

/** What each extension registered, in the shapes Python builds its proxies from. */
function describe() {
	return extensions.map((extension) => ({
		path: extension.path,
		events: Object.fromEntries([...extension.handlers].map(([event, handlers]) => [event, handlers.length])),
		tools: [...extension.tools.values()].map(({ definition }) => ({
			name: definition.name,
			label: definition.label,
			description: definition.description,
			parameters: definition.parameters,
			promptSnippet: definition.promptSnippet,
			promptGuidelines: definition.promptGuidelines,
			executionMode: definition.executionMode,
			exposure: definition.exposure,
			defaultActive: definition.defaultActive,
			outputSchema: definition.outputSchema,
			namespace: definition.namespace,
			annotations: definition.annotations,
			reachesTools: typeof definition.reachesTools === "function",
			prepareLoadout: typeof definition.prepareLoadout === "function",
			renderCall: typeof definition.renderCall === "function",
			renderResult: typeof definition.renderResult === "function",
			renderShell: definition.renderShell === "self" ? "self" : "default",
		})),
		messageRenderers: [...(extension.messageRenderers?.keys() ?? [])],
		entryRenderers: [...(extension.entryRenderers?.keys() ?? [])],
		commands: [...extension.commands.values()].map((command) => ({
			name: command.name,
			description: command.description ?? "",
			completes: typeof command.getArgumentCompletions === "function",
		})),
		flags: [...extension.flags.values()].map((flag) => ({
			name: flag.name,
			type: flag.type,
			description: flag.description ?? "",
			default: flag.default,
		})),
		shortcuts: [...extension.shortcuts.values()].map((shortcut) => ({
			key: shortcut.shortcut,
			description: shortcut.description ?? "",
		})),
	}));
}

// ------------------------------------------------------------------ operations

const MUTABLE_PAYLOAD = new Set(["context", "tool_call", "before_provider_headers"]);
const toolCalls = new Map();

const ops = {
	async load({ paths, cwd }) {
		const library = await piLibrary;
		mark("Pi's library imported");
		SessionManagerClass = library.SessionManager;
		loadThemeLater();
		loadKeybindingsLater();
		state.cwd = cwd;
		const result = await library.load(paths, cwd);
		mark("extensions loaded");
		runtime = result.runtime;
		extensions = result.extensions;
		bindRuntime();
		const providers = runtime.pendingProviderRegistrations.map(({ name, config }) => ({ name, config }));
		return { registry: describe(), errors: result.errors, providers, mcpServers: shareMcpServers() };
	},
	async emit({ ext, event, index, payload }) {
		const handler = extensions[ext]?.handlers.get(event)?.[index];
		if (!handler) return { result: undefined };
		const result = await handler(payload, createContext(undefined));
		return MUTABLE_PAYLOAD.has(event) ? { result, payload } : { result };
	},
	async tool({ id, ext, name, toolCallId, params }) {
		const tool = extensions[ext]?.tools.get(name)?.definition;
		if (!tool) throw new Error(`Tool "${name}" is no longer registered`);
		const controller = new AbortController();
		toolCalls.set(id, controller);
		try {
			const onUpdate = (partial) => notifyPython("toolUpdate", { partial });
			const args = tool.prepareArguments ? tool.prepareArguments(params) : params;
			return await tool.execute(toolCallId, args, controller.signal, onUpdate, createContext(controller.signal));
		} finally {
			toolCalls.delete(id);
		}
	},
	async loadout({ ext, name, loadout }) {
		const tool = extensions[ext]?.tools.get(name)?.definition;
		if (typeof tool?.prepareLoadout !== "function") return null;
		const changes = tool.prepareLoadout({
			declared: loadout.declared,
			callable: loadout.callable,
			registered: loadout.registered,
			getExposure: (tool) => loadout.exposures[tool] ?? "direct",
			getNamespace: (tool) => loadout.namespaces[tool],
			getPromptGuidelines: (tool) => loadout.guidelines[tool] ?? [],
		});
		return changes ?? null;
	},
	async reaches({ ext, name, input }) {
		const tool = extensions[ext]?.tools.get(name)?.definition;
		return tool?.reachesTools ? tool.reachesTools(input) : "all";
	},
	async abort({ target }) {
		toolCalls.get(target)?.abort();
		return null;
	},
	async command({ ext, name, args }) {
		const command = extensions[ext]?.commands.get(name);
		if (!command) throw new Error(`Command "/${name}" is no longer registered`);
		await command.handler(args, createCommandContext());
		return null;
	},
	async complete({ ext, name, prefix }) {
		const command = extensions[ext]?.commands.get(name);
		return (await command?.getArgumentCompletions?.(prefix)) ?? null;
	},
	async shortcut({ ext, key }) {
		const shortcut = extensions[ext]?.shortcuts.get(key);
		await shortcut?.handler(createContext(undefined));
		return null;
	},
	async busEmit({ channel, data }) {
		return null;
	},
	async uiRender({ cid, width, spec }) {
		if (spec) await mountRenderer(cid, spec);
		const lines = remote.render(cid, width);
		return { lines, completing: remote.completing(remote.componentOf(cid)) };
	},
	async uiInput({ cid, data }) {
		remote.input(cid, data);
		return null;
	},
	async uiFocus({ cid, focused }) {
		remote.setFocused(cid, focused);
		return null;
	},
	async uiSetText({ cid, text }) {
		remote.componentOf(cid)?.setText?.(text);
		remote.requestRender();
		return null;
	},
	async autocomplete(message) {
		return autocomplete(message);
	},
	async applyCompletion(message) {
		return applyCompletion(message);
	},
	async terminalInput({ data }) {
		const answer = terminalInput(String(data));
		remote.requestRender(); // a listener may have changed what a component shows
		return answer;
	},
	async uiSync() {
		return null; // its state (our new theme) is all it brings
	},
	async uiDispose({ cid }) {
		remote.unmount(cid);
		return null;
	},
};

const rendererStates = new Map();

/** A tool's, message's or entry's renderer, called (again) for the component under `cid`. */
async function mountRenderer(cid, spec) {
	const extension = extensions[spec.ext];
	const last = remote.componentOf(cid);
	let component;
	if (spec.kind === "toolCall" || spec.kind === "toolResult") {
		const definition = extension?.tools.get(spec.name)?.definition;
		const key = spec.context.toolCallId;
		if (!rendererStates.has(key)) rendererStates.set(key, {});
		const context = {
			...spec.context,
			lastComponent: last,
			state: rendererStates.get(key),
			invalidate: () => {
				remote.componentOf(cid)?.invalidate?.();
				remote.requestRender();
			},
		};
		component =
			spec.kind === "toolCall"
				? definition?.renderCall?.(spec.args, fallbackTheme, context)
				: definition?.renderResult?.(spec.result, spec.options, fallbackTheme, context);
	} else if (spec.kind === "message") {
		component = extension?.messageRenderers.get(spec.customType)?.(spec.message, spec.options, fallbackTheme);
	} else if (spec.kind === "entry") {
		component = extension?.entryRenderers?.get(spec.customType)?.(spec.entry, spec.options, fallbackTheme);
	}
	if (component) remote.mount(cid, component);
	else remote.unmount(cid);
}

/** Pi's theme once its module has loaded (in the background: most extensions never read it);
 * until then a theme that leaves text as it is. */
function loadThemeLater() {
	const plain = (_color, text) => text;
	const same = (text) => text;
	fallbackTheme = { fg: plain, bg: plain, bold: same, italic: same, underline: same, dim: same, strikethrough: same };
	fromPi("modes/interactive/theme/theme.js").then(
		(loaded) => {
			themeModule = loaded;
			themeModule.initTheme?.("dark", false);
			fallbackTheme = themeModule.theme;
			if (pendingTheme) applyTheme(pendingTheme);
		},
		() => {},
	);
}

/** Pi's keybindings (the user's keybindings.json read as Pi reads it), set for pi-tui's own
 * components too; loaded in the background like the theme. */
function loadKeybindingsLater() {
	const tuiRoot = path.join(piRoot, "..", "pi-tui", "dist", "index.js");
	Promise.all([import(pathToFileURL(tuiRoot).href), fromPi("core/keybindings.js")]).then(
		([tui, keys]) => {
			tuiModule = tui;
			keybindings = state.agentDir ? keys.KeybindingsManager.create(state.agentDir) : new keys.KeybindingsManager();
			for (const copy of [tui, bundledTui]) {
				if (typeof state.kittyKeyboard === "boolean") copy?.setKittyProtocolActive?.(state.kittyKeyboard);
				copy?.setKeybindings?.(keybindings);
			}
		},
		() => {},
	);
}

let lastRegistry = "";

async function handleOp(message) {
	applyState(message.state);
	let reply;
	try {
		const result = await currentOp.run(message.id, () => ops[message.op](message));
		reply = { re: message.id, ok: true, result: result ?? null };
	} catch (error) {
		reply = { re: message.id, ok: false, error: errorText(error) };
	}
	if (runtime) {
		const registry = JSON.stringify(describe());
		if (registry !== lastRegistry) {
			if (message.op !== "load") reply.registry = describe();
			lastRegistry = registry;
		}
	}
	send(reply);
}

readline.createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
	if (!line.trim()) return;
	const message = JSON.parse(line);
	if (typeof message.re === "string") {
		const pending = waiting.get(message.re);
		waiting.delete(message.re);
		if (message.ok) pending?.resolve(message.result);
		else pending?.reject(new Error(message.error));
		return;
	}
	void handleOp(message);
});
process.stdin.on("end", () => process.exit(0));
// An extension's stray rejection or throw (a timer, a socket) is reported; the host, and with
// it every other TypeScript extension, keeps running.
process.on("unhandledRejection", (error) => reportError("<ts-host>", "unhandled", error));
process.on("uncaughtException", (error) => reportError("<ts-host>", "uncaught", error));
