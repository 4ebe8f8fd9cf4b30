// The tests use the fake model toolbelt ships as `toolbelt/testing` (one copy, in src/testing/),
// under the name the tests have always used for it.
export * from "../../src/testing/index.js";
export { createFakeModel as createFakeModelStream } from "../../src/testing/index.js";
