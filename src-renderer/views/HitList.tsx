// A virtualised list of search hits (text search and tree queries): each row says where the
// hit is and shows its text, and opens it on click.
import { useVirtualizer } from '@tanstack/react-virtual';
import { type ReactNode, useRef } from 'react';

interface HitListProps<T> {
  items: readonly T[];
  /** `data-testid` of every row. */
  testId: string;
  where(item: T): ReactNode;
  text(item: T): ReactNode;
  onOpen(item: T): void;
}

export function HitList<T>({ items, testId, where, text, onOpen }: HitListProps<T>) {
  const ref = useRef<HTMLDivElement>(null);
  const virt = useVirtualizer({ count: items.length, getScrollElement: () => ref.current, estimateSize: () => 44, overscan: 10 });
  return (
    <div ref={ref} className="hits" role="list">
      <div style={{ height: virt.getTotalSize(), position: 'relative' }}>
        {virt.getVirtualItems().map((vi) => {
          const item = items[vi.index];
          if (item === undefined) return null;
          return (
            <button
              type="button"
              role="listitem"
              key={vi.key}
              className="hit"
              style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${vi.start}px)` }}
              onClick={() => onOpen(item)}
              data-testid={testId}
            >
              <span className="hit-where">{where(item)}</span>
              <span className="hit-text">{text(item)}</span>
            </button>
          );
        })}
      </div>
    </div>
  );
}
