// The settings of gindex-studio's private Node-RED (gindex_studio/core/nodered/runtime.py).
//
// Nothing secret is in this file or in argv: the studio writes one line of JSON on stdin (the
// admin token, a credential secret, ports and folders), read here before Node-RED starts. Then:
// - Node.js exits when stdin closes (the studio ended or was killed);
// - cfg.adminFd is a listening unix socket the studio made: every connection to it is passed on to
//   Node-RED's own HTTP server, which listens on the loopback of the sandbox only;
// - a watchdog thread reports on cfg.reportFd (JSON lines) the function node that last received a
//   message ({"running": node}: named if the process dies, e.g. out of memory), and ends the process
//   when the event loop stops turning (an endless loop in a flow): {"stalled": ms, "node": node};
// - tripwires (./tripwires.js) refuse and report, on its node, a flow's attempt to run programs, send
//   signals, load native code, or reach files and sockets outside cfg.roots; reading an environment
//   variable the sandbox does not pass is reported too.
"use strict";
const fs = require("fs");
const net = require("net");
const { Worker } = require("worker_threads");
const tripwires = require("./tripwires.js");
const kill = process.kill.bind(process), exit = process.exit.bind(process);

function readLine(fd) {
    const one = Buffer.alloc(1);
    const bytes = [];
    for (;;) {
        let n;
        try {
            n = fs.readSync(fd, one, 0, 1, null);
        } catch (e) {
            if (e.code === "EAGAIN") continue;
            throw e;
        }
        if (n === 0 || one[0] === 10) break;
        bytes.push(one[0]);
    }
    return Buffer.from(bytes).toString("utf8");
}

const cfg = JSON.parse(readLine(0));

process.stdin.on("end", () => exit(0));
process.stdin.on("error", () => exit(0));
process.stdin.resume();
if (cfg.parentPid) { // without a pid namespace: also poll the studio's pid
    setInterval(() => { try { kill(cfg.parentPid, 0); } catch (e) { exit(0); } }, 1000).unref();
}

const RED = require.main.require("./lib/red.js");

// ----- the admin socket: cfg.adminFd -> Node-RED's HTTP server on the sandbox's loopback -------------
net.createServer({ pauseOnConnect: true }, (outer) => {
    const address = RED.server && RED.server.address();
    if (!address) { outer.destroy(); return; }
    const inner = net.connect(address.port, "127.0.0.1");
    outer.on("error", () => inner.destroy());
    inner.on("error", () => outer.destroy());
    outer.pipe(inner);
    inner.pipe(outer);
    outer.resume();
}).listen({ fd: cfg.adminFd });

// ----- the watchdog ---------------------------------------------------------------------------
// [0] heartbeats, [1] the function node last given a message (code of the flow's own runs only
// there), [2] any node last given a message
const beat = new Int32Array(new SharedArrayBuffer(12));
setInterval(() => Atomics.add(beat, 0, 1), 100).unref();
const watchdog = new Worker(`
    const { workerData, parentPort } = require("worker_threads");
    const fs = require("fs");
    const beat = workerData.beat, names = new Map();
    parentPort.on("message", (m) => names.set(m[0], m[1]));
    let seen = -1, since = Date.now(), running = 0;
    const say = (what) => { try { fs.writeSync(workerData.reportFd, JSON.stringify(what) + "\\n"); } catch (e) {} };
    setInterval(() => {
        const now = Date.now(), b = Atomics.load(beat, 0), fn = Atomics.load(beat, 1);
        if (fn !== running && names.has(fn)) { running = fn; say({ running: names.get(fn) }); } // named on a crash
        if (b !== seen) { seen = b; since = now; return; }
        if (now - since < workerData.stallMs) return;
        const node = names.get(Atomics.load(beat, 1)) || names.get(Atomics.load(beat, 2)) || null;
        say({ stalled: now - since, node });
        process.kill(process.pid, "SIGKILL");
    }, 100);
`, { eval: true, workerData: { beat, stallMs: cfg.stallMs, reportFd: cfg.reportFd },
      // a small isolate: its default code range alone reserves 512 MB of the address-space limit
      resourceLimits: { codeRangeSizeMb: 8, maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4, stackSizeMb: 1 } });
