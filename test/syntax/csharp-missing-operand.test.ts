// C#'s grammar recovers from an operand left out (`var c = a + ;`) by reading an identifier that holds
// a MISSING hidden token: no ERROR or MISSING node is visible among the children, only the root's
// "has an error" flag. Such edits were applied as clean; they are refused at the place the operand
// is missing. Real broken files: a class of the kind a model edits, each edit one a model makes
// when it drops the rest of an expression.
import { describe, expect, it } from "vitest";
import { checkSyntaxChange } from "../../src/syntax/index.js";

const ORDER = `using System;
using System.Collections.Generic;
using System.Linq;

namespace Shop.Billing;

public sealed class Order
{
    private readonly List<Line> lines = new();

    public decimal Total(decimal discount)
    {
        var subtotal = lines.Sum(line => line.Price * line.Quantity);
        var total = subtotal - discount;
        if (total <= 0) total = 0;
        return total;
    }

    public string Label(int count)
    {
        var plural = count == 1 ? "item" : "items";
        return Format(count, plural).Trim();
    }
}
`;

const BREAKS: { name: string; old: string; new: string; line: number; column: number }[] = [
	{ name: "a binary operator's right side", old: "subtotal - discount;", new: "subtotal - ;", line: 14, column: 31 },
	{ name: "a product's right side", old: "line.Price * line.Quantity", new: "line.Price * ", line: 13, column: 54 },
	{ name: "a comparison's right side", old: "total <= 0)", new: "total <= )", line: 15, column: 21 },
	{ name: "a conditional's last branch", old: ': "items";', new: ": ;", line: 21, column: 43 },
	{
		name: "a member's name after the dot",
		old: "Format(count, plural).Trim()",
		new: "Format(count, plural).",
		line: 22,
		column: 38,
	},
	{ name: "an assignment's value", old: "total = 0;", new: "total = ;", line: 15, column: 32 },
];

describe("C# operands left out", () => {
	for (const edit of BREAKS) {
		it(`refuses ${edit.name} left out, right after the operator`, async () => {
			const after = ORDER.replace(edit.old, edit.new);
			expect(after).not.toBe(ORDER);
			const verdict = await checkSyntaxChange({ path: "/project/Billing/Order.cs", before: ORDER, after });
			expect(verdict.status).toBe("broken");
			expect(verdict.added[0]).toMatchObject({ line: edit.line, column: edit.column });
			expect(verdict.added[0]?.description).toMatch(/^missing /);
		});
	}

	it("applies the edits that complete the expression or use a unary operator", async () => {
		for (const [old, replacement] of [
			["subtotal - discount;", "subtotal - discount * 2;"],
			["total <= 0)", "total <= -1)"],
			["total = 0;", "total = +0;"],
		]) {
			const after = ORDER.replace(old ?? "", replacement ?? "");
			const verdict = await checkSyntaxChange({ path: "/project/Billing/Order.cs", before: ORDER, after });
			expect(verdict.status, replacement).toBe("clean");
		}
	});
});
