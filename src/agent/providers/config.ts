/** Providers with a known base URL; any other name needs `baseUrl`. */
const BASE_URLS: Record<string, string> = {
	openai: "https://api.openai.com/v1",
	anthropic: "https://api.anthropic.com",
	openrouter: "https://openrouter.ai/api/v1",
	ollama: "http://127.0.0.1:11434/v1",
	lmstudio: "http://127.0.0.1:1234/v1",
	llamacpp: "http://127.0.0.1:8080/v1",
	vllm: "http://127.0.0.1:8000/v1",
};

/** Names of the providers with a built-in base URL. */
export const knownProviders: readonly string[] = Object.keys(BASE_URLS);

/**
 * The base URL of a provider: for `openai`, `OPENAI_BASE_URL` if set; else the built-in URL
 * (official APIs, and the default local ports of Ollama, LM Studio, llama.cpp and vLLM).
 */
export function defaultBaseUrl(provider: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
	if (provider === "openai" && env.OPENAI_BASE_URL) return env.OPENAI_BASE_URL;
	if (provider === "anthropic" && env.ANTHROPIC_BASE_URL) return env.ANTHROPIC_BASE_URL;
	return BASE_URLS[provider];
}

/** The environment variable that holds a provider's API key, e.g. `OPENAI_API_KEY`. */
export function apiKeyEnvVar(provider: string): string {
	return `${provider.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_API_KEY`;
}

/** True for a server on this machine or a private network (Ollama, LM Studio, …), which needs no key. */
export function isLocalBaseUrl(baseUrl: string | undefined): boolean {
	if (!baseUrl) return false;
	let hostname: string;
	try {
		hostname = new URL(baseUrl).hostname.replace(/^\[|\]$/g, "");
	} catch {
		return false;
	}
	return (
		hostname === "localhost" ||
		hostname.endsWith(".localhost") ||
		hostname.endsWith(".local") ||
		hostname === "::1" ||
		hostname === "0.0.0.0" ||
		hostname === "host.docker.internal" ||
		/^127\./.test(hostname) ||
		/^10\./.test(hostname) ||
		/^192\.168\./.test(hostname) ||
		/^172\.(1[6-9]|2\d|3[01])\./.test(hostname)
	);
}

/** Options of `resolveApiKey`. */
export interface ResolveApiKeyOptions {
	/** Provider name; chooses the environment variable. */
	provider: string;
	/** An explicit key, used first. */
	apiKey?: string;
	/** The base URL in use; a local one makes the key optional. */
	baseUrl?: string;
	/** Environment to read. Default: `process.env`. */
	env?: NodeJS.ProcessEnv;
}

/** A key, a keyless local server, or an error message naming the variable to set. */
export type ApiKeyResolution = { ok: true; apiKey: string | undefined } | { ok: false; errorMessage: string };

/** Finds the API key for a request: explicit, else the provider's environment variable; none needed locally. */
export function resolveApiKey(options: ResolveApiKeyOptions): ApiKeyResolution {
	const env = options.env ?? process.env;
	const variable = apiKeyEnvVar(options.provider);
	const apiKey = options.apiKey || env[variable] || undefined;
	if (apiKey) return { ok: true, apiKey };
	if (isLocalBaseUrl(options.baseUrl)) return { ok: true, apiKey: undefined };
	const official = Object.values(BASE_URLS).includes(options.baseUrl ?? "") || options.baseUrl === undefined;
	// A server on another machine (a GPU box, a VPN name) may need no key, but only local ones are sent without.
	const keyless = official
		? ""
		: ` If ${options.baseUrl} needs no key, set ${variable} to any value, e.g. ${variable}=none.`;
	return {
		ok: false,
		errorMessage:
			`No API key for provider "${options.provider}". Set the ${variable} environment variable, ` +
			`or point the base URL at a local server (e.g. Ollama at http://127.0.0.1:11434/v1), which needs no key.${keyless}`,
	};
}
