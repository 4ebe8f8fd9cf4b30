import { describe, expect, it } from "vitest";
import { maskTokenFile } from "../../../src/safety/sandbox/network/secrets/index.js";
import { prepareSecrets } from "../../../src/safety/sandbox/network/secrets/prepare.js";
import { secretScrubber } from "../../../src/safety/sandbox/network/secrets/scrub.js";
import { SecretTable } from "../../../src/safety/sandbox/network/secrets/secret-table.js";

describe("secrets kept out of the sandbox: placeholders and where they may go", () => {
	it("masks the tokens of an ini-style token file, leaving other lines and variable references", () => {
		const placeholders = new Map<string, string>();
		const of = (value: string) => {
			if (!placeholders.has(value)) placeholders.set(value, `P${placeholders.size}`);
			return placeholders.get(value) ?? "";
		};
		const masked = maskTokenFile(
			[
				"registry=https://registry.example.org/",
				"//registry.example.org/:_authToken=abc123",
				'//other.example.org/:_auth = "dXNlcjpwdw=="',
				`//env.example.org/:_authToken=$${"{"}NPM_TOKEN}`,
				"; _authToken=comment",
			].join("\n"),
			of,
		);
		expect(masked.split("\n")).toEqual([
			"registry=https://registry.example.org/",
			"//registry.example.org/:_authToken=P0",
			'//other.example.org/:_auth = "P1"',
			`//env.example.org/:_authToken=$${"{"}NPM_TOKEN}`,
			"; _authToken=comment",
		]);
	});

	it("masks the tokens of YAML and JSON token files too (gh's hosts.yml, .yarnrc.yml, docker's config.json)", () => {
		const placeholders = new Map<string, string>();
		const of = (value: string) => {
			if (!placeholders.has(value)) placeholders.set(value, `P${placeholders.size}`);
			return placeholders.get(value) ?? "";
		};
		const masked = maskTokenFile(
			[
				"github.com:",
				"    oauth_token: gho_abc123",
				"    user: me",
				'npmRegistries:\n  "//npm.example.org":\n    npmAuthToken: "YWJj=="',
				'{ "auths": { "registry.example.org": {',
				'    "auth": "dXNlcjpwdw==",',
				'    "identitytoken": "xyz"',
				"} } }",
				"password = hunter2",
				"always-auth=true",
			].join("\n"),
			of,
		);
		expect(masked.split("\n")).toEqual([
			"github.com:",
			"    oauth_token: P0",
			"    user: me",
			"npmRegistries:",
			'  "//npm.example.org":',
			'    npmAuthToken: "P1"',
			'{ "auths": { "registry.example.org": {',
			'    "auth": "P2",',
			'    "identitytoken": "P3"',
			"} } }",
			"password = P4",
			"always-auth=true",
		]);
	});

	it("puts the value in headers and basic credentials for its hosts only, and refuses it elsewhere", async () => {
		const { table, environment } = await prepareSecrets(
			[{ env: "API_TOKEN", hosts: ["api.example.org", "*.example.net:443"] }],
			{
				environment: { API_TOKEN: "s3cret" },
				homeDir: "/nonexistent",
			},
		);
		const placeholder = environment.API_TOKEN ?? "";
		expect(placeholder).toMatch(/^toolbelt-placeholder-[0-9a-f]{32}$/);
		const basic = `Basic ${Buffer.from(`me:${placeholder}`).toString("base64")}`;
		const headers = { authorization: `Bearer ${placeholder}`, "x-other": ["a", basic] };
		expect(table.mask("/", headers, "api.example.org", 443)).toEqual({
			refused: false,
			replaced: 2,
			headers: {
				authorization: "Bearer s3cret",
				host: "api.example.org:443",
				"x-other": ["a", `Basic ${Buffer.from("me:s3cret").toString("base64")}`],
			},
		});
		expect(table.mask("/", headers, "x.example.net", 443).refused).toBe(false);
		expect(table.mask("/", headers, "x.example.net", 80)).toMatchObject({ refused: true });
		expect(table.mask("/", { cookie: basic }, "evil.example.com", 443)).toMatchObject({
			refused: true,
			reason: expect.stringContaining("$API_TOKEN was sent to evil.example.com:443"),
		});
		expect(table.mask(`/?t=${placeholder}`, {}, "evil.example.com", 443)).toMatchObject({ refused: true });
		expect(table.mask("/", { [`x-${placeholder}`]: "1" }, "evil.example.com", 443)).toMatchObject({ refused: true });
		// A request with the value that names another site (domain fronting) is refused; the same site written otherwise is not.
		for (const [url, host] of [
			["/", "evil.example.com"],
			["/", "api.example.org@evil.example.com"],
			["/", "api.example.org:444"],
			["https://evil.example.com/", "api.example.org"],
			["evil.example.com:443", undefined],
		] as const) {
			expect(table.mask(url, { ...headers, host }, "api.example.org", 443)).toMatchObject({
				refused: true,
				reason: expect.stringContaining("names another site"),
			});
		}
		expect(
			table.mask("https://API.example.org./x", { ...headers, host: "Api.Example.Org:443" }, "api.example.org", 443),
		).toMatchObject({ refused: false, replaced: 2 });
		expect(table.mask("/", { host: "evil.example.com" }, "api.example.org", 443).refused).toBe(false);
		expect(table.belongsTo("api.example.org", 8080)).toBe(true);
		expect(table.belongsTo("example.org", 443)).toBe(false);
	});

	it("skips a variable that is not set and refuses an entry naming neither a variable nor a file", async () => {
		const prepared = await prepareSecrets([{ env: "UNSET_TOKEN", hosts: ["a.example.org"] }], {
			environment: {},
			homeDir: "/nonexistent",
		});
		expect(prepared.table.secrets).toEqual([]);
		await expect(prepareSecrets([{ hosts: ["a.example.org"] }], { environment: {}, homeDir: "/" })).rejects.toThrow(
			/either "env" or "file"/,
		);
	});

	it("turns a secret's value back into its placeholder in an answer, also split across chunks", async () => {
		const value = "tok-0123456789abcdef";
		const table = new SecretTable([{ label: "$T", placeholder: "PH", value, rules: [], hosts: [] }]);
		const scrubber = secretScrubber(table);
		const out: Buffer[] = [];
		scrubber.on("data", (chunk: Buffer) => out.push(chunk));
		const ended = new Promise((resolve) => scrubber.on("end", resolve));
		const text = `a ${value} b ${value}`;
		// One byte a chunk: every boundary falls inside the value somewhere.
		for (const byte of Buffer.from(text)) scrubber.write(Buffer.from([byte]));
		scrubber.end();
		await ended;
		expect(Buffer.concat(out).toString()).toBe("a PH b PH");
	});
});
