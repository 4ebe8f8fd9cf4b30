/**
 * V8's flags that keep every WebAssembly module compiled after them on the baseline compiler.
 * Each tree-sitter grammar's lexer is one huge function (161 KB of code for bash) that V8
 * recompiles with its optimising tier as soon as it runs: 2.4-4.4 s of CPU and 700 MB of memory on
 * Node 24 for a one-shot `toolbelt tool bash` (1.5 s on Node 20), against 0.4 s and 64 MB with the
 * baseline tier alone, and parses of commands and edited files were no slower (BENCHMARKS.md).
 * All three are named: set at run time, `--liftoff-only` alone no longer turns the other two off on
 * Node 24 (flag implications are applied only at start-up).
 */
export const BASELINE_WEBASSEMBLY_FLAGS = "--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering";

/**
 * Marks the process once the flags are set. On `globalThis`, so that the CLI's start-up file and
 * its bundle, which each hold a copy of this module, see one state.
 */
const FLAGS_SET = Symbol.for("toolbelt.baselineWebAssembly");

/**
 * Keeps WebAssembly compiled from now on in this process on V8's baseline tier (once; later calls
 * do nothing). The CLI calls it before it compiles its bundle for the commands that may parse
 * with a grammar: V8's code cache records the flags it was made under and rejects itself under
 * others, so flags changed after the compile made every start that judged a command compile the
 * whole bundle again. `node:v8` is loaded here, not at import: loading it cost a start ~10 ms.
 */
export function keepWebAssemblyOnBaselineCompiler(): void {
	const state = globalThis as { [FLAGS_SET]?: boolean };
	if (state[FLAGS_SET]) return;
	state[FLAGS_SET] = true;
	process.getBuiltinModule("node:v8").setFlagsFromString(BASELINE_WEBASSEMBLY_FLAGS);
}

/** True once `keepWebAssemblyOnBaselineCompiler` ran in this process. */
export function baselineWebAssemblyFlagsSet(): boolean {
	return (globalThis as { [FLAGS_SET]?: boolean })[FLAGS_SET] === true;
}