watchdog.unref();
const known = new Map(), ids = new Map();
RED.hooks.add("onReceive.gindexWatchdog", (event) => {
    const node = event.destination && event.destination.node;
    const id = (node && node.id) || (event.destination && event.destination.id);
    if (!id) return;
    let k = known.get(id);
    if (k === undefined) {
        k = known.size + 1;
        known.set(id, k);
        ids.set(k, id);
        watchdog.postMessage([k, { id, type: node ? node.type : null, name: node ? node.name || "" : "" }]);
    }
    Atomics.store(beat, 2, k);
    if (node && node.type === "function") Atomics.store(beat, 1, k);
});

// ----- flow timers: what a probe waits for -------------------------------------------------------
// A timer (setTimeout/setInterval) set while a node handles a message, or by such a timer, is the
// flow's (a delay, a trigger, a function's setTimeout): pending until it fires or is cleared.
// GET <admin>/gindex/activity answers {"timers": n} (with the admin token); a deploy forgets them.
const { AsyncLocalStorage } = require("async_hooks");
const inFlow = new AsyncLocalStorage();
const pendingTimers = new Set();
const timers = { setTimeout, setInterval, clearTimeout, clearInterval };
function tracked(make, once) {
    return function (fn, ...rest) {
        if (typeof fn !== "function" || !inFlow.getStore()) return make(fn, ...rest);
        let timer;
        const run = once ? function (...a) { pendingTimers.delete(timer); return fn.apply(this, a); } : fn;
        timer = make(run, ...rest);
        pendingTimers.add(timer);
        return timer;
    };
}
function untracked(clear) {
    return function (t) {
        if (t !== null && typeof t === "object") pendingTimers.delete(t);
        else if (t !== undefined && t !== null) for (const p of pendingTimers) if (+p === +t) pendingTimers.delete(p);
        return clear(t);
    };
}
global.setTimeout = tracked(timers.setTimeout, true);
global.setInterval = tracked(timers.setInterval, false);
global.clearTimeout = untracked(timers.clearTimeout);
global.clearInterval = untracked(timers.clearInterval);
RED.hooks.add("onReceive.gindexTimers", (event) => { inFlow.enterWith(event.destination ? event.destination.id || 1 : 1); });
RED.hooks.add("postReceive.gindexTimers", () => { inFlow.enterWith(undefined); });
RED.events.on("flows:starting", () => pendingTimers.clear());

// ----- tripwires --------------------------------------------------------------------------------
const reported = new WeakMap(); // node (as deployed: a redeploy makes new ones) -> texts reported
function report(id, text) {
    const node = id && RED.nodes.getNode(id);
    if (!node) {
        console.log(`[error] ${text}`);
        return;
    }
    const seen = reported.get(node) || new Set();
    reported.set(node, seen);
    if (seen.has(text) || seen.size >= 50) return; // once per node and attempt: no flood
    seen.add(text);
    node.error(text);
}
tripwires.install({ roots: cfg.roots, current: () => ids.get(Atomics.load(beat, 1)) || null, report });
const getSetting = RED.util.getSetting;
RED.util.getSetting = function (node, name) {
    const value = getSetting.apply(this, arguments);
    if (value === undefined && node && typeof name === "string") {
        report(node.id, `refused: the environment variable ${name.slice(0, 80)} is not passed into the sandbox`);
    }
    return value;
};

const token = cfg.token;
function activity(req, res, next) {
    if (req.path !== "/gindex/activity") return next();
    if (req.headers.authorization !== "Bearer " + token) { res.status(401).end(); return; }
    res.json({ timers: pendingTimers.size });
}
module.exports = {
    httpAdminMiddleware: activity,
    uiHost: "127.0.0.1",
    uiPort: cfg.port,
    userDir: cfg.userDir,
    nodesDir: cfg.nodesDir,
    nodesExcludes: cfg.nodesExcludes,
    flowFile: "flows.json",
    credentialSecret: cfg.credentialSecret,
    flowFilePretty: true,
    adminAuth: {
        type: "credentials",
        users: [],
        tokens: function (t) {
            return Promise.resolve(t === token ? { username: "gindex-studio", permissions: "*" } : null);
        },
    },
    debugMaxLength: 100000,
    debugUseColors: false,
    functionExternalModules: false,
    externalModules: { autoInstall: false, palette: { allowInstall: false, allowUpload: false } },
    diagnostics: { enabled: false },
    telemetry: { enabled: false },
    runtimeState: { enabled: true, ui: false },
    editorTheme: { tours: false, projects: { enabled: false } },
    logging: { console: { level: "info", metrics: false, audit: false } },
};
