// What a code view takes: one module that the lazy editor, its plain stand-in in shared
// bundles and the wrapper that chooses between them all import (none imports another).
export interface CodeViewProps {
  value: string;
  /** Python is coloured by Monaco's Monarch grammar alone (no language worker), read-only or not. */
  language?: 'javascript' | 'python' | 'plaintext';
  readOnly?: boolean;
  onChange?: (v: string) => void;
  /** Character offset from which the model did not see the text. */
  cutAt?: number | null;
  maxLines?: number;
  minLines?: number;
  testId?: string | undefined;
  ariaLabel?: string;
  theme?: 'dark' | 'light';
  /** Called once the editor exists (the mount queue moves on). */
  onReady?: () => void;
}
