import { BlockList, isIP } from "node:net";

// Addresses that are not on the public internet: a name that resolves to one of these (DNS
// rebinding of an allowed name onto the user's machine or network) is refused unless an address
// entry of the allow list covers it.
const nonPublic = new BlockList();
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
	nonPublic.addSubnet(address, bits, "ipv4");
}
for (const [address, bits] of [
	["::", 127],
	["64:ff9b::", 96],
	["fc00::", 7],
	["fe80::", 10],
	["ff00::", 8],
] as const) {
	nonPublic.addSubnet(address, bits, "ipv6");
}

/** True for loopback, private, link-local, carrier-grade NAT, multicast, reserved and unspecified addresses. */
export function isNonPublicAddress(address: string): boolean {
	const family = isIP(address);
	if (family === 0) return true;
	// An IPv4 address in IPv6 form is refused outright. (Not a BlockList range: its check would
	// count every IPv4 address as inside ::ffff:0:0/96.)
	if (family === 6 && /^(0*:)*:?ffff:/i.test(address)) return true;
	return nonPublic.check(address, family === 4 ? "ipv4" : "ipv6");
}
