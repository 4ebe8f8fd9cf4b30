// Credentials that never enter the sandbox: placeholders inside, the real values put in by the
// proxy on the way to the hosts they belong to (see secret-table.ts, terminate.ts, session-ca.ts).
import { readFile } from "node:fs/promises";
import type { Socket } from "node:net";
import { rootCertificates } from "node:tls";
import { contentFile } from "../../state-dir.js";
import { type PreparedSecrets, prepareSecrets } from "./prepare.js";
import type { SecretSetting, SecretTable } from "./secret-table.js";
import { createSessionCa } from "./session-ca.js";
import { createTerminator, type TerminatedTarget } from "./terminate.js";

export { maskTokenFile } from "./prepare.js";
export { placeholderScanner } from "./scan.js";
export type { Secret, SecretSetting, SecretTable } from "./secret-table.js";
export type { TerminatedTarget } from "./terminate.js";

/** What the proxy needs to mask: the table, and the TLS end for hosts a secret belongs to. */
export interface ProxySecrets {
	table: SecretTable;
	/** Takes over a CONNECT'd socket to such a host (after the `200`). */
	terminate(client: Socket, target: TerminatedTarget): void;
}

/** The secrets of a sandbox session: the proxy's part and what each sandboxed call gets. */
export interface SessionSecrets {
	proxy: ProxySecrets;
	/** Variables the command gets: the placeholders. */
	environment: Record<string, string>;
	/**
	 * Where the CA bundle is, set by bwrap inside only (a Node program outside, the launcher, would
	 * warn about a file it cannot see).
	 */
	trust: Record<string, string>;
	/** Files mounted read-only inside: host file → path inside (masked token files, the CA). */
	binds: { source: string; target: string }[];
}

/** Inside the sandbox's private /tmp: the session CA alone, and the system's CAs with it. */
const caInside = "/tmp/.toolbelt-sandbox-ca.pem";
const bundleInside = "/tmp/.toolbelt-sandbox-ca-bundle.pem";

/** Where systems keep their CA bundle (Debian, Fedora, openSUSE, Alpine and macOS-like layouts). */
const systemBundles = [
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/ssl/cert.pem",
];

/** The CAs the sandbox's tools trusted so far: the user's `SSL_CERT_FILE`, the system's bundle, else Node's list. */
async function systemCas(environment: NodeJS.ProcessEnv): Promise<string> {
	for (const path of [environment.SSL_CERT_FILE, ...systemBundles]) {
		if (!path) continue;
		const text = await readFile(path, "utf8").catch(() => undefined);
		if (text?.includes("BEGIN CERTIFICATE")) return text;
	}
	return rootCertificates.join("\n");
}

/**
 * Reads the secrets `settings` lists and, when any is set, makes the session's CA and the files
 * the sandbox gets (in `stateDir`, private to this user). Undefined when there is no secret to keep out.
 */
export async function startSecrets(
	settings: readonly SecretSetting[],
	place: { environment: NodeJS.ProcessEnv; homeDir: string; stateDir: string },
): Promise<SessionSecrets | undefined> {
	if (settings.length === 0) return undefined;
	const prepared: PreparedSecrets = await prepareSecrets(settings, place);
	if (prepared.table.secrets.length === 0) return undefined;
	const ca = await createSessionCa();
	const binds: SessionSecrets["binds"] = [];
	const bind = async (prefix: string, content: string, target: string) => {
		binds.push({ source: await contentFile(place.stateDir, prefix, Buffer.from(content)), target });
	};
	await bind("session-ca", ca.certificatePem, caInside);
	await bind("session-ca-bundle", `${await systemCas(place.environment)}\n${ca.certificatePem}`, bundleInside);
	for (const file of prepared.files) await bind("masked-token-file", file.content, file.path);
	return {
		proxy: { table: prepared.table, terminate: createTerminator(ca, prepared.table) },
		environment: prepared.environment,
		trust: {
			NODE_EXTRA_CA_CERTS: caInside,
			SSL_CERT_FILE: bundleInside,
			CURL_CA_BUNDLE: bundleInside,
			REQUESTS_CA_BUNDLE: bundleInside,
			GIT_SSL_CAINFO: bundleInside,
			PIP_CERT: bundleInside,
			CARGO_HTTP_CAINFO: bundleInside,
			DENO_CERT: bundleInside,
		},
		binds,
	};
}
