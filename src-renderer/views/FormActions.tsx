// The end of a form that starts something (a run, a fork, a re-execution): what went wrong, if
// anything, then the submit button and, where the form can be left without starting, Cancel.
export function FormActions({
  id,
  problem,
  busy,
  label,
  busyLabel,
  onCancel,
}: {
  /** Prefix of the test ids: `${id}-error`, `${id}-start`. */
  id: string;
  problem: string | null;
  busy: boolean;
  label: string;
  busyLabel: string;
  onCancel?: () => void;
}) {
  const submit = (
    <button type="submit" className="primary" disabled={busy} data-testid={`${id}-start`}>
      {busy ? busyLabel : label}
    </button>
  );
  return (
    <>
      {problem ? (
        <p role="alert" className="pp-error" data-testid={`${id}-error`}>
          {problem}
        </p>
      ) : null}
      {onCancel ? (
        <div className="pp-actions">
          {submit}
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      ) : (
        submit
      )}
    </>
  );
}
