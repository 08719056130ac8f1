// The half of the REPL that lives INSIDE the isolate. `sandboxRuntime` is never called on the
// host: its source text (`String(sandboxRuntime)`) is evaluated in the isolate by a closure that
// receives the host hooks, so the hooks (isolated-vm Callbacks and a Reference) stay in this
// closure and never appear on the sandbox's global object. It must therefore be self-contained:
// no imports, no references to module scope, only syntax that survives type stripping.

/** Host → isolate configuration, passed as JSON. */
export interface RuntimeConfig {
  outputCapChars: number;
  /** Buffered output is sent to the host once this many characters are waiting. */
  flushChars: number;
  /** ...or once this long has passed since the last send (so a later hang loses little). */
  flushMs: number;
  toolFunctions: string[];
  /** Paper-era FINAL and FINAL_VAR, by these rules (null: not there). */
  finalVar: { notFound: string; noVariables: string } | null;
  /** What SHOW_VARS and a sub-call without a prompt or with arguments of the wrong type return: the prompt pack's (`ReplTexts`). */
  texts: {
    showVars: string;
    showVarsEmpty: string;
    emptyPrompt: string;
    badPrompt: string;
    badPrompts: string;
    badPromptsItem: string;
    badModel: string;
  };
}

/** What the `run` op returns (as JSON). */
export interface BlockOutcome {
  error: { name: string; message: string } | null;
  variables: string[];
  /** Every variable after the block, short (see `shortLocal`), for the reference format's `locals`. */
  locals?: Record<string, unknown>;
  dropped: [number, number];
}

/** What the `list` op returns (as JSON). */
interface ListedVariable {
  name: string;
  type: string;
  size: number | null;
  preview: string;
}

/** The isolate-side view of the host dispatcher (an ivm.Reference to a host async function). */
interface HostDispatch {
  applySyncPromise(receiver: undefined, args: string[]): unknown;
}
type FlushHook = (stream: number, text: string, dropped: number) => void;
type SubmitHook = (text: string) => void;

