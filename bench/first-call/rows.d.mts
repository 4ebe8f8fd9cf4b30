/** One first-call row (see rows.mjs). */
export interface FirstCallRow {
	/** The row as the table names it. */
	title: string;
	/** The raw command doing the same work, run by bash in the data folder. */
	raw: string;
	/** Puts the data folder back before each side runs (the write rows' fresh folder). */
	reset?: (dataDir: string) => void;
}

/** Row name → row. */
export declare const ROWS: Record<string, FirstCallRow>;
