import { ToolError } from "../../../engine/index.js";

/** Most line comparisons one rung may make for one old_string. */
const MAX_COMPARISONS = 20_000_000;

/**
 * A count of the line comparisons a rung makes: an old_string of lines that each occur
 * everywhere (`}` on every line) ends with an error the model can act on, not a stalled call.
 */
export class WorkBudget {
	private spent = 0;

	/** Counts `comparisons`; throws a `ToolError` once the rung is over its budget. */
	spend(comparisons: number): void {
		this.spent += comparisons;
		if (this.spent > MAX_COMPARISONS) {
			throw new ToolError(
				"old_string is too repetitive to place with whitespace or indentation ignored in a file this size. Copy it exactly from the file, with a distinctive line in it.",
			);
		}
	}
}
