// `RLM_STUDIO_TIMING=1`: the command prints where its time went, to stderr at exit: each mark
// (src-shared/phase-timing.ts) in ms since bin/rlm-studio was launched (it passes the moment as
// RLM_STUDIO_LAUNCHED_AT, bash's $EPOCHREALTIME) or, without it, since Node started.
import { writeSync } from 'node:fs';
import type { TrajectoryEvent } from '../../src-shared/events.ts';
import { enablePhaseTiming, markPhase, phaseMarks, phaseTimingEnabled, type PhaseMark } from '../../src-shared/phase-timing.ts';

/** Turns the timing on when `env` asks for it; the report is written when the process exits. */
export function startTimingReport(env: NodeJS.ProcessEnv): void {
  if (!env['RLM_STUDIO_TIMING'] || phaseTimingEnabled()) return;
  enablePhaseTiming(
    () => performance.now(),
    () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    },
  );
  const launchedAt = Number(env['RLM_STUDIO_LAUNCHED_AT']?.replace(',', '.'));
  // Seconds since the epoch; the marks are relative to Node's start (performance.timeOrigin).
  const launch = Number.isFinite(launchedAt) && launchedAt > 0 ? launchedAt * 1000 - performance.timeOrigin : null;
  process.once('exit', () => {
    markPhase('exit');
    writeSync(2, timingReport(phaseMarks(), launch));
  });
}

/**
 * The report's text: one line per mark, its time since the origin and since the line before,
 * and (when noted) the CPU time this process used since the line before.
 */
export function timingReport(marks: readonly PhaseMark[], launch: number | null): string {
  const origin = launch ?? 0;
  const all: PhaseMark[] = [
    ...(launch !== null ? [{ name: 'launch (bin/rlm-studio)', at: launch, cpu: null }] : []),
    { name: 'node started', at: 0, cpu: 0 },
    ...marks,
  ];
  let prev = origin;
  let prevCpu = 0;
  const lines = all.map((m) => {
    const cpu = m.cpu === null ? '' : `${(m.cpu - prevCpu).toFixed(1)}`;
    const line = `${(m.at - origin).toFixed(1).padStart(9)} ${`+${(m.at - prev).toFixed(1)}`.padStart(9)} ${cpu.padStart(8)}  ${m.name}`;
    prev = m.at;
    if (m.cpu !== null) prevCpu = m.cpu;
    return line;
  });
  return `rlm-studio timing (ms since ${launch !== null ? 'launch' : 'Node started'}; + since the line before; CPU ms of this process since the line before):\n${lines.join('\n')}\n`;
}

/** The mark an engine event makes: its type and where in the run it happened. */
export function eventMark(e: TrajectoryEvent): string {
  const at: string[] = [];
  if ('depth' in e && e.depth > 0) at.push(`depth ${e.depth}`);
  if ('iteration' in e) at.push(`iteration ${e.iteration}`);
  if ('block' in e) at.push(`block ${e.block}`);
  if (e.type === 'subcall.start' || e.type === 'subcall.end') at.push(`call ${e.callId}`);
  return at.length > 0 ? `${e.type} (${at.join(', ')})` : e.type;
}
