import { Type } from "typebox";
import { describe, expect, it, vi } from "vitest";
import { apiKeyEnvVar, defaultBaseUrl, isLocalBaseUrl, resolveApiKey } from "../../src/agent/providers/config.js";
import { createStreamFn, modelApi } from "../../src/agent/providers/index.js";
import { parsePartialJson, parseToolArguments } from "../../src/agent/providers/partial-json.js";
import { isRetryableError, resolveRetryOptions, retryDelayMs } from "../../src/agent/providers/retry.js";
import { toAnthropicTools, toJsonSchemaTools, toOpenAITools } from "../../src/agent/providers/tool-schemas.js";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";

describe("parsePartialJson", () => {
	it.each([
		['{"path": "src/a.ts", "content": "hel', { path: "src/a.ts", content: "hel" }],
		['{"path": "a", "limit": 1', { path: "a", limit: 1 }],
		['{"path": "a", "lim', { path: "a" }],
		['{"path": "a",', { path: "a" }],
		['{"a": {"b": [1, 2', { a: { b: [1, 2] } }],
		['{"flag": tru', {}],
		['{"text": "line\\', { text: "line" }],
		['{"text": "caf\\u00', { text: "caf" }],
		['{"edits": [{"old": "x", "new": "y"}, {"old": "z', { edits: [{ old: "x", new: "y" }, { old: "z" }] }],
		["", {}],
		["[1, 2]", {}],
		['{"done": true}', { done: true }],
	])("parses %j", (input, expected) => {
		expect(parsePartialJson(input)).toEqual(expected);
	});

	it("keeps malformed final arguments as the raw string and treats empty as {}", () => {
		expect(parseToolArguments('{"a": oops}')).toBe('{"a": oops}');
		expect(parseToolArguments("  ")).toEqual({});
		expect(parseToolArguments('{"a": 1}')).toEqual({ a: 1 });
	});
});

