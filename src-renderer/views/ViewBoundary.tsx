// An error boundary around one view: a fault while drawing it (a figure of an unexpected
// shape, a bug) shows what failed in its place, with a way to try again or to close what it
// shows, instead of unmounting the whole page and every open session with it.
import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** What the view shows, for the message: "the policy metrics", "the session's run view". */
  what: string;
  /** The error is forgotten when this changes (another session or panel shown): that view gets its own try. */
  resetKey?: unknown;
  /** Closes what failed (the session, the metrics); the button is offered only with it. */
  onClose?: () => void;
  closeText?: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
  /** Where in the view it failed (React's component stack), for a bug report. */
  where: string | null;
  resetKey: unknown;
}

export class ViewBoundary extends Component<Props, State> {
  constructor(props: Props) {
    super(props);
    this.state = { error: null, where: null, resetKey: props.resetKey };
  }

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    if (Object.is(props.resetKey, state.resetKey)) return null;
    return { error: null, where: null, resetKey: props.resetKey };
  }

  override componentDidCatch(_error: Error, info: ErrorInfo): void {
    this.setState({ where: info.componentStack ?? null });
  }

  private readonly retry = (): void => this.setState({ error: null, where: null });

  override render(): ReactNode {
    const { error, where } = this.state;
    if (!error) return this.props.children;
    const { what, onClose, closeText } = this.props;
    return (
      <div className="view-failed" role="alert" data-testid="view-failed">
        <p>
          <strong>Showing {what} failed:</strong> {error.message || error.name}
        </p>
        <p className="muted">The rest of the app and the other sessions are unaffected; nothing on disk was touched.</p>
        <div className="view-failed-actions">
          <button type="button" onClick={this.retry} data-testid="view-failed-retry">
            Try again
          </button>
          {onClose ? (
            <button type="button" onClick={onClose} data-testid="view-failed-close">
              {closeText ?? 'Close'}
            </button>
          ) : null}
        </div>
        {where || error.stack ? (
          <details>
            <summary>Details for a bug report</summary>
            <pre>{[error.stack ?? String(error), where].filter(Boolean).join('\n')}</pre>
          </details>
        ) : null}
      </div>
    );
  }
}
