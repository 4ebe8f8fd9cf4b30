import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createReadTool, type ReadPdfDetails, type ReadToolOptions } from "../../src/tools/read.js";
import { makePdf } from "../helpers/make-pdf.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();

async function read(args: { path: string; offset?: number; limit?: number }, options?: ReadToolOptions) {
	const result = await createReadTool(temp(), options).execute("1", args, undefined);
	return { result, text: resultText(result), details: result.details as ReadPdfDetails };
}

function pages(count: number, empty: readonly number[] = []): (string | null)[] {
	return Array.from({ length: count }, (_, index) =>
		empty.includes(index + 1) ? null : `Page ${index + 1} first line\nsecond line of page ${index + 1}`,
	);
}

describe("read tool: PDF", () => {
	it("reads every page of a small PDF, each headed with its number, and says pages are the unit", async () => {
		await writeFile(join(temp(), "doc.pdf"), makePdf(pages(3)));
		const { text, details } = await read({ path: "doc.pdf" });
		expect(text).toContain("offset and limit count pages");
		expect(text).toContain("[Page 1 of 3]\nPage 1 first line\nsecond line of page 1");
		expect(text).toContain("[Page 3 of 3]\nPage 3 first line");
		expect(text).toContain("[Showing pages 1-3 of 3: end of document.]");
		expect(details).toMatchObject({ kind: "pdf", totalPages: 3, startPage: 1, endPage: 3, truncated: false });
	});

	it("pages with offset and limit counted in pages, with the continuation hint", async () => {
		await writeFile(join(temp(), "doc.pdf"), makePdf(pages(10)));
		const { text, details } = await read({ path: "doc.pdf", offset: 4, limit: 2 });
		expect(text).not.toContain("[Page 3 of 10]");
		expect(text).toContain("[Page 4 of 10]\nPage 4 first line");
		expect(text).toContain("[Page 5 of 10]");
		expect(text).not.toContain("[Page 6 of 10]");
		expect(text).toContain("Use offset=6 to continue.");
		expect(details).toMatchObject({ startPage: 4, endPage: 5, truncatedBy: "pages", nextOffset: 6 });
	});

	it("says which pages have no text (scanned or blank)", async () => {
		await writeFile(join(temp(), "scan.pdf"), makePdf(pages(3, [2])));
		const { text, details } = await read({ path: "scan.pdf" });
		expect(text).toMatch(/\[Page 2 of 3\]\n\(no text on this page: a scanned image or a blank page/);
		expect(text).toContain("1 page without text (2)");
		expect(details.pagesWithoutText).toEqual([2]);
	});

	it("stops at the byte budget between pages and continues from the next page", async () => {
		await writeFile(join(temp(), "long.pdf"), makePdf(pages(200)));
		const { text, details } = await read({ path: "long.pdf" }, { maxBytes: 2000 });
		expect(Buffer.byteLength(text)).toBeLessThan(2600);
		expect(details.truncatedBy).toBe("bytes");
		expect(details.endPage).toBeGreaterThan(3);
		expect(text).toContain(`output limit reached. Use offset=${details.endPage + 1} to continue.`);
		const next = await read({ path: "long.pdf", offset: details.nextOffset }, { maxBytes: 2000 });
		expect(next.text).toContain(`[Page ${details.endPage + 1} of 200]`);
		expect(next.details.startPage).toBe(details.endPage + 1);
	});

	it("cuts a single page larger than the budget so paging still moves on", async () => {
		const big = Array.from({ length: 60 }, (_, index) => `line ${index} of a very full page`).join("\n");
		await writeFile(join(temp(), "big.pdf"), makePdf([big, "next page"]));
		const { text, details } = await read({ path: "big.pdf" }, { maxBytes: 500 });
		expect(text).toContain("[page 1 cut at the");
		expect(details).toMatchObject({ endPage: 1, pageCut: true, nextOffset: 2 });
	});

	it("detects a PDF by its magic bytes, not its name, and refuses an offset past the last page", async () => {
		await writeFile(join(temp(), "report.bin"), makePdf(pages(2)));
		expect((await read({ path: "report.bin" })).details.kind).toBe("pdf");
		await expect(read({ path: "report.bin", offset: 5 })).rejects.toThrow(/the PDF has 2 pages.*offset from 1 to 2/);
	});

	it("reports a damaged PDF as such", async () => {
		await writeFile(join(temp(), "broken.pdf"), "%PDF-1.4\nthis is not really a pdf\n");
		await expect(read({ path: "broken.pdf" })).rejects.toThrow(/broken\.pdf starts like a PDF but could not be parsed/);
	});
});

describe("read tool: PDF detection", () => {
	it("finds a PDF header after binary junk, but reads text that mentions %PDF- as text", async () => {
		await writeFile(
			join(temp(), "junk.pdf"),
			Buffer.concat([Buffer.from([0xff, 0x00, 0x10]), makePdf(["late header"])]),
		);
		expect((await read({ path: "junk.pdf" })).details.kind).toBe("pdf");
		await writeFile(join(temp(), "magic.ts"), 'const header = "%PDF-1.4";\n');
		const text = await read({ path: "magic.ts" });
		expect((text.result.details as { kind: string }).kind).toBe("text");
		expect(text.text).toContain('const header = "%PDF-1.4";');
	});
});
