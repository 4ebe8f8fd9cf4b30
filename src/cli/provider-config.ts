import { type OptionValues, stringOption, UsageError } from "./args.js";

/** The model APIs the CLI can talk to. */
export const providerNames = ["openai", "anthropic"] as const;

/** One of `providerNames`. */
export type ProviderName = (typeof providerNames)[number];

/** Where and how the agent commands reach a model. */
export interface ProviderConfig {
	/** Which API. */
	provider: ProviderName;
	/** Model id sent to the API. */
	model: string;
	/** API base URL; undefined means the provider's official endpoint. */
	baseUrl: string | undefined;
	/** API key to send. A placeholder for keyless local servers, which ignore it. */
	apiKey: string;
}

/** Default model per provider when `--model` is not given and the official endpoint is used. */
export const defaultModels: Record<ProviderName, string> = {
	openai: "gpt-4.1",
	anthropic: "claude-sonnet-4-5",
};

// Local OpenAI-compatible servers ignore the key, but the SDK refuses to send a request without one.
const keylessPlaceholder = "toolbelt-no-key";

/** What to tell a person who has no provider configured: every way to configure one, with commands. */
export const providerSetupHelp = `No model provider is configured. Set one up in one of these ways:

  OpenAI        export OPENAI_API_KEY=sk-…          toolbelt [--model gpt-4.1]
  Anthropic     export ANTHROPIC_API_KEY=sk-ant-…   toolbelt --provider anthropic [--model claude-sonnet-4-5]
  Ollama        toolbelt --provider openai --base-url http://localhost:11434/v1 --model qwen3:8b
  Other OpenAI-compatible servers (vLLM, llama.cpp, LM Studio, OpenRouter):
                --provider openai --base-url <url>/v1 --model <id>   (or export OPENAI_BASE_URL=<url>/v1)

The same flags work for 'toolbelt run'. 'toolbelt tool' and 'toolbelt tools' need no provider.`;

function isProviderName(value: string): value is ProviderName {
	return (providerNames as readonly string[]).includes(value);
}

/**
 * Resolves the provider from flags and environment: `--provider`, else whatever the environment
 * configures (a base URL or key for OpenAI, then a key for Anthropic). Throws a `UsageError`
 * that explains every way to configure a provider when there is none.
 */
export function resolveProviderConfig(values: OptionValues, env: Record<string, string | undefined>): ProviderConfig {
	const given = stringOption(values, "provider");
	const flagBaseUrl = stringOption(values, "base-url");
	if (given !== undefined && !isProviderName(given)) {
		throw new UsageError(
			`Unknown provider '${given}'. Use --provider openai (also for Ollama, vLLM, LM Studio, OpenRouter) or --provider anthropic.`,
		);
	}
	const provider: ProviderName | undefined =
		given ??
		(flagBaseUrl || env.OPENAI_BASE_URL || env.OPENAI_API_KEY
			? "openai"
			: env.ANTHROPIC_API_KEY
				? "anthropic"
				: undefined);
	if (provider === undefined) throw new UsageError(providerSetupHelp, { showHelpHint: false });

	const keyVariable = provider === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
	const baseUrl = flagBaseUrl || (provider === "openai" ? env.OPENAI_BASE_URL : env.ANTHROPIC_BASE_URL) || undefined;
	const key = env[keyVariable] || undefined;
	if (key === undefined && baseUrl === undefined) {
		throw new UsageError(
			`--provider ${provider} needs an API key: export ${keyVariable}=…\n` +
				"For a local server without a key, give its URL: --base-url http://localhost:11434/v1 --model qwen3:8b\n\n" +
				providerSetupHelp,
			{ showHelpHint: false },
		);
	}
	const model = stringOption(values, "model") || (baseUrl === undefined ? defaultModels[provider] : undefined);
	if (model === undefined) {
		throw new UsageError(
			`A custom base URL (${baseUrl}) needs a model id: add --model <id>, e.g. --model qwen3:8b for Ollama.`,
			{ showHelpHint: false },
		);
	}
	return { provider, model, baseUrl, apiKey: key ?? keylessPlaceholder };
}
