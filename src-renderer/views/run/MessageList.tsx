// The chat messages of a model call, one box each.
import type { ChatMessage } from '../../../src-shared/events.ts';
import { TextBlock } from '../TextBlock.tsx';

export function MessageList({ messages, label }: { messages: ChatMessage[]; label: string }) {
  if (messages.length === 0) return null;
  return (
    <div className="messages" aria-label={label}>
      {messages.map((m, i) => (
        <div key={i} className={`msg role-${m.role}`}>
          <div className="msg-role">{m.role}</div>
          <TextBlock text={m.content} />
        </div>
      ))}
    </div>
  );
}
