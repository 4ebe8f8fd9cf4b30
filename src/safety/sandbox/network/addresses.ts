import { BlockList, isIP } from "node:net";

// Addresses that are not on the public internet: a name that resolves to one of these (DNS
// rebinding of an allowed name onto the user's machine or network) is refused unless an address
// entry of the allow list covers it.
let nonPublicList: BlockList | undefined;

/** The list, made on first use: the CLI's start imports this module (through policy.ts) and must not load node:net for it. */
function nonPublic(): BlockList {
	if (nonPublicList) return nonPublicList;
	const list = new BlockList();
	for (const [address, bits] of [
		["0.0.0.0", 8],
		["10.0.0.0", 8],
		["100.64.0.0", 10],
		["127.0.0.0", 8],
		["169.254.0.0", 16],
		["172.16.0.0", 12],
		["192.0.0.0", 24],
		["192.168.0.0", 16],
		["198.18.0.0", 15],
		["224.0.0.0", 3],
	] as const) {
		list.addSubnet(address, bits, "ipv4");
	}
	for (const [address, bits] of [
		["::", 127],
		["64:ff9b::", 96],
		["fc00::", 7],
		["fe80::", 10],
		["ff00::", 8],
	] as const) {
		list.addSubnet(address, bits, "ipv6");
	}
	nonPublicList = list;
	return list;
}

/** True for loopback, private, link-local, carrier-grade NAT, multicast, reserved and unspecified addresses. */
export function isNonPublicAddress(address: string): boolean {
	const family = isIP(address);
	if (family === 0) return true;
	// An IPv4 address in IPv6 form is refused outright. (Not a BlockList range: its check would
	// count every IPv4 address as inside ::ffff:0:0/96.)
	if (family === 6 && /^(0*:)*:?ffff:/i.test(address)) return true;
	return nonPublic().check(address, family === 4 ? "ipv4" : "ipv6");
}

// IPv6 addresses that carry an IPv4 address inside them, and reach it: IPv4-mapped and
// IPv4-translated forms (a dual-stack socket connects to the IPv4 itself), IPv4-compatible ones,
// NAT64 prefixes (a translator on the network forwards to the IPv4), 6to4 and Teredo (a relay
// tunnels to the IPv4). Allowing a wide IPv6 range such as `::/0` must not open a way to an IPv4
// address the policy denies or keeps private: each of these is judged as the IPv4 it reaches too.

/** The 16 bytes of an IPv6 address `isIP` accepts (without a zone id), or undefined. */
export function ipv6Bytes(address: string): number[] | undefined {
	if (isIP(address) !== 6 || address.includes("%")) return undefined;
	let text = address;
	let last: number[] | undefined;
	const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
	if (dotted) {
		last = dotted.slice(2, 6).map(Number);
		text = `${dotted[1]}0:0`;
	}
	const [head = "", tail] = text.split("::");
	const groupsOf = (part: string) => (part === "" ? [] : part.split(":"));
	const before = groupsOf(head);
	const after = tail === undefined ? [] : groupsOf(tail);
	const missing = 8 - before.length - after.length;
	const groups = [...before, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...after];
	if (groups.length !== 8) return undefined;
	const bytes = groups.flatMap((group) => {
		const value = Number.parseInt(group, 16);
		return [value >> 8, value & 0xff];
	});
	if (last) bytes.splice(12, 4, ...last);
	return bytes;
}

const startsWith = (bytes: number[], prefix: readonly number[]) => prefix.every((byte, index) => bytes[index] === byte);
const zeros = (count: number) => Array<number>(count).fill(0);

/**
 * Where each form keeps its IPv4 address: a prefix of the 16 bytes and the byte positions of the
 * four octets. A NAT64 local-use prefix (64:ff9b:1::/48, RFC 8215) may be 48 to 96 bits long, and
 * RFC 6052 puts the octets elsewhere for each length: every reading is taken.
 */
const embeddings: readonly { prefix: readonly number[]; octets: readonly number[] }[] = [
	{ prefix: [...zeros(10), 0xff, 0xff], octets: [12, 13, 14, 15] }, // ::ffff:a.b.c.d, mapped
	{ prefix: [...zeros(8), 0xff, 0xff, 0, 0], octets: [12, 13, 14, 15] }, // ::ffff:0:a.b.c.d, translated
	{ prefix: zeros(12), octets: [12, 13, 14, 15] }, // ::a.b.c.d, compatible (but :: and ::1, below)
	{ prefix: [0, 0x64, 0xff, 0x9b, ...zeros(8)], octets: [12, 13, 14, 15] }, // 64:ff9b::/96, NAT64
	{ prefix: [0, 0x64, 0xff, 0x9b, 0, 1], octets: [6, 7, 9, 10] }, // 64:ff9b:1::/48 read as a /48
	{ prefix: [0, 0x64, 0xff, 0x9b, 0, 1], octets: [7, 9, 10, 11] }, // … as a /56
	{ prefix: [0, 0x64, 0xff, 0x9b, 0, 1], octets: [9, 10, 11, 12] }, // … as a /64
	{ prefix: [0, 0x64, 0xff, 0x9b, 0, 1], octets: [12, 13, 14, 15] }, // … as a /96
	{ prefix: [0x20, 0x02], octets: [2, 3, 4, 5] }, // 2002::/16, 6to4
	{ prefix: [0x20, 0x01, 0, 0], octets: [4, 5, 6, 7] }, // 2001::/32, Teredo's server
];

/**
 * The IPv4 addresses an IPv6 address reaches (see above), first the most direct; empty for an
 * IPv4 address or an IPv6 address that embeds none. Teredo's client address is stored inverted.
 */
export function embeddedIPv4(address: string): string[] {
	const bytes = ipv6Bytes(address);
	if (!bytes) return [];
	const found = new Set<string>();
	// The unspecified and loopback addresses are themselves, not 0.0.0.0 and 0.0.0.1.
	if (startsWith(bytes, zeros(15)) && (bytes[15] ?? 0) <= 1) return [];
	for (const { prefix, octets } of embeddings) {
		if (startsWith(bytes, prefix)) found.add(octets.map((index) => bytes[index] ?? 0).join("."));
	}
	if (startsWith(bytes, [0x20, 0x01, 0, 0]))
		found.add(
			bytes
				.slice(12, 16)
				.map((byte) => byte ^ 0xff)
				.join("."),
		);
	return [...found];
}

/** The IPv4 address of an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, `::ffff:102:304`): the same destination. */
export function mappedIPv4(address: string): string | undefined {
	const bytes = ipv6Bytes(address);
	if (!bytes || !startsWith(bytes, [...zeros(10), 0xff, 0xff])) return undefined;
	return bytes.slice(12, 16).join(".");
}
