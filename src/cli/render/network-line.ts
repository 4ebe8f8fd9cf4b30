// The line under a sandboxed shell call that shows where its command connected through the
// network policy's proxy (details.network of its result): allowed destinations with their count
// and bytes, refused ones with the entry that decided. One line at most, whatever the command opened.

/** The fields of a `details.network` entry this line uses (the shell tools' `ShellNetworkConnection`). */
interface Connection {
	host: string;
	port: number;
	allowed: boolean;
	rule?: string;
	reason?: string;
	bytesSent: number;
	bytesReceived: number;
}

function isConnection(value: unknown): value is Connection {
	const entry = value as Partial<Connection> | null;
	return (
		typeof entry === "object" &&
		entry !== null &&
		typeof entry.host === "string" &&
		typeof entry.port === "number" &&
		typeof entry.allowed === "boolean" &&
		typeof entry.bytesSent === "number" &&
		typeof entry.bytesReceived === "number"
	);
}

function bytes(count: number): string {
	if (count < 1000) return `${count} B`;
	const units = ["kB", "MB", "GB", "TB"];
	let value = count;
	let unit = "B";
	for (const next of units) {
		if (value < 1000) break;
		value /= 1000;
		unit = next;
	}
	return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`;
}

/** A refusal's reason (a sentence for the model) in a few words for the screen. */
function refusalWords(entry: Connection): string {
	const reason = entry.reason ?? "";
	const rule = (entry.rule ?? "").replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
	if (reason.includes("placeholder")) return "a secret's placeholder";
	if (reason.includes("sandbox.network.deny")) return `denied by "${rule}"`;
	if (reason.includes("is not in sandbox.network.allow")) return "not in sandbox.network.allow";
	if (reason.includes("does not resolve")) return "does not resolve";
	if (reason.includes("address")) return "address not listed";
	return "by the policy";
}

/** Destinations named on the line; the rest are counted (`+3 more`). */
const shownDestinations = 4;

/** One destination: its connections taken together. */
interface Destination {
	name: string;
	allowed: boolean;
	count: number;
	bytes: number;
	/** Why the first of them was refused, in a few words. */
	why?: string;
}

/**
 * `network: ✓ registry.test:4873 ×3 12 kB · ✗ evil.test:80 refused (deny evil.test)`, from a
 * result's `details.network`, or undefined when the call made no connection through the proxy.
 * Refused destinations come first (they are what a person needs to see), then the busiest allowed ones.
 */
export function networkSummary(details: unknown): string | undefined {
	const list = (details as { network?: unknown } | null | undefined)?.network;
	if (!Array.isArray(list)) return undefined;
	const destinations = new Map<string, Destination>();
	for (const entry of list) {
		if (!isConnection(entry)) continue;
		// Host names are the command's: no control character may reach the terminal.
		const host = entry.host.replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
		const name = `${host.includes(":") ? `[${host}]` : host}:${entry.port}`;
		const key = `${entry.allowed ? "+" : "-"}${name}`;
		const known = destinations.get(key) ?? { name, allowed: entry.allowed, count: 0, bytes: 0 };
		known.count += 1;
		known.bytes += entry.bytesSent + entry.bytesReceived;
		if (!entry.allowed) known.why ??= refusalWords(entry);
		destinations.set(key, known);
	}
	if (destinations.size === 0) return undefined;
	const ordered = [...destinations.values()].sort(
		// Refused ones keep the order the command met them in (the sort is stable).
		(a, b) => Number(a.allowed) - Number(b.allowed) || (a.allowed ? b.bytes - a.bytes || b.count - a.count : 0),
	);
	const parts = ordered.slice(0, shownDestinations).map((destination) => {
		const times = destination.count > 1 ? ` ×${destination.count}` : "";
		if (destination.allowed) return `✓ ${destination.name}${times} ${bytes(destination.bytes)}`;
		return `✗ ${destination.name}${times} refused (${destination.why ?? "by the policy"})`;
	});
	const more = ordered.length - shownDestinations;
	return `network: ${parts.join(" · ")}${more > 0 ? ` · +${more} more` : ""}`;
}
