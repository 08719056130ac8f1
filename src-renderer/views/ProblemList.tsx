// The lines a log reader could not use, one per item: shown in full where nothing was read,
// folded under a count in the side panel otherwise.

export function problemCount(problems: readonly string[]): string {
  return `${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`;
}

export function ProblemList({ problems }: { problems: readonly string[] }) {
  return (
    <ul>
      {problems.map((p, i) => (
        <li key={i}>{p}</li>
      ))}
    </ul>
  );
}
