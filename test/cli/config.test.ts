import { chmod, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { openAIStream, useSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { createMemoryIO } from "./helpers/memory-io.js";

describe("toolbelt config: stored defaults that run uses when no flag is given", () => {
	const tempDir = useTempDir();
	const server = useSseServer();

	async function toolbelt(argv: string[]) {
		const { io, stdout, stderr } = createMemoryIO({ cwd: tempDir(), env: { HOME: tempDir() } });
		const code = await main(argv, io);
		return { code, stdout: stdout(), stderr: stderr() };
	}

	it("sets, gets, lists and unsets keys in a private file; a bad key or value exits 2 and stores nothing", async () => {
		expect((await toolbelt(["config", "list"])).stdout).toContain("nothing stored");
		expect((await toolbelt(["config", "set", "provider", "ollama"])).code).toBe(0);
		expect((await toolbelt(["config", "set", "model", "gpt-x"])).code).toBe(0);
		expect((await toolbelt(["config", "set", "base-url", "http://127.0.0.1:9/v1"])).code).toBe(0);
		const file = join(tempDir(), ".toolbelt", "config.json");
		expect((await stat(file)).mode & 0o777).toBe(0o600);
		expect((await stat(join(tempDir(), ".toolbelt"))).mode & 0o777).toBe(0o700);

		expect(await toolbelt(["config", "get", "model"])).toMatchObject({ code: 0, stdout: "gpt-x\n" });
		expect((await toolbelt(["config", "list"])).stdout).toBe(
			"provider = ollama\nmodel = gpt-x\nbase-url = http://127.0.0.1:9/v1\n",
		);
		expect((await toolbelt(["config", "get"])).stdout).toContain("model = gpt-x");

		const badKey = await toolbelt(["config", "set", "colour", "blue"]);
		expect(badKey.code).toBe(2);
		expect(badKey.stderr).toContain("Unknown config key 'colour'. Keys: provider, model, base-url.");
		const apiKey = await toolbelt(["config", "set", "api-key", "sk-123"]);
		expect(apiKey.code).toBe(2);
		expect(apiKey.stderr).toContain("API keys are not stored");
		const badProvider = await toolbelt(["config", "set", "provider", "acme"]);
		expect(badProvider.code).toBe(2);
		expect(badProvider.stderr).toContain("Unknown provider 'acme'");
		const badUrl = await toolbelt(["config", "set", "base-url", "localhost:11434"]);
		expect(badUrl.code).toBe(2);
		expect(badUrl.stderr).toContain("is not an http(s) URL");
		expect((await toolbelt(["config", "frobnicate"])).code).toBe(2);
		expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
			provider: "ollama",
			model: "gpt-x",
			"base-url": "http://127.0.0.1:9/v1",
		});

		expect((await toolbelt(["config", "unset", "model"])).code).toBe(0);
		const unset = await toolbelt(["config", "get", "model"]);
		expect(unset.code).toBe(1);
		expect(unset.stderr).toContain("model is not set");
	});

	it("run takes the stored provider, model and base URL; a flag wins over them", async () => {
		expect((await toolbelt(["config", "set", "provider", "openai"])).code).toBe(0);
		expect((await toolbelt(["config", "set", "base-url", server.openaiBaseUrl])).code).toBe(0);
		expect((await toolbelt(["config", "set", "model", "stored-model"])).code).toBe(0);
		server.push(
			{ events: openAIStream([{ text: "one" }, { finish: "stop" }]) },
			{ events: openAIStream([{ text: "two" }, { finish: "stop" }]) },
		);
		expect(await toolbelt(["run", "--no-record", "hello"])).toMatchObject({ code: 0, stdout: "one\n" });
		expect(server.requests[0]?.body.model).toBe("stored-model");
		expect((await toolbelt(["run", "--no-record", "--model", "flag-model", "hello"])).code).toBe(0);
		expect(server.requests[1]?.body.model).toBe("flag-model");
	});

	it("refuses a config file others may write: it chooses where the API key goes", async () => {
		expect((await toolbelt(["config", "set", "model", "gpt-x"])).code).toBe(0);
		const file = join(tempDir(), ".toolbelt", "config.json");
		await chmod(file, 0o666);
		const run = await toolbelt(["run", "--provider", "openai", "--base-url", server.openaiBaseUrl, "hi"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(`chmod 600 ${file}`);
		expect(server.requests).toHaveLength(0);
		await writeFile(file, "{ not json");
		await chmod(file, 0o600);
		expect((await toolbelt(["config", "list"])).stderr).toContain("is not valid JSON");
	});
});
