/** Set by the Vite configs at build time: whether this is the tests' build of the UI. */
declare const __RLM_TEST_HANDLES__: boolean;
