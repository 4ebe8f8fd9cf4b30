// Where the syntax check places an error that tree-sitter wraps, with everything before it, in one
// ERROR region from the top of the file (bash's `case` without `esac`, a C# class without its `}`):
// at the parser's first own complaint inside it, or at the construct left open, not at line 1.
import { describe, expect, it } from "vitest";
import { checkSyntaxChange } from "../../src/syntax/index.js";

const SCRIPT = `#!/bin/sh
set -eu

log() {
  printf '%s\\n' "$*" >&2
}

for name in a b c; do
  log "$name"
done

case "\${1:-}" in
  start) log starting ;;
  stop) log stopping ;;
  *) log usage ;;
esac

if [ -f /etc/hosts ]; then
  log hosts
fi
echo end
`;

const PROGRAM = `using System;
using System.Collections.Generic;

public class Inventory
{
    private readonly List<string> items = new();

    public void Add(string item)
    {
        items.Add(item);
    }

    public int Count()
    {
        return items.Count;
    }
}
`;

async function firstAdded(path: string, before: string, after: string) {
	expect(after).not.toBe(before);
	const verdict = await checkSyntaxChange({ path, before, after });
	expect(verdict.status).toBe("broken");
	return verdict.added[0];
}

describe("errors located inside a region that starts at the file's top", () => {
	it("bash: a case without esac is placed where the next statement cannot continue it, not at line 2", async () => {
		const problem = await firstAdded("/project/run.sh", SCRIPT, SCRIPT.replace("esac\n", "\n"));
		expect(problem).toMatchObject({ line: 18, column: 1, description: 'unexpected "if [ -f /etc/hosts ]; then"' });
	});

	it("bash: a quote left open names the loop it swallowed, at its line", async () => {
		const problem = await firstAdded("/project/run.sh", SCRIPT, SCRIPT.replace('"$name"', '"$name'));
		expect(problem).toMatchObject({
			line: 8,
			column: 1,
			description: '"for name in a b c; do" is not closed: the text ends before it is complete',
		});
	});

	it("C#: a method's missing } leaves the class open, named from its line's start", async () => {
		const after = PROGRAM.replace("        items.Add(item);\n    }\n", "        items.Add(item);\n");
		const problem = await firstAdded("/project/Inventory.cs", PROGRAM, after);
		expect(problem).toMatchObject({
			line: 4,
			column: 1,
			description: '"public class Inventory" is not closed: the text ends before it is complete',
		});
	});

	it("keeps a short region's own start and text: there, the text says what is wrong", async () => {
		const after = PROGRAM.replace("    public int Count()\n    {", "    public int Count()\n");
		const verdict = await checkSyntaxChange({ path: "/project/Inventory.cs", before: PROGRAM, after });
		expect(verdict.added).toContainEqual(
			expect.objectContaining({ line: 15, column: 9, description: 'unexpected "return items.Count;"' }),
		);
	});
});
