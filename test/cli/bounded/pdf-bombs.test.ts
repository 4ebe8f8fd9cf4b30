import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDir } from "../../helpers/temp-dir.js";
import { CliProcesses, cleanEnv } from "../helpers/cli-binary.js";
import { peakMemoryEnv, peakMemoryOf } from "../helpers/peak-memory.js";

const MB = 1024 * 1024;

/** A one-page PDF whose content stream is `content`, Flate-compressed as PDF writers do. */
function compressedPdf(content: Buffer): Buffer {
	const stream = deflateSync(content, { level: 9 });
	const objects = [
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
	];
	const parts: Buffer[] = [Buffer.from("%PDF-1.4\n", "latin1")];
	const offsets: number[] = [];
	let length = parts[0]?.length ?? 0;
	const add = (part: Buffer) => {
		parts.push(part);
		length += part.length;
	};
	objects.forEach((body, index) => {
		offsets.push(length);
		add(Buffer.from(`${index + 1} 0 obj\n${body}\nendobj\n`, "latin1"));
	});
	offsets.push(length);
	add(Buffer.from(`5 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`, "latin1"));
	add(stream);
	add(Buffer.from("\nendstream\nendobj\n", "latin1"));
	const xref = `xref\n0 6\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("")}`;
	add(Buffer.from(`${xref}trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`, "latin1"));
	return Buffer.concat(parts);
}

describe("toolbelt tool read on a PDF decompression bomb", () => {
	const dir = useTempDir();
	const processes = new CliProcesses();
	afterEach(() => processes.killAll());

	it("refuses a page that inflates to 100 MB before inflating it, in bounded memory", async () => {
		const content = Buffer.concat([Buffer.from("BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n"), Buffer.alloc(100 * MB, " ")]);
		await writeFile(join(dir(), "bomb.pdf"), compressedPdf(content));
		const run = await processes.run(["tool", "read", '{"path": "bomb.pdf"}'], {
			cwd: dir(),
			env: cleanEnv(peakMemoryEnv()),
		});
		const { peakBytes, stderr } = peakMemoryOf(run);
		expect(run.code).toBe(1);
		expect(stderr).toMatch(/inflates to more than 32(\.0)? MB, more than read decompresses/);
		// pdf.js alone held the 100 MB page several times over (1.24 GB measured).
		expect(peakBytes).toBeLessThan(250 * MB);
	}, 120_000);

	it("still reads a compressed PDF of ordinary size", async () => {
		const content = Buffer.from("BT /F1 12 Tf 72 720 Td (hello compressed world) Tj ET\n");
		await writeFile(join(dir(), "fine.pdf"), compressedPdf(content));
		const run = await processes.run(["tool", "read", '{"path": "fine.pdf"}'], { cwd: dir() });
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain("hello compressed world");
	}, 120_000);
});
