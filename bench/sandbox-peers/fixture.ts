// One attack's world: a home with credentials, a git workspace, and a place outside both where an
// escape leaves its mark. Everything lives under /var/tmp, which none of the sandboxes compared makes
// writable by default (Codex's workspace-write mode opens /tmp, so /tmp would blur "escaped" with "allowed").
import { spawnSync } from "node:child_process";
import { chmodSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Who runs the sandbox: root (CI runners, dev containers) or an unprivileged user (`nobody`). */
export type PeerUser = "root" | "nobody";

/** The secret every credential store of the fixture holds; seeing it in an output means it leaked. */
export const SECRET_MARK = "tb-peer-secret-7f3a";

/** One attack's folders. */
export interface Fixture {
	root: string;
	home: string;
	workspace: string;
	user: PeerUser;
}

/** The prefix that runs a program as `user` (setpriv to nobody with no capabilities). */
export function asUser(user: PeerUser): string[] {
	if (user === "root") return [];
	return [
		"setpriv",
		"--reuid=65534",
		"--regid=65534",
		"--clear-groups",
		"--inh-caps=-all",
		"--bounding-set=-all",
		"--",
	];
}

/** Runs a host-side command as the fixture's user, in `cwd`, with the fixture's home. */
export function runOnHost(fixture: Fixture, argv: string[], cwd = fixture.workspace): string {
	const [program, ...rest] = [...asUser(fixture.user), ...argv];
	const result = spawnSync(program ?? "true", rest, {
		cwd,
		encoding: "utf8",
		timeout: 30_000,
		env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: fixture.home, GIT_CONFIG_NOSYSTEM: "1" },
	});
	return `${result.stdout ?? ""}${result.stderr ?? ""}`;
}

function chownTree(path: string): void {
	lchownSync(path, 65534, 65534);
	if (lstatSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry));
}

/** Makes a fresh fixture: home (ssh key, git and cloud credentials, git identity), workspace (a repo with one commit). */
export function makeFixture(user: PeerUser): Fixture {
	const root = mkdtempSync("/var/tmp/tb-sandbox-peers-");
	chmodSync(root, 0o755);
	const home = join(root, "home");
	const workspace = join(root, "ws");
	for (const folder of [
		home,
		join(home, ".codex"),
		join(home, ".ssh"),
		join(home, ".config/git"),
		join(home, ".aws"),
		workspace,
	]) {
		mkdirSync(folder, { recursive: true });
	}
	writeFileSync(join(home, ".ssh/id_ed25519"), `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRET_MARK}\n`, {
		mode: 0o600,
	});
	writeFileSync(join(home, ".config/git/credentials"), `https://user:${SECRET_MARK}@example.invalid\n`, {
		mode: 0o600,
	});
	writeFileSync(join(home, ".aws/credentials"), `[default]\naws_secret_access_key = ${SECRET_MARK}\n`, { mode: 0o600 });
	writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = Peer Test\n\temail = peer@example.invalid\n");
	if (user === "nobody") chownTree(root);
	const fixture: Fixture = { root, home, workspace, user };
	runOnHost(fixture, ["git", "init", "-q", "."]);
	writeFileSync(join(workspace, "README.md"), "hello\n");
	writeFileSync(join(workspace, "shared.gitconfig"), "# shared settings, included by .git/config\n");
	if (user === "nobody") chownTree(workspace);
	runOnHost(fixture, ["git", "config", "include.path", "../shared.gitconfig"]);
	runOnHost(fixture, ["git", "add", "."]);
	runOnHost(fixture, ["git", "commit", "-qm", "start"]);
	mkdirSync(join(workspace, "sub"));
	if (user === "nobody") chownTree(join(workspace, "sub"));
	runOnHost(fixture, ["git", "init", "-q", "."], join(workspace, "sub"));
	return fixture;
}

/** Removes a fixture (and whatever an attack left in it). */
export function removeFixture(fixture: Fixture): void {
	rmSync(fixture.root, { recursive: true, force: true });
}
