import type { ImageContent, TextContent, ToolResult } from "../../engine/index.js";
import { cutText, DEFAULT_MAX_BYTES, formatSize, ToolError, utf8Prefix } from "../../engine/index.js";
import { type ReadableFile, shellQuote } from "../../workspace/index.js";
import type { ReadNotebookDetails } from "../read/document-types.js";
import { fitImage } from "../read/image.js";
import { readWhole } from "../read/read-whole.js";
import type { ReadFileContentOptions } from "../read/types.js";
import { joinText, type NotebookCell, type NotebookOutput, notebookLanguage, parseNotebook } from "./notebook-json.js";

/** Notebooks larger than this are read as plain text pages instead of being parsed whole. */
const MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024;
/** Most characters of one text output shown; long logs and tables are cut with a marker. */
const MAX_OUTPUT_CHARS = 4000;
/** Most image outputs returned as images by one read (the rest are named in the text). */
const MAX_IMAGES_PER_READ = 8;
const IMAGE_MIME_TYPES = ["image/png", "image/jpeg"] as const;
const DEFAULT_IMAGE_MAX_SIDE = 2000;
const DEFAULT_IMAGE_MAX_BASE64 = 4.5 * 1024 * 1024;
// Terminal colour codes in tracebacks are noise to a model.
const ANSI_ESCAPES = /\u001b\[[0-9;]*[A-Za-z]/g;

/** An image output waiting to be fitted, if its cell makes it into the page. */
interface PendingImage {
	cell: number;
	mimeType: string;
	base64: string;
}

/** One cell as text, with the images its outputs hold. */
interface RenderedCell {
	text: string;
	images: PendingImage[];
	outputsCut: number;
}

function renderOutput(output: NotebookOutput, cell: number, rendered: RenderedCell): string {
	const cut = (text: string): string => {
		const result = cutText(text.replace(ANSI_ESCAPES, "").trimEnd(), { maxLength: MAX_OUTPUT_CHARS, noun: "output" });
		if (result.truncated) rendered.outputsCut++;
		return result.text;
	};
	if (output.output_type === "stream") return `[output: ${output.name ?? "stream"}]\n${cut(joinText(output.text))}`;
	if (output.output_type === "error") {
		const trace = (output.traceback ?? []).join("\n");
		return `[output: error ${output.ename ?? ""}: ${output.evalue ?? ""}]${trace ? `\n${cut(trace)}` : ""}`;
	}
	const data = output.data ?? {};
	const parts: string[] = [];
	for (const mimeType of IMAGE_MIME_TYPES) {
		const base64 = joinText(data[mimeType]).replace(/\s+/g, "");
		if (base64.length === 0) continue;
		rendered.images.push({ cell, mimeType, base64 });
		parts.push(`[output: ${mimeType} image, see image ${rendered.images.length} of this cell]`);
		break;
	}
	const plain = joinText(data["text/plain"]);
	const markdown = joinText(data["text/markdown"]);
	if (plain || markdown) parts.push(`[output: ${plain ? "text" : "markdown"}]\n${cut(plain || markdown)}`);
	const others = Object.keys(data).filter(
		(mimeType) => mimeType !== "text/plain" && mimeType !== "text/markdown" && !mimeType.startsWith("image/"),
	);
	if (others.length > 0 && parts.length === 0) parts.push(`[output: ${others.join(", ")}, not shown]`);
	return parts.join("\n");
}

function renderCell(cell: NotebookCell, number: number, total: number): RenderedCell {
	const rendered: RenderedCell = { text: "", images: [], outputsCut: 0 };
	const count = typeof cell.execution_count === "number" ? ` · execution_count ${cell.execution_count}` : "";
	const outputs = (cell.outputs ?? []).map((output) => renderOutput(output, number, rendered)).filter(Boolean);
	const source = joinText(cell.source);
	rendered.text = [
		`[Cell ${number} of ${total} · ${cell.cell_type}${count}]`,
		source.length > 0 ? source : "(empty)",
		...outputs,
	].join("\n");
	return rendered;
}

async function fitImages(
	pending: readonly PendingImage[],
	request: ReadFileContentOptions,
): Promise<{ blocks: (TextContent | ImageContent)[]; included: number }> {
	const { options } = request;
	const blocks: (TextContent | ImageContent)[] = [];
	let budget = options.imageMaxBase64Bytes ?? DEFAULT_IMAGE_MAX_BASE64;
	for (const image of pending) {
		if (blocks.length / 2 >= MAX_IMAGES_PER_READ || budget <= 0) break;
		const fitted = await fitImage(Buffer.from(image.base64, "base64"), image.mimeType, {
			maxWidth: options.imageMaxWidth ?? DEFAULT_IMAGE_MAX_SIDE,
			maxHeight: options.imageMaxHeight ?? DEFAULT_IMAGE_MAX_SIDE,
			maxBase64Bytes: budget,
			...(options.imageMaxInputPixels !== undefined ? { maxInputPixels: options.imageMaxInputPixels } : {}),
		});
		if (fitted.data === undefined) continue;
		budget -= fitted.data.length;
		blocks.push({ type: "text", text: `Image output of cell ${image.cell} (${fitted.mimeType}):` });
		blocks.push({ type: "image", data: fitted.data, mimeType: fitted.mimeType });
	}
	return { blocks, included: blocks.length / 2 };
}

/**
 * The notice for a notebook larger than read parses as cells (it is then paged as JSON text, in
 * bounded memory), or undefined when `size` is within the limit. A notebook that big is nearly
 * always one with huge outputs (a plot or a table of hundreds of MB in base64).
 */
export function largeNotebookNotice(shownPath: string, size: number): string | undefined {
	if (size <= MAX_NOTEBOOK_BYTES) return undefined;
	return (
		`[${shownPath} is a notebook of ${formatSize(size)}, more than the ${formatSize(MAX_NOTEBOOK_BYTES)} read parses as cells (its outputs are probably huge): ` +
		"shown as its JSON text instead, long lines cut. To see its cells, clear the outputs into a copy via bash " +
		`(jupyter nbconvert --clear-output --to notebook --output small.ipynb ${shellQuote(shownPath)}) and read that.]`
	);
}

/**
 * Reads a Jupyter notebook for the model as its cells in order (number, type, source, outputs):
 * `offset` and `limit` count cells, text outputs are cut to a budget and image outputs come back
 * as images. Resolves to undefined when the file is not notebook JSON, to be read as text.
 */
export async function readNotebook(
	request: ReadFileContentOptions,
	file: ReadableFile,
): Promise<ToolResult<ReadNotebookDetails> | undefined> {
	const { shownPath, absolutePath, size, options } = request;
	if (size > MAX_NOTEBOOK_BYTES) return undefined;
	const notebook = parseNotebook((await readWhole(file, size, request.signal)).toString("utf8"));
	if (!notebook) return undefined;
	const total = notebook.cells.length;
	const startCell = Math.max(1, request.offset ?? 1);
	if (startCell > Math.max(total, 1)) {
		throw new ToolError(
			`offset ${request.offset} is beyond the end of ${shownPath}: the notebook has ${total} cells (for a notebook, offset and limit count cells). Use an offset from 1 to ${total}.`,
			{ path: shownPath, totalCells: total },
		);
	}
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const maxCells = request.limit ?? Number.POSITIVE_INFINITY;
	const blocks: string[] = [];
	const pending: PendingImage[] = [];
	let used = 0;
	let outputsCut = 0;
	let endCell = startCell - 1;
	let truncatedBy: ReadNotebookDetails["truncatedBy"] = null;
	for (let number = startCell; number <= total; number++) {
		if (number - startCell >= maxCells) {
			truncatedBy = "cells";
			break;
		}
		const rendered = renderCell(notebook.cells[number - 1] as NotebookCell, number, total);
		const bytes = Buffer.byteLength(rendered.text, "utf8") + 2;
		if (used + bytes > maxBytes && blocks.length > 0) {
			truncatedBy = "bytes";
			break;
		}
		const text =
			used + bytes > maxBytes
				? `${utf8Prefix(rendered.text, maxBytes)}\n… [cell ${number} cut at the ${formatSize(maxBytes)} output limit]`
				: rendered.text;
		blocks.push(text);
		pending.push(...rendered.images);
		outputsCut += rendered.outputsCut;
		used += bytes;
		endCell = number;
		if (used > maxBytes && number < total) {
			truncatedBy = "bytes";
			break;
		}
	}
	const images = options.images === false ? { blocks: [], included: 0 } : await fitImages(pending, request);
	const nextOffset = truncatedBy !== null ? endCell + 1 : undefined;
	const language = notebookLanguage(notebook);
	const head = `[Notebook ${shownPath}, ${total} cells${language ? `, ${language}` : ""}, ${formatSize(size)} — for a notebook, offset and limit count cells. To change a cell's source, use edit with cell (its number) and new_source, or old_string/new_string within that cell.]`;
	const why = truncatedBy === "bytes" ? `; ${formatSize(maxBytes)} output limit reached` : "";
	const ending = nextOffset !== undefined ? `${why}. Use offset=${nextOffset} to continue.` : ": end of notebook.";
	const omitted = pending.length - images.included;
	const imageNote =
		omitted > 0
			? `\n[${omitted} image outputs not returned (image limit of one read reached, or images turned off).]`
			: "";
	const range = total === 0 ? "no cells" : `cells ${startCell}-${endCell} of ${total}`;
	return {
		content: [
			{ type: "text", text: `${head}\n\n${blocks.join("\n\n")}\n\n[Showing ${range}${ending}]${imageNote}` },
			...images.blocks,
		],
		details: {
			kind: "notebook",
			path: shownPath,
			absolutePath,
			size,
			totalCells: total,
			startCell,
			endCell,
			imagesIncluded: images.included,
			imagesOmitted: omitted,
			outputsCut,
			truncated: nextOffset !== undefined,
			truncatedBy,
			nextOffset,
		},
	};
}
