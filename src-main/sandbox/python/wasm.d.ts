// The few WebAssembly globals the Python REPL uses. Node has them, but its type definitions
// (without the DOM library this project does not include on the Node side) do not declare them.
declare namespace WebAssembly {
  type Imports = Record<string, Record<string, unknown>>;
  class Module {
    constructor(bytes: ArrayBufferView | ArrayBuffer);
  }
  class Instance {
    constructor(module: Module, imports?: Imports);
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }
  function compile(bytes: ArrayBufferView | ArrayBuffer): Promise<Module>;
  function instantiate(source: ArrayBufferView | ArrayBuffer, imports?: Imports): Promise<{ instance: Instance; module: Module }>;
}
