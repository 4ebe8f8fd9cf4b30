// The sandbox's network policy: which destinations a sandboxed command may reach through the proxy.
// Entries are host names (`registry.example.org`, `*.example.org` for every name below it), IP
// addresses and CIDR ranges (`127.0.0.1`, `10.0.0.0/8`, `[::1]`), each with an optional `:port`,
// or `*` for every host. Deny entries win over allow entries.
import { BlockList, isIP } from "node:net";
import { mappedIPv4 } from "./addresses.js";

/** One parsed entry of `sandbox.network.allow` or `deny`. */
export interface NetworkRule {
	/** As written in the settings (reported with each decision). */
	text: string;
	/**
	 * A host name pattern (lower case, `*.` for names below), an address range of one family (or of
	 * both: `localhost`), or every host.
	 */
	host:
		| { kind: "name"; name: string; below: boolean }
		| { kind: "address"; list: BlockList; family: AddressFamily | "both" }
		| { kind: "any" };
	/** The one port it covers; undefined for every port. */
	port?: number;
}

/** An address family as `BlockList` names it. */
export type AddressFamily = "ipv4" | "ipv6";

/** The parsed policy. */
export interface NetworkPolicy {
	allow: NetworkRule[];
	deny: NetworkRule[];
}

/** A setting that cannot be read; the message names it and what is wrong. */
export class NetworkRuleError extends Error {
	override name = "NetworkRuleError";
}

const hostNamePattern = /^(\*\.)?([a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/;

function splitPort(text: string): { host: string; port?: number } {
	const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
	if (bracketed)
		return { host: bracketed[1] ?? "", port: bracketed[2] === undefined ? undefined : Number(bracketed[2]) };
	// A bare IPv6 address has colons of its own and no port.
	if (isIP(text.split("/")[0] ?? "") === 6) return { host: text };
	const colon = text.lastIndexOf(":");
	if (colon === -1) return { host: text };
	return { host: text.slice(0, colon), port: Number(text.slice(colon + 1)) };
}

function addressRange(host: string): { list: BlockList; family: AddressFamily } | undefined {
	const [written = "", prefix] = host.split("/");
	if (isIP(written) === 0) return undefined;
	// `::ffff:10.0.0.0/104` is `10.0.0.0/8`: a mapped address is the IPv4 address itself.
	const mapped = mappedIPv4(written);
	const bitsBack = mapped !== undefined && (prefix === undefined || Number(prefix) >= 96) ? 96 : 0;
	const address = bitsBack > 0 && mapped !== undefined ? mapped : written;
	const family = isIP(address) === 4 ? "ipv4" : "ipv6";
	const list = new BlockList();
	if (prefix === undefined) list.addAddress(address, family);
	else {
		const bits = Number(prefix) - bitsBack;
		if (!/^\d+$/.test(prefix) || bits > (family === "ipv4" ? 32 : 128))
			throw new NetworkRuleError(`bad prefix length /${prefix}`);
		list.addSubnet(address, bits, family);
	}
	return { list, family };
}

/** Parses one entry; throws `NetworkRuleError` saying what is wrong with it. */
export function parseNetworkRule(text: string): NetworkRule {
	const trimmed = text.trim().toLowerCase();
	const { host, port } = splitPort(trimmed);
	if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65535)) {
		throw new NetworkRuleError(`"${text}": the port must be a number from 1 to 65535`);
	}
	if (host === "*") return { text, host: { kind: "any" }, port };
	// `localhost` is the loopback addresses, never a name the resolver is asked about.
	if (host === "localhost") return { text, host: { kind: "address", list: loopbackList(), family: "both" }, port };
	const range = (() => {
		try {
			return addressRange(host);
		} catch (error) {
			throw new NetworkRuleError(`"${text}": ${(error as Error).message}`);
		}
	})();
	if (range) return { text, host: { kind: "address", ...range }, port };
	if (!hostNamePattern.test(host)) {
		throw new NetworkRuleError(
			`"${text}" is not a host name, address or range: write "example.org", "*.example.org", "10.0.0.0/8" or "[::1]", each with an optional ":port"`,
		);
	}
	const below = host.startsWith("*.");
	const name = (below ? host.slice(2) : host).replace(/\.$/, "");
	return { text, host: { kind: "name", name, below }, port };
}

