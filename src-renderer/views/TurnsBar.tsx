// The turns bar above a multi-turn session's run (one root run per turn): a button per turn,
// or past a dozen the previous and next turn and a list to jump to any.
import { memo, useCallback } from 'react';
import type { RunId } from '../../src-shared/events.ts';
import type { TrajectoryState } from '../../src-shared/trajectory/index.ts';
import { useServices } from '../app/context.tsx';

/**
 * Beyond this many turns the bar is a picker: a reference log of many completions has
 * hundreds of turns, and as buttons they filled the pane above the run they pick from.
 */
const TURN_BUTTONS_MAX = 12;

/** The turns of a multi-turn session (one root run each), in order; picks the one shown. */
export function TurnsBar({
  sessionId,
  traj,
  current,
  onPick,
}: {
  sessionId: string;
  traj: TrajectoryState;
  current: RunId;
  onPick(): void;
}) {
  const svc = useServices();
  const pick = useCallback(
    (id: RunId) => {
      svc.store.getState().select(sessionId, { runId: id, iteration: null });
      onPick();
    },
    [svc, sessionId, onPick],
  );
  const turns = traj.roots.flatMap((id) => {
    const root = traj.runs.get(id);
    return root ? [{ id, turn: root.turn, query: root.start?.query ?? '', stop: root.end ? root.end.stopReason : null }] : [];
  });
  if (turns.length > TURN_BUTTONS_MAX) return <TurnPicker turns={turns} current={current} pick={pick} />;
  return (
    <nav className="turns" aria-label="Turns">
      {turns.map((t) => (
        <TurnButton key={t.id} {...t} current={t.id === current} pick={pick} />
      ))}
    </nav>
  );
}

interface TurnItem {
  id: RunId;
  turn: number;
  query: string;
  stop: string | null;
}

/** A turn's label: its number, the start of its query, how it ended; and the query on one line (for a title). */
function turnLabel({ turn, query, stop }: TurnItem): { text: string; flat: string } {
  const flat = query.slice(0, 2000).replace(/\s+/g, ' ').trim();
  const head = flat ? `: ${flat.length > 40 ? `${flat.slice(0, 39)}…` : flat}` : '';
  return { text: `turn ${turn}${head} · ${stop ?? 'running'}`, flat };
}

/** One turn's button; redrawn only when it changes (a load commits often). */
const TurnButton = memo(function TurnButton({ current, pick, ...t }: TurnItem & { current: boolean; pick(id: RunId): void }) {
  const { text, flat } = turnLabel(t);
  return (
    <button
      type="button"
      aria-current={current ? 'true' : undefined}
      title={flat}
      onClick={() => pick(t.id)}
      data-testid={`turn-${t.turn}`}
    >
      {text}
    </button>
  );
});

/** Many turns: the previous and next, and a list to jump to any. */
function TurnPicker({ turns, current, pick }: { turns: TurnItem[]; current: RunId; pick(id: RunId): void }) {
  const at = turns.findIndex((t) => t.id === current);
  const prev = at > 0 ? turns[at - 1] : undefined;
  const next = turns[at + 1];
  return (
    <nav className="turns" aria-label="Turns">
      <TurnStep to={prev} pick={pick} label="Previous turn" shortcut="[" testId="turn-prev" glyph="◀" />
      <select
        value={at < 0 ? '' : current}
        onChange={(e) => e.target.value && pick(e.target.value as RunId)}
        aria-label="Turn"
        data-testid="turn-select"
      >
        {at < 0 ? <option value="">pick a turn</option> : null}
        {turns.map((t) => (
          <TurnOption key={t.id} {...t} />
        ))}
      </select>
      <TurnStep to={next} pick={pick} label="Next turn" shortcut="]" testId="turn-next" glyph="▶" />
      <span className="muted">{at < 0 ? `${turns.length} turns` : `${at + 1} of ${turns.length} turns`}</span>
    </nav>
  );
}

/** The previous or next turn's button, disabled at either end. */
function TurnStep({
  to,
  pick,
  label,
  shortcut,
  testId,
  glyph,
}: {
  to: TurnItem | undefined;
  pick(id: RunId): void;
  label: string;
  shortcut: string;
  testId: string;
  glyph: string;
}) {
  return (
    <button
      type="button"
      disabled={!to}
      onClick={() => to && pick(to.id)}
      aria-label={label}
      title={`${label} (${shortcut})`}
      data-testid={testId}
    >
      {glyph}
    </button>
  );
}

const TurnOption = memo(function TurnOption(t: TurnItem) {
  return <option value={t.id}>{turnLabel(t).text}</option>;
});
