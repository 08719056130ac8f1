import Editor, { type OnMount } from '@monaco-editor/react';
import { useEffect, useRef, useState } from 'react';
import { monaco, READ_ONLY_JS } from './setup.ts';
import type { CodeViewProps } from './code-view-props.ts';

type Ed = Parameters<OnMount>[0];

export default function CodeViewImpl(props: CodeViewProps) {
  const { value, language = 'plaintext', readOnly = true, onChange, cutAt, theme } = props;
  const edRef = useRef<Ed | null>(null);
  const decoRef = useRef<monaco.editor.IEditorDecorationsCollection | null>(null);
  const lines = Math.min(props.maxLines ?? 30, Math.max(props.minLines ?? 3, value.split('\n', 400).length));
  // Sized by the lines as drawn once the editor is there: long lines wrap, and a height of
  // one row per line of text hid the last lines of wrapped code and output below the fold.
  const [drawn, setDrawn] = useState<number | null>(null);
  const rows = (n: number): number => n * 19 + 12;
  const height = drawn === null ? rows(lines) : Math.min(rows(props.maxLines ?? 30), Math.max(rows(props.minLines ?? 3), drawn + 12));

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
          setDrawn(ed.getContentHeight());
          ed.onDidContentSizeChange((e) => setDrawn(e.contentHeight));
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
