// Monaco's one-time costs, paid while the page is idle: evaluating its ~4 MB of modules,
// starting its services, compiling the grammar, building and painting a first editor. Done as
// one dynamic import and one hidden editor, these were main-thread tasks of 0.2–0.9 s that
// froze the page for a click or a log starting to load. Here each piece is its own step in
// its own idle moment (each well under 100 ms). While a log loads, the module steps go on
// between the load's own tasks (the first editor, right after the load, needs them), the
// steps that touch editors wait for its end, as real editors do (mount-queue.ts), and the
// text warm-up is dropped for good (the log's view lays its text out itself; a forced layout
// of a page building its first view cost 3-4 times more).
import { anyLoadStarted, editorsFree, editorsHeld } from '../lib/mount-queue.ts';

/** One piece of the prewarm; each runs in its own task. */
export interface PrewarmStep {
  name: string;
  run(): unknown;
  /** Styles or creates an editor: waits while a log loads, as real editors do. */
  afterLoad?: boolean;
  /** Only worth doing before a log is shown (it warms what the log's view would do itself): dropped once one has started loading. */
  beforeLoad?: boolean;
}

/** Resolves in an idle moment, or after `timeoutMs` at the latest (a busy page still gets there); 0: in the next task. */
export type IdleWait = (timeoutMs: number) => Promise<void>;

const IDLE_DEADLINE_MS = 1000;
const MODULE_DEADLINE_MS = 100;
/** While a log loads: no idle wait, only a yield (a task boundary) between steps. */
const LOADING_DEADLINE_MS = 0;

const idleMoment: IdleWait = (timeoutMs) =>
  new Promise((resolve) => {
    if (timeoutMs > 0 && typeof requestIdleCallback === 'function') requestIdleCallback(() => resolve(), { timeout: timeoutMs });
    else setTimeout(resolve, Math.min(timeoutMs, 50));
  });

/** Runs `steps` in order, one per idle moment (see the top of this file for the rules while a log loads). */
export async function runPrewarm(steps: readonly PrewarmStep[], idle: IdleWait = idleMoment, deadlineMs = IDLE_DEADLINE_MS): Promise<void> {
  for (const step of steps) {
    if (step.beforeLoad && anyLoadStarted()) continue;
    do {
      if (step.afterLoad) await editorsFree();
      // While a log loads the page is rarely idle: a step goes in between the load's tasks.
      await idle(editorsHeld() ? LOADING_DEADLINE_MS : deadlineMs);
    } while (step.afterLoad && editorsHeld());
    // A log opened during the wait lays out its own view (a forced layout then costs 3-4 times more).
    if (step.beforeLoad && anyLoadStarted()) continue;
    const start = performance.now();
    await step.run();
    // The benchmark (test/e2e/perf/monaco-prewarm.ts) attributes long tasks to steps by these.
    performance.measure(`monaco-prewarm:${step.name}`, { start, end: performance.now() });
  }
}

/**
 * Monaco's modules, in the order they build on each other; each dynamic import becomes its
 * own chunk (the modules the earlier ones did not reach), so each evaluates in its own task.
 * The real editor's `import('./CodeViewImpl.tsx')` then finds them evaluated.
 */
const MODULE_STEPS: PrewarmStep[] = [
  { name: 'strings', run: () => import('monaco-editor/base/common/strings.js') },
  { name: 'textModel', run: () => import('monaco-editor/editor/common/model/textModel.js') },
  { name: 'codeEditorWidget', run: () => import('monaco-editor/editor/browser/widget/codeEditor/codeEditorWidget.js') },
  { name: 'standaloneServices', run: () => import('monaco-editor/editor/standalone/browser/standaloneServices.js') },
  { name: 'editor.api', run: () => import('monaco-editor/editor/editor.api.js') },
  { name: 'typescript', run: () => import('monaco-editor/languages/features/typescript/register.js') },
  { name: 'css', run: () => import('monaco-editor/languages/features/css/register.js') },
  { name: 'html', run: () => import('monaco-editor/languages/features/html/register.js') },
  { name: 'json', run: () => import('monaco-editor/languages/features/json/register.js') },
  { name: 'diffEditor', run: () => import('monaco-editor/editor/browser/widget/diffEditor/diffEditor.contribution.js') },
  {
    name: 'inlineCompletions',
    run: () => import('monaco-editor/editor/contrib/inlineCompletions/browser/inlineCompletions.contribution.js'),
  },
  { name: 'suggest', run: () => import('monaco-editor/editor/contrib/suggest/browser/suggestController.js') },
  { name: 'hover', run: () => import('monaco-editor/editor/contrib/hover/browser/hoverContribution.js') },
  { name: 'codeAction', run: () => import('monaco-editor/editor/contrib/codeAction/browser/codeActionContributions.js') },
  { name: 'editor.main', run: () => import('monaco-editor/editor/editor.main.js') },
  { name: 'setup', run: () => import('./setup.ts') },
  { name: 'CodeViewImpl', run: () => import('./CodeViewImpl.tsx') },
];

const SAMPLE = 'const x = 1;\nconsole.log(x);';

/**
 * Loads Monaco and builds one throwaway editor in steps while the page is idle, so none of it
 * becomes a long task while a log loads. Sets `data-monaco="ready"` on <html> when done (the
 * benchmarks wait for it).
 */
export async function prewarmMonaco(theme: 'dark' | 'light', idle: IdleWait = idleMoment): Promise<void> {
  // Short deadlines: a log opened early needs these modules as soon as it is shown (a single
  // import started them all at once before), and each is only a few tens of ms.
  await runPrewarm(MODULE_STEPS, idle, MODULE_DEADLINE_MS);
  const { monaco, READ_ONLY_JS } = await import('./setup.ts');
  let host: HTMLDivElement | null = null;
  let ed: ReturnType<typeof monaco.editor.create> | null = null;
  await runPrewarm(
    [
      // The theme the real editors will use: switching it later re-styles every editor (~150 ms).
      { name: 'theme', run: () => monaco.editor.setTheme(theme === 'light' ? 'vs' : 'vs-dark') },
      // Compiles the grammar and starts the tokenizer.
      { name: 'grammar', run: () => monaco.editor.colorize(SAMPLE, READ_ONLY_JS, {}) },
      {
        name: 'editor',
        run: () => {
          // A real editor came first (a log was opened meanwhile): it paid for the first one.
          if (monaco.editor.getEditors().length > 0) return;
          host = document.createElement('div');
          host.style.cssText = 'position:fixed;left:-10000px;top:0;width:600px;height:120px;visibility:hidden';
          document.body.appendChild(host);
          ed = monaco.editor.create(host, {
            value: SAMPLE,
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
        },
      },
      // Its first lines are painted in the next frame.
      { name: 'paint', run: () => new Promise<void>((r) => requestAnimationFrame(() => r())) },
      {
        name: 'dispose',
        run: () => {
          const model = ed?.getModel();
          ed?.dispose();
          model?.dispose();
          host?.remove();
        },
      },
    ].map((step) => ({ ...step, afterLoad: true })),
    idle,
  );
  document.documentElement.dataset.monaco = 'ready';
}
