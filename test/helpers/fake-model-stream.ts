// The tests use the fake model toolbelt ships as `toolbelt/testing` (one copy, in src/testing/).
export {
	createFakeModel as createFakeModelStream,
	errorReply,
	type FakeModelStream,
	type FakeModelStreamOptions,
	fakeModel,
	type RecordedRequest,
	type Scripted,
	type ScriptedReply,
	type ScriptedToolCall,
	textReply,
	toolCallReply,
} from "../../src/testing/index.js";
