// Components of TypeScript extensions, kept and rendered here, drawn by the Python TUI.
//
// A component (from ctx.ui.custom, setWidget, setHeader, setFooter, a tool, message or entry
// renderer) is mounted under an id ("cid"). Python asks for its lines at a width (op uiRender)
// and forwards its keys (uiInput); whenever the component asks to be drawn again
// (tui.requestRender, its render context's invalidate) every mounted component renders again
// at its last width and the lines that changed are pushed to Python ({notify: "lines"}).

const mounted = new Map();
let nextCid = 0;
let scheduled = false;
let notify = () => {};

export function setLinesListener(listener) {
	notify = listener;
}

export function newCid(prefix = "c") {
	return `${prefix}${++nextCid}`;
}

/** Keep `component` under `cid` (an existing one there is disposed unless it is the same). */
export function mount(cid, component, onDispose) {
	const previous = mounted.get(cid);
	if (previous && previous.component !== component) disposeComponent(previous.component);
	mounted.set(cid, { component, width: previous?.width, lines: previous?.lines, onDispose });
	return cid;
}

export function has(cid) {
	return mounted.has(cid);
}

export function componentOf(cid) {
	return mounted.get(cid)?.component;
}

function disposeComponent(component) {
	try {
		component?.dispose?.();
	} catch {
		// a failing dispose must not take the host down
	}
}

export function unmount(cid) {
	const entry = mounted.get(cid);
	if (!entry) return;
	mounted.delete(cid);
	disposeComponent(entry.component);
	entry.onDispose?.();
}

/** Whether an editor component shows its completion list (Python then lets Escape close it). */
export function completing(component) {
	try {
		return component?.isShowingAutocomplete?.() === true;
	} catch {
		return false;
	}
}

function linesOf(component, width) {
	const rendered = component.render(width);
	return Array.isArray(rendered) ? rendered.map((line) => String(line)) : [];
}

/** The component's lines at `width` (null when nothing is mounted under `cid`). */
export function render(cid, width) {
	const entry = mounted.get(cid);
	if (!entry) return null;
	entry.width = width;
	entry.lines = linesOf(entry.component, width);
	return entry.lines;
}

export function input(cid, data) {
	const entry = mounted.get(cid);
	entry?.component.handleInput?.(data);
	requestRender();
}

export function setFocused(cid, focused) {
	const entry = mounted.get(cid);
	if (entry && "focused" in entry.component) entry.component.focused = focused;
	requestRender();
}

/** Every component renders again (on the next tick, once however often it is asked). */
export function requestRender() {
	if (scheduled) return;
	scheduled = true;
	setImmediate(() => {
		scheduled = false;
		for (const [cid, entry] of mounted) {
			if (entry.width === undefined) continue;
			let lines;
			try {
				lines = linesOf(entry.component, entry.width);
			} catch (error) {
				lines = [`render failed: ${error instanceof Error ? error.message : String(error)}`];
			}
			if (entry.lines && lines.length === entry.lines.length && lines.every((line, i) => line === entry.lines[i])) {
				continue;
			}
			entry.lines = lines;
			notify(cid, entry.width, lines, completing(entry.component));
		}
	});
}

/** The theme changed: every component drops its cache and renders again. */
export function invalidateAll() {
	for (const entry of mounted.values()) entry.component.invalidate?.();
	requestRender();
}

/** The TUI object factories receive: what extensions call on Pi's TUI, against ours. */
export function tuiFor(state) {
	return {
		requestRender: () => requestRender(),
		get terminal() {
			return {
				columns: state.columns ?? 80,
				rows: state.rows ?? 24,
				write: () => {},
				get kittyProtocolActive() {
					return false;
				},
			};
		},
		setFocus: () => {},
		showOverlay: () => ({ hide: () => {}, setHidden: () => {}, isHidden: () => false, focus: () => {}, unfocus: () => {}, isFocused: () => false }),
		hideOverlay: () => {},
		hasOverlay: () => false,
		addInputListener: () => () => {},
		removeInputListener: () => {},
		invalidate: () => invalidateAll(),
		get children() {
			return [];
		},
	};
}
