import type { Settings } from "../../settings/settings-schema.js";
import { NetworkRuleError } from "./policy.js";
import type { SandboxNetworkOptions } from "./session.js";

type SandboxSettings = NonNullable<Settings["sandbox"]>;

/** `allowNetwork: true` as a policy (when a deny list must still hold): every name and every address. */
const everything = ["*", "0.0.0.0/0", "::/0"];

/** `"name=address"` entries as a map; throws `NetworkRuleError` for a malformed one. */
export function parseHostPins(entries: readonly string[]): Record<string, string> {
	const pins: Record<string, string> = {};
	for (const entry of entries) {
		const [name, address, extra] = entry.split("=");
		if (!name || !address || extra !== undefined) {
			throw new NetworkRuleError(`sandbox.network.hosts: "${entry}" is not "name=address"`);
		}
		pins[name.trim().toLowerCase()] = address.trim();
	}
	return pins;
}

/**
 * The network policy of the settings and the caller's options, or undefined when there is none
 * (no allowed host: the sandbox has no network; or `allowNetwork` without a deny list: all of it).
 * The caller's `allow` replaces the settings'; deny lists, pinned names and secrets add up.
 */
export function networkPolicyOf(
	settings: SandboxSettings,
	options: { allowNetwork: boolean; network?: Partial<SandboxNetworkOptions> },
): SandboxNetworkOptions | undefined {
	const deny = [...(settings.network?.deny ?? []), ...(options.network?.deny ?? [])];
	let allow = [...(options.network?.allow ?? settings.network?.allow ?? [])];
	if (options.allowNetwork) {
		if (deny.length === 0 && allow.length === 0) return undefined;
		allow = everything;
	}
	if (allow.length === 0) return undefined;
	const hosts = { ...parseHostPins(settings.network?.hosts ?? []), ...options.network?.hosts };
	const secrets = [...(settings.network?.secrets ?? []), ...(options.network?.secrets ?? [])];
	return { ...options.network, allow, deny, hosts, ...(secrets.length > 0 ? { secrets } : {}) };
}
