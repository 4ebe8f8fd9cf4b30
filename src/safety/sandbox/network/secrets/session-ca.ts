// The session's certificate authority, for the hosts whose requests get a secret put in: the proxy
// ends TLS for them with a certificate this CA signs, which only the sandbox is told to trust.
// node-forge makes the certificates (one package, no dependencies, no global polyfill); the keys
// come from Node's own crypto. The CA's private key lives in this process's memory only: it is
// never written anywhere, so no path the sandbox can read holds it.
import { generateKeyPair, randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { createSecureContext, type SecureContext } from "node:tls";
import type Forge from "node-forge";

type ForgeModule = typeof Forge;

/** A CA made for one session: its certificate (PEM) and the TLS context of each host it signs for. */
export interface SessionCa {
	/** The CA certificate, PEM: what the sandbox trusts. */
	certificatePem: string;
	/** The server context for `host` (a certificate for that name, made once and kept). */
	contextFor(host: string): SecureContext;
}

const hourMs = 3_600_000;
/** Long enough for any session; the CA ends with the process anyway. */
const lifetimeMs = 30 * 24 * hourMs;

function rsaKeys(): Promise<{ publicKey: string; privateKey: string }> {
	return new Promise((resolve, reject) => {
		generateKeyPair(
			"rsa",
			{
				modulusLength: 2048,
				publicKeyEncoding: { type: "spki", format: "pem" },
				privateKeyEncoding: { type: "pkcs8", format: "pem" },
			},
			(error, publicKey, privateKey) => (error ? reject(error) : resolve({ publicKey, privateKey })),
		);
	});
}

/** A positive serial number (the first byte's high bit clear), random so that no two certificates share one. */
function serialNumber(): string {
	const bytes = randomBytes(16);
	bytes[0] = (bytes[0] ?? 0) & 0x7f;
	return bytes.toString("hex");
}

function validity(certificate: Forge.pki.Certificate): void {
	// An hour back: a clock a little behind in the sandbox's tools must not see a future certificate.
	certificate.validity.notBefore = new Date(Date.now() - hourMs);
	certificate.validity.notAfter = new Date(Date.now() + lifetimeMs);
}

/** Makes a CA for this session; the leaf certificates share one key, made here too. */
export async function createSessionCa(): Promise<SessionCa> {
	// Loaded only for a session with secrets: every other start of toolbelt goes without it.
	const imported = (await import("node-forge")) as ForgeModule & { default?: ForgeModule };
	const forge = imported.default ?? imported;
	const [caKeys, leafKeys] = await Promise.all([rsaKeys(), rsaKeys()]);
	const caPrivate = forge.pki.privateKeyFromPem(caKeys.privateKey);
	const caPublic = forge.pki.publicKeyFromPem(caKeys.publicKey);
	const leafPublic = forge.pki.publicKeyFromPem(leafKeys.publicKey);
	const name = [
		{ name: "commonName", value: `toolbelt sandbox session ${randomBytes(4).toString("hex")}` },
		{ name: "organizationName", value: "toolbelt" },
	];
	const ca = forge.pki.createCertificate();
	ca.publicKey = caPublic;
	ca.serialNumber = serialNumber();
	validity(ca);
	ca.setSubject(name);
	ca.setIssuer(name);
	ca.setExtensions([
		{ name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
		{ name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
		{ name: "subjectKeyIdentifier" },
	]);
	ca.sign(caPrivate, forge.md.sha256.create());
	const certificatePem = forge.pki.certificateToPem(ca);
	const caKeyId = ca.generateSubjectKeyIdentifier().getBytes();
	const contexts = new Map<string, SecureContext>();
	return {
		certificatePem,
		contextFor: (host) => {
			const known = contexts.get(host);
			if (known) return known;
			const leaf = forge.pki.createCertificate();
			leaf.publicKey = leafPublic;
			leaf.serialNumber = serialNumber();
			validity(leaf);
			leaf.setSubject([{ name: "commonName", value: host }]);
			leaf.setIssuer(ca.subject.attributes);
			const altName = isIP(host) === 0 ? { type: 2, value: host } : { type: 7, ip: host };
			leaf.setExtensions([
				{ name: "basicConstraints", cA: false },
				{ name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
				{ name: "extKeyUsage", serverAuth: true },
				{ name: "subjectAltName", altNames: [altName] },
				{ name: "subjectKeyIdentifier" },
				{ name: "authorityKeyIdentifier", keyIdentifier: caKeyId },
			]);
			leaf.sign(caPrivate, forge.md.sha256.create());
			const context = createSecureContext({
				key: leafKeys.privateKey,
				cert: `${forge.pki.certificateToPem(leaf)}${certificatePem}`,
			});
			contexts.set(host, context);
			return context;
		},
	};
}
