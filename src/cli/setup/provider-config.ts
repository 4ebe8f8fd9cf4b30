import { apiKeyEnvVar, defaultBaseUrl, isLocalBaseUrl, knownProviders } from "../../agent/index.js";
import { type OptionValues, stringOption, UsageError } from "../args.js";

/** Where and how the agent commands reach a model. */
export interface ProviderConfig {
	/**
	 * Provider name: `openai` or `anthropic`, or an OpenAI-compatible server with a built-in
	 * local URL (`ollama`, `lmstudio`, `llamacpp`, `vllm`) or `openrouter`.
	 */
	provider: string;
	/** Model id sent to the API. */
	model: string;
	/** API base URL; undefined means the provider's official endpoint. */
	baseUrl: string | undefined;
	/** API key from the environment; undefined for a keyless server (the provider decides). */
	apiKey: string | undefined;
}

/** Default model per provider when `--model` is not given and the official endpoint is used. */
export const defaultModels: Record<string, string> = {
	openai: "gpt-4.1",
	anthropic: "claude-sonnet-4-5",
};

/** What to tell a person who has no provider configured: every way to configure one, with commands. */
export const providerSetupHelp = `No model provider is configured. Set one up in one of these ways:

  OpenAI        export OPENAI_API_KEY=sk-…          toolbelt [--model gpt-4.1]
  Anthropic     export ANTHROPIC_API_KEY=sk-ant-…   toolbelt --provider anthropic [--model claude-sonnet-4-5]
  Ollama        toolbelt --provider openai --base-url http://localhost:11434/v1 --model qwen3:8b
  Other OpenAI-compatible servers (vLLM, llama.cpp, LM Studio, OpenRouter):
                --provider openai --base-url <url>/v1 --model <id>   (or export OPENAI_BASE_URL=<url>/v1)

Store the choice once: toolbelt config set provider openai (and model, base-url).
The same flags work for 'toolbelt run'. 'toolbelt tool' and 'toolbelt tools' need no provider.`;

/**
 * Resolves the provider from flags and environment: `--provider`, else whatever the environment
 * configures (a base URL or key for OpenAI, then a key for Anthropic). Throws a `UsageError`
 * that explains every way to configure a provider when there is none.
 */
export function resolveProviderConfig(values: OptionValues, env: Record<string, string | undefined>): ProviderConfig {
	const given = stringOption(values, "provider");
	const flagBaseUrl = stringOption(values, "base-url") || undefined;
	if (given !== undefined && !knownProviders.includes(given)) {
		throw new UsageError(
			`Unknown provider '${given}'. Use openai (any OpenAI-compatible server, with --base-url) or anthropic; ` +
				`also known: ${knownProviders.filter((name) => name !== "openai" && name !== "anthropic").join(", ")}.`,
		);
	}
	const provider =
		given ??
		(flagBaseUrl || env.OPENAI_BASE_URL || env.OPENAI_API_KEY
			? "openai"
			: env.ANTHROPIC_API_KEY
				? "anthropic"
				: undefined);
	if (provider === undefined) throw new UsageError(providerSetupHelp, { showHelpHint: false });

	// undefined: the official endpoint. Other names (ollama, vllm, …) come with their usual local URL.
	const baseUrl =
		flagBaseUrl ??
		(provider === "openai"
			? env.OPENAI_BASE_URL || undefined
			: provider === "anthropic"
				? env.ANTHROPIC_BASE_URL || undefined
				: defaultBaseUrl(provider, {}));
	if (baseUrl !== undefined && !isHttpUrl(baseUrl)) {
		const source =
			flagBaseUrl !== undefined ? "--base-url" : provider === "anthropic" ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL";
		throw new UsageError(
			`${source} '${baseUrl}' is not an http(s) URL. For example: --base-url http://localhost:11434/v1 (Ollama).`,
			{ showHelpHint: false },
		);
	}
	const keyVariable = apiKeyEnvVar(provider);
	const apiKey = env[keyVariable] || undefined;
	if (apiKey === undefined && baseUrl === undefined) {
		throw new UsageError(
			`--provider ${provider} needs an API key: export ${keyVariable}=…\n` +
				"A local server needs none: --provider openai --base-url http://localhost:11434/v1 --model qwen3:8b\n\n" +
				providerSetupHelp,
			{ showHelpHint: false },
		);
	}
	if (apiKey === undefined && provider === "openrouter") {
		throw new UsageError(`--provider openrouter needs an API key: export ${keyVariable}=…`, { showHelpHint: false });
	}
	const model = stringOption(values, "model") || (baseUrl === undefined ? defaultModels[provider] : undefined);
	if (model === undefined) {
		const example = isLocalBaseUrl(baseUrl) ? ", e.g. --model qwen3:8b for Ollama" : "";
		throw new UsageError(`${baseUrl ?? provider} needs a model id: add --model <id>${example}.`, {
			showHelpHint: false,
		});
	}
	return { provider, model, baseUrl, apiKey };
}

function isHttpUrl(text: string): boolean {
	try {
		const { protocol } = new URL(text);
		return protocol === "http:" || protocol === "https:";
	} catch {
		return false;
	}
}
