// Replay: scrub a session's events on a slider, play at 1×–100× of recorded time, step
// event by event. The tree and panels show the state at the cursor (a separate reducer
// state; the live one is untouched).
import { useEffect, useRef } from 'react';
import type { TrajectoryEvent } from '../../src-shared/events.ts';
import { applyEvent, createTrajectoryState } from '../../src-shared/trajectory/index.ts';
import { useServices, useStudio } from '../app/context.tsx';
import { fmtMs } from '../lib/format.ts';
import type { ReplayState, StudioStore } from '../store/studio.ts';

const SPEEDS = [1, 2, 5, 10, 25, 50, 100];

/** Moves a replay to `cursor` (forward incrementally; backward rebuilds from the start). */
export function seek(store: StudioStore, sessionId: string, cursor: number, patch: Partial<ReplayState> = {}): void {
  const st = store.getState();
  const entry = st.sessions.get(sessionId);
  if (!entry) return;
  const events = entry.events;
  const to = Math.max(0, Math.min(events.length, cursor));
  const prev = st.replay.get(sessionId);
  let traj = prev && prev.cursor <= to ? prev.traj : createTrajectoryState(entry.header);
  const from = prev && prev.cursor <= to ? prev.cursor : 0;
  if (prev && prev.cursor <= to) {
    // Same state object mutated: make a shallow copy of the wrapper so selectors see a change.
    traj = { ...traj };
  }
  for (let i = from; i < to; i++) applyEvent(traj, events[i] as TrajectoryEvent);
  st.setReplay(sessionId, { cursor: to, traj, playing: prev?.playing ?? false, speed: prev?.speed ?? 10, ...patch });
}

export function ReplayBar({ sessionId }: { sessionId: string }) {
  const svc = useServices();
  const entry = useStudio((s) => s.sessions.get(sessionId));
  const replay = useStudio((s) => s.replay.get(sessionId));
  const raf = useRef<number | null>(null);
  const events = entry?.events ?? [];
  const total = events.length;

  useEffect(() => {
    if (!replay?.playing) return;
    let last = performance.now();
    const tick = (now: number): void => {
      const st = svc.store.getState();
      const r = st.replay.get(sessionId);
      const e = st.sessions.get(sessionId);
      if (!r || !r.playing || !e) return;
      const dt = (now - last) * r.speed;
      last = now;
      const curT = r.cursor > 0 ? (e.events[r.cursor - 1]?.t ?? 0) : 0;
      const target = curT + dt;
      let c = r.cursor;
      while (c < e.events.length && (e.events[c]?.t ?? 0) <= target) c++;
      if (c === r.cursor && c < e.events.length && dt > 0) c++; // always progress
      seek(svc.store, sessionId, c, { playing: c < e.events.length });
      raf.current = requestAnimationFrame(tick);
    };
    raf.current = requestAnimationFrame(tick);
    return () => {
      if (raf.current !== null) cancelAnimationFrame(raf.current);
    };
  }, [replay?.playing, sessionId, svc]);

  if (!entry || total === 0) return null;
  if (!replay) {
    return (
      <div className="replay-bar">
        <button type="button" onClick={() => seek(svc.store, sessionId, 0)} data-testid="replay-start" title="Replay this session (R)">
          ⟲ Replay
        </button>
      </div>
    );
  }
  const curT = replay.cursor > 0 ? (events[replay.cursor - 1]?.t ?? 0) : 0;
  return (
    <div className="replay-bar active" aria-label="Replay">
      <button type="button" onClick={() => seek(svc.store, sessionId, replay.cursor - 1)} aria-label="Step back" data-testid="replay-back">
        ⏮
      </button>
      <button
        type="button"
        onClick={() => seek(svc.store, sessionId, replay.cursor, { playing: !replay.playing })}
        data-testid="replay-play"
      >
        {replay.playing ? '⏸' : '▶'}
      </button>
      <button
        type="button"
        onClick={() => seek(svc.store, sessionId, replay.cursor + 1)}
        aria-label="Step forward"
        data-testid="replay-step"
      >
        ⏭
      </button>
      <input
        type="range"
        min={0}
        max={total}
        value={replay.cursor}
        onChange={(e) => seek(svc.store, sessionId, Number(e.target.value))}
        aria-label="Replay position"
        data-testid="replay-slider"
      />
      <span className="replay-pos" data-testid="replay-pos">
        event {replay.cursor}/{total} · {fmtMs(curT)}
      </span>
      <select
        aria-label="Speed"
        value={replay.speed}
        onChange={(e) => seek(svc.store, sessionId, replay.cursor, { speed: Number(e.target.value) })}
      >
        {SPEEDS.map((s) => (
          <option key={s} value={s}>
            {s}×
          </option>
        ))}
      </select>
      <button type="button" onClick={() => svc.store.getState().setReplay(sessionId, null)} data-testid="replay-exit">
        Exit replay
      </button>
    </div>
  );
}
