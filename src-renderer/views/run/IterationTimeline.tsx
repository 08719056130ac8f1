// A run's iterations as a virtualised row of chips, each summarised on its chip and in its title.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { blocksOf, isDirectCall, type IterationNode, type RunNode } from '../../../src-shared/trajectory/index.ts';
import { useServices } from '../../app/context.tsx';
import { fmtMs } from '../../lib/format.ts';

/** What an iteration's chip says: short with glyphs on the chip, spelt out in its title. */
function chipText(it: IterationNode): { meta: string; title: string; errors: number; rerunDiffers: boolean } {
  const blocks = blocksOf(it);
  const errors = blocks.filter((b) => b.end?.error).length;
  const rerunDiffers = blocks.some((b) => b.end?.rerun && !b.end.rerun.same);
  const calls = blocks.reduce((n, b) => n + b.calls.length, 0);
  const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;
  const meta = [`${fmtMs(it.lastT - it.firstT)}`, `${blocks.length}▢`];
  const words = [fmtMs(it.lastT - it.firstT), plural(blocks.length, 'code block')];
  if (calls) {
    meta.push(`${calls}↘`);
    words.push(plural(calls, 'sub-call'));
  }
  if (errors) {
    meta.push('⚠');
    words.push(errors === 1 ? 'error' : `${errors} errors`);
  }
  if (it.compaction) {
    meta.push('⇲');
    words.push('history compacted');
  }
  if (rerunDiffers) {
    meta.push('≠');
    words.push('re-run output differs');
  }
  if (it.end?.finalAnswer != null) words.push('final answer');
  return { meta: meta.join(' · '), title: words.join(' · '), errors, rerunDiffers };
}

/** Pixels a chip is expected to take before it is measured (11 px text, about 6.5 px a character, plus padding). */
function chipEstimate(it: IterationNode | undefined): number {
  return it ? Math.max(60, Math.ceil(chipText(it).meta.length * 6.5) + 18) : 92;
}

export function IterationTimeline({
  sessionId,
  run,
  selected,
  onPick,
}: {
  sessionId: string;
  run: RunNode;
  selected: number | null;
  onPick(): void;
}) {
  const svc = useServices();
  const ref = useRef<HTMLDivElement>(null);
  const its = run.iterations;
  const maxMs = Math.max(1, ...its.map((i) => i.lastT - i.firstT));
  // Chips are as wide as their text (measured once drawn), so a long line of glyphs is never cut.
  const virt = useVirtualizer({
    horizontal: true,
    count: its.length,
    getScrollElement: () => ref.current,
    estimateSize: (i) => chipEstimate(its[i]),
    gap: 4,
    overscan: 8,
  });
  const selIndex = its.findIndex((i) => i.iteration === selected);
  useEffect(() => {
    if (selIndex >= 0) virt.scrollToIndex(selIndex, { align: 'auto' });
  }, [virt, selIndex]);
  return (
    <div className="timeline" ref={ref} role="listbox" aria-label="Iterations" aria-orientation="horizontal">
      <div style={{ width: virt.getTotalSize(), height: '100%', position: 'relative' }}>
        {virt.getVirtualItems().map((vi) => {
          const it = its[vi.index] as IterationNode;
          const { meta, title, errors, rerunDiffers } = chipText(it);
          const ms = it.lastT - it.firstT;
          return (
            <button
              type="button"
              role="option"
              aria-selected={it.iteration === selected}
              key={it.iteration}
              ref={virt.measureElement}
              data-index={vi.index}
              title={title}
              className={`it-chip${it.iteration === selected ? ' selected' : ''}${errors ? ' has-error' : ''}${it.end?.finalAnswer != null ? ' final' : ''}${rerunDiffers ? ' rerun-differs' : ''}`}
              style={{ position: 'absolute', left: vi.start }}
              onClick={() => {
                svc.store.getState().select(sessionId, { runId: run.id, iteration: it.iteration });
                onPick();
              }}
              data-testid={`iteration-${it.iteration}`}
            >
              <span className="it-n">{isDirectCall(it) ? 'direct' : `#${it.iteration}`}</span>
              <span className="it-bar" style={{ width: `${Math.max(4, (ms / maxMs) * 100)}%` }} />
              <span className="it-meta">{meta}</span>
            </button>
          );
        })}
      </div>
    </div>
  );
}
