import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.js";
import { resolveProviderConfig } from "../../src/cli/setup/provider-config.js";

describe("resolveProviderConfig", () => {
	it("picks the provider from the environment: OpenAI key or base URL first, then Anthropic", () => {
		expect(resolveProviderConfig({}, { OPENAI_API_KEY: "sk-o" })).toEqual({
			provider: "openai",
			model: "gpt-4.1",
			baseUrl: undefined,
			apiKey: "sk-o",
		});
		expect(resolveProviderConfig({}, { ANTHROPIC_API_KEY: "sk-a" })).toMatchObject({
			provider: "anthropic",
			model: "claude-sonnet-4-5",
			apiKey: "sk-a",
		});
		expect(resolveProviderConfig({}, { OPENAI_API_KEY: "sk-o", ANTHROPIC_API_KEY: "sk-a" }).provider).toBe("openai");
		expect(
			resolveProviderConfig(
				{ model: "llama3" },
				{ OPENAI_BASE_URL: "http://127.0.0.1:8000/v1", ANTHROPIC_API_KEY: "a" },
			),
		).toEqual({ provider: "openai", model: "llama3", baseUrl: "http://127.0.0.1:8000/v1", apiKey: undefined });
	});

	it("flags win over the environment", () => {
		const config = resolveProviderConfig(
			{ provider: "anthropic", model: "claude-opus-4-1" },
			{ OPENAI_API_KEY: "sk-o", ANTHROPIC_API_KEY: "sk-a" },
		);
		expect(config).toMatchObject({ provider: "anthropic", model: "claude-opus-4-1", apiKey: "sk-a" });
		const local = resolveProviderConfig(
			{ "base-url": "http://localhost:11434/v1", model: "qwen3:8b" },
			{ OPENAI_BASE_URL: "https://elsewhere.example/v1" },
		);
		expect(local).toMatchObject({ provider: "openai", baseUrl: "http://localhost:11434/v1", model: "qwen3:8b" });
	});

	it("knows the local servers' usual URLs", () => {
		expect(resolveProviderConfig({ provider: "ollama", model: "qwen3:8b" }, {})).toMatchObject({
			provider: "ollama",
			baseUrl: "http://127.0.0.1:11434/v1",
			apiKey: undefined,
		});
	});

	it("says what to do when something is missing", () => {
		const message = (values: Record<string, string>, env: Record<string, string>) => {
			try {
				resolveProviderConfig(values, env);
			} catch (error) {
				expect(error).toBeInstanceOf(UsageError);
				return (error as Error).message;
			}
			throw new Error("expected a UsageError");
		};
		expect(message({}, {})).toContain("No model provider is configured");
		expect(message({ provider: "openai" }, {})).toContain("export OPENAI_API_KEY=");
		expect(message({ provider: "ollama" }, {})).toContain("--model <id>, e.g. --model qwen3:8b");
		expect(message({ provider: "openrouter", model: "x" }, {})).toContain("export OPENROUTER_API_KEY=");
		expect(message({ provider: "bedrock" }, {})).toContain("Unknown provider 'bedrock'");
		// Not "no API key": the URL itself is wrong.
		expect(message({ "base-url": "localhost:11434/v1", model: "m" }, {})).toBe(
			"--base-url 'localhost:11434/v1' is not an http(s) URL. For example: --base-url http://localhost:11434/v1 (Ollama).",
		);
		expect(message({ model: "m" }, { OPENAI_BASE_URL: "notaurl" })).toContain("OPENAI_BASE_URL 'notaurl'");
	});
});
