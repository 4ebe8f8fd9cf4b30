// YAML read by the `yaml` package (pure JavaScript; loaded at the first YAML file): its parse
// errors carry a line and column, and every document of a multi-document file is read.
import { lineAndColumn, MAX_PROBLEMS, type SyntaxProblem, type SyntaxReading } from "../problems.js";

type YamlModule = typeof import("yaml");
let yaml: Promise<YamlModule> | undefined;

/** Parses a YAML text (all its documents) and lists its errors. */
export async function readYaml(text: string): Promise<SyntaxReading> {
	yaml ??= import("yaml");
	const { parseAllDocuments } = await yaml;
	const parsed = parseAllDocuments(text);
	const documents = Array.isArray(parsed) ? parsed : [parsed];
	const problems: SyntaxProblem[] = [];
	for (const document of documents) {
		for (const error of document.errors) {
			if (problems.length >= MAX_PROBLEMS) break;
			const offset = error.pos[0];
			const { line, column } = lineAndColumn(text, offset);
			// The parser's message ends with its own excerpt of the text: the report shows its own.
			const description = (error.message.split(/ at line \d+, column \d+/)[0] ?? error.message).trim();
			problems.push({ line, column, offset, end: Math.max(offset, error.pos[1]), description });
		}
	}
	problems.sort((left, right) => left.offset - right.offset);
	return { problems, incomplete: false };
}
