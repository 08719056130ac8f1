// Which folder may import which: the layers of docs/architecture.md as an allowlist. Anything
// not allowed here is an error in `npm run check` (`npm run layers`).
const folder = (name) => `^${name}/`;
const own = (name) => ({ from: { path: folder(name) }, to: { path: folder(name) } });
const may = (from, ...to) => ({ from: { path: folder(from) }, to: { path: `^(${to.join('|')})/` } });
const external = (from) => ({
  from: { path: folder(from) },
  to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-no-pkg', 'npm-unknown', 'core'] },
});

const MAIN = 'src-main';
const SHARED = 'src-shared';

// Where each package with a boundary of its own may be imported: its one home. The path is
// where the resolver finds it (node_modules/…), or the bare name when it does not (Monaco's
// `?worker` imports).
const pkg = (name) => `^(node_modules/)?${name}(/|$)`;
const homes = {
  // The desktop shell's process and its preload script.
  electron: ['src-main/electron/'],
  // The Node WebSocket server and the host client of `--host`; the page uses the browser's own.
  ws: ['src-main/transport/'],
  // The JavaScript REPL's isolates and the Python REPL's (Pyodide runs in an isolate too).
  'isolated-vm': ['src-main/sandbox/'],
  // Parsing a block to hoist its declarations, and a Python tool call's arguments.
  acorn: ['src-main/sandbox/'],
  // Found by path (createRequire), so the resolver sees no import: the rule holds for the day it does.
  pyodide: ['src-main/sandbox/python/'],
  openai: ['src-main/lm/'],
  bullmq: ['src-main/eval/queue/'],
  ioredis: ['src-main/eval/queue/'],
  commander: ['src-main/cli/'],
  react: ['src-renderer/'],
  'react-dom': ['src-renderer/'],
  d3: ['src-renderer/'],
  'monaco-editor': ['src-renderer/monaco/'],
  '@monaco-editor/react': ['src-renderer/monaco/'],
  zustand: ['src-renderer/'],
  '@tanstack/react-virtual': ['src-renderer/'],
};

// The engine's surface: its index, and the modules that commands which never run a model
// import on their own so that they do not load the conversation (options, prompt import,
// dataset reading) or that a process loads by itself (the sandbox process). Any other engine
// module (the turn loop in run.ts, the usage ledger, the reasoning split, …) is private: a new
// one stays private until it is named here.
const ENGINE_SURFACE = [
  'index',
  'conversation',
  'config',
  'context-file',
  'context-meta',
  'tools-module',
  'worked-example',
  'event-recorder',
  'direct-run',
  'gates',
  'code-blocks',
  'block-events',
  'concurrency',
  'sub-lm-budgets',
  'prompts',
  'sandbox-process/sandbox-process',
];

