// Pi 1.6's own theme code, asked in one Node process for the differential theme tests.
// argv[2]: the oracle folder (its network guard is installed first); $PI_ORACLE_HOME: the
// Pi 1.6 install (oracle-loader.mjs resolves its packages). stdin:
//   {"colors": [value, ...], "files": [path, ...], "system": [input, ...], "exports": [input, ...]}
// stdout: {"colors": [...], "files": [...], "system": [...], "exports": [...]}, one answer per request, an
// answer being the result or {"error": message}.
import { readFileSync } from "node:fs";

const common = await import(`${process.argv[2]}/lib/common.mjs`);
common.installNetworkGuard();
const home = process.env.PI_ORACLE_HOME;
const { load } = await import(`${home}/oracle-loader.mjs`);
const tui = await load("@earendil-works/pi-tui");
const themeDir = `${home}/node_modules/@earendil-works/pi-coding-agent/dist/modes/interactive/theme`;
const themes = await import(`${themeDir}/theme.js`);
const { validateThemeJson } = await import(`${themeDir}/theme-schema.js`);
const { generateSystemThemeColors } = await import(`${themeDir}/system-theme.js`);
themes.setThemeJsonValidator(validateThemeJson); // as Pi's CLI does before loading user themes

const attempt = (work) => {
	try {
		return work();
	} catch (error) {
		return { error: String(error?.message ?? error) };
	}
};

const color = (value) =>
	attempt(() => {
		const parsed = tui.parseColor(value);
		return {
			hex: tui.colorToHex(parsed),
			fg: { truecolor: tui.foregroundAnsi(parsed, "truecolor"), "256color": tui.foregroundAnsi(parsed, "256color") },
			bg: { truecolor: tui.backgroundAnsi(parsed, "truecolor"), "256color": tui.backgroundAnsi(parsed, "256color") },
		};
	});

const file = (path) =>
	attempt(() => {
		const answer = {};
		for (const mode of ["truecolor", "256color"]) {
			const theme = themes.loadThemeFromPath(path, mode);
			answer.name = theme.name;
			answer.appearance = theme.appearance;
			answer[mode] = {
				fg: Object.fromEntries(theme.fgAnsi),
				bg: Object.fromEntries(theme.bgAnsi),
			};
		}
		return answer;
	});

const system = (input) => attempt(() => generateSystemThemeColors(input));

// The HTML export's colours: every token as Pi's page gets it, and the theme's own export
// colours (each made "#rrggbb" here, as Pi passes hex and oklch() text on to the page's CSS).
// input: {"name": built-in name} or {"path": theme file}, with "terminal" (what it reported:
// {foreground, background} as {r, g, b}) and "colorfgbg".
const exported = (input) =>
	attempt(() => {
		if (input.colorfgbg === undefined) delete process.env.COLORFGBG;
		else process.env.COLORFGBG = input.colorfgbg;
		themes.setTerminalColors(input.terminal ?? {});
		let name = input.name;
		if (input.path !== undefined) {
			const theme = themes.loadThemeFromPath(input.path);
			themes.setRegisteredThemes([theme]);
			name = theme.name;
		}
		const own = Object.entries(themes.getThemeExportColors(name)).filter(([, value]) => value !== undefined);
		return {
			colors: themes.getResolvedThemeColors(name),
			export: Object.fromEntries(own.map(([key, value]) => [key, tui.colorToHex(tui.parseColor(value))])),
		};
	});

const request = JSON.parse(readFileSync(0, "utf-8"));
process.stdout.write(
	JSON.stringify({
		colors: (request.colors ?? []).map(color),
		files: (request.files ?? []).map(file),
		system: (request.system ?? []).map(system),
		exports: (request.exports ?? []).map(exported),
	}),
);
