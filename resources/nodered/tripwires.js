// Tripwires of gindex-studio's private Node-RED: report a flow's attempt to reach outside.
//
// Node's vm is no security boundary: a function node's code reaches the runtime's own `process`
// (`this.constructor.constructor("return process")()`) and from there `require`. The sandbox
// (gindex_studio/core/nodered/sandbox.py) is the wall: no host files, network or programs are in it.
// These tripwires only make an attempt *visible*: the call is refused with an Error
// "refused: <what>" and the attempt is logged on the node that made it (found from the stack, else
// the function node that last received a message), so that a flow that catches the error is still
// not "clean". A flow that tampers with V8's stack machinery may hide which node it was; it still
// reaches nothing.
//
// install(opts) is called by settings.js before Node-RED loads any node:
//   opts.roots   folders flow code may name in file calls (the install, the scratch folders)
//   opts.current () => node id of the function node that last received a message, or null
//   opts.report  (nodeId | null, text) => log the attempt (on the node when there is one)
"use strict";
const fs = require("fs");
const path = require("path");

const NODE_FILE = /^Function node(?: setup| cleanup)?:([^ \]\[]+)/;

function install(opts) {
    const { roots, current, report } = opts;
    // the function node whose code is on the stack; when the flow broke V8's stack machinery
    // (Error.prepareStackTrace or stackTraceLimit made read-only), the one that last got a message
    const stackNode = () => {
        const keepLimit = Error.stackTraceLimit, keepPrepare = Error.prepareStackTrace;
        let sites = null;
        try {
            Error.stackTraceLimit = 200;
            Error.prepareStackTrace = (_e, s) => s;
            const holder = {};
            Error.captureStackTrace(holder);
            if (Array.isArray(holder.stack) && Error.stackTraceLimit === 200) sites = holder.stack;
        } catch (e) {
            sites = null;
        } finally {
            try { Error.stackTraceLimit = keepLimit; Error.prepareStackTrace = keepPrepare; } catch (e) { /* tampered */ }
        }
        if (sites === null) return current();
        for (const site of sites) {
            let file = null;
            try { file = site.getFileName(); } catch (e) { file = null; }
            const m = typeof file === "string" && NODE_FILE.exec(file);
            if (m) return m[1];
        }
        return null;
    };
    const refuse = (what, node) => {
        const text = `refused: ${what} (the studio's sandbox does not allow it)`;
        try { report(node, text); } catch (e) { /* reporting must not fail the refusal */ }
        return new Error(text);
    };
    // always refused: nothing in Node-RED needs them once it runs
    const always = (owner, name, what) => {
        const original = owner[name];
        if (typeof original !== "function") return;
        Object.defineProperty(owner, name, {
            configurable: false, writable: false, enumerable: true,
            value: function tripwire() { throw refuse(what(...arguments), stackNode() || current()); },
        });
    };
    const cp = require("child_process");
    for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"]) {
        always(cp, name, (cmd) => `runs a program (child_process.${name} ${String(cmd).slice(0, 80)})`);
    }
    for (const name of ["binding", "_linkedBinding", "dlopen"]) {
        always(process, name, (arg) => `process.${name}(${String(arg && arg.filename || arg).slice(0, 80)})`);
    }
    always(process, "kill", (pid, sig) => `sends signal ${sig || "SIGTERM"} to process ${pid}`);
    always(process, "abort", () => "process.abort()");
    always(process, "chdir", (dir) => `process.chdir(${String(dir).slice(0, 80)})`);
    const wt = require("worker_threads");
    always(wt, "Worker", () => "starts a worker thread");
    // exit: refused from a flow's code only (Node-RED itself exits this way when told to stop)
    const exit = process.exit;
    process.exit = function (code) {
        const node = stackNode();
        if (node) throw refuse(`process.exit(${code === undefined ? "" : code})`, node);
        return exit.apply(process, arguments);
    };
    // files and sockets: refused when a flow's own code asks (Node-RED itself uses them)
    const inside = (p) => {
        let full;
        try {
            full = path.resolve(String(p instanceof URL ? p.pathname : p));
        } catch (e) {
            return false;
        }
        const ok = (f) => roots.some((r) => f === r || f.startsWith(r + "/"));
        if (!ok(full)) return false;
        try { return ok(fs.realpathSync.native(full)); } catch (e) { return true; } // a new file: its name counts
    };
    const guardPaths = (owner, name, count, label) => {
        const original = owner[name];
        if (typeof original !== "function") return;
        owner[name] = function () {
            const node = stackNode();
            if (node) {
                for (let i = 0; i < count; i++) {
                    const p = arguments[i];
                    if ((typeof p === "string" || Buffer.isBuffer(p) || p instanceof URL) && !inside(p)) {
                        throw refuse(`${label} ${String(p).slice(0, 120)}`, node);
                    }
                }
            }
            return original.apply(this, arguments);
        };
    };
    const one = ["readFile", "writeFile", "appendFile", "open", "opendir", "readdir", "stat", "lstat", "access",
        "exists", "readlink", "realpath", "unlink", "rmdir", "rm", "mkdir", "mkdtemp", "chmod", "chown", "lchown",
        "utimes", "lutimes", "truncate", "watch", "watchFile", "createReadStream", "createWriteStream"];
    const two = ["symlink", "link", "rename", "copyFile", "cp"];
    for (const [names, count] of [[one, 1], [two, 2]]) {
        for (const name of names) {
            guardPaths(fs, name, count, "file access to");
            guardPaths(fs, name + "Sync", count, "file access to");
            guardPaths(fs.promises, name, count, "file access to");
        }
    }
    const symlink = fs.symlinkSync;
    fs.symlinkSync = function (target, where) { // the target is relative to the link's folder
        const node = stackNode();
        if (node && !inside(path.resolve(path.dirname(String(where)), String(target)))) {
            throw refuse(`a symbolic link to ${String(target).slice(0, 120)}`, node);
        }
        return symlink.apply(this, arguments);
    };
    const guardSockets = (proto, name, label) => {
        const original = proto[name];
        proto[name] = function () {
            const node = stackNode();
            if (node) throw refuse(label, node);
            return original.apply(this, arguments);
        };
    };
    guardSockets(require("net").Socket.prototype, "connect", "opens a network connection");
    guardSockets(require("net").Server.prototype, "listen", "listens on a network port");
    guardSockets(require("dgram").Socket.prototype, "send", "sends a UDP datagram");
    guardSockets(require("dgram").Socket.prototype, "bind", "binds a UDP port");
}

module.exports = { install };