export function sandboxRuntime(
  flushHook: FlushHook,
  submitHook: SubmitHook,
  dispatch: HostDispatch,
  configJson: string,
): (op: string, arg: string) => string | Promise<string> {
  'use strict';
  type Dict = Record<string, unknown>;
  type Obj = object;
  const G = globalThis as unknown as Dict;

  // Intrinsics captured before any model code runs, so that code cannot break the runtime by
  // replacing them (it only ever affects its own isolate, but the REPL should keep working).
  const ObjectCtor = Object;
  const defineProperty = ObjectCtor.defineProperty;
  const getOwnDesc = ObjectCtor.getOwnPropertyDescriptor;
  const getOwnNames = ObjectCtor.getOwnPropertyNames;
  const getProto = ObjectCtor.getPrototypeOf;
  const objectKeys = ObjectCtor.keys;
  const ObjectProto = ObjectCtor.prototype;
  const isArray = Array.isArray;
  const jsonStringify = JSON.stringify;
  const jsonParse = JSON.parse;
  const StringCtor = String;
  const NumberIsFinite = Number.isFinite;
  const ErrorCtor = Error;
  const ErrorProto = Error.prototype;
  const dateNow = Date.now;
  const geval = G.eval as (src: string) => unknown;
  const WeakMapCtor = WeakMap;
  const reflectApply = Reflect.apply;
  // `fn.call(self, ...args)` that keeps working if code later replaces Function.prototype.call.
  const callBound = <A extends unknown[], R>(fn: (...args: A) => R): ((self: unknown, ...args: A) => R) => Function.prototype.call.bind(fn);
  const arrayPushFn = Array.prototype.push;
  const arraySliceFn = Array.prototype.slice;
  const arrayPush = callBound(Array.prototype.push as (...items: unknown[]) => number);
  const arrayJoin = callBound(Array.prototype.join);
  const arrayIndexOf = callBound(Array.prototype.indexOf as (item: unknown) => number);
  const arrayPop = callBound(Array.prototype.pop as () => unknown);
  const stringSlice = callBound(String.prototype.slice);
  const regexTest = callBound(RegExp.prototype.test);
  const fnToString = callBound(Function.prototype.toString);
  const symbolToString = callBound(Symbol.prototype.toString);
  const dateToISO = callBound(Date.prototype.toISOString);
  const dateGetTime = callBound(Date.prototype.getTime);
  const regexpSourceGetter = getOwnDesc(RegExp.prototype, 'source')?.get;
  const regexpFlagsGetter = getOwnDesc(RegExp.prototype, 'flags')?.get;
  const mapSizeGetter = getOwnDesc(Map.prototype, 'size')?.get;
  const setSizeGetter = getOwnDesc(Set.prototype, 'size')?.get;
  const mapEntries = callBound(Map.prototype.entries as () => IterableIterator<[unknown, unknown]>);
  const setValues = callBound(Set.prototype.values as () => IterableIterator<unknown>);
  const iterNext = (it: Iterator<unknown>): IteratorResult<unknown> => it.next();
  // Objects whose every element is a key (a typed array, a String object) but costs a byte or
  // two: listing their keys made tens of strings per byte, far past the memory limit (a 64 MiB
  // Uint8Array in a variable took the sandbox process to 3.2 GB while the block's variables were
  // summed up). They are measured and rendered through these instead.
  const typedArrayProto = getProto(Uint8Array.prototype) as Obj;
  const typedArrayTag = getOwnDesc(typedArrayProto, Symbol.toStringTag)?.get;
  const typedArrayLength = getOwnDesc(typedArrayProto, 'length')?.get;
  const bufferByteLength: [string, (() => unknown) | undefined][] = [
    ['ArrayBuffer', getOwnDesc(ArrayBuffer.prototype, 'byteLength')?.get],
    ['SharedArrayBuffer', typeof SharedArrayBuffer === 'function' ? getOwnDesc(SharedArrayBuffer.prototype, 'byteLength')?.get : undefined],
    ['DataView', getOwnDesc(DataView.prototype, 'byteLength')?.get],
  ];
  const stringValueOf = callBound(String.prototype.valueOf);
  const stringIndexOf = callBound(String.prototype.indexOf);
  /** A pack text with the placeholders named in `values` filled in, in one pass; other braces stay text. */
  const fillText = (template: string, values: Dict): string => {
    let out = '';
    let from = 0;
    for (;;) {
      const open = stringIndexOf(template, '{', from);
      if (open < 0) return out + stringSlice(template, from);
      out += stringSlice(template, from, open);
      const close = stringIndexOf(template, '}', open);
      const key = close < 0 ? '' : stringSlice(template, open + 1, close);
      const value = close < 0 ? undefined : getOwnDesc(values, key);
      if (value !== undefined && 'value' in value) {
        out += StringCtor(value.value);
        from = close + 1;
      } else {
        out += '{';
        from = open + 1;
      }
    }
  };

  const config = jsonParse(configJson) as RuntimeConfig;
  const IDENT = /^[A-Za-z_$][\w$]*$/;
  const MAX_DEPTH = 4;
  const MAX_ITEMS = 100;
  const MAX_NESTED_STRING = 10_000;
  const MICROTASK_TURNS = 32;
  const baseline: Dict = ObjectCtor.create(null) as Dict;
  for (const name of getOwnNames(G)) baseline[name] = true;

  // ---- output ---------------------------------------------------------------------------------
  interface Stream {
    parts: string[];
    buffered: number;
    accepted: number;
    dropped: number;
    reportedDropped: number;
  }
  const newStream = (): Stream => ({ parts: [], buffered: 0, accepted: 0, dropped: 0, reportedDropped: 0 });
  let streams: [Stream, Stream] = [newStream(), newStream()];
  let lastFlush = 0;
  let blockActive = false;

  function flushStream(index: 0 | 1): void {
    const s = streams[index];
    if (s.buffered === 0 && s.dropped === s.reportedDropped) return;
    const text = arrayJoin(s.parts, '');
    s.parts = [];
    s.buffered = 0;
    s.reportedDropped = s.dropped;
    flushHook(index, text, s.dropped);
  }
  function flushAll(): void {
    flushStream(0);
    flushStream(1);
    lastFlush = dateNow();
  }
  function emit(index: 0 | 1, text: string): void {
    if (!blockActive) return; // e.g. a getter running during `list`
    const s = streams[index];
    const room = config.outputCapChars - s.accepted;
    if (room <= 0) {
      s.dropped += text.length;
      return;
    }
    let kept = text;
    if (kept.length > room) {
      s.dropped += kept.length - room;
      kept = stringSlice(kept, 0, room);
    }
    arrayPush(s.parts, kept);
    s.buffered += kept.length;
    s.accepted += kept.length;
    const now = dateNow();
    if (s.buffered >= config.flushChars || now - lastFlush >= config.flushMs || s.accepted >= config.outputCapChars) {
      flushAll();
    }
  }

  // ---- formatting -----------------------------------------------------------------------------
  function typeName(value: unknown): string {
    if (value === null) return 'null';
    if (isArray(value)) return 'Array';
    const t = typeof value;
    if (t !== 'object') return t;
    const ctor = constructorName(value as Obj);
    return ctor ?? 'object';
  }
  function constructorName(value: Obj): string | null {
    const proto = getProto(value) as Obj | null;
    if (proto === null) return null;
    if (proto === ObjectProto) return 'Object';
    const d = getOwnDesc(proto, 'constructor');
    const ctor = d && 'value' in d ? (d.value as unknown) : undefined;
    if (typeof ctor === 'function') {
      const n = getOwnDesc(ctor, 'name');
      if (n && typeof n.value === 'string' && n.value) return n.value;
    }
    return null;
  }
  function functionLabel(fn: unknown): string {
    const n = getOwnDesc(fn, 'name');
    const name = n && typeof n.value === 'string' ? n.value : '';
    let isClass: boolean;
    try {
      isClass = regexTest(/^class[\s{]/, fnToString(fn));
    } catch {
      isClass = false;
    }
    if (isClass) return name ? `[class ${name}]` : '[class (anonymous)]';
    return name ? `[Function: ${name}]` : '[Function (anonymous)]';
  }
  function quote(s: string, maxLen: number): string {
    if (s.length > maxLen) return `${jsonStringify(stringSlice(s, 0, maxLen))}... ${s.length - maxLen} more characters`;
    return jsonStringify(s);
  }
  function keyLabel(key: string): string {
    return regexTest(IDENT, key) ? key : jsonStringify(key);
  }

  /** A bounded, getter-free rendering of any value (strings quoted). */
  function inspect(value: unknown, maxChars: number): string {
    const stack: unknown[] = [];
    let used = 0;
    const render = (v: unknown, depth: number): string => {
      if (used > maxChars) return '…';
      const out = renderInner(v, depth);
      used += out.length;
      return out;
    };
    const renderInner = (v: unknown, depth: number): string => {
      switch (typeof v) {
        case 'string':
          return quote(v, MAX_NESTED_STRING);
        case 'number':
          return v === 0 && 1 / v < 0 ? '-0' : StringCtor(v);
        case 'bigint':
          return `${StringCtor(v)}n`;
        case 'boolean':
        case 'undefined':
          return StringCtor(v);
        case 'symbol':
          return symbolToString(v);
        case 'function':
          return functionLabel(v);
        default:
          break;
      }
      if (v === null) return 'null';
      const obj = v as Obj;
      const typed = typedArrayOf(obj);
      if (typed) {
        const items: string[] = [];
        for (let i = 0; i < typed.length && i < MAX_ITEMS && used <= maxChars; i++) {
          arrayPush(items, render((obj as Record<number, unknown>)[i], depth + 1));
        }
        if (typed.length > MAX_ITEMS) arrayPush(items, `... ${typed.length - MAX_ITEMS} more items`);
        return `${typed.kind}(${typed.length}) [${arrayJoin(items, ', ')}]`;
      }
      if (arrayIndexOf(stack, obj) >= 0) return '[Circular]';
      const answerState = answerStates.get(obj);
      if (answerState) {
        return `{content: ${render(getOwnDesc(obj, 'content')?.value, depth + 1)}, ready: ${render(answerState.ready, depth + 1)}}`;
      }
      const special = renderSpecial(obj);
      if (special !== null) return special;
      const arr = isArray(obj);
      if (depth >= MAX_DEPTH) return arr ? '[Array]' : `[${constructorName(obj) ?? 'Object'}]`;
      arrayPush(stack, obj);
      try {
        const items: string[] = [];
        if (arr) {
          const list = obj as unknown[];
          const n = list.length;
          for (let i = 0; i < n && i < MAX_ITEMS; i++) {
            if (used > maxChars) break;
            arrayPush(items, renderProperty(obj, StringCtor(i), depth));
          }
          if (n > MAX_ITEMS) arrayPush(items, `... ${n - MAX_ITEMS} more items`);
          return `[${arrayJoin(items, ', ')}]`;
        }
        const mapSize = brand(mapSizeGetter, obj);
        if (mapSize !== null) {
          const it = mapEntries(obj);
          for (let i = 0; i < MAX_ITEMS && used <= maxChars; i++) {
            const step = iterNext(it);
            if (step.done) break;
            const [k, val] = step.value as [unknown, unknown];
            arrayPush(items, `${render(k, depth + 1)} => ${render(val, depth + 1)}`);
          }
          if (mapSize > MAX_ITEMS) arrayPush(items, `... ${mapSize - MAX_ITEMS} more items`);
          return `Map(${mapSize}) {${arrayJoin(items, ', ')}}`;
        }
        const setSize = brand(setSizeGetter, obj);
        if (setSize !== null) {
          const it = setValues(obj);
          for (let i = 0; i < MAX_ITEMS && used <= maxChars; i++) {
            const step = iterNext(it);
            if (step.done) break;
            arrayPush(items, render(step.value, depth + 1));
          }
          if (setSize > MAX_ITEMS) arrayPush(items, `... ${setSize - MAX_ITEMS} more items`);
          return `Set(${setSize}) {${arrayJoin(items, ', ')}}`;
        }
        const keys = objectKeys(obj);
        for (let i = 0; i < keys.length && i < MAX_ITEMS; i++) {
          if (used > maxChars) break;
          const key = keys[i] as string;
          arrayPush(items, `${keyLabel(key)}: ${renderProperty(obj, key, depth)}`);
        }
        if (keys.length > MAX_ITEMS) arrayPush(items, `... ${keys.length - MAX_ITEMS} more keys`);
        const ctor = constructorName(obj);
        const prefix = ctor === 'Object' ? '' : ctor === null ? '[Object: null prototype] ' : `${ctor} `;
        return `${prefix}{${arrayJoin(items, ', ')}}`;
      } finally {
        arrayPop(stack);
      }
    };
    const renderProperty = (obj: Obj, key: string, depth: number): string => {
      const d = getOwnDesc(obj, key);
      if (!d) return 'undefined';
      if (d.get || d.set) return d.get && d.set ? '[Getter/Setter]' : d.get ? '[Getter]' : '[Setter]';
      return render(d.value, depth + 1);
    };
    const result = render(value, 0);
    return result.length > maxChars ? `${stringSlice(result, 0, maxChars)}…` : result;
  }
  function brand(getter: (() => unknown) | undefined, obj: Obj): number | null {
    if (!getter) return null;
    try {
      return reflectApply(getter, obj, []) as number;
    } catch {
      return null;
    }
  }
  /** A typed array's kind and length (read through the intrinsics, no getter of the code's), or null. */
  function typedArrayOf(obj: Obj): { kind: string; length: number } | null {
    if (!typedArrayTag || !typedArrayLength) return null;
    const kind = reflectApply(typedArrayTag, obj, []) as unknown;
    return typeof kind === 'string' ? { kind, length: reflectApply(typedArrayLength, obj, []) as number } : null;
  }
  /** How many items a compact object has (typed array, String object, buffer bytes), or null for any other. */
  function compactSize(obj: Obj): number | null {
    const typed = typedArrayOf(obj);
    if (typed) return typed.length;
    for (const [, byteLength] of bufferByteLength) {
      const n = brand(byteLength, obj);
      if (n !== null) return n;
    }
    try {
      return stringValueOf(obj).length;
    } catch {
      return null;
    }
  }
  function renderSpecial(obj: Obj): string | null {
    for (const [kind, byteLength] of bufferByteLength) {
      const n = brand(byteLength, obj);
      if (n !== null) return `${kind} { byteLength: ${n} }`;
    }
    try {
      return `[String: ${quote(stringValueOf(obj), MAX_NESTED_STRING)}]`;
    } catch {
      // not a String object
    }
    try {
      const t = dateGetTime(obj);
      return NumberIsFinite(t) ? dateToISO(obj) : 'Invalid Date';
    } catch {
      // not a Date
    }
    if (regexpSourceGetter && regexpFlagsGetter && obj !== RegExp.prototype) {
      try {
        const source = StringCtor(reflectApply(regexpSourceGetter, obj, []));
        return `/${source}/${StringCtor(reflectApply(regexpFlagsGetter, obj, []))}`;
      } catch {
        // not a RegExp
      }
    }
    if (isErrorLike(obj)) {
      const e = describeError(obj);
      return `[${e.name}: ${e.message}]`;
    }
    return null;
  }
  function isErrorLike(obj: Obj): boolean {
    let p = getProto(obj) as Obj | null;
    for (let i = 0; p !== null && i < 50; i++) {
      if (p === ErrorProto) return true;
      p = getProto(p) as Obj | null;
    }
    return false;
  }
  function formatTop(value: unknown): string {
    return typeof value === 'string' ? value : inspect(value, config.outputCapChars);
  }
  function formatArgs(args: unknown[]): string {
    const parts: string[] = [];
    for (let i = 0; i < args.length; i++) arrayPush(parts, formatTop(args[i]));
    return arrayJoin(parts, ' ');
  }

  function describeError(e: unknown): { name: string; message: string } {
    const limit = 20_000;
    if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
      let name: unknown;
      let message: unknown;
      try {
        name = (e as Dict).name;
        message = (e as Dict).message;
      } catch {
        // a throwing getter: fall back to the defaults below
      }
      let n = typeof name === 'string' && name ? name : 'Error';
      if (n === 'Error') {
        // `class MyError extends Error {}` keeps name "Error"; the class name says more.
        const ctor = constructorName(e);
        if (ctor && ctor !== 'Object' && ctor !== 'Error') n = ctor;
      }
      const m = typeof message === 'string' ? message : message === undefined ? inspect(e, limit) : StringCtor(message);
      return { name: n, message: m.length > limit ? `${stringSlice(m, 0, limit)}…` : m };
    }
    return { name: 'Error', message: `Uncaught ${inspect(e, limit)}` };
  }

  // ---- answer ---------------------------------------------------------------------------------
  interface AnswerState {
    ready: unknown;
  }
  const answerStates = new WeakMapCtor<Obj, AnswerState>();
  let submittedThisBlock = false;
  function recordSubmission(text: string): void {
    if (!blockActive) return; // e.g. a getter run by `list` between blocks
    submittedThisBlock = true;
    submitHook(text);
  }
  /** The submitted text of `answer.content`: JSON for an array or plain object, else `String()`. */
  function answerText(content: unknown): string {
    if (
      typeof content === 'object' &&
      content !== null &&
      (isArray(content) || getProto(content) === ObjectProto || getProto(content) === null)
    ) {
      try {
        const json = jsonStringify(content);
        if (typeof json === 'string') return json;
      } catch {
        // cyclic or holding a BigInt: fall back to String()
      }
    }
    return StringCtor(content);
  }
  /** `{content, ready}` whose `ready` setter captures `answerText(content)` when set truthy. */
  function makeAnswer(content: unknown, ready: unknown): Obj {
    const state: AnswerState = { ready };
    const obj: Obj = {};
    defineProperty(obj, 'content', { value: content, writable: true, enumerable: true, configurable: true });
    defineProperty(obj, 'ready', {
      get: () => state.ready,
      set: (v: unknown) => {
        state.ready = v;
        if (v) recordSubmission(answerText((obj as Dict).content));
      },
      enumerable: true,
      configurable: false, // so code cannot swap the setter for a plain value
    });
    answerStates.set(obj, state);
    return obj;
  }

  // ---- scaffold -------------------------------------------------------------------------------
  const scaffold: Dict = ObjectCtor.create(null) as Dict;
  /** An argument of the wrong type, in the pack's words (`{function}`, `{type}`, and `{index}` of a batch item). */
  function errorString(text: string, fn: string, value: unknown, index?: number): string {
    return fillText(text, { function: fn, type: typeName(value), ...(index === undefined ? {} : { index }) });
  }
  function modelArg(fn: string, model: unknown): string | null | { error: string } {
    if (model === undefined || model === null) return '';
    if (typeof model !== 'string') return { error: errorString(config.texts.badModel, fn, model) };
    return model;
  }
  function callHost(kind: string, a: string, b: string): string {
    flushAll(); // output printed before a slow call should not wait for the block to end
    return StringCtor(dispatch.applySyncPromise(undefined, [kind, a, b]));
  }
  function single(fn: string, kind: string) {
    return function (prompt: unknown, model?: unknown): string {
      // As the Python REPLs: no prompt is no call.
      if (prompt === undefined || prompt === null || prompt === '') return fillText(config.texts.emptyPrompt, {});
      if (typeof prompt !== 'string') return errorString(config.texts.badPrompt, fn, prompt);
      const m = modelArg(fn, model);
      if (typeof m !== 'string') return (m as { error: string }).error;
      return callHost(kind, prompt, m);
    };
  }
  function batched(fn: string, kind: string) {
    return function (prompts: unknown, model?: unknown): string[] | string {
      if (!isArray(prompts)) return errorString(config.texts.badPrompts, fn, prompts);
      for (let i = 0; i < prompts.length; i++) {
        if (typeof prompts[i] !== 'string') return errorString(config.texts.badPromptsItem, fn, prompts[i], i);
      }
      const m = modelArg(fn, model);
      if (typeof m !== 'string') return (m as { error: string }).error;
      if (prompts.length === 0) return [];
      const raw = callHost(kind, jsonStringify(prompts), m);
      const parsed = jsonParse(raw) as unknown;
      return isArray(parsed) ? (parsed as string[]) : [raw];
    };
  }
  scaffold.llm_query = single('llm_query', 'llm');
  scaffold.llm_query_batched = batched('llm_query_batched', 'llm_batched');
  scaffold.rlm_query = single('rlm_query', 'rlm');
  scaffold.rlm_query_batched = batched('rlm_query_batched', 'rlm_batched');
  scaffold.print = function print(...args: unknown[]): void {
    emit(0, `${formatArgs(args)}\n`);
  };
  scaffold.SHOW_VARS = function SHOW_VARS(): string {
    const parts: string[] = [];
    for (const name of userNames()) {
      if (name === 'answer') continue;
      const d = getOwnDesc(G, name);
      const t = d && 'value' in d ? typeName(d.value) : 'accessor';
      arrayPush(parts, `${jsonStringify(name)}: ${jsonStringify(t)}`);
    }
    if (parts.length === 0) return fillText(config.texts.showVarsEmpty, {});
    return fillText(config.texts.showVars, { variables: `{${arrayJoin(parts, ', ')}}` });
  };
  const finalVar = config.finalVar;
  if (finalVar !== null) {
    // The reference's FINAL_VAR: a name looks a variable up; any other value is the answer itself.
    scaffold.FINAL_VAR = function FINAL_VAR(name: unknown): string {
      if (typeof name !== 'string') {
        const text = answerText(name);
        recordSubmission(text);
        return text;
      }
      const key = stripQuotes(name);
      const d = getOwnDesc(G, key);
      if (!d || !('value' in d) || !isUserName(key)) {
        const available: string[] = [];
        for (const n of userNames()) if (n !== 'answer') arrayPush(available, jsonStringify(n));
        return available.length === 0
          ? fillText(finalVar.noVariables, { name: key })
          : fillText(finalVar.notFound, { name: key, available: `[${arrayJoin(available, ', ')}]` });
      }
      const text = answerText(d.value);
      recordSubmission(text);
      return text;
    };
    /** Submits its argument as the answer and returns it as text. */
    scaffold.FINAL = function FINAL(value: unknown): string {
      const text = answerText(value);
      recordSubmission(text);
      return text;
    };
  }
  function stripQuotes(s: string): string {
    let t = s.trim();
    const first = t[0];
    if (t.length >= 2 && (first === '"' || first === "'" || first === '`') && t[t.length - 1] === first) {
      t = stringSlice(t, 1, t.length - 1);
    }
    return t;
  }
  const consoleObject: Dict = {};
  const out = (index: 0 | 1) =>
    function (...args: unknown[]): void {
      emit(index, `${formatArgs(args)}\n`);
    };
  consoleObject.log = out(0);
  consoleObject.info = out(0);
  consoleObject.debug = out(0);
  consoleObject.dir = out(0);
  consoleObject.table = out(0);
  consoleObject.warn = out(1);
  consoleObject.error = out(1);
  consoleObject.trace = out(1);
  consoleObject.assert = function (cond: unknown, ...args: unknown[]): void {
    if (!cond) emit(1, `Assertion failed${args.length ? `: ${formatArgs(args)}` : ''}\n`);
  };
  scaffold.console = consoleObject;

  function makeTool(name: string) {
    const tool = function (...args: unknown[]): unknown {
      const payload = jsonStringify(args);
      const reply = jsonParse(callHost('tool', name, payload)) as { ok?: unknown; err?: { name: string; message: string } };
      if (reply.err) {
        const err = new ErrorCtor(StringCtor(reply.err.message));
        defineProperty(err, 'name', { value: StringCtor(reply.err.name), writable: true, configurable: true });
        throw err;
      }
      return reply.ok;
    };
    defineProperty(tool, 'name', { value: name });
    return tool;
  }
  for (const name of config.toolFunctions) scaffold[name] = makeTool(name);

  /** Names never reported as user variables: our functions and callable tools. */
  const hidden: Dict = ObjectCtor.create(null) as Dict;
  for (const name of getOwnNames(scaffold)) hidden[name] = true;

  function define(name: string, value: unknown): void {
    try {
      defineProperty(G, name, { value, writable: true, enumerable: true, configurable: true });
    } catch {
      // Code made it non-configurable; it keeps its own value and only hurts itself.
    }
  }
  for (const name of getOwnNames(scaffold)) define(name, scaffold[name]);
  define('answer', makeAnswer('', false));

  let canonicalHistory: unknown;
  let hasCanonicalHistory = false;

  function dataValue(name: string): { found: boolean; value: unknown } {
    const d = getOwnDesc(G, name);
    if (!d || !('value' in d)) return { found: false, value: undefined };
    return { found: true, value: d.value };
  }
  function restore(duringBlock: boolean): void {
    for (const name of getOwnNames(scaffold)) {
      const cur = dataValue(name);
      if (!cur.found || cur.value !== scaffold[name]) define(name, scaffold[name]);
    }
    const ans = dataValue('answer');
    if (!(ans.found && typeof ans.value === 'object' && ans.value !== null && answerStates.get(ans.value))) {
      const v = ans.value;
      if (ans.found && typeof v === 'object' && v !== null && !isArray(v)) {
        // `answer = {content: X, ready: true}`: honour it like the setter would have, then re-wrap.
        const ready = (v as Dict).ready;
        const content = (v as Dict).content;
        if (duringBlock && ready && !submittedThisBlock) recordSubmission(answerText(content));
        define('answer', makeAnswer(content === undefined ? '' : content, ready));
      } else {
        define('answer', makeAnswer('', false));
      }
    }
    const c0 = dataValue('context_0');
    if (c0.found) define('context', c0.value);
    if (hasCanonicalHistory) define('history', canonicalHistory);
    else {
      const h0 = dataValue('history_0');
      if (h0.found) define('history', h0.value);
    }
  }

  /** Extends the compaction history in place by the JSON array `json`. */
  function appendHistory(json: string): void {
    const items = jsonParse(json) as unknown[];
    if (!hasCanonicalHistory) {
      canonicalHistory = [];
      hasCanonicalHistory = true;
    }
    try {
      reflectApply(arrayPushFn, canonicalHistory, items);
    } catch {
      // Code froze the list (push then throws before adding anything): go on with a copy.
      const copy = reflectApply(arraySliceFn, canonicalHistory, []) as unknown[];
      reflectApply(arrayPushFn, copy, items);
      canonicalHistory = copy;
    }
  }

  function isUserName(name: string): boolean {
    return !baseline[name] && !hidden[name] && name[0] !== '_';
  }
  function userNames(): string[] {
    const names: string[] = [];
    for (const name of getOwnNames(G)) if (isUserName(name)) arrayPush(names, name);
    return names;
  }
  function isSimple(v: unknown): boolean {
    const t = typeof v;
    if (t === 'string' || t === 'number' || t === 'boolean') return true;
    if (t !== 'object' || v === null) return false;
    if (isArray(v)) return true;
    const proto = getProto(v) as Obj | null;
    return proto === ObjectProto || proto === null;
  }
  function simpleVariables(): string[] {
    const names: string[] = [];
    for (const name of userNames()) {
      const cur = dataValue(name);
      if (cur.found && isSimple(cur.value)) arrayPush(names, name);
    }
    return names;
  }
  function listVariables(): ListedVariable[] {
    const result: ListedVariable[] = [];
    for (const name of userNames()) {
      const d = getOwnDesc(G, name);
      if (!d) continue;
      if (!('value' in d)) {
        arrayPush(result, { name, type: 'accessor', size: null, preview: '[Getter/Setter]' });
        continue;
      }
      const v = d.value as unknown;
      let size: number | null = null;
      if (typeof v === 'string') size = v.length;
      else if (isArray(v)) size = v.length;
      else if (typeof v === 'object' && v !== null) size = compactSize(v) ?? objectKeys(v).length;
      const preview = typeof v === 'string' ? quote(v, 198) : inspect(v, 200);
      arrayPush(result, {
        name,
        type: typeName(v),
        size,
        preview: preview.length > 200 ? `${stringSlice(preview, 0, 199)}…` : preview,
      });
    }
    return result;
  }

  /** Characters of a variable a block's `locals` keeps. */
  const LOCAL_CHARS = 200;
  /** Null, booleans, finite numbers and strings of up to LOCAL_CHARS as themselves; anything else (or longer) as a bounded rendering. */
  function shortLocal(v: unknown): string | number | boolean | null {
    if (v === null || typeof v === 'boolean') return v;
    if (typeof v === 'number') return NumberIsFinite(v) ? v : StringCtor(v);
    if (typeof v === 'string') return v.length <= LOCAL_CHARS ? v : `${stringSlice(v, 0, LOCAL_CHARS)}…`;
    const text = inspect(v, LOCAL_CHARS);
    return text.length > LOCAL_CHARS ? `${stringSlice(text, 0, LOCAL_CHARS - 1)}…` : text;
  }
  function shortLocals(): Record<string, string | number | boolean | null> {
    const out = ObjectCtor.create(null) as Record<string, string | number | boolean | null>;
    for (const name of userNames()) {
      const cur = dataValue(name);
      if (cur.found) out[name] = shortLocal(cur.value);
    }
    return out;
  }

  function predeclare(names: string[]): void {
    for (const name of names) {
      if (!getOwnDesc(G, name)) define(name, undefined);
    }
  }

  async function run(argJson: string): Promise<string> {
    const { src, isAsync, names } = jsonParse(argJson) as { src: string; isAsync: boolean; names: string[] };
    streams = [newStream(), newStream()];
    submittedThisBlock = false;
    blockActive = true;
    lastFlush = 0; // the block's first output goes to the host right away
    let error: BlockOutcome['error'] = null;
    try {
      predeclare(names);
      const result = geval(src);
      if (isAsync) await result;
    } catch (e) {
      error = describeError(e);
    }
    // Let callbacks the block queued but did not await (`p.then(print)`) run inside the block.
    // There is no macrotask to wait for in the isolate, so yield a bounded number of turns; an
    // endless microtask chain is the CPU watchdog's business.
    for (let i = 0; i < MICROTASK_TURNS; i++) await undefined;
    try {
      restore(true);
    } catch (e) {
      error = error ?? describeError(e);
    }
    const variables = simpleVariables();
    const locals = shortLocals();
    blockActive = false;
    flushAll();
    const outcome: BlockOutcome = { error, variables, locals, dropped: [streams[0].dropped, streams[1].dropped] };
    return jsonStringify(outcome);
  }

  return function control(op: string, arg: string): string | Promise<string> {
    switch (op) {
      case 'run':
        return run(arg);
      case 'restore':
        restore(false);
        return '';
      case 'history':
        appendHistory(arg);
        restore(false);
        return '';
      case 'vars':
        return jsonStringify(simpleVariables());
      case 'list':
        return jsonStringify(listVariables());
      default:
        throw new ErrorCtor(`unknown op ${op}`);
    }
  };
}
