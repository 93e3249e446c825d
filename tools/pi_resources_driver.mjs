// Answers questions about Pi 0.85's resource loaders (skills, prompt templates, frontmatter,
// package resolution) with Pi's own compiled modules, for tools/gen_pi_resource_cases.py (and live
// against Pi 1.6 by tests/pi_coding_agent/customize/prompt_templates/test_arguments_pi_1_6.py).
// Input (stdin, JSON): {substitute: [[content, args]], parseArgs: [text], expand: [[text, templates]],
// frontmatter: [content], skills: [{cwd, agentDir, paths}], prompts: [{cwd, agentDir, paths}],
// resolve: [{cwd, agentDir, home, global, project, trusted}]}. Output: the same keys, Pi's answers.
import { readFileSync } from "node:fs";

const home = process.env.PI_ORACLE_HOME ?? `${process.env.HOME}/.cache/pi-oracle-0.85.0`;
const core = `${home}/node_modules/@earendil-works/pi-coding-agent/dist`;
const templates = await import(`${core}/core/prompt-templates.js`);
const skills = await import(`${core}/core/skills.js`);
const frontmatter = await import(`${core}/utils/frontmatter.js`);
const { DefaultPackageManager } = await import(`${core}/core/package-manager.js`);
const { SettingsManager } = await import(`${core}/core/settings-manager.js`);

const input = JSON.parse(readFileSync(0, "utf-8"));
const out = {};
out.substitute = (input.substitute ?? []).map(([content, args]) => templates.substituteArgs(content, args));
out.parseArgs = (input.parseArgs ?? []).map((text) => templates.parseCommandArgs(text));
out.expand = (input.expand ?? []).map(([text, list]) => templates.expandPromptTemplate(text, list));
out.frontmatter = (input.frontmatter ?? []).map((content) => {
	try {
		return frontmatter.parseFrontmatter(content);
	} catch (error) {
		return { error: String(error?.message ?? error) };
	}
});
out.skills = (input.skills ?? []).map(({ cwd, agentDir, paths }) => {
	const result = skills.loadSkills({ cwd, agentDir, skillPaths: paths, includeDefaults: false });
	return {
		skills: result.skills.map((s) => ({
			name: s.name,
			description: s.description,
			filePath: s.filePath,
			baseDir: s.baseDir,
			disableModelInvocation: s.disableModelInvocation,
		})),
		diagnostics: result.diagnostics.map((d) => ({ type: d.type, message: d.message, path: d.path })),
		prompt: skills.formatSkillsForPrompt(result.skills),
	};
});
out.prompts = (input.prompts ?? []).map(({ cwd, agentDir, paths }) =>
	templates
		.loadPromptTemplates({ cwd, agentDir, promptPaths: paths, includeDefaults: false })
		.map((t) => ({ name: t.name, description: t.description, argumentHint: t.argumentHint ?? null, content: t.content, filePath: t.filePath })),
);
out.resolve = [];
for (const { cwd, agentDir, home: userHome, global, project, trusted } of input.resolve ?? []) {
	process.env.HOME = userHome;
	const settingsManager = SettingsManager.inMemory(global, { projectTrusted: trusted });
	settingsManager.getProjectSettings = () => (trusted ? project : {});
	settingsManager.getGlobalSettings = () => global;
	const manager = new DefaultPackageManager({ cwd, agentDir, settingsManager });
	const resolved = await manager.resolve(async () => "skip");
	const simplify = (list) => list.map((r) => ({ path: r.path, enabled: r.enabled, source: r.metadata.source, scope: r.metadata.scope, origin: r.metadata.origin }));
	out.resolve.push({
		extensions: simplify(resolved.extensions),
		skills: simplify(resolved.skills),
		prompts: simplify(resolved.prompts),
		themes: simplify(resolved.themes),
	});
}
process.stdout.write(JSON.stringify(out), () => process.exit(0));
