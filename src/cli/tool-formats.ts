import type { ToolDefinition } from "../engine/types.js";

/** The shapes `toolbelt tools --format` can print. */
export const toolFormats = ["json-schema", "openai", "anthropic"] as const;

/** One of `toolFormats`. */
export type ToolFormat = (typeof toolFormats)[number];

/** True when `value` names a known format. */
export function isToolFormat(value: string): value is ToolFormat {
	return (toolFormats as readonly string[]).includes(value);
}

/** The tool definitions in the shape an API expects (plain JSON, TypeBox markers dropped). */
export function formatToolDefinitions(definitions: readonly ToolDefinition[], format: ToolFormat): unknown[] {
	return definitions.map((definition) => {
		// Round-trip through JSON so only the JSON Schema remains of a TypeBox schema.
		const parameters = JSON.parse(JSON.stringify(definition.parameters)) as unknown;
		switch (format) {
			case "openai":
				return {
					type: "function",
					function: { name: definition.name, description: definition.description, parameters },
				};
			case "anthropic":
				return { name: definition.name, description: definition.description, input_schema: parameters };
			default:
				return {
					name: definition.name,
					description: definition.description,
					parameters,
					...(definition.annotations ? { annotations: definition.annotations } : {}),
				};
		}
	});
}
