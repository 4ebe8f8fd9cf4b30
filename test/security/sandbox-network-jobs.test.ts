// The sandbox's network policy holds for background jobs and for commands in a pseudo-terminal as
// it does for a plain bash call, as root and as an unprivileged user: one `toolbelt mcp --sandbox`
// per user (the policy in its ~/.toolbelt/settings.json) serves both cases. Each command reaches
// the allowed loopback host by its made-up name (only the proxy resolves it, so an unsandboxed or
// unproxied command fails there), then tries a denied name, an unlisted address through the proxy
// and the denied server's address directly; the denied server must record no request.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cleanEnv } from "../cli/helpers/cli-binary.js";
import { startUserMcpServer, type UserMcpServer } from "../cli/helpers/user-mcp-server.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { handOver, testUsers } from "../helpers/test-users.js";

const unavailable = await sandboxUnavailableReason();

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

/** A loopback HTTP server that records the paths it was asked for and answers `body`. */
async function recorder(body: string): Promise<{ server: Server; port: number; paths: string[] }> {
	const paths: string[] = [];
	const server = createServer((request, response) => {
		paths.push(request.url ?? "");
		response.end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return { server, port: (server.address() as { port: number }).port, paths };
}

let good: Awaited<ReturnType<typeof recorder>>;
let evil: Awaited<ReturnType<typeof recorder>>;

beforeAll(async () => {
	good = await recorder("GOOD-ANSWER\n");
	evil = await recorder("EVIL-REACHED\n");
});
afterAll(() => {
	good?.server.close();
	evil?.server.close();
});

/** The control, then three ways toward the denied server; `tag` marks the paths of one case. */
function attempts(tag: string): string {
	return [
		`curl -sS -m 20 http://good.test:${good.port}/${tag}-control`,
		`curl -sS -m 20 http://evil.test:${evil.port}/${tag}-denied`,
		`curl -sS -m 20 http://127.0.0.1:${evil.port}/${tag}-by-address`,
		`curl -sS -m 5 --noproxy '*' http://127.0.0.1:${evil.port}/${tag}-direct`,
		`echo ${tag.toUpperCase()}-DONE`,
	].join("; echo; ");
}

describe.skipIf(unavailable !== undefined)("the network policy for background jobs and terminal commands", () => {
	describe.each(testUsers())("as %s", (user) => {
		let outside = "";
		let server: UserMcpServer;

		beforeAll(async () => {
			outside = await mkdtemp(join("/var/tmp", "toolbelt-network-jobs-"));
			const home = join(outside, "home");
			const project = join(outside, "project");
			for (const folder of [join(home, ".toolbelt"), project]) await mkdir(folder, { recursive: true });
			const network = {
				allow: ["good.test", `127.0.0.1:${good.port}`],
				deny: ["evil.test"],
				hosts: ["good.test=127.0.0.1", "evil.test=127.0.0.1"],
			};
			await writeFile(
				join(home, ".toolbelt", "settings.json"),
				JSON.stringify({ sandbox: { enabled: true, network } }),
			);
			await handOver(outside, user);
			server = await startUserMcpServer({
				user,
				cwd: project,
				env: cleanEnv({ HOME: home }),
				flags: ["--sandbox"],
			});
		});
		afterAll(async () => {
			await server?.close();
			await rm(outside, { recursive: true, force: true });
		});

		function expectPolicyHeld(tag: string, output: string): void {
			expect(output).toContain(`${tag.toUpperCase()}-DONE`);
			// First: an unsandboxed command reaches it by address (and fails here before the control).
			expect(evil.paths.filter((path) => path.startsWith(`/${tag}-`))).toEqual([]);
			expect(output).not.toContain("EVIL-REACHED");
			expect(good.paths).toContain(`/${tag}-control`);
			expect(output).toContain("GOOD-ANSWER");
			// The refusal names the host, in the command's own output.
			expect(output).toContain("evil.test");
		}

		it("a background job reaches the allowed host and nothing else", async () => {
			const tag = `job-${user}`;
			const started = await server.call("bash", { command: attempts(tag), run_in_background: true });
			expect(started.isError).toBe(false);
			const id = /Started (job-\d+)/.exec(started.text)?.[1] ?? "";
			expect(id).not.toBe("");
			let output = started.text;
			// Read until the job prints its last line (bash_output waits for new output or the exit).
			for (let round = 0; round < 12 && !output.includes(`${tag.toUpperCase()}-DONE`); round++) {
				output += (await server.call("bash_output", { id, wait_seconds: 10 })).text;
			}
			expectPolicyHeld(tag, output);
		});

		it("a command under a pseudo-terminal reaches the allowed host and nothing else", async () => {
			const tag = `tty-${user}`;
			const run = await server.call("bash", { command: attempts(tag), tty: true });
			expectPolicyHeld(tag, run.text);
		});
	});
});
