import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createReadTool, type ReadToolOptions } from "../../src/tools/read.js";
import { makeBombPdf, makePdf, type PdfOptions } from "../helpers/make-pdf.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";

// The decompression cap must hold whatever the filter chain: each case is a stream that decodes to
// more than the 32 MB one stream may (through filters the check did not decode before), and the
// same chain on an ordinary page must still read.
const temp = useTempDir();
const MB = 1024 * 1024;

async function read(name: string, options?: ReadToolOptions): Promise<string> {
	try {
		return resultText(await createReadTool(temp(), options).execute("1", { path: name }, undefined));
	} catch (error) {
		return `refused: ${(error as Error).message}`;
	}
}

const chains: { name: string; options: PdfOptions; bombBytes: number }[] = [
	{
		name: "Flate with an indirect /Length",
		options: { filters: ["FlateDecode"], indirectLength: true },
		bombBytes: 34 * MB,
	},
	{ name: "[/ASCII85Decode /FlateDecode]", options: { filters: ["ASCII85Decode", "FlateDecode"] }, bombBytes: 34 * MB },
	{
		name: "[/ASCIIHexDecode /FlateDecode]",
		options: { filters: ["ASCIIHexDecode", "FlateDecode"] },
		bombBytes: 34 * MB,
	},
	{ name: "LZWDecode", options: { filters: ["LZWDecode"] }, bombBytes: 34 * MB },
	{ name: "RunLengthDecode", options: { filters: ["RunLengthDecode"] }, bombBytes: 34 * MB },
	{ name: "[/FlateDecode /FlateDecode]", options: { filters: ["FlateDecode", "FlateDecode"] }, bombBytes: 34 * MB },
	{ name: "[/RunLengthDecode /LZWDecode]", options: { filters: ["RunLengthDecode", "LZWDecode"] }, bombBytes: 34 * MB },
	{ name: "BrotliDecode", options: { filters: ["BrotliDecode"] }, bombBytes: 34 * MB },
	{
		name: "/Filter as a reference to an array",
		options: { filters: ["ASCII85Decode", "FlateDecode"], indirectFilter: true },
		bombBytes: 34 * MB,
	},
	{
		name: "names written with #xx escapes",
		options: { filters: ["ASCIIHexDecode", "FlateDecode"], escapedNames: true },
		bombBytes: 34 * MB,
	},
];

describe("read tool: PDF stream filters", () => {
	it.each(chains)(
		"refuses a page that decodes past the cap through $name",
		async ({ options, bombBytes }) => {
			await writeFile(join(temp(), "bomb.pdf"), makeBombPdf(bombBytes, options));
			const text = await read("bomb.pdf");
			expect(text).toMatch(/^refused: .* inflates to more than 32(\.0)? MB, more than read decompresses/);
			expect(text).toContain(`filters [${(options.filters ?? []).join(" ")}]`);
		},
		60_000,
	);

	it.each(chains)(
		"still reads an ordinary page through $name",
		async ({ options }) => {
			await writeFile(join(temp(), "fine.pdf"), makePdf(["hello through the filters", "page two"], options));
			const text = await read("fine.pdf");
			expect(text).toContain("[Page 1 of 2]\nhello through the filters");
			expect(text).toContain("[Page 2 of 2]\npage two");
		},
		60_000,
	);

	it("refuses an image codec on a page's content stream (its output is sized by a header nothing checks)", async () => {
		const pdf = makePdf(["x"]).toString("latin1").replace("<< /Length", "<< /Filter /JBIG2Decode /Length");
		await writeFile(join(temp(), "codec.pdf"), Buffer.from(pdf, "latin1"));
		expect(await read("codec.pdf")).toMatch(/cannot be decoded within a bound: an image codec \(JBIG2Decode\)/);
	});

	it("bounds an encrypted file's streams by their size (they are decoded only after decryption)", async () => {
		const pdf = makeBombPdf(40 * MB)
			.toString("latin1")
			.replace("/Root 1 0 R", "/Root 1 0 R /Encrypt << /Filter /Standard >>");
		await writeFile(join(temp(), "locked.pdf"), Buffer.from(pdf, "latin1"));
		expect(await read("locked.pdf")).toMatch(/It is encrypted, so read bounds its streams by their size alone/);
	});

	// Before, an /Encrypt key written with #xx escapes went unseen: the ciphertext failed the Flate
	// check's header test and passed as an empty stream, and pdf.js then decrypted and inflated it.
	it("sees encryption named with escapes: an RC4-encrypted bomb is refused, a small encrypted page reads", async () => {
		const options: PdfOptions = { filters: ["FlateDecode"], encrypt: true, escapedNames: true };
		await writeFile(join(temp(), "hidden-lock.pdf"), makeBombPdf(100 * MB, options));
		expect(await read("hidden-lock.pdf")).toMatch(
			/inflates to more than 32\.0 MB.*It is encrypted, so read bounds its streams by their size alone/,
		);
		await writeFile(join(temp(), "small-lock.pdf"), makePdf(["an encrypted page"], options));
		expect(await read("small-lock.pdf")).toContain("an encrypted page");
	});

	// Before, a stream dictionary too long for the check's reader was skipped, and pdf.js read it.
	it("refuses a stream whose dictionary is too long to read (its filters cannot be told)", async () => {
		const pdf = makeBombPdf(100 * MB)
			.toString("latin1")
			.replace("<< /Length", `<< /Pad [${"0 ".repeat(600_000)}] /Length`);
		await writeFile(join(temp(), "long-dictionary.pdf"), Buffer.from(pdf, "latin1"));
		expect(await read("long-dictionary.pdf")).toMatch(
			/cannot be decoded within a bound: its dictionary is too long or too deeply nested to read/,
		);
	});

	it("stops an extraction that runs past the time cap, with a notice naming the option", async () => {
		// A hundred thousand text operators: seconds of pdf.js work, far past a 1 ms cap on any machine.
		const lines = Array.from({ length: 100_000 }, (_, index) => `line ${index}`).join("\n");
		await writeFile(join(temp(), "slow.pdf"), makePdf([lines]));
		const text = await read("slow.pdf", { pdfTimeoutMs: 1 });
		expect(text).toMatch(/^refused: slow\.pdf: extracting the PDF's text took longer than 0\.001 s.*pdfTimeoutMs/);
		// The same file reads under the default cap (its first page only, cut at the output limit).
		expect(await read("slow.pdf")).toContain("[Page 1 of 1]\nline 0\nline 1\n");
	}, 120_000);
});
