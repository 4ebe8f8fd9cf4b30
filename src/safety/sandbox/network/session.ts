import { randomBytes } from "node:crypto";
import { homedir } from "node:os";
import type { NetworkConnectionListener, NetworkConnectionRecord } from "./audit.js";
import { type BridgeConfig, bridgeSource, connectHelperSource } from "./bridge-programs.js";
import type { HostResolver } from "./decide.js";
import { type LauncherConfig, launcherSource } from "./launcher-program.js";
import { type NetworkPolicy, NetworkRuleError, parseNetworkPolicy, rangeCovers } from "./policy.js";
import { type NetworkProxy, startNetworkProxy } from "./proxy-server.js";
import { type SecretSetting, type SessionSecrets, startSecrets } from "./secrets/index.js";
import { openSessionFiles } from "./session-files.js";

/** The sandbox's network policy: the hosts sandboxed commands may reach through the session's proxy. */
export interface SandboxNetworkOptions {
	/**
	 * Destinations commands may reach: `example.org`, `*.example.org` (every name below it), `*`
	 * (every host name), addresses and ranges (`10.1.2.3`, `10.0.0.0/8`, `[::1]`), `localhost`;
	 * each with an optional `:port`. A loopback, private or reserved address is reached only when an
	 * address entry (or `localhost`) covers it, also when a listed name resolves to it.
	 */
	allow: readonly string[];
	/** Destinations refused whatever `allow` says, in the same form. Default: none. */
	deny?: readonly string[];
	/** Names pinned to an address (like an /etc/hosts line), judged as if resolved. Default: none. */
	hosts?: Readonly<Record<string, string>>;
	/** Resolves names outside the sandbox. Default: the system's resolver. */
	resolver?: HostResolver;
	/** Told about every connection allowed or refused (the audit). Contract: must not throw. Default: none. */
	onConnection?: NetworkConnectionListener;
	/**
	 * Secrets kept out of the sandbox (`sandbox.network.secrets`): a variable or a token file and
	 * the hosts it belongs to. Inside, each holds a placeholder; the proxy puts the real value in
	 * the headers of requests to those hosts only (ending TLS for them with a session CA the sandbox
	 * trusts) and refuses a placeholder sent anywhere else. Default: none.
	 */
	secrets?: readonly SecretSetting[];
}

/** The ports the bridge listens on inside the sandbox (its own network namespace: nothing else is there). */
export const proxyPorts = { http: 3128, socks: 1080 } as const;

const connectHelperPath = "/tmp/.toolbelt-proxy-connect.cjs";

/** The network of one sandbox: its policy, its proxy, and what each call's command line needs. */
export interface NetworkSession {
	policy: NetworkPolicy;
	proxy: NetworkProxy;
	/**
	 * Stops the proxy and removes the session's files (the CA certificate and bundle, the masked
	 * token files, the socket); they also go when the process exits or gets SIGINT/SIGTERM/SIGHUP.
	 * Never throws.
	 */
	close(): Promise<void>;
	/**
	 * Starts a call's audit and returns the command line in front of bwrap's arguments (the
	 * launcher), the one after them (the bridge), and the environment the command gets.
	 */
	launch(options: { filterFile: string; bwrapPath: string; seccompFd: number; environment: NodeJS.ProcessEnv }): {
		file: string;
		before: string[];
		after: string[];
		env: Record<string, string>;
		/** Files mounted read-only inside: masked token files, the session CA. */
		binds: { source: string; target: string }[];
		/** Variables bwrap sets inside (where the session CA is). */
		setenv: Record<string, string>;
		/** Ends the call's audit: one notice per refused destination, for the model. */
		refusals(): string[];
		/** Ends the call's record of connections: each allowed or refused one, with its byte counts. */
		connections(): NetworkConnectionRecord[];
	};
}

/** Listed loopback ports: a command that ignores the proxy variables (a database client) reaches them as they are. */
function forwardedPorts(policy: NetworkPolicy): number[] {
	const ports = new Set<number>();
	for (const rule of policy.allow) {
		if (rule.host.kind === "address" && rule.port !== undefined && rangeCovers(rule.host, "127.0.0.1")) {
			if (rule.port === proxyPorts.http || rule.port === proxyPorts.socks) {
				throw new NetworkRuleError(
					`sandbox.network.allow: "${rule.text}": ports ${proxyPorts.http} and ${proxyPorts.socks} are the proxy's own inside the sandbox; reach that service by another name or port`,
				);
			}
			ports.add(rule.port);
		}
	}
	return [...ports];
}

