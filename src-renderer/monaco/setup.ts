// Monaco from the bundled package, with its workers built by Vite: nothing from a CDN
// (the loader's default), nothing from the network.
import { loader } from '@monaco-editor/react';
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import TsWorker from 'monaco-editor/language/typescript/ts.worker?worker';
import { conf as jsConf, language as jsTokens } from 'monaco-editor/languages/definitions/javascript/javascript.js';

self.MonacoEnvironment = {
  getWorker(_id: string, label: string): Worker {
    if (label === 'typescript' || label === 'javascript') return new TsWorker();
    return new EditorWorker();
  },
};

loader.config({ monaco });

/**
 * JavaScript colouring with no language service, for code that is only read. Monaco's
 * `javascript` starts the TypeScript worker (an 11 MB script, then checks every model),
 * which took a core away from the parse worker while a big log loaded (100 MB: 5.5 s
 * against 7.7–9.3 s with it). Only code being edited at a breakpoint gets `javascript`.
 */
export const READ_ONLY_JS = 'rlm-javascript';
monaco.languages.register({ id: READ_ONLY_JS });
monaco.languages.setLanguageConfiguration(READ_ONLY_JS, jsConf);
monaco.languages.setMonarchTokensProvider(READ_ONLY_JS, jsTokens);

export { monaco };
