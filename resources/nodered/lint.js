// gindex-studio's bridge to nrlint (run by gindex_studio/core/nodered/lint.py).
//
// Usage: node lint.js INSTALL_FOLDER < request.json > answer.json
// The request is {"rules": {name: true | "off" | {options}}, "flows": [flow, ...]} where each flow
// is a list of node objects. The answer is {"nrlint": version, "rules": {name: {description,
// severity}}, "results": [[{rule, severity, message, location: [node ids]}], ...]}, one list per
// flow in the order given. A flow nrlint cannot parse gets [{"rule": "nrlint", "error": message}].
// One Node.js process lints every flow of a request, so its start-up cost is paid once.
"use strict";
const path = require("path");

function readStdin() {
    return new Promise((resolve, reject) => {
        const chunks = [];
        process.stdin.on("data", (c) => chunks.push(c));
        process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        process.stdin.on("error", reject);
    });
}

async function main() {
    const folder = process.argv[2];
    if (!folder) {
        process.stderr.write("usage: node lint.js INSTALL_FOLDER < request.json\n");
        return 2;
    }
    const base = path.join(folder, "node_modules", "nrlint");
    const linter = require(path.join(base, "lib", "linter"));
    const rules = Object.assign({}, require(path.join(base, "lib", "rules")),
                                require(path.join(base, "lib", "rules", "function-eslint")));
    linter.init({ resolveRule: (name) => rules[name] });
    const request = JSON.parse(await readStdin());
    const wanted = request.rules || {};
    const config = { rules: {} };
    for (const name of Object.keys(rules)) {
        config.rules[name] = Object.prototype.hasOwnProperty.call(wanted, name) ? wanted[name] : "off";
    }
    const results = (request.flows || []).map((flow) => {
        try {
            return linter.lint(flow, config).map((r) => ({
                rule: r.rule,
                severity: r.severity || "warn",
                message: String(r.message),
                location: Array.isArray(r.location) ? r.location.map(String) : [],
            }));
        } catch (err) {
            return [{ rule: "nrlint", error: String(err && err.message || err) }];
        }
    });
    const described = {};
    for (const [name, rule] of Object.entries(rules)) {
        const meta = rule.meta || {};
        described[name] = { description: (meta.docs && meta.docs.description) || "", severity: meta.severity || "warn" };
    }
    const version = require(path.join(base, "package.json")).version;
    process.stdout.write(JSON.stringify({ nrlint: version, rules: described, results: results }));
    return 0;
}

main().then((rc) => { process.exitCode = rc; }).catch((err) => {
    process.stderr.write(`nrlint failed: ${err && err.stack || err}\n`);
    process.exitCode = 1;
});
