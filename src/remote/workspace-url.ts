/** A parsed `--workspace` URL. */
export type WorkspaceLocation =
	| { kind: "ssh"; host: string; user?: string; port?: number; path: string }
	| { kind: "docker" | "podman"; container: string; path: string }
	| { kind: "kubectl"; namespace?: string; pod: string; container?: string; path: string };

/** An invalid workspace URL; the message says which forms exist. */
export class WorkspaceUrlError extends Error {
	override readonly name = "WorkspaceUrlError";
}

const forms =
	"Use ssh://[user@]host[:port]/absolute/path, docker://container/path, podman://container/path or kubectl://[namespace/]pod[/container]/path.";

/** True when `text` names a remote workspace (has a scheme toolbelt knows). */
export function isWorkspaceUrl(text: string): boolean {
	return /^(ssh|docker|podman|kubectl):\/\//.test(text);
}

/**
 * Parses `ssh://[user@]host[:port]/path`, `docker://container/path`, `podman://container/path`
 * and `kubectl://[namespace/]pod[/container]/path`. A kubectl URL is ambiguous where names end,
 * so: `kubectl://pod/path` names only a pod; with a namespace or container, `//` ends the names
 * (`kubectl://ns/pod//path`, `kubectl://ns/pod/container//path`).
 */
export function parseWorkspaceUrl(text: string): WorkspaceLocation {
	const match = /^(ssh|docker|podman|kubectl):\/\/([^/]+)(\/.*)?$/.exec(text);
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
