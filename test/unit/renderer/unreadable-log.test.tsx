// A file that is not a log, opened in the page: the run view says nothing could be read and
// why, rather than "No runs yet (waiting for events)" with the reason folded away in the side panel.
import { Blob as NodeBlob } from 'node:buffer';
import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';

type Store = ReturnType<typeof createStudioStore>;

async function openIn(store: Store, svc: Services, name: string, text: string): Promise<void> {
  await act(async () => {
    await svc.openFile(Object.assign(new NodeBlob([text]) as unknown as Blob, { name }));
    await new Promise<void>((r) => setTimeout(r, 60));
  });
}

async function open(name: string, text: string): Promise<{ store: Store; svc: Services }> {
  const store = createStudioStore();
  const svc = new Services(store, null, () => null);
  render(
    <ServicesProvider services={svc}>
      <App />
    </ServicesProvider>,
  );
  await openIn(store, svc, name, text);
  return { store, svc };
}

function problemsBox(): HTMLDetailsElement {
  return screen.getByText(/reading the log$/).closest('details')!;
}

describe('a file that is not a log', () => {
  it('says nothing could be read from it and why', async () => {
    await open('notes.jsonl', 'this is not json\n{"a":1}\n');
    const shown = screen.getByTestId('unreadable-log');
    expect(shown.textContent).toContain('Nothing could be read from notes.jsonl');
    expect(shown.textContent).toContain('not a log this reader knows');
    expect(screen.queryByText(/waiting for events/)).toBeNull();
    expect(screen.getByText('1 problem reading the log')).toBeTruthy();
  });

  it('offers no export of a session with nothing in it, and says why', async () => {
    await open('notes.jsonl', 'this is not json\n');
    for (const testId of ['export-native', 'export-rlm-python']) {
      const button = screen.getByTestId<HTMLButtonElement>(testId);
      expect(button.disabled).toBe(true);
      expect(button.title).toMatch(/no events/);
    }
  });

  it("keeps one session's unfolded problems list to that session", async () => {
    const { store, svc } = await open('first.jsonl', 'not json\n');
    const first = store.getState().activeId;
    await openIn(store, svc, 'second.jsonl', 'also not json\n');
    const second = store.getState().activeId;
    expect(second).not.toBe(first);
    act(() => store.getState().setActive(first));
    act(() => problemsBox().querySelector('summary')!.click());
    expect(problemsBox().open).toBe(true);
    act(() => store.getState().setActive(second));
    expect(problemsBox().open).toBe(false);
  });
});
