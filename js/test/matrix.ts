// The conformance matrix's pure (DOM-free) logic, bundled for node's test runner.
export * from "../src/matrix/model";
export * from "../src/matrix/filter";
