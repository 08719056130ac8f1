// A table of usage per model name (calls, tokens, cost), under the totals it breaks down.
import type { UsageByModel } from '../../src-shared/trajectory/by-model.ts';
import { usageUnknown } from '../../src-shared/trajectory/totals.ts';
import { fmtInt, fmtUsd } from '../lib/format.ts';

/** Usage per model name, beside a run's or an evaluation's totals. */
export function UsageByModelTable({ byModel, testId }: { byModel: UsageByModel; testId: string }) {
  const rows = Object.entries(byModel);
  if (rows.length === 0) return null;
  return (
    <table className="usage-by-model" data-testid={testId} aria-label="Usage per model">
      <thead>
        <tr>
          <th scope="col">model</th>
          <th scope="col">calls</th>
          <th scope="col">input tokens</th>
          <th scope="col">output tokens</th>
          <th scope="col">cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([model, u]) => {
          // No tokens and no price for any of its calls: its usage was never recorded, not zero.
          const unknown = usageUnknown(u);
          return (
            <tr
              key={model}
              title={unknown ? 'this log recorded no usage for this model (a reference log does not for its root model)' : undefined}
            >
              <th scope="row">{model}</th>
              <td>{fmtInt(u.calls)}</td>
              <td>{unknown ? 'unknown' : fmtInt(u.inputTokens)}</td>
              <td>{unknown ? 'unknown' : fmtInt(u.outputTokens)}</td>
              <td>{u.costUsd === null ? 'unknown' : fmtUsd(u.costUsd)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
