// Monaco modules imported by path, which ship without declaration files.

// Monaco's own Monarch grammar for JavaScript (shipped without a declaration file).
declare module 'monaco-editor/languages/definitions/javascript/javascript.js' {
  import type { languages } from 'monaco-editor';
  export const conf: languages.LanguageConfiguration;
  export const language: languages.IMonarchLanguage;
}

// Monaco's own modules the prewarm (prewarm.ts) imports for their evaluation alone, in steps.
declare module 'monaco-editor/base/common/strings.js';
declare module 'monaco-editor/editor/common/model/textModel.js';
declare module 'monaco-editor/editor/browser/widget/codeEditor/codeEditorWidget.js';
declare module 'monaco-editor/editor/standalone/browser/standaloneServices.js';
declare module 'monaco-editor/editor/browser/widget/diffEditor/diffEditor.contribution.js';
declare module 'monaco-editor/editor/contrib/inlineCompletions/browser/inlineCompletions.contribution.js';
declare module 'monaco-editor/editor/contrib/suggest/browser/suggestController.js';
declare module 'monaco-editor/editor/contrib/hover/browser/hoverContribution.js';
declare module 'monaco-editor/editor/contrib/codeAction/browser/codeActionContributions.js';
declare module 'monaco-editor/editor/editor.main.js';
