import Editor, { type OnMount } from '@monaco-editor/react';
import { useEffect, useRef } from 'react';
import { monaco, READ_ONLY_JS } from './setup.ts';
import type { CodeViewProps } from './CodeView.tsx';

type Ed = Parameters<OnMount>[0];

export default function CodeViewImpl(props: CodeViewProps) {
  const { value, language = 'plaintext', readOnly = true, onChange, cutAt, theme } = props;
  const edRef = useRef<Ed | null>(null);
  const decoRef = useRef<monaco.editor.IEditorDecorationsCollection | null>(null);
  const lines = Math.min(props.maxLines ?? 30, Math.max(props.minLines ?? 3, value.split('\n', 400).length));
  const height = lines * 19 + 12;

  const mark = (): void => {
    const ed = edRef.current;
    const model = ed?.getModel();
    if (!ed || !model) return;
    decoRef.current?.clear();
    if (cutAt === undefined || cutAt === null || cutAt >= model.getValueLength()) return;
    const from = model.getPositionAt(cutAt);
    const to = model.getPositionAt(model.getValueLength());
    decoRef.current = ed.createDecorationsCollection([
      {
        range: new monaco.Range(from.lineNumber, from.column, to.lineNumber, to.column),
        options: { inlineClassName: 'monaco-cut', hoverMessage: { value: 'The model did not see this part (output cap).' } },
      },
      {
        range: new monaco.Range(from.lineNumber, 1, from.lineNumber, 1),
        options: { isWholeLine: true, className: 'monaco-cut-line', linesDecorationsClassName: 'monaco-cut-gutter' },
      },
    ]);
  };

  useEffect(mark, [cutAt, value]);

  return (
    <div
      className="code-view"
      data-testid={props.testId}
      aria-label={props.ariaLabel}
      data-readonly={readOnly ? 'true' : 'false'}
      style={{ height }}
    >
      <Editor
        // Editable editors are uncontrolled: feeding each keystroke back as `value` races
        // with fast typing and drops characters.
        {...(readOnly ? { value } : { defaultValue: value })}
        language={readOnly && language === 'javascript' ? READ_ONLY_JS : language}
        theme={theme === 'light' ? 'vs' : 'vs-dark'}
        onChange={(v) => onChange?.(v ?? '')}
        onMount={(ed) => {
          edRef.current = ed;
          mark();
          props.onReady?.();
        }}
        options={{
          readOnly,
          domReadOnly: readOnly,
          minimap: { enabled: false },
          scrollBeyondLastLine: false,
          wordWrap: 'on',
          fontSize: 13,
          lineNumbers: 'on',
          renderValidationDecorations: 'off',
          automaticLayout: true,
          // No links from data: a URL in a log is text, not something to open.
          links: false,
          contextmenu: false,
          // Typing code by hand at a breakpoint: what is typed is what runs.
          autoClosingBrackets: 'never',
          autoClosingQuotes: 'never',
          autoSurround: 'never',
        }}
      />
    </div>
  );
}

/**
 * Creates and disposes a hidden editor, in separate tasks: Monaco's first editor builds its
 * services, measures fonts and renders its first lines (~300 ms in all), which must not land
 * in the middle of opening a log. Called once at startup when the page is idle.
 */
export async function warmUp(theme: 'dark' | 'light'): Promise<void> {
  const host = document.createElement('div');
  host.style.cssText = 'position:fixed;left:-10000px;top:0;width:600px;height:120px;visibility:hidden';
  document.body.appendChild(host);
  // The theme the real editors will use: switching it later re-styles every editor (~150 ms).
  monaco.editor.setTheme(theme === 'light' ? 'vs' : 'vs-dark');
  await nextTask();
  const ed = monaco.editor.create(host, {
    value: 'const x = 1;\nconsole.log(x);',
    language: READ_ONLY_JS,
    readOnly: true,
    minimap: { enabled: false },
    automaticLayout: false,
    fontSize: 13,
    wordWrap: 'on',
    lineNumbers: 'on',
    scrollBeyondLastLine: false,
    renderValidationDecorations: 'off',
    links: false,
    contextmenu: false,
  });
  await nextFrame();
  await nextTask();
  const model = ed.getModel();
  ed.dispose();
  model?.dispose();
  host.remove();
}

function nextTask(): Promise<void> {
  return new Promise((r) => setTimeout(r, 0));
}
function nextFrame(): Promise<void> {
  return new Promise((r) => requestAnimationFrame(() => r()));
}
