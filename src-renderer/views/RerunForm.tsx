// Re-execute…: asks the host to run a session's code blocks again (`session.rerun`: recorded
// replies and sub-call results served again, each block's output compared with the recorded
// one), with what the session may not hold: its context, a custom tools module.
import { useState } from 'react';
import type { RerunSession } from '../../src-shared/protocol.ts';
import { useServices } from '../app/context.tsx';
import { ContextFields, contextSourceOf, type ContextChoice, type ContextNeed } from './ContextFields.tsx';
import { ToolsField } from './ToolsField.tsx';
import { FormActions } from './FormActions.tsx';

export function RerunForm({ sessionId, context: need, onDone }: { sessionId: string; context: ContextNeed; onDone: () => void }) {
  const svc = useServices();
  const [context, setContext] = useState<ContextChoice>({ kind: 'path', path: '', text: '', json: false });
  const [tools, setTools] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (): Promise<void> => {
    const source = need === 'none' ? null : contextSourceOf(context);
    if (need === 'required' && source === null) {
      setProblem('This log does not hold its context: give the file it was made from.');
      return;
    }
    const extra: Omit<RerunSession, 'sessionId'> = {
      ...(source ? { context: source } : {}),
      ...(tools.trim() ? { tools: tools.trim() } : {}),
    };
    setProblem(null);
    setBusy(true);
    const id = await svc.rerun(sessionId, extra);
    setBusy(false);
    if (id) onDone();
  };
  return (
    <form
      className="rerun-form"
      aria-label="Re-execute"
      data-testid="rerun-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <p className="muted">
        Runs every recorded code block again, with the recorded replies and sub-call results, and marks each block's output same or
        different.
      </p>
      {need !== 'none' ? <ContextFields value={context} onChange={setContext} idPrefix="rerun" optional={need === 'optional'} /> : null}
      <ToolsField value={tools} onChange={setTools} idPrefix="rerun" />
      <FormActions id="rerun" problem={problem} busy={busy} label="Re-execute" busyLabel="Starting…" onCancel={onDone} />
    </form>
  );
}
