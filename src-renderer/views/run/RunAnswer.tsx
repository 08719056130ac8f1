// A run's answer, with why it stopped and how an evaluation graded it.
import type { StopReason } from '../../../src-shared/events.ts';
import type { EvalTaskRow } from '../../../src-shared/protocol.ts';
import { TextBlock } from '../TextBlock.tsx';

/**
 * The run's answer, marked when a limit or an error stopped the run (then it is what the
 * model said when made to stop), and with its score when an evaluation graded it: an answer
 * the run gave in good order can still be wrong.
 */
export function RunAnswer({ answer, stop, graded }: { answer: string; stop: StopReason; graded: EvalTaskRow | null }) {
  const stopped = stop !== 'answered';
  const wrong = graded !== null && !graded.correct;
  const grade =
    graded === null
      ? ''
      : ` · ${graded.correct ? 'correct' : graded.score > 0 ? 'partly correct' : 'wrong'}: score ${graded.score.toFixed(3)} (evaluation task ${graded.id})`;
  return (
    <div className={`answer${stopped || wrong ? ' answer-stopped' : ''}`} data-testid="run-answer" data-stop={stop}>
      <b>
        {stopped ? `Answer (stopped: ${stop.replace(/_/g, ' ')})` : 'Answer'}
        {grade}
      </b>
      <TextBlock text={answer} />
    </div>
  );
}
