// A syntax corpus in our own words: for each language, a small file that parses, an edit that breaks
// it (and the line the error is on), an edit that keeps it parsing, and two edits that each break it
// alone but parse together (a call split across them). The first of those two, applied alone to the
// file already broken by `breaks`, adds an error elsewhere: a file already broken is warned about.

/** One replacement. */
export interface CorpusEdit {
	old_string: string;
	new_string: string;
}

/** One language's cases. */
export interface CorpusEntry {
	/** File name (its extension picks the grammar). */
	file: string;
	/** A source that parses without errors. */
	source: string;
	/** An edit that breaks it, and the 1-based line of the error it introduces. */
	breaks: CorpusEdit & { line: number };
	/** An edit that keeps it parsing. */
	keeps: CorpusEdit;
	/** Two edits, each breaking alone, parsing together. */
	through: [CorpusEdit, CorpusEdit];
}

export const corpus: CorpusEntry[] = [
	{
		file: "cart.ts",
		source: `interface Item {
	name: string;
	price: number;
}

export function total(items: Item[]): number {
	let sum = 0;
	for (const item of items) sum += item.price;
	return sum;
}

export function label(item: Item): string {
	const text = format(item.name, item.price);
	return text.trim();
}
`,
		breaks: { old_string: "sum += item.price;", new_string: "sum += (item.price;", line: 8 },
		keeps: { old_string: "return sum;", new_string: "return Math.round(sum * 100) / 100;" },
		through: [
			{ old_string: "format(item.name, item.price);", new_string: "format(item.name," },
			{ old_string: "	return text.trim();", new_string: "		item.price);\n	return text.trim();" },
		],
	},
	{
		file: "badge.tsx",
		source: `type Props = { count: number };

export function Badge({ count }: Props) {
	const shown = clamp(count, 99);
	return <span className="badge">{shown}</span>;
}
`,
		breaks: {
			old_string: '<span className="badge">{shown}</span>',
			new_string: '<span className="badge">{shown)}</span>',
			line: 5,
		},
		keeps: { old_string: "clamp(count, 99)", new_string: "clamp(count, 999)" },
		through: [
			{ old_string: "clamp(count, 99);", new_string: "clamp(count," },
			{ old_string: "	return <span", new_string: "		99);\n	return <span" },
		],
	},
	{
		file: "queue.js",
		source: `export class Queue {
	constructor() {
		this.items = [];
	}

	push(value) {
		this.items.push(value);
		return this.items.length;
	}
}

export const view = (queue) => <List items={queue.items} />;
`,
		breaks: { old_string: "this.items.push(value);", new_string: "this.items.push(value;", line: 7 },
		keeps: { old_string: "return this.items.length;", new_string: "return this.size();" },
		through: [
			{ old_string: "this.items = [];", new_string: "this.items = [" },
			{ old_string: "	}\n\n	push(value) {", new_string: "	];\n	}\n\n	push(value) {" },
		],
	},
	{
		file: "stats.py",
		source: `import math


def mean(values):
    total = sum(values)
    return total / len(values)


def spread(values):
    middle = mean(values)
    squares = [(value - middle) ** 2 for value in values]
    return math.sqrt(sum(squares) / len(values))
`,
		breaks: { old_string: "return total / len(values)", new_string: "return total / len(values))", line: 6 },
		keeps: { old_string: "return total / len(values)", new_string: "return total / max(len(values), 1)" },
		through: [
			{ old_string: "middle = mean(values)", new_string: "middle = mean(" },
			{ old_string: "    squares = [", new_string: "        values)\n    squares = [" },
		],
	},
	{
		file: "server.go",
		source: `package main

import "fmt"

func greet(name string) string {
	message := fmt.Sprintf("hello %s", name)
	return message
}

func main() {
	fmt.Println(greet("world"))
	fmt.Println("done")
}
`,
		breaks: {
			old_string: 'message := fmt.Sprintf("hello %s", name)',
			new_string: 'message := fmt.Sprintf("hello %s", name',
			line: 6,
		},
		keeps: { old_string: "return message", new_string: 'return message + "!"' },
		through: [
			{ old_string: 'fmt.Println(greet("world"))', new_string: "fmt.Println(greet(" },
			{ old_string: '	fmt.Println("done")', new_string: '		"world"))\n	fmt.Println("done")' },
		],
	},
	{
		file: "lib.rs",
		source: `pub struct Counter {
    count: u32,
}

impl Counter {
    pub fn bump(&mut self) -> u32 {
        self.count += 1;
        self.count
    }
}

pub fn twice(counter: &mut Counter) -> u32 {
    counter.bump();
    counter.bump()
}
`,
		breaks: { old_string: "self.count += 1;", new_string: "self.count += ;", line: 7 },
		keeps: { old_string: "    count: u32,", new_string: "    count: u32,\n    limit: u32," },
		through: [
			{ old_string: "    counter.bump();\n", new_string: "    let first = counter.bump(\n" },
			{ old_string: "    counter.bump()\n", new_string: "    );\n    first + counter.bump()\n" },
		],
	},
	{
		file: "Shelf.java",
		source: `import java.util.ArrayList;
import java.util.List;

public class Shelf {
    private final List<String> books = new ArrayList<>();

    public void add(String title) {
        books.add(title.trim());
    }

    public int size() {
        return books.size();
    }
}
`,
		breaks: { old_string: "books.add(title.trim());", new_string: "books.add(title.trim();", line: 8 },
		keeps: { old_string: "return books.size();", new_string: "return books.isEmpty() ? 0 : books.size();" },
		through: [
			{ old_string: "return books.size();", new_string: "return books.size(" },
			{ old_string: "    }\n}\n", new_string: "        );\n    }\n}\n" },
		],
	},
	{
		file: "buffer.c",
		source: `#include <stdlib.h>

struct buffer {
	char *data;
	size_t length;
};

int grow(struct buffer *target, size_t extra) {
	char *next = realloc(target->data, target->length + extra);
	if (next == NULL) return -1;
	target->data = next;
	return 0;
}
`,
		breaks: { old_string: "if (next == NULL) return -1;", new_string: "if (next == NULL return -1;", line: 10 },
		keeps: { old_string: "return 0;", new_string: "target->length += extra;\n	return 0;" },
		through: [
			{ old_string: "realloc(target->data, target->length + extra);", new_string: "realloc(target->data," },
			{ old_string: "	if (next == NULL)", new_string: "		target->length + extra);\n	if (next == NULL)" },
		],
	},
	{
		file: "matrix.hpp",
		source: `#pragma once
#include <vector>

class Matrix {
public:
	Matrix(int rows, int columns) : cells(rows * columns), width(columns) {}

	double &at(int row, int column) { return cells[row * width + column]; }

private:
	std::vector<double> cells;
	int width;
};
`,
		breaks: { old_string: "std::vector<double> cells;", new_string: "std::vector<double cells;", line: 11 },
		keeps: { old_string: "int width;", new_string: "int width = 0;" },
		through: [
			{ old_string: "cells(rows * columns)", new_string: "cells(rows *" },
			{ old_string: ", width(columns)", new_string: " columns), width(columns)" },
		],
	},
	{
		file: "Account.cs",
		source: `namespace Bank;

public class Account
{
    public decimal Balance { get; private set; }

    public void Deposit(decimal amount)
    {
        if (amount <= 0) throw new ArgumentException("positive only");
        Balance += amount;
    }
}
`,
		breaks: { old_string: "Balance += amount;", new_string: "Balance += amount", line: 10 },
		keeps: {
			old_string: "public decimal Balance { get; private set; }",
			new_string: "public decimal Balance { get; private set; } = 0m;",
		},
		through: [
			{ old_string: 'throw new ArgumentException("positive only");', new_string: "throw new ArgumentException(" },
			{
				old_string: "        Balance += amount;",
				new_string: '            "positive only");\n        Balance += amount;',
			},
		],
	},
	{
		file: "inventory.rb",
		source: `class Inventory
  def initialize
    @items = {}
  end

  def add(name, count)
    @items[name] = @items.fetch(name, 0) + count
  end
end
`,
		breaks: {
			old_string: "@items[name] = @items.fetch(name, 0) + count",
			new_string: "@items[name] = @items.fetch(name, 0) + count)",
			line: 7,
		},
		keeps: { old_string: "@items = {}", new_string: "@items = Hash.new(0)" },
		through: [
			{ old_string: "@items = {}", new_string: "@items = {" },
			{ old_string: "  end\n\n  def add", new_string: "    }\n  end\n\n  def add" },
		],
	},
	{
		file: "router.php",
		source: `<?php

function route(string $path): string
{
    $parts = explode('/', trim($path, '/'));
    return $parts[0] ?? 'home';
}

echo route('/users/7');
echo PHP_EOL;
`,
		breaks: {
			old_string: "$parts = explode('/', trim($path, '/'));",
			new_string: "$parts = explode('/', trim($path, '/');",
			line: 5,
		},
		keeps: { old_string: "?? 'home'", new_string: "?? 'index'" },
		through: [
			{ old_string: "echo route('/users/7');", new_string: "echo route(" },
			{ old_string: "echo PHP_EOL;", new_string: "'/users/7');\necho PHP_EOL;" },
		],
	},
	{
		file: "deploy.sh",
		source: `#!/usr/bin/env bash
set -euo pipefail

target="\${1:-staging}"
if [ "$target" = "production" ]; then
	echo "deploying to production"
fi
for host in web1 web2; do
	ssh "$host" true
done
`,
		breaks: {
			old_string: 'ssh "$host" true',
			new_string: 'ssh "$host" true )',
			line: 9,
		},
		keeps: { old_string: 'echo "deploying to production"', new_string: 'echo "deploying to production at $(date)"' },
		through: [
			{ old_string: 'echo "deploying to production"', new_string: 'echo "deploying to' },
			{ old_string: "fi\n", new_string: ' production"\nfi\n' },
		],
	},
	{
		file: "ci.yaml",
		source: `name: build
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: npm ci
      - run: npm test
`,
		breaks: { old_string: "      - run: npm ci", new_string: "      - run: npm ci: fast", line: 7 },
		keeps: { old_string: "      - run: npm test", new_string: "      - run: npm test\n      - run: npm run lint" },
		through: [
			{ old_string: "on: [push, pull_request]", new_string: "on: [push," },
			{ old_string: "jobs:", new_string: "  pull_request]\njobs:" },
		],
	},
	{
		file: "site.css",
		source: `body {
	margin: 0;
	font-family: sans-serif;
}

.card {
	padding: 1rem;
	border: 1px solid #ccc;
}
`,
		breaks: { old_string: "padding: 1rem;", new_string: "padding: 1rem;\n	color: {red;", line: 8 },
		keeps: { old_string: "margin: 0;", new_string: "margin: 0 auto;" },
		through: [
			{ old_string: "}\n\n.card {", new_string: "}\n\n@media (min-width: 40rem) {\n.card {" },
			{ old_string: "border: 1px solid #ccc;\n}", new_string: "border: 1px solid #ccc;\n}\n}" },
		],
	},
	{
		file: "package.json",
		source: `{
  "name": "shop",
  "version": "1.0.0",
  "scripts": {
    "test": "vitest run",
    "build": "tsc -p ."
  },
  "dependencies": {
    "zod": "3.23.8"
  }
}
`,
		breaks: { old_string: `"version": "1.0.0",`, new_string: `"version": "1.0.0"`, line: 4 },
		keeps: { old_string: `"zod": "3.23.8"`, new_string: `"zod": "3.23.8",\n    "yaml": "2.9.1"` },
		through: [
			{ old_string: `"test": "vitest run",`, new_string: `"test": ["vitest",` },
			{ old_string: `"build": "tsc -p ."`, new_string: `"run"],\n    "build": "tsc -p ."` },
		],
	},
	{
		// Comments and a trailing comma: JSON with comments, as TypeScript reads it.
		file: "tsconfig.json",
		source: `{
  // Strict settings for the library.
  "compilerOptions": {
    "target": "ES2022",
    "strict": true,
  },
  "include": ["src"]
}
`,
		breaks: { old_string: `"include": ["src"]`, new_string: `"include": ["src" "test"]`, line: 7 },
		keeps: {
			old_string: `  // Strict settings for the library.`,
			new_string: `  // Strict settings for the library.
  "extends": "./tsconfig.base.json",`,
		},
		through: [
			{ old_string: `"target": "ES2022",`, new_string: `"target": "ES2022", "lib": [` },
			{ old_string: `"strict": true,`, new_string: `"DOM"],\n    "strict": true,` },
		],
	},
	{
		file: "Cargo.toml",
		source: `[package]
name = "shelf"
version = "0.1.0"
edition = "2021"

[dependencies]
serde = { version = "1", features = ["derive"] }
anyhow = "1"
`,
		breaks: { old_string: `anyhow = "1"`, new_string: `anyhow = "1`, line: 8 },
		keeps: { old_string: `edition = "2021"`, new_string: `edition = "2021"\nlicense = "MIT"` },
		through: [
			{ old_string: `name = "shelf"`, new_string: `keywords = ["cli",` },
			{ old_string: `version = "0.1.0"`, new_string: `"tui"]\nname = "shelf"\nversion = "0.1.0"` },
		],
	},
	{
		file: "index.html",
		source: `<!doctype html>
<html lang="en">
<head>
  <title>Shelf</title>
</head>
<body>
  <main class="shelf">
    <h1>Books</h1>
    <ul id="list"></ul>
  </main>
</body>
</html>
`,
		breaks: { old_string: "  </main>\n</body>", new_string: "</body>", line: 7 },
		keeps: { old_string: "<h1>Books</h1>", new_string: "<h1>Books</h1>\n    <p>Sorted by title.</p>" },
		through: [
			{ old_string: "<h1>Books</h1>", new_string: "<section>\n    <h1>Books</h1>" },
			{ old_string: `<ul id="list"></ul>`, new_string: `<ul id="list"></ul>\n    </section>` },
		],
	},
];
