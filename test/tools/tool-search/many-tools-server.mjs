// A real MCP stdio server with 300 tools: 299 look-ups of made-up records and one currency
// converter, so a search has one right answer among many. Plain JS so it starts fast.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const subjects = [
	"invoice",
	"customer",
	"shipment",
	"ticket",
	"employee",
	"device",
	"order",
	"project",
	"contract",
	"sensor",
];
const actions = ["get", "list", "archive", "tag", "count", "export", "audit", "lock", "restore", "rank"];
const tools = [];
for (let index = 0; tools.length < 299; index++) {
	const subject = subjects[index % subjects.length];
	const action = actions[Math.floor(index / subjects.length) % actions.length];
	tools.push({
		name: `${action}_${subject}_${index}`,
		description: `${action[0].toUpperCase()}${action.slice(1)}s ${subject} records of shard ${index}.`,
		annotations: { readOnlyHint: true },
		inputSchema: { type: "object", properties: { id: { type: "string", description: `The ${subject} id.` } } },
	});
}
tools.splice(137, 0, {
	name: "convert_currency",
	description: "Converts an amount of money from one currency to another at today's rate.",
	annotations: { readOnlyHint: true },
	inputSchema: {
		type: "object",
		properties: { amount: { type: "number" }, from: { type: "string" }, to: { type: "string" } },
		required: ["amount", "from", "to"],
	},
});

const server = new Server({ name: "many-tools", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
	const { name, arguments: args = {} } = request.params;
	if (name === "convert_currency") {
		return { content: [{ type: "text", text: `${args.amount} ${args.from} is ${args.amount * 2} ${args.to}` }] };
	}
	return { content: [{ type: "text", text: `${name} of ${args.id ?? "nothing"}` }] };
});
await server.connect(new StdioServerTransport());