/** Parses allow and deny lists; throws `NetworkRuleError` naming the setting and the bad entry. */
export function parseNetworkPolicy(allow: readonly string[], deny: readonly string[]): NetworkPolicy {
	const parse = (key: string, entries: readonly string[]) =>
		entries.map((entry) => {
			try {
				return parseNetworkRule(entry);
			} catch (error) {
				throw new NetworkRuleError(`sandbox.network.${key}: ${(error as Error).message}`);
			}
		});
	return { allow: parse("allow", allow), deny: parse("deny", deny) };
}

/** A destination as the client named it: a host name (lower case, no trailing dot) or an address. */
export interface Destination {
	host: string;
	port: number;
}

function loopbackList(): BlockList {
	const list = new BlockList();
	list.addSubnet("127.0.0.0", 8, "ipv4");
	list.addAddress("::1", "ipv6");
	return list;
}

function familyOf(address: string): AddressFamily {
	return isIP(address) === 6 ? "ipv6" : "ipv4";
}

/**
 * Whether an address range covers `address`, each family on its own: `BlockList` alone would count
 * every IPv4 address as inside an IPv6 range holding `::ffff:0:0/96` (`::/0` would cover 127.0.0.1).
 */
export function rangeCovers(range: { list: BlockList; family: AddressFamily | "both" }, address: string): boolean {
	const family = familyOf(address);
	if (isIP(address) === 0 || (range.family !== "both" && range.family !== family)) return false;
	return range.list.check(address, family);
}

/** Whether `rule` covers the host name or address `host` (without looking at the port). */
function coversHost(rule: NetworkRule, host: string): boolean {
	const pattern = rule.host;
	if (pattern.kind === "any") return true;
	if (pattern.kind === "address") {
		return rangeCovers(pattern, host === "localhost" ? "127.0.0.1" : host);
	}
	if (isIP(host) !== 0) return false;
	return pattern.below ? host.endsWith(`.${pattern.name}`) : host === pattern.name;
}

/** The first rule of `rules` covering `host` on `port`. */
export function matchingRule(rules: readonly NetworkRule[], host: string, port: number): NetworkRule | undefined {
	return rules.find((rule) => (rule.port === undefined || rule.port === port) && coversHost(rule, host));
}

/** The rule of an address-range entry covering `address` on `port`, if one does (`*` does not). */
export function addressRule(rules: readonly NetworkRule[], address: string, port: number): NetworkRule | undefined {
	return rules.find(
		(rule) =>
			rule.host.kind === "address" && (rule.port === undefined || rule.port === port) && coversHost(rule, address),
	);
}

/** A host name of letters, digits, `-` and `_` labels: what `normalizeHost` gives for a name it can read. */
const plainHostName = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/**
 * True when `host` (normalized) is an address or a plain host name, the only forms judged. An IPv6
 * zone id (`fe80::1%eth0`) picks an interface of the proxy's machine: not a destination to judge.
 */
export function isReadableHost(host: string): boolean {
	return (isIP(host) !== 0 && !host.includes("%")) || plainHostName.test(host);
}

/**
 * The one spelling rules are matched against, and the one the resolver is asked: lower case, no
 * trailing dots, IPv6 without brackets, and a name as Node's resolver reads it — mapped through
 * UTS 46 (`ａpi.example.org`, `api。example.org` are `api.example.org`), percent-decoded, and
 * `16909060`, `0x01020304` or `1.2.772` read as the address `1.2.3.4`, so no other spelling of a
 * denied name or of an address slips past a rule. A name that cannot be read stays as it is (and
 * fails `isReadableHost`).
 */
export function normalizeHost(host: string): string {
	const lower = host.toLowerCase();
	const bare = lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
	if (isIP(bare) !== 0) return mappedIPv4(bare) ?? bare;
	// Only a whole name goes through the URL parser: one with a path, user or port in it is not a name.
	if (/[/\\@?#:\s[\]]/.test(bare)) return bare;
	try {
		const hostname = new URL(`http://${bare}/`).hostname;
		const unbracketed = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
		if (isIP(unbracketed) !== 0) return mappedIPv4(unbracketed) ?? unbracketed;
		return unbracketed.replace(/\.+$/, "");
	} catch {
		return bare;
	}
}
