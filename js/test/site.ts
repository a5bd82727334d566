// The published site's pure (DOM-free) logic, bundled for node's test runner.
export * from "../src/site/model";
