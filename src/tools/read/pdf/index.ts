// Reading a PDF as text, page by page, with its streams' decoded size and its time capped.
export { DEFAULT_PDF_TIMEOUT_MS, isPdf, readPdf } from "./read-pdf.js";
export { MAX_PDF_INFLATED_BYTES, MAX_PDF_STREAM_BYTES } from "./refusals.js";