/** The variables through which common tools find the proxy (and ssh its `ProxyCommand`). */
function proxyEnvironment(environment: NodeJS.ProcessEnv): Record<string, string> {
	const http = `http://127.0.0.1:${proxyPorts.http}`;
	const socks = `socks5h://127.0.0.1:${proxyPorts.socks}`;
	const ssh = environment.GIT_SSH_COMMAND ?? "ssh";
	return {
		HTTP_PROXY: http,
		HTTPS_PROXY: http,
		http_proxy: http,
		https_proxy: http,
		ALL_PROXY: socks,
		all_proxy: socks,
		// Everything goes through the proxy: a host reached directly has no route.
		NO_PROXY: "",
		no_proxy: "",
		NODE_USE_ENV_PROXY: "1",
		GIT_SSH_COMMAND: `${ssh} -o 'ProxyCommand=${process.execPath} ${connectHelperPath} %h %p'`,
	};
}

/** Where a session's secrets come from, and what the sandbox around its commands shares with the host. */
export interface SessionPlace {
	environment: NodeJS.ProcessEnv;
	homeDir: string;
	/** Commands see the host's processes (`isolateProcesses: false`). Default: false. */
	sharesProcesses?: boolean;
}

/**
 * Secrets are kept out only from commands that cannot see toolbelt's processes: the proxy holds the
 * real values in its memory and environment, and its /proc entries (environ, mem) are one kernel
 * permission check away from a command of the same user. Refused rather than hoped for.
 */
function assertSecretsHidden(secrets: SessionSecrets | undefined, place: SessionPlace): void {
	if (!secrets || !place.sharesProcesses) return;
	const labels = [...new Set(secrets.proxy.table.secrets.map((secret) => secret.label))].join(", ");
	throw new NetworkRuleError(
		`sandbox.network.secrets keeps ${labels} out of the sandbox, but with isolateProcesses: false its commands see toolbelt's own processes, which hold the real values (their /proc entries; a command may also signal them). Keep isolateProcesses on (the default) or remove those secrets; nothing was run.`,
	);
}

/**
 * Starts the proxy of a sandbox with a network policy (and reads the secrets it keeps out, from
 * `place`'s environment and home); throws `NetworkRuleError` for a bad entry, or for secrets in a
 * sandbox whose commands share the host's processes.
 */
export async function startNetworkSession(
	options: SandboxNetworkOptions,
	stateDir: string,
	place: SessionPlace = { environment: process.env, homeDir: homedir() },
): Promise<NetworkSession> {
	const policy = parseNetworkPolicy(options.allow, options.deny ?? []);
	const forwards = forwardedPorts(policy);
	const files = await openSessionFiles(stateDir);
	let secrets: SessionSecrets | undefined;
	let proxy: NetworkProxy;
	try {
		secrets = await startSecrets(options.secrets ?? [], { ...place, stateDir: files.folder });
		assertSecretsHidden(secrets, place);
		proxy = await startNetworkProxy({
			stateDir,
			decide: { policy, resolver: options.resolver, hosts: options.hosts },
			onConnection: options.onConnection,
			secrets: secrets?.proxy,
		});
	} catch (error) {
		files.remove();
		throw error;
	}
	files.alsoRemove(proxy.socketPath);
	const bridge: BridgeConfig = {
		...proxyPorts,
		forwards,
		connectHelper: { path: connectHelperPath, source: connectHelperSource(proxyPorts.http) },
	};
	return {
		policy,
		proxy,
		close: async () => {
			await proxy.close();
			files.remove();
		},
		launch: ({ filterFile, bwrapPath, seccompFd, environment }) => {
			// A secret's value under another name would bring it in: that variable gets the placeholder too.
			const masked = secrets?.proxy.table.environmentWithPlaceholders(environment) ?? {};
			const call = randomBytes(8).toString("hex");
			const launcher: LauncherConfig = { socket: proxy.socketPath, call, seccompFd };
			proxy.audit.begin(call);
			return {
				refusals: () => proxy.audit.end(call),
				connections: () => proxy.audit.takeConnections(call),
				file: process.execPath,
				before: ["-e", launcherSource, JSON.stringify(launcher), filterFile, bwrapPath],
				after: [process.execPath, "-e", bridgeSource, JSON.stringify(bridge)],
				env: { ...proxyEnvironment(environment), ...masked, ...secrets?.environment },
				binds: secrets?.binds ?? [],
				setenv: secrets?.trust ?? {},
			};
		},
	};
}