describe("provider configuration", () => {
	it("names the key variable per provider", () => {
		expect(apiKeyEnvVar("openai")).toBe("OPENAI_API_KEY");
		expect(apiKeyEnvVar("anthropic")).toBe("ANTHROPIC_API_KEY");
		expect(apiKeyEnvVar("open-router")).toBe("OPEN_ROUTER_API_KEY");
	});

	it("knows local servers", () => {
		for (const url of [
			"http://localhost:11434/v1",
			"http://127.0.0.1:8080",
			"http://[::1]:1234/v1",
			"http://192.168.1.5:8000/v1",
		]) {
			expect(isLocalBaseUrl(url)).toBe(true);
		}
		for (const url of ["https://api.openai.com/v1", "https://openrouter.ai/api/v1", "not a url", undefined]) {
			expect(isLocalBaseUrl(url)).toBe(false);
		}
	});

	it("resolves keys: explicit, then environment, none needed locally, else an error naming the variable", () => {
		expect(resolveApiKey({ provider: "openai", apiKey: "sk-1", env: {} })).toEqual({ ok: true, apiKey: "sk-1" });
		expect(resolveApiKey({ provider: "openai", env: { OPENAI_API_KEY: "sk-env" } })).toEqual({
			ok: true,
			apiKey: "sk-env",
		});
		expect(resolveApiKey({ provider: "ollama", baseUrl: "http://127.0.0.1:11434/v1", env: {} })).toEqual({
			ok: true,
			apiKey: undefined,
		});
		const missing = resolveApiKey({ provider: "openrouter", baseUrl: "https://openrouter.ai/api/v1", env: {} });
		expect(missing.ok).toBe(false);
		expect(!missing.ok && missing.errorMessage).toContain("OPENROUTER_API_KEY");
		expect(!missing.ok && missing.errorMessage).not.toContain("any value");
		const remote = resolveApiKey({ provider: "openai", baseUrl: "http://gpu-box:8000/v1", env: {} });
		expect(!remote.ok && remote.errorMessage).toContain(
			"If http://gpu-box:8000/v1 needs no key, set OPENAI_API_KEY to any value, e.g. OPENAI_API_KEY=none.",
		);
	});

	it("picks base URLs and protocols", () => {
		expect(defaultBaseUrl("ollama", {})).toBe("http://127.0.0.1:11434/v1");
		expect(defaultBaseUrl("openai", { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" })).toBe("http://127.0.0.1:9/v1");
		expect(defaultBaseUrl("someone", {})).toBeUndefined();
		expect(modelApi({ provider: "anthropic" })).toBe("anthropic-messages");
		expect(modelApi({ provider: "openrouter" })).toBe("openai-completions");
		expect(modelApi({ provider: "proxy", api: "anthropic-messages" })).toBe("anthropic-messages");
	});

	it("createStreamFn reports a missing key as an error message, never a throw", async () => {
		const streamFn = createStreamFn();
		const events = [];
		vi.stubEnv("ANTHROPIC_API_KEY", "");
		try {
			for await (const event of streamFn({ provider: "anthropic", id: "claude" }, { messages: [] })) events.push(event);
		} finally {
			vi.unstubAllEnvs();
		}
		expect(events).toHaveLength(1);
		expect(events[0]).toMatchObject({ type: "error", message: { stopReason: "error" } });
	});
});

describe("retry policy", () => {
	it("retries rate limits, server errors, overload and network failures only", () => {
		expect(isRetryableError({ status: 429 })).toBe(true);
		expect(isRetryableError({ status: 503 })).toBe(true);
		expect(isRetryableError({ status: 529 })).toBe(true);
		expect(isRetryableError({ status: 400 })).toBe(false);
		expect(isRetryableError({ status: 401 })).toBe(false);
		expect(isRetryableError({ error: { type: "overloaded_error" } })).toBe(true);
		expect(isRetryableError({ error: { type: "invalid_request_error" } })).toBe(false);
		expect(isRetryableError(Object.assign(new Error("x"), { name: "AbortError" }))).toBe(false);
		class APIConnectionError extends Error {}
		expect(isRetryableError(new APIConnectionError("fetch failed"))).toBe(true);
	});

	it("backs off exponentially within the cap and honours retry-after", () => {
		const options = resolveRetryOptions({ baseDelayMs: 100, maxDelayMs: 1000 });
		expect(retryDelayMs(0, options)).toBeGreaterThanOrEqual(75);
		expect(retryDelayMs(0, options)).toBeLessThanOrEqual(125);
		expect(retryDelayMs(2, options)).toBeGreaterThanOrEqual(300);
		expect(retryDelayMs(10, options)).toBe(1000);
		const headers = new Headers({ "retry-after": "2" });
		expect(retryDelayMs(0, resolveRetryOptions({ maxDelayMs: 5000 }), { headers })).toBe(2000);
		expect(retryDelayMs(0, options, { headers })).toBe(1000);
	});
});

describe("tool schema conversion", () => {
	const tools = [
		{
			name: "grep",
			description: "Searches files.",
			parameters: Type.Object({ pattern: Type.String(), limit: Type.Optional(Type.Number()) }),
			annotations: { readOnlyHint: true },
		},
	];

	it("produces plain JSON for OpenAI, Anthropic and JSON Schema listings", () => {
		const openai = toOpenAITools(tools);
		expect(openai).toEqual([
			{
				type: "function",
				function: {
					name: "grep",
					description: "Searches files.",
					parameters: {
						type: "object",
						properties: { pattern: { type: "string" }, limit: { type: "number" } },
						required: ["pattern"],
					},
				},
			},
		]);
		expect(toAnthropicTools(tools)[0]).toEqual({
			name: "grep",
			description: "Searches files.",
			input_schema: openai[0]!.function.parameters,
		});
		expect(toJsonSchemaTools(tools)[0]).toMatchObject({ name: "grep", annotations: { readOnlyHint: true } });
		expect(Object.getOwnPropertySymbols(openai[0]!.function.parameters)).toEqual([]);
	});
});

describe("buildSystemPrompt", () => {
	it("lists tools with the first line of their description, the cwd, date and extra rules", () => {
		const prompt = buildSystemPrompt({
			tools: [
				{ name: "read", description: "Read a file.\nLong details here." },
				{ name: "bash", description: "Run a command." },
			],
			cwd: "/work/project",
			date: new Date("2026-01-02T10:00:00Z"),
			platform: "linux",
			append: "Always run npm test.",
		});
		expect(prompt).toContain("- read: Read a file.");
		expect(prompt).not.toContain("Long details here.");
		expect(prompt).toContain("- bash: Run a command.");
		expect(prompt).toContain("Working directory: /work/project");
		expect(prompt).toContain("Today's date: 2026-01-02");
		expect(prompt.trimEnd().endsWith("Always run npm test.")).toBe(true);
	});
});
