/**
 * Ends what the shell tools left running (background processes, full-output files). Called when
 * the MCP server stops, so stdin EOF leaves nothing behind.
 */
export async function disposeShellProcesses(): Promise<void> {
	// Wired to the shell runner's dispose function once it lands (src/tools/shell/).
}
