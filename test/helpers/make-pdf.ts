import { createHash } from "node:crypto";
import { encodeForFilters, type PdfFilter } from "./pdf-filters.js";

export type { PdfFilter } from "./pdf-filters.js";

/** How the builder writes each page's content stream. */
export interface PdfOptions {
	/** The content streams' filter chain, in decoding order (/Filter [/ASCII85Decode /FlateDecode]). Default: none. */
	filters?: readonly PdfFilter[];
	/** Write /Length as a reference to an object holding the number, as many writers do. */
	indirectLength?: boolean;
	/** Write /Filter as a reference to an object holding the array. */
	indirectFilter?: boolean;
	/** Write each name's letters as #xx escapes after the first (/Fl#61teDecode reads as FlateDecode). */
	escapedNames?: boolean;
	/**
	 * Encrypt the streams with the standard security handler, RC4 with a 40-bit key (revision 2), an
	 * empty user password (every reader opens it). With `escapedNames` the trailer's key is written
	 * `/E#6e#63#72#79#70#74`, which readers take as /Encrypt.
	 */
	encrypt?: boolean;
}

/** The 32 bytes that pad a password (PDF 1.7, 7.6.3.3). */
const PASSWORD_PAD = Buffer.from("28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a", "hex");

function rc4(key: Buffer, data: Buffer): Buffer {
	const state = Array.from({ length: 256 }, (_, index) => index);
	let j = 0;
	for (let i = 0; i < 256; i++) {
		j = (j + (state[i] ?? 0) + (key[i % key.length] ?? 0)) & 0xff;
		[state[i], state[j]] = [state[j] ?? 0, state[i] ?? 0];
	}
	const output = Buffer.alloc(data.length);
	let i = 0;
	j = 0;
	for (let index = 0; index < data.length; index++) {
		i = (i + 1) & 0xff;
		j = (j + (state[i] ?? 0)) & 0xff;
		[state[i], state[j]] = [state[j] ?? 0, state[i] ?? 0];
		output[index] = (data[index] ?? 0) ^ (state[((state[i] ?? 0) + (state[j] ?? 0)) & 0xff] ?? 0);
	}
	return output;
}

const md5 = (...parts: Buffer[]) => createHash("md5").update(Buffer.concat(parts)).digest();

/** The standard handler's values for an empty user password (algorithms 2, 3 and 4, revision 2). */
function rc4Security() {
	const id = Buffer.from("0123456789abcdef0123456789abcdef", "hex");
	const permissions = Buffer.alloc(4);
	permissions.writeInt32LE(-4);
	const ownerPassword = Buffer.concat([Buffer.from("owner", "latin1"), PASSWORD_PAD]).subarray(0, 32);
	const owner = rc4(md5(ownerPassword).subarray(0, 5), PASSWORD_PAD);
	const fileKey = md5(PASSWORD_PAD, owner, permissions, id).subarray(0, 5);
	const user = rc4(fileKey, PASSWORD_PAD);
	const objectKey = (object: number) =>
		md5(fileKey, Buffer.from([object & 0xff, (object >> 8) & 0xff, (object >> 16) & 0xff, 0, 0])).subarray(0, 10);
	const dictionary = `<< /Filter /Standard /V 1 /R 2 /O <${owner.toString("hex")}> /U <${user.toString("hex")}> /P -4 >>`;
	return { id, objectKey, dictionary };
}

function escapeName(name: string): string {
	return name.replace(/(?<=^.)[a-z]/g, (letter) => `#${letter.charCodeAt(0).toString(16)}`);
}

function filterValue(filters: readonly PdfFilter[], options: PdfOptions): string {
	const names = filters.map((filter) => `/${options.escapedNames ? escapeName(filter) : filter}`);
	return names.length === 1 ? (names[0] ?? "") : `[${names.join(" ")}]`;
}

/** The text operators of one page: each line shown with the standard font, a line apart. */
function pageContent(text: string | null): Buffer {
	const lines = text === null ? [] : text.split("\n");
	const shown = lines.map((line) => `(${line.replace(/[\\()]/g, (character) => `\\${character}`)}) Tj T*`);
	return Buffer.from(lines.length > 0 ? `BT /F1 12 Tf 72 720 Td 14 TL ${shown.join(" ")} ET` : "", "latin1");
}

