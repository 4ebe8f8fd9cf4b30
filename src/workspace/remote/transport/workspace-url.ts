import { workspaceUrlFormsText, workspaceUrlSchemeAlternatives, workspaceUrlSchemes } from "../../url-schemes/index.js";

/** A parsed `--workspace` URL. */
export type WorkspaceLocation =
	| { kind: "ssh"; host: string; user?: string; port?: number; path: string }
	| { kind: "docker" | "podman"; container: string; path: string }
	| { kind: "kubectl"; namespace?: string; pod: string; container?: string; path: string };

/** An invalid workspace URL; the message says which forms exist. */
export class WorkspaceUrlError extends Error {
	override readonly name = "WorkspaceUrlError";
}

const forms = `Use ${workspaceUrlFormsText}.`;

/** `scheme://authority/path` for a scheme of the table: scheme, authority, path. */
const urlPattern = new RegExp(`^(${workspaceUrlSchemeAlternatives})://([^/]+)(/.*)?$`);

/** What each name of a location is called in messages. */
const nameRoles = {
	host: "host",
	user: "user",
	container: "container",
	pod: "pod",
	namespace: "namespace",
} as const;

/**
 * Throws `WorkspaceUrlError` for a name of `location` (host, user, container, pod, namespace)
 * that the ssh, docker, podman or kubectl client would read as an option (it starts with `-`:
 * `kubectl://--kubeconfig=evil.yaml/…` would load a config whose exec plugin runs here) or that
 * holds a control character or white space (no real name does; in a message it could forge lines).
 * Called where a URL is parsed and again where a location becomes a transport, so a location a
 * library builds by hand is held to the same rule.
 */
export function checkRemoteNames(location: WorkspaceLocation): void {
	const names: [keyof typeof nameRoles, string | undefined][] =
		location.kind === "ssh"
			? [
					["host", location.host],
					["user", location.user],
				]
			: location.kind === "kubectl"
				? [
						["namespace", location.namespace],
						["pod", location.pod],
						["container", location.container],
					]
				: [["container", location.container]];
	for (const [role, value] of names) {
		if (value === undefined) continue;
		if (value === "" || value.startsWith("-")) {
			throw new WorkspaceUrlError(
				`The ${nameRoles[role]} name ${JSON.stringify(value)} is empty or starts with "-", which the ${location.kind} client would read as an option. Nothing was run. ${forms}`,
			);
		}
		if (/[\u0000-\u0020\u007f-\u009f]/.test(value)) {
			throw new WorkspaceUrlError(
				`The ${nameRoles[role]} name ${JSON.stringify(value)} holds white space or a control character; no ${location.kind} name does. Nothing was run. ${forms}`,
			);
		}
	}
}

/** True when `text` names a remote workspace (has a scheme toolbelt knows). */
export function isWorkspaceUrl(text: string): boolean {
	return workspaceUrlSchemes.some((scheme) => text.startsWith(`${scheme}://`));
}

/**
 * Parses `ssh://[user@]host[:port]/path`, `docker://container/path`, `podman://container/path`
 * and `kubectl://[namespace/]pod[/container]/path`. A kubectl URL is ambiguous where names end,
 * so: `kubectl://pod/path` names only a pod; with a namespace or container, `//` ends the names
 * (`kubectl://ns/pod//path`, `kubectl://ns/pod/container//path`).
 */
export function parseWorkspaceUrl(text: string): WorkspaceLocation {
	const location = parseNames(text);
	checkRemoteNames(location);
	return location;
}

function parseNames(text: string): WorkspaceLocation {
	const match = urlPattern.exec(text);
	if (!match) throw new WorkspaceUrlError(`'${text}' is not a workspace URL. ${forms}`);
	const [, scheme, authority = "", rest = "/"] = match;
	if (scheme === "ssh") {
		const at = authority.lastIndexOf("@");
		const user = at === -1 ? undefined : decodeURIComponent(authority.slice(0, at));
		const hostPort = authority.slice(at + 1);
		const portMatch = /^(.*):(\d+)$/.exec(hostPort);
		const host = (portMatch ? portMatch[1] : hostPort)?.replace(/^\[(.*)\]$/, "$1") ?? "";
		if (!host) throw new WorkspaceUrlError(`'${text}' names no host. ${forms}`);
		return {
			kind: "ssh",
			host,
			user,
			port: portMatch ? Number(portMatch[2]) : undefined,
			path: decodeURIComponent(rest),
		};
	}
	if (scheme === "docker" || scheme === "podman") {
		return { kind: scheme, container: authority, path: decodeURIComponent(rest) };
	}
	const full = `${authority}${rest}`;
	const split = full.indexOf("//");
	if (split === -1) return { kind: "kubectl", pod: authority, path: decodeURIComponent(rest) };
	const names = full.slice(0, split).split("/");
	const path = decodeURIComponent(full.slice(split + 1));
	if (names.length === 2) return { kind: "kubectl", namespace: names[0], pod: names[1] as string, path };
	if (names.length === 3)
		return { kind: "kubectl", namespace: names[0], pod: names[1] as string, container: names[2], path };
	return { kind: "kubectl", pod: names[0] as string, path };
}

/**
 * The URL naming `absolutePath` at `location`'s remote, in one spelling per remote, so two
 * remotes never share a name and none reads as a local path: `ssh://[user@]host[:port]/path`,
 * `docker://container/path`, `kubectl://pod/path` (with a namespace or container, names end at
 * `//` as in the URL: `kubectl://ns/pod//path`, `kubectl://ns/pod/container//path`; a container
 * without a namespace: `kubectl:///pod/container//path`). Trust records of remote folders use it.
 */
export function workspaceUrlOf(location: WorkspaceLocation, absolutePath: string): string {
	switch (location.kind) {
		case "ssh": {
			const host = location.host.includes(":") ? `[${location.host}]` : location.host;
			const user = location.user === undefined ? "" : `${encodeURIComponent(location.user)}@`;
			return `ssh://${user}${host}${location.port === undefined ? "" : `:${location.port}`}${absolutePath}`;
		}
		case "docker":
		case "podman":
			return `${location.kind}://${location.container}${absolutePath}`;
		case "kubectl":
			if (location.namespace === undefined && location.container === undefined)
				return `kubectl://${location.pod}${absolutePath}`;
			if (location.container === undefined) return `kubectl://${location.namespace}/${location.pod}/${absolutePath}`;
			return `kubectl://${location.namespace ?? ""}/${location.pod}/${location.container}/${absolutePath}`;
	}
}
