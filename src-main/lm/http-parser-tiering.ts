// Node's fetch parses HTTP with llhttp compiled to WebAssembly. After a couple of replies V8
// recompiles its hot functions with the optimising compiler: ~90 ms of CPU on a background
// thread, in the middle of a run, while the sandbox process runs the block the reply asked for
// (a 4 MB needle's second block took 30 against 7 ms on two cores). A model's replies are small
// for that parser, and its baseline code parses them fast enough.
//
// A V8 flag set at the command line would do it too, but V8 refuses a code cache made under
// other flags, and Node compiles its built-ins (fetch among them) from one: the flag is set
// once the SDK, and with it Node's fetch, has loaded, and before the first request makes fetch
// instantiate the parser (which reads the budget then).
import { setFlagsFromString } from 'node:v8';
import { markPhase } from '../../src-shared/phase-timing.ts';

/** Bytes of WebAssembly a function may execute before V8 optimises it: never, in practice. */
const NO_TIER_UP_BUDGET = 1_000_000_000;

let wanted = false;
let sdkLoaded = false;
let applied = false;

/**
 * For a process whose only WebAssembly is fetch's HTTP parser (`run` and `chat`, whose REPLs
 * run elsewhere): keep that parser on baseline code. Takes effect once the SDK has loaded.
 */
export function keepHttpParserOnBaseline(): void {
  wanted = true;
  apply();
}

/** Called by the LM client once the SDK has loaded. */
export function httpParserSdkLoaded(): void {
  sdkLoaded = true;
  apply();
}

function apply(): void {
  if (!wanted || !sdkLoaded || applied) return;
  applied = true;
  setFlagsFromString(`--wasm-tiering-budget=${NO_TIER_UP_BUDGET}`);
  markPhase('http parser kept on baseline');
}
