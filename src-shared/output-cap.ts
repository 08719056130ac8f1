// Characters of one code block's formatted output the model is shown before the rest is cut:
// our prompt packs' `outputCap`, the reference library's figure too. Defined here once for the
// engine (src-main/engine/prompts.ts, our packs), the coverage map (analysis/coverage.ts) and
// the app's "cut here" marker (src-renderer/lib/block-output.ts), which must all agree.
export const OUTPUT_CAP_CHARS = 20_000;
