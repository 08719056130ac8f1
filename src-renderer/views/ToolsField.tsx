// The optional custom tools module of a new run, a fork or a re-execution: a path on the host
// (as `--tools FILE.mjs`), read there by the session's worker.
export function ToolsField({ value, onChange, idPrefix }: { value: string; onChange: (v: string) => void; idPrefix: string }) {
  return (
    <label>
      Custom tools (optional)
      <input
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder="a tools module on the host, e.g. tools.mjs"
        spellCheck={false}
        data-testid={`${idPrefix}-tools`}
      />
    </label>
  );
}
