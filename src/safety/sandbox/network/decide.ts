import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { embeddedIPv4, isNonPublicAddress } from "./addresses.js";
import {
	addressRule,
	type Destination,
	isReadableHost,
	matchingRule,
	type NetworkPolicy,
	normalizeHost,
} from "./policy.js";

/**
 * Resolves a host name to its addresses (the proxy's own name resolution: the sandbox has none).
 * Contract: resolves to an empty list, or rejects, when the name does not resolve.
 */
export type HostResolver = (host: string) => Promise<string[]>;

/** The system's resolver (`getaddrinfo`, as every program on the host resolves). */
export const systemResolver: HostResolver = async (host) =>
	(await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** A connection the policy lets through: where to connect, and the rule that allowed it. */
export interface Allowed {
	allowed: true;
	/** The address to connect to: the one that was checked (no second resolution). */
	address: string;
	/** The allow entry, as written. */
	rule: string;
}

/** A connection the policy refuses, with a sentence for the model. */
export interface Refused {
	allowed: false;
	/** Why, naming the host and what would allow it. */
	reason: string;
	/** The deny entry that refused it, when one did. */
	rule?: string;
}

/** What the proxy needs to judge a destination. */
export interface DecideOptions {
	policy: NetworkPolicy;
	/** Resolves names that are not pinned. Default: the system's resolver. */
	resolver?: HostResolver;
	/** Names pinned to addresses (`sandbox.network.hosts`), checked like resolved ones. Default: none. */
	hosts?: Readonly<Record<string, string>>;
}

const resolveTimeoutMs = 10_000;

const allowHint = (host: string, port: number) =>
	`add "${host}" (or "${host}:${port}") to sandbox.network.allow in ~/.toolbelt/settings.json if the command needs it`;

async function resolveHost(host: string, options: DecideOptions): Promise<string[]> {
	const pinned = options.hosts?.[host];
	if (pinned !== undefined) return [pinned];
	if (host === "localhost" || host.endsWith(".localhost")) return ["127.0.0.1", "::1"];
	const resolver = options.resolver ?? systemResolver;
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<string[]>((resolve) => {
		timer = setTimeout(() => resolve([]), resolveTimeoutMs);
	});
	try {
		return await Promise.race([resolver(host).catch(() => []), timeout]);
	} finally {
		clearTimeout(timer);
	}
}

/**
 * Judges one address `host` resolved to (or `host` itself, an address), and each IPv4 address it
 * embeds (addresses.ts: NAT64, 6to4, Teredo… reach it): deny entries, then non-public addresses.
 */
function judgeAddress(address: string, destination: Destination, options: DecideOptions): Refused | undefined {
	const { policy } = options;
	const forms = [address, ...embeddedIPv4(address)];
	for (const form of forms) {
		const denied = addressRule(policy.deny, form, destination.port);
		if (denied) {
			const which = form === address ? address : `${address} (which reaches ${form})`;
			return {
				allowed: false,
				rule: denied.text,
				reason: `${which} is denied by "${denied.text}" in sandbox.network.deny`,
			};
		}
	}
	for (const form of forms) {
		if (!isNonPublicAddress(form) || addressRule(policy.allow, form, destination.port)) continue;
		const reached = form === address ? "" : ` (it reaches the IPv4 address ${form})`;
		const named =
			destination.host === address
				? `${address}${reached}`
				: `${destination.host} resolves to ${address}${reached}, which`;
		return {
			allowed: false,
			reason: `${named} is a loopback, private or reserved address: such an address is reached only when sandbox.network.allow lists it (e.g. "${form}:${destination.port}")`,
		};
	}
	return undefined;
}

/**
 * Decides whether a sandboxed command may connect to `destination`: deny entries first, then an
 * allow entry must cover the name (a direct address needs an address entry: `*` covers names
 * only); then the name is resolved here, and the address it resolved to is judged too, so an
 * allowed name that resolves to a loopback or private address is refused unless an address entry
 * allows that address. A name no entry allows is never resolved (a refused name leaks nothing to DNS).
 */
export async function decide(destination: Destination, options: DecideOptions): Promise<Allowed | Refused> {
	const host = normalizeHost(destination.host);
	const port = destination.port;
	const { policy } = options;
	const where = `${host}:${port}`;
	if (isIP(host) === 6 && host.includes("%")) {
		return {
			allowed: false,
			reason: `"${destination.host}" carries an IPv6 zone id, which picks a network interface of the proxy's machine: connect to a host name or an address without it`,
		};
	}
	if (!isReadableHost(host)) {
		return {
			allowed: false,
			reason: `"${destination.host}" is not a host name or address the proxy can judge (letters, digits, "-", "_" and dots)`,
		};
	}
	const denied = matchingRule(policy.deny, host, port);
	if (denied)
		return {
			allowed: false,
			rule: denied.text,
			reason: `${where} is denied by "${denied.text}" in sandbox.network.deny`,
		};
	if (isIP(host) !== 0) {
		const rule = addressRule(policy.allow, host, port);
		if (!rule) {
			return {
				allowed: false,
				reason: `${where} is an address that sandbox.network.allow does not list (connect by host name, or ${allowHint(host, port)})`,
			};
		}
		return judgeAddress(host, { host, port }, options) ?? { allowed: true, address: host, rule: rule.text };
	}
	const rule = matchingRule(policy.allow, host, port);
	if (!rule) return { allowed: false, reason: `${where} is not in sandbox.network.allow: ${allowHint(host, port)}` };
	const addresses = await resolveHost(host, options);
	if (addresses.length === 0)
		return { allowed: false, reason: `${host} does not resolve (checked outside the sandbox)` };
	let firstRefusal: Refused | undefined;
	for (const address of addresses) {
		const refusal = judgeAddress(address, { host, port }, options);
		if (!refusal) return { allowed: true, address, rule: rule.text };
		firstRefusal ??= refusal;
	}
	return firstRefusal as Refused;
}
