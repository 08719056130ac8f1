// What a run records of its clients' request settings (run.start `sampling`): the fields sent
// besides the model and the messages, of the turns' client and, when plain sub-calls have a
// client of their own, of that one. Nothing when neither sets any (the endpoints' defaults).
import type { RequestFields } from '../../src-shared/events.ts';
import type { LmClient } from './types.ts';

export function requestFieldsOf(turns: LmClient, subcalls: LmClient | undefined): { sampling?: RequestFields } {
  const own = { ...turns.requestFields };
  const sub = subcalls === undefined || subcalls === turns ? null : { ...subcalls.requestFields };
  if (Object.keys(own).length === 0 && (sub === null || Object.keys(sub).length === 0)) return {};
  return { sampling: { turns: own, subcalls: sub } };
}
