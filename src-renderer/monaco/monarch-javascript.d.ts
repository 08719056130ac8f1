// Monaco's own Monarch grammar for JavaScript (shipped without a declaration file).
declare module 'monaco-editor/languages/definitions/javascript/javascript.js' {
  import type { languages } from 'monaco-editor';
  export const conf: languages.LanguageConfiguration;
  export const language: languages.IMonarchLanguage;
}
