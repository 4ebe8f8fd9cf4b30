// The secrets of a session and their placeholders. A sandboxed command sees a placeholder where
// the secret would be (a variable's value, a token in a file such as ~/.npmrc); the proxy puts
// the real value back only in the headers of requests to the hosts the secret belongs to, and
// refuses a request or connection that carries a placeholder anywhere else.
import { randomBytes } from "node:crypto";
import { matchingRule, type NetworkRule, parseNetworkRule } from "../policy.js";
import { otherNamedSite } from "./named-site.js";

/** One entry of `sandbox.network.secrets`: a variable or a token file, and the hosts it belongs to. */
export interface SecretSetting {
	/** An environment variable holding the secret (`NPM_TOKEN`). */
	env?: string;
	/** A file whose tokens are secrets (`~/.npmrc`: the values of `_authToken`, `_auth` and `…token` keys). */
	file?: string;
	/** Where the real value may go, in the form of `sandbox.network.allow` (`registry.npmjs.org`, `*.github.com:443`). */
	hosts: readonly string[];
}

/** One secret value and its placeholder. */
export interface Secret {
	/** What the secret is, for messages: `$NPM_TOKEN`, `~/.npmrc`. */
	label: string;
	placeholder: string;
	value: string;
	/** The hosts it belongs to. */
	rules: NetworkRule[];
	/** The hosts as written. */
	hosts: readonly string[];
}

/** A request's headers with the placeholders replaced, or the refusal of a placeholder sent elsewhere. */
export type MaskOutcome =
	| { refused: false; headers: Record<string, string | string[] | undefined>; replaced: number }
	| { refused: true; reason: string };

/** A fresh placeholder: recognisable, and as unguessable as a token. */
export function newPlaceholder(): string {
	return `toolbelt-placeholder-${randomBytes(16).toString("hex")}`;
}

/** Parses the hosts of one secret entry; throws `NetworkRuleError` naming the entry. */
export function secretRules(label: string, hosts: readonly string[]): NetworkRule[] {
	return hosts.map((host) => {
		try {
			return parseNetworkRule(host);
		} catch (error) {
			throw new Error(`sandbox.network.secrets (${label}): ${(error as Error).message}`);
		}
	});
}

/** A value with its placeholders replaced: how many, and whose. */
interface Replaced {
	value: string;
	replaced: number;
	labels: string[];
}

/** `host:port` as a `Host` header writes it (an IPv6 address in brackets). */
function authorityOf(host: string, port: number): string {
	return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The placeholders of a session and where each may go. */
export class SecretTable {
	constructor(readonly secrets: readonly Secret[]) {}

	/** True when some secret belongs to `host:port` (the proxy then ends TLS for it). */
	belongsTo(host: string, port: number): boolean {
		return this.secrets.some((secret) => matchingRule(secret.rules, host, port) !== undefined);
	}

	/**
	 * The variables of `environment` that hold a secret's value (under another name than the
	 * secret's own: a copy for another tool, a variable passed by name), with the value replaced by
	 * its placeholder. Values shorter than 8 characters are not looked for (they would match by chance).
	 */
	environmentWithPlaceholders(environment: NodeJS.ProcessEnv): Record<string, string> {
		const secrets = this.secrets.filter((secret) => secret.value.length >= 8);
		const masked: Record<string, string> = {};
		for (const [name, value] of Object.entries(environment)) {
			if (value === undefined) continue;
			let result = value;
			for (const secret of secrets) result = result.split(secret.value).join(secret.placeholder);
			if (result !== value) masked[name] = result;
		}
		return masked;
	}

	/** The secrets whose placeholder occurs in `text`. */
	foundIn(text: string): Secret[] {
		return text.includes("toolbelt-placeholder-")
			? this.secrets.filter((secret) => text.includes(secret.placeholder))
			: [];
	}

	/** The sentence the model reads when a placeholder went to a host it does not belong to. */
	refusal(secret: Secret, host: string, port: number): string {
		return `the placeholder of ${secret.label} was sent to ${host}:${port}, which it does not belong to (sandbox.network.secrets lists ${secret.hosts.map((entry) => `"${entry}"`).join(", ")} for it); the request was not sent`;
	}

	/** The first placeholder in `text` that does not belong to `host:port`, as a refusal. */
	misplaced(text: string, host: string, port: number): string | undefined {
		const wrong = this.foundIn(text).find((secret) => matchingRule(secret.rules, host, port) === undefined);
		return wrong ? this.refusal(wrong, host, port) : undefined;
	}

	/** Replaces the placeholders in `value` that belong to `host:port`; refuses one that does not. */
	private replace(value: string, host: string, port: number): Replaced | string {
		let result = value;
		const labels: string[] = [];
		for (const secret of this.foundIn(value)) {
			if (matchingRule(secret.rules, host, port) === undefined) return this.refusal(secret, host, port);
			result = result.split(secret.placeholder).join(secret.value);
			labels.push(secret.label);
		}
		return { value: result, replaced: labels.length, labels };
	}

	/** One header value, with `Basic` credentials decoded, replaced and encoded again. */
	private headerValue(value: string, host: string, port: number): Replaced | string {
		const basic = /^(\s*basic\s+)([A-Za-z0-9+/=]+)\s*$/i.exec(value);
		if (basic) {
			const decoded = Buffer.from(basic[2] ?? "", "base64").toString("utf8");
			const inner = this.replace(decoded, host, port);
			if (typeof inner === "string") return inner;
			if (inner.replaced > 0) {
				return { ...inner, value: `${basic[1]}${Buffer.from(inner.value, "utf8").toString("base64")}` };
			}
		}
		return this.replace(value, host, port);
	}

	/**
	 * The request to `host:port` as it goes out: each placeholder in a header (and in `Basic`
	 * credentials) that belongs there replaced with its secret; a placeholder that does not, in a
	 * header or in the target (`url`), refuses the request. So does a request that gets a secret
	 * but names another site in its `Host` header or absolute target (named-site.ts); one without
	 * `Host` gets `host:port` as its `Host`, so no server's default site receives it.
	 */
	mask(url: string, headers: Record<string, string | string[] | undefined>, host: string, port: number): MaskOutcome {
		const inUrl = this.misplaced(url, host, port);
		if (inUrl) return { refused: true, reason: inUrl };
		const out: Record<string, string | string[] | undefined> = {};
		let replaced = 0;
		const carried = new Set<string>();
		for (const [name, value] of Object.entries(headers)) {
			// A header's name goes out as plainly as its value.
			const inName = this.misplaced(name, host, port);
			if (inName) return { refused: true, reason: inName };
			if (value === undefined) continue;
			const values = Array.isArray(value) ? value : [value];
			const masked: string[] = [];
			for (const one of values) {
				const outcome = this.headerValue(one, host, port);
				if (typeof outcome === "string") return { refused: true, reason: outcome };
				masked.push(outcome.value);
				replaced += outcome.replaced;
				for (const label of outcome.labels) carried.add(label);
			}
			out[name] = Array.isArray(value) ? masked : masked[0];
		}
		if (replaced > 0) {
			const other = otherNamedSite(url, out.host, host, port);
			if (other) {
				return {
					refused: true,
					reason: `the request to ${host}:${port} carries the value of ${[...carried].join(", ")} but ${other} names another site, which would receive it; the request was not sent (send it with the host's own name in the URL and Host header)`,
				};
			}
			out.host ??= authorityOf(host, port);
		}
		return { refused: false, headers: out, replaced };
	}
}
