// `toolbelt/testing`: a scripted fake model, to test agents built on toolbelt the way toolbelt's own tests do.
export {
	createFakeModel,
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
} from "./fake-model.js";
