// The pure (DOM-free) modules, bundled for node's test runner.
export * from "../src/trace";
export * from "../src/layout";