/**
 * Writes a valid PDF (1.4, one standard font) with one page per entry of `pages`: a string is the
 * page's text, its lines split on "\n"; `null` makes a page with no text, as a scan has; a Buffer
 * is the page's content stream as is (a decompression bomb: text operators, then padding).
 * ASCII text only (the standard font's encoding). `options` encodes the content streams.
 */
export function makePdf(pages: readonly (string | null | Buffer)[], options: PdfOptions = {}): Buffer {
	const objects: Buffer[] = [];
	const add = (body: string | Buffer): number => objects.push(Buffer.from(body as string, "latin1"));
	const catalog = add("");
	const pageTree = add("");
	const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
	const filters = options.filters ?? [];
	const filterObject = filters.length > 0 && options.indirectFilter ? add(filterValue(filters, options)) : undefined;
	const kids: number[] = [];
	const security = options.encrypt ? rc4Security() : undefined;
	for (const page of pages) {
		const content = Buffer.isBuffer(page) ? page : pageContent(page);
		const encoded = encodeForFilters(content, filters);
		// The stream object's number: the next one unless an indirect length takes it first.
		const streamNumber = objects.length + (options.indirectLength ? 2 : 1);
		const stream = security ? rc4(security.objectKey(streamNumber), encoded) : encoded;
		const length = options.indirectLength ? `${add(String(stream.length))} 0 R` : String(stream.length);
		const filter =
			filters.length === 0
				? ""
				: ` /Filter ${filterObject !== undefined ? `${filterObject} 0 R` : filterValue(filters, options)}`;
		const streamObject = add(
			Buffer.concat([
				Buffer.from(`<< /Length ${length}${filter} >>\nstream\n`, "latin1"),
				stream,
				Buffer.from("\nendstream", "latin1"),
			]),
		);
		kids.push(
			add(
				`<< /Type /Page /Parent ${pageTree} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${streamObject} 0 R >>`,
			),
		);
	}
	objects[catalog - 1] = Buffer.from(`<< /Type /Catalog /Pages ${pageTree} 0 R >>`, "latin1");
	objects[pageTree - 1] = Buffer.from(
		`<< /Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(" ")}] /Count ${kids.length} >>`,
		"latin1",
	);
	const parts = [Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1")];
	let length = parts[0]?.length ?? 0;
	const offsets: number[] = [];
	objects.forEach((body, index) => {
		offsets.push(length);
		const part = Buffer.concat([
			Buffer.from(`${index + 1} 0 obj\n`, "latin1"),
			body,
			Buffer.from("\nendobj\n", "latin1"),
		]);
		parts.push(part);
		length += part.length;
	});
	let encryption = "";
	if (security) {
		// Not encrypted itself: the handler's dictionary is written last, after every stream.
		const encryptObject = objects.length + 1;
		const part = Buffer.from(`${encryptObject} 0 obj\n${security.dictionary}\nendobj\n`, "latin1");
		offsets.push(length);
		parts.push(part);
		length += part.length;
		const key = options.escapedNames ? "/E#6e#63#72#79#70#74" : "/Encrypt";
		encryption = ` ${key} ${encryptObject} 0 R /ID [<${security.id.toString("hex")}> <${security.id.toString("hex")}>]`;
	}
	const count = offsets.length + 1;
	const entries = offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("");
	const xref = `xref\n0 ${count}\n0000000000 65535 f \n${entries}`;
	const trailer = `trailer\n<< /Size ${count} /Root ${catalog} 0 R${encryption} >>\nstartxref\n${length}\n%%EOF\n`;
	parts.push(Buffer.from(xref + trailer, "latin1"));
	return Buffer.concat(parts);
}

/**
 * A one-page PDF whose content stream decodes to `decodedBytes`: a line of text, then blanks.
 * Small on disk with a compressing filter, it is what a decompression bomb looks like.
 */
export function makeBombPdf(decodedBytes: number, options: PdfOptions = { filters: ["FlateDecode"] }): Buffer {
	const head = Buffer.from("BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n", "latin1");
	return makePdf([Buffer.concat([head, Buffer.alloc(Math.max(0, decodedBytes - head.length), " ")])], options);
}
