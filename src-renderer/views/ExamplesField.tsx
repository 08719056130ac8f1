// Worked examples of a new run or a profile: saved logs on the host (one path a line, as
// `--example LOG`), rendered there into the root's system prompt, and their total budget.
import { DEFAULT_EXAMPLE_BUDGET } from '../../src-shared/events.ts';

/** The paths typed (one a line, blanks dropped) and the budget, or what is wrong with the budget. */
export function examplesOf(paths: string, budget: string): { examples: string[]; exampleBudget?: number } | { error: string } {
  const examples = paths
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const text = budget.trim();
  if (text === '') return { examples };
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1)
    return { error: `Example budget must be a positive whole number of characters, got "${text}".` };
  return { examples, exampleBudget: n };
}

export function ExamplesField({
  paths,
  budget,
  onPaths,
  onBudget,
  idPrefix,
}: {
  paths: string;
  budget: string;
  onPaths: (v: string) => void;
  onBudget: (v: string) => void;
  idPrefix: string;
}) {
  return (
    <fieldset className="examples-field">
      <legend>Worked examples (optional)</legend>
      <label>
        Saved logs on the host, one per line
        <textarea
          value={paths}
          onChange={(e) => onPaths(e.target.value)}
          rows={2}
          spellCheck={false}
          placeholder="e.g. runs/good-run.rlm.jsonl"
          data-testid={`${idPrefix}-examples`}
        />
      </label>
      <label>
        budget (characters, all together){' '}
        <input
          value={budget}
          onChange={(e) => onBudget(e.target.value)}
          inputMode="numeric"
          size={7}
          placeholder={DEFAULT_EXAMPLE_BUDGET.toLocaleString('en-US')}
          data-testid={`${idPrefix}-example-budget`}
        />
      </label>
      <small className="muted">
        Each log's root run (its code, the outputs it saw, shortened, and its answer) is added to the root's system prompt as an example.
        Either log format.
      </small>
    </fieldset>
  );
}