module.exports = {
  forbidden: [
    {
      name: 'engine-surface',
      severity: 'error',
      comment: 'Outside the engine, only its surface (ENGINE_SURFACE) is imported.',
      from: { pathNot: '^src-main/engine/' },
      to: { path: '^src-main/engine/', pathNot: `^src-main/engine/(${ENGINE_SURFACE.join('|')})\\.ts$` },
    },
    { name: 'no-circular', severity: 'error', comment: 'Modules import each other in one direction.', from: {}, to: { circular: true } },
    ...Object.entries(homes).map(([name, home]) => ({
      name: `home-of-${name}`,
      severity: 'error',
      comment: `${name} is imported only in ${home.join(', ')}`,
      from: { pathNot: home.map((h) => `^${h}`) },
      to: { path: pkg(name) },
    })),
  ],
  allowedSeverity: 'error',
  allowed: [
    // src-shared: pure TypeScript for both sides, zod only.
    own(SHARED),
    { from: { path: folder(SHARED) }, to: { path: '^node_modules/zod/' } },
    // Tree queries are JSONata expressions (src-shared/analysis/query.ts).
    { from: { path: `^${SHARED}/analysis/query\\.ts$` }, to: { path: '^node_modules/jsonata/' } },
    // The renderer: src-shared and npm packages, never src-main; inside it, folder by folder
    // (its README), every arrow pointing down: the shell (main.tsx, App.tsx, shortcuts.ts
    // beside them, and the shareable file's bundle/) composes the views; views draw with
    // charts/ and monaco/ and reach the host through app/ (the services and their React
    // context); the services use the store, the workers and the transport; the store and the
    // workers know only the pure helpers and contracts in lib/.
    may('src-renderer', SHARED),
    { from: { path: '^src-renderer/[^/]+$' }, to: { path: folder('src-renderer') } },
    ...Object.entries({
      lib: [],
      transport: [],
      workers: ['lib'],
      store: ['lib'],
      app: ['lib', 'store', 'transport', 'workers'],
      monaco: ['lib', 'store'],
      charts: ['lib', 'store', 'app'],
      views: ['lib', 'store', 'app', 'charts', 'monaco'],
      bundle: ['lib', 'store', 'app', 'views', 'monaco', 'workers', 'transport'],
    }).flatMap(([f, to]) => [
      own(`src-renderer/${f}`),
      ...(to.length ? [may(`src-renderer/${f}`, ...to.map((t) => `src-renderer/${t}`))] : []),
    ]),
    // The bundle's page is the shell of the shareable file: App and its styles.
    { from: { path: '^src-renderer/bundle/' }, to: { path: '^src-renderer/(App\\.tsx|styles\\.css)$' } },
    { from: { path: folder('src-renderer') }, to: { dependencyTypes: ['npm', 'npm-dev'] } },
    // Monaco's languages and workers, imported with Vite's `?worker` suffix (not resolvable here).
    { from: { path: '^src-renderer/monaco/' }, to: { path: '^monaco-editor/' } },
    // src-main, folder by folder.
    ...[
      'engine',
      'sandbox',
      'lm',
      'logs',
      'corpus',
      'demo',
      'mock-llm',
      'eval',
      'rerun',
      'export',
      'analysis',
      'host',
      'transport',
      'electron',
      'cli',
    ].flatMap((f) => [own(`${MAIN}/${f}`), may(`${MAIN}/${f}`, SHARED), external(`${MAIN}/${f}`)]),
    may(`${MAIN}/engine`, `${MAIN}/sandbox`, `${MAIN}/lm`),
    may(`${MAIN}/logs`, `${MAIN}/engine`),
    may(`${MAIN}/demo`, `${MAIN}/corpus`),
    may(`${MAIN}/mock-llm`, `${MAIN}/lm`, `${MAIN}/eval/tasks`),
    may(`${MAIN}/eval`, `${MAIN}/engine`, `${MAIN}/lm`, `${MAIN}/logs`, `${MAIN}/sandbox`, `${MAIN}/corpus`),
    may(`${MAIN}/rerun`, `${MAIN}/engine`, `${MAIN}/lm`, `${MAIN}/sandbox`, `${MAIN}/logs`),
    may(`${MAIN}/export`, `${MAIN}/logs`),
    // Analyses over many logs: reading LOG|DIR and an evaluation's results.
    may(`${MAIN}/analysis`, `${MAIN}/logs`, `${MAIN}/export`, `${MAIN}/eval`),
    // The GenAI conventions are a subpath export the resolver here does not follow.
    { from: { path: folder(`${MAIN}/export`) }, to: { path: '^@opentelemetry/' } },
    // The built-in demo profile is served by an in-process mock-llm.
    may(
      `${MAIN}/host`,
      `${MAIN}/engine`,
      `${MAIN}/lm`,
      `${MAIN}/logs`,
      `${MAIN}/sandbox`,
      `${MAIN}/rerun`,
      `${MAIN}/eval`,
      `${MAIN}/demo`,
      `${MAIN}/mock-llm`,
      `${MAIN}/analysis`,
    ),
    may(`${MAIN}/transport`, `${MAIN}/host`),
    may(`${MAIN}/electron`, `${MAIN}/transport`, `${MAIN}/host`, `${MAIN}/logs`),
    may(`${MAIN}/cli`, MAIN),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.d\\.ts$' },
  },
};
