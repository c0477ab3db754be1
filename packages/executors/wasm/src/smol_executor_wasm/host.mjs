// The Node.js side of the WebAssembly executor: loads Pyodide (CPython compiled to WebAssembly) from a
// local npm copy, writes the smol worker's Python files into Pyodide's in-memory file system, and runs
// the worker with its protocol on this process's stdin/stdout.
//
// Why synchronous pipes and no Atomics: the worker's tool calls block until the host answers. Pyodide
// lets us back file descriptors 0 and 1 with JavaScript callbacks, and fs.readSync on a pipe blocks
// the whole Node process, which is exactly a blocking read() for the worker. No SharedArrayBuffer,
// worker thread or JSPI is needed, and the worker runs unchanged.
//
// Walls, from the inside out: the worker's language guards (as everywhere); WebAssembly (no syscalls,
// only the functions Pyodide imports); Pyodide's file system is in memory (the host's is never
// mounted); the `js` bridge is withheld from the code by the worker's import policy and its globals
// are cut down to timers here; and the Python host starts Node with its permission model (reads
// limited to Pyodide and this script, no writes, no child processes, no worker threads) and, where
// the OS allows, in a network namespace with no interfaces.
//
// Usage: node host.mjs PYODIDE_DIR. The first frame on stdin (4-byte big-endian length + JSON) is
// {"op": "boot", "files": {path: text}, "main": python_source, "env": {...}}.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const pyodideDir = process.argv[2];
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

function retrying(fn) {
  for (;;) {
    try {
      return fn();
    } catch (err) {
      if (err.code !== "EAGAIN") throw err;
      Atomics.wait(sleepCell, 0, 0, 2); // a non-blocking pipe: wait a little and retry
    }
  }
}

function readExactly(size) {
  const buf = Buffer.alloc(size);
  let off = 0;
  while (off < size) {
    const got = retrying(() => fs.readSync(0, buf, off, size - off, null));
    if (got === 0) process.exit(0); // the host went away before booting us
    off += got;
  }
  return buf;
}

const boot = JSON.parse(readExactly(readExactly(4).readUInt32BE(0)).toString("utf8"));

// Pyodide's NODEFS asks for fs constants through process.binding, which the permission model
// refuses; hand it the same constants from the public API (NODEFS itself is never mounted).
const realBinding = process.binding;
process.binding = (name) =>
  name === "constants" ? { fs: fs.constants, os: os.constants } : realBinding.call(process, name);

const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({
  indexURL: pyodideDir + path.sep,
  jsglobals: { setTimeout, clearTimeout },
  env: boot.env || {},
  fullStdLib: false,
});

pyodide.setStdin({ read: (buf) => retrying(() => fs.readSync(0, buf, 0, buf.length, null)), isatty: false });
const writer = (fd) => ({
  write: (buf) => {
    let off = 0;
    while (off < buf.length) off += retrying(() => fs.writeSync(fd, buf, off, buf.length - off));
    return buf.length;
  },
  isatty: false,
});
pyodide.setStdout(writer(1));
pyodide.setStderr(writer(2));

for (const [rel, text] of Object.entries(boot.files)) {
  const target = "/smol/src/" + rel;
  pyodide.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
  pyodide.FS.writeFile(target, text);
}
try {
  pyodide.runPython(boot.main, { filename: "<smol-wasm-boot>" });
} catch (err) {
  fs.writeSync(2, String(err && err.message ? err.message : err) + "\n");
  process.exit(3);
}
process.exit(0);
