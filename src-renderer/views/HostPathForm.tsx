import { useState } from 'react';

/** A path on the host's file system, typed in and opened (a log, an evaluation directory). */
export function HostPathForm(props: {
  placeholder: string;
  label: string;
  submitText: string;
  onOpen: (path: string) => void;
  disabled?: boolean;
  inputTestId?: string;
  submitTestId?: string;
}) {
  const [path, setPath] = useState('');
  const disabled = props.disabled ?? false;
  return (
    <form
      className="open-path"
      onSubmit={(e) => {
        e.preventDefault();
        if (path.trim()) props.onOpen(path.trim());
      }}
    >
      <input
        type="text"
        placeholder={props.placeholder}
        aria-label={props.label}
        value={path}
        onChange={(e) => setPath(e.target.value)}
        data-testid={props.inputTestId}
        disabled={disabled}
      />
      <button type="submit" data-testid={props.submitTestId} disabled={disabled}>
        {props.submitText}
      </button>
    </form>
  );
}
