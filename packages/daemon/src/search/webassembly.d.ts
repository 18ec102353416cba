// Node 20 runs WebAssembly, but @types/node 20 does not declare it (only
// lib.dom does, which a Node program must not load). The part of the
// standard JavaScript API the posting kernel uses (posting-kernel.ts).
declare namespace WebAssembly {
  class Module {
    constructor(bytes: ArrayBufferView | ArrayBuffer);
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
  class Global {
    constructor(descriptor: { value: 'i32' | 'f64'; mutable?: boolean }, value?: number);
    value: number;
  }
}
