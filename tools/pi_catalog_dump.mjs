// Prints Pi's built-in catalog (1.6, the release users run) as its own runtime sees it, as one JSON document:
//   {generatedAt, models: {provider: [Model, ...]}, providers: {provider: {name, apiKey?, oauth?}}}
// `models` is pi-ai's getProviders()/getModels() (what the coding agent's catalog starts from);
// `providers` has every built-in provider's display name and its sign-in methods' names.
// Used by tools/gen_catalog.py (to write the catalog) and tests/pi_ai/test_catalog_live.py
// (to check it has not drifted).
import { readFileSync } from "node:fs";

const home = process.env.PI_ORACLE_HOME ?? `${process.env.HOME}/.cache/pi-oracle-1.6.0`;
const dist = `${home}/node_modules/@earendil-works/pi-ai/dist`;
const compat = await import(`${dist}/compat.js`);
const all = await import(`${dist}/providers/all.js`);
const manifest = JSON.parse(readFileSync(`${dist}/providers/data/.manifest.json`, "utf-8"));

const models = {};
for (const provider of compat.getProviders()) models[provider] = compat.getModels(provider);
const providers = {};
for (const provider of all.builtinProviders()) {
	const entry = { name: provider.name };
	if (provider.auth.apiKey) entry.apiKey = provider.auth.apiKey.name;
	if (provider.auth.oauth) entry.oauth = provider.auth.oauth.name;
	providers[provider.id] = entry;
}
process.stdout.write(JSON.stringify({ generatedAt: manifest.generatedAt, models, providers }), () => process.exit(0));
