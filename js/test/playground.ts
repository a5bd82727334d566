// The playground's pure (DOM-free) helpers, bundled for node's test runner.
export * from "../src/playground/pure";
