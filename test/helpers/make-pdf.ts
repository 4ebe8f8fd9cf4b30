/**
 * Writes a minimal valid PDF (1.4, uncompressed, one standard font) with one page per entry of
 * `pages`: each string is the page's text, its lines split on "\n"; `null` makes a page with no
 * text at all, as a scanned or blank page has. ASCII text only (the standard font's encoding).
 */
export function makePdf(pages: readonly (string | null)[]): Buffer {
	const objects: string[] = [];
	const add = (body: string): number => objects.push(body);
	const catalog = add("");
	const pageTree = add("");
	const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
	const kids: number[] = [];
	for (const text of pages) {
		const lines = text === null ? [] : text.split("\n");
		const shown = lines.map((line) => `(${line.replace(/[\\()]/g, (character) => `\\${character}`)}) Tj T*`);
		const stream = lines.length > 0 ? `BT /F1 12 Tf 72 720 Td 14 TL ${shown.join(" ")} ET` : "";
		const content = add(`<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`);
		kids.push(
			add(
				`<< /Type /Page /Parent ${pageTree} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`,
			),
		);
	}
	objects[catalog - 1] = `<< /Type /Catalog /Pages ${pageTree} 0 R >>`;
	objects[pageTree - 1] =
		`<< /Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(" ")}] /Count ${kids.length} >>`;
	const parts = [Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1")];
	let length = parts[0]?.length ?? 0;
	const offsets: number[] = [];
	objects.forEach((body, index) => {
		offsets.push(length);
		const part = Buffer.from(`${index + 1} 0 obj\n${body}\nendobj\n`, "latin1");
		parts.push(part);
		length += part.length;
	});
	const entries = offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("");
	const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}`;
	const trailer = `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${length}\n%%EOF\n`;
	parts.push(Buffer.from(xref + trailer, "latin1"));
	return Buffer.concat(parts);
}
