// Result details of the paged document reads (PDF pages, notebook cells), kept apart from types.ts
// so each reader owns its shape.

/** Structured result of a PDF read: text extracted page by page. */
export interface ReadPdfDetails {
	kind: "pdf";
	/** The path as shown to the model. */
	path: string;
	/** The absolute path that was read. */
	absolutePath: string;
	/** File size in bytes. */
	size: number;
	/** Pages in the document. */
	totalPages: number;
	/** First page shown (1-based). */
	startPage: number;
	/** Last page shown (1-based); `startPage - 1` when not even one page fit. */
	endPage: number;
	/** Shown pages that have no text layer (scanned images or blank pages). */
	pagesWithoutText: number[];
	/** True when pages remain after `endPage`. */
	truncated: boolean;
	/** Which limit ended the page range: `limit`, the byte budget, or null. */
	truncatedBy: "pages" | "bytes" | null;
	/** The `offset` (a page number) that continues the read, when `truncated`. */
	nextOffset: number | undefined;
	/** True when the last shown page was itself cut to fit the byte budget. */
	pageCut: boolean;
}

/** Structured result of a Jupyter notebook read: cells in order. */
export interface ReadNotebookDetails {
	kind: "notebook";
	path: string;
	absolutePath: string;
	/** File size in bytes. */
	size: number;
	/** Cells in the notebook. */
	totalCells: number;
	/** First cell shown (1-based). */
	startCell: number;
	/** Last cell shown (1-based). */
	endCell: number;
	/** Image outputs returned as image blocks. */
	imagesIncluded: number;
	/** Image outputs only named in the text (over the per-read image limit, or images turned off). */
	imagesOmitted: number;
	/** Text outputs cut to the per-output budget. */
	outputsCut: number;
	/** True when cells remain after `endCell`. */
	truncated: boolean;
	/** Which limit ended the cell range: `limit`, the byte budget, or null. */
	truncatedBy: "cells" | "bytes" | null;
	/** The `offset` (a cell number) that continues the read, when `truncated`. */
	nextOffset: number | undefined;
}
