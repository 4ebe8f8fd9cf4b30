import { describe, expect, it } from "vitest";
import { decide, type HostResolver } from "../../../src/safety/sandbox/network/decide.js";
import { NetworkRuleError, parseNetworkPolicy } from "../../../src/safety/sandbox/network/policy.js";

const resolved: Record<string, string[]> = {
	"registry.example.org": ["93.184.216.34"],
	"api.example.org": ["93.184.216.35"],
	"rebound.example.org": ["10.0.0.7"],
	"mixed.example.org": ["192.168.1.1", "93.184.216.36"],
};
const asked: string[] = [];
const resolver: HostResolver = async (host) => {
	asked.push(host);
	return resolved[host] ?? [];
};

function judge(allow: string[], deny: string[], host: string, port = 443) {
	return decide({ host, port }, { policy: parseNetworkPolicy(allow, deny), resolver });
}

describe("the network policy", () => {
	it("allows a listed name and connects to the address it checked", async () => {
		expect(await judge(["registry.example.org"], [], "registry.example.org")).toEqual({
			allowed: true,
			address: "93.184.216.34",
			rule: "registry.example.org",
		});
	});

	it("matches *.name below the name only, ports when given, case and a trailing dot alike", async () => {
		expect((await judge(["*.example.org"], [], "API.Example.org.")).allowed).toBe(true);
		expect((await judge(["*.example.org"], [], "example.org")).allowed).toBe(false);
		expect((await judge(["registry.example.org:443"], [], "registry.example.org", 80)).allowed).toBe(false);
	});

	it("judges the name the resolver is asked: another spelling of a denied name or an address is no way round", async () => {
		asked.length = 0;
		// Node's resolver maps full-width letters and 。 (UTS 46), reads 0x…/decimal IPv4 as addresses,
		// and a name with two trailing dots still ends in one.
		for (const host of ["ａpi.example.org", "api\u3002example.org", "API.example.org..", "api%2eexample.org"]) {
			expect(await judge(["*"], ["api.example.org"], host), host).toMatchObject({
				allowed: false,
				rule: "api.example.org",
			});
		}
		for (const host of ["16909060", "0x01020304", "1.2.772"]) {
			expect(await judge(["*"], [], host), host).toMatchObject({
				allowed: false,
				reason: expect.stringContaining("1.2.3.4:443 is an address"),
			});
		}
		expect(asked).toEqual([]);
		expect(await judge(["*"], [], "ａpi.example.org")).toMatchObject({ allowed: true, address: "93.184.216.35" });
		expect(asked).toEqual(["api.example.org"]);
	});

	it("lets deny win over allow and never resolves a refused name", async () => {
		asked.length = 0;
		const refused = await judge(["*"], ["*.example.org"], "secret.example.org");
		expect(refused).toMatchObject({ allowed: false, rule: "*.example.org" });
		expect((await judge(["registry.example.org"], [], "leak-data.example.org")).allowed).toBe(false);
		expect(asked).toEqual([]);
	});

	it("refuses an allowed name that resolves to a private address unless an address entry lists it", async () => {
		expect((await judge(["rebound.example.org"], [], "rebound.example.org")).allowed).toBe(false);
		expect((await judge(["rebound.example.org", "10.0.0.0/8"], [], "rebound.example.org")).allowed).toBe(true);
		expect(await judge(["mixed.example.org"], [], "mixed.example.org")).toMatchObject({ address: "93.184.216.36" });
	});

	it("needs an address entry for a direct address: * covers names only", async () => {
		expect((await judge(["*"], [], "93.184.216.34")).allowed).toBe(false);
		expect((await judge(["93.184.216.0/24"], [], "93.184.216.34")).allowed).toBe(true);
		expect((await judge(["*"], [], "::ffff:127.0.0.1")).allowed).toBe(false);
		expect((await judge(["[::1]:8080"], [], "::1", 8080)).allowed).toBe(true);
	});

	it("judges an IPv4 address inside an IPv6 one as the IPv4 it reaches, however wide the IPv6 range allowed", async () => {
		const allow = ["::/0", "*"];
		const deny = ["93.184.216.34", "169.254.169.254"];
		// NAT64 (well-known and local-use prefixes), IPv4-mapped, -translated and -compatible, 6to4,
		// Teredo (server, and the client stored inverted): each reaches a denied or private IPv4 address.
		for (const host of [
			"64:ff9b::5db8:d822",
			"64:ff9b::169.254.169.254",
			"64:ff9b:1:5db8:d8:2200::",
			"64:ff9b:1::93.184.216.34",
			"::ffff:93.184.216.34",
			"[::ffff:a9fe:a9fe]",
			"::ffff:0:93.184.216.34",
			"::93.184.216.34",
			"2002:5db8:d822::1",
			"2001:0:5db8:d822::1",
			"2001:0:4136:e378:8000:63bf:a247:27dd",
		]) {
			expect(await judge(allow, deny, host), host).toMatchObject({ allowed: false, rule: expect.any(String) });
		}
		for (const host of [
			"::ffff:127.0.0.1",
			"::127.0.0.1",
			"64:ff9b::10.0.0.1",
			"2002:c0a8:101::1",
			"127.0.0.1",
			"10.1.2.3",
		]) {
			expect(await judge(allow, [], host), host).toMatchObject({ allowed: false });
		}
		// An IPv6 address that embeds a public IPv4 address nobody denied is still reached.
		expect(await judge(allow, deny, "64:ff9b::808:808")).toMatchObject({ allowed: true, rule: "::/0" });
		expect(await judge(allow, deny, "2606:4700::1111")).toMatchObject({ allowed: true });
		// An IPv4 entry covers the mapped spelling of its address, which is the same destination.
		expect(await judge(["127.0.0.1:8080"], [], "[::ffff:127.0.0.1]", 8080)).toMatchObject({
			allowed: true,
			address: "127.0.0.1",
		});
	});

	it("refuses an IPv6 zone id (an interface of the proxy's machine)", async () => {
		expect(await judge(["fe80::/10"], [], "fe80::1%eth0")).toMatchObject({
			allowed: false,
			reason: expect.stringContaining("zone id"),
		});
		expect(await judge(["fe80::/10"], [], "fe80::1")).toMatchObject({ allowed: true });
	});

	it("reaches localhost only by the listed port", async () => {
		expect((await judge(["localhost:5432"], [], "localhost", 5432)).allowed).toBe(true);
		expect((await judge(["localhost:5432"], [], "127.0.0.1", 5432)).allowed).toBe(true);
		expect((await judge(["localhost:5432"], [], "localhost", 6379)).allowed).toBe(false);
		expect((await judge(["*"], [], "localhost", 5432)).allowed).toBe(false);
	});

	it("refuses a malformed entry, naming the setting", () => {
		expect(() => parseNetworkPolicy(["exa mple.org"], [])).toThrow(NetworkRuleError);
		expect(() => parseNetworkPolicy([], ["example.org:99999"])).toThrow(/sandbox\.network\.deny/);
		expect(() => parseNetworkPolicy(["10.0.0.0/40"], [])).toThrow(/prefix/);
	});
});
