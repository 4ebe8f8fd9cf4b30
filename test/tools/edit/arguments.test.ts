import { describe, expect, it } from "vitest";
import { validateToolArguments } from "../../../src/engine/validation/validate.js";
import { prepareEditArguments } from "../../../src/tools/edit/arguments.js";
import { createEditTool } from "../../../src/tools/edit.js";

const tool = createEditTool("/");
const prepareAndValidate = (args: unknown) => validateToolArguments(tool, prepareEditArguments(args));

describe("edit prepareArguments", () => {
	it("accepts oldText/newText and old_str/new_str and file_path", () => {
		expect(prepareAndValidate({ path: "a", oldText: "x", newText: "y" })).toEqual({
			path: "a",
			old_string: "x",
			new_string: "y",
		});
		expect(prepareAndValidate({ file_path: "a", old_str: "x", new_str: "y", replaceAll: "true" })).toEqual({
			path: "a",
			old_string: "x",
			new_string: "y",
			replace_all: true,
		});
	});

	it("parses edits sent as a JSON string and renames fields inside", () => {
		const edits = JSON.stringify([
			{ oldText: "a", newText: "b" },
			{ old_string: "c", new_string: "d", replace_all: true },
		]);
		expect(prepareAndValidate({ path: "f", edits })).toEqual({
			path: "f",
			edits: [
				{ old_string: "a", new_string: "b" },
				{ old_string: "c", new_string: "d", replace_all: true },
			],
		});
	});

	it("wraps a single edit object in an array, also when it came as a JSON string", () => {
		expect(prepareAndValidate({ path: "f", edits: { old_str: "a", new_str: "b" } })).toEqual({
			path: "f",
			edits: [{ old_string: "a", new_string: "b" }],
		});
		expect(prepareAndValidate({ path: "f", edits: '{"oldText":"a","newText":"b"}' })).toEqual({
			path: "f",
			edits: [{ old_string: "a", new_string: "b" }],
		});
	});

	it("drops nulls for unused fields and keeps the canonical name when both are sent", () => {
		expect(
			prepareAndValidate({ path: "f", old_string: "a", oldText: "ignored", new_string: "b", edits: null }),
		).toEqual({
			path: "f",
			old_string: "a",
			new_string: "b",
		});
	});

	it("drops an empty top-level pair sent next to edits (strict-schema callers fill every field)", () => {
		expect(
			prepareAndValidate({
				path: "f",
				old_string: "",
				new_string: "",
				replace_all: false,
				edits: [{ old_string: "a", new_string: "b", replace_all: false }],
			}),
		).toEqual({ path: "f", edits: [{ old_string: "a", new_string: "b", replace_all: false }] });
		expect(prepareAndValidate({ path: "f", old_string: "", new_string: "" })).toEqual({
			path: "f",
			old_string: "",
			new_string: "",
		});
	});

	it("repairs edits sent as a JSON string with raw line breaks and tabs inside its strings", () => {
		// Real line breaks and a tab inside the strings, next to proper JSON escapes (\" and \t).
		const edits = '[{"old_string": "if (a) {\n\treturn 1;\n}", "new_string": "say \\"hi\\"\r\n\\tend"}]';
		expect(() => JSON.parse(edits)).toThrow();
		expect(prepareAndValidate({ path: "f", edits })).toEqual({
			path: "f",
			edits: [{ old_string: "if (a) {\n\treturn 1;\n}", new_string: 'say "hi"\r\n\tend' }],
		});
	});

	it("leaves what it cannot repair for validation to report", () => {
		expect(() => prepareAndValidate({ path: "f", edits: "not json" })).toThrow(/edits/);
		expect(() => prepareAndValidate({ path: "f", old_string: "a", new_string: "b", bogus: 1 })).toThrow(/bogus/);
	});
});
