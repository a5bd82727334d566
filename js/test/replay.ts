// The pure (DOM-free) modules of the replay, bundled for node's test runner.
export * from "../src/replay/trace";
export * from "../src/replay/apiview";
export * from "../src/replay/layout";
export * from "../src/replay/findings";
export * from "../src/replay/card";
export * from "../src/shared/labels";
export * from "../src/shared/constants";
export * from "../src/replay/chips";
