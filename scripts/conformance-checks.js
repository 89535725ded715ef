// Reads every checks.json the conformance suite wrote under a directory
// and prints the count of each status, then one line per FAILURE or
// WARNING. It exits 1 when there is a FAILURE or a WARNING in a scenario
// that is not allowed to fail.
//
//   node scripts/conformance-checks.js DIR [ALLOWED-SCENARIO-PREFIX...]
'use strict';
const fs = require('fs');
const path = require('path');

const [dir, ...allowed] = process.argv.slice(2);
if (!dir) {
  console.error('usage: conformance-checks.js DIR [ALLOWED-SCENARIO-PREFIX...]');
  process.exit(2);
}
const counts = {};
const bad = [];
let files = 0;
function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) {
      walk(p);
    } else if (e.name === 'checks.json') {
      files++;
      // The folder is <scenario>-<timestamp>; auth scenarios sit in auth/.
      const scenario = path.relative(dir, path.dirname(p)).replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
      for (const c of JSON.parse(fs.readFileSync(p, 'utf8'))) {
        counts[c.status] = (counts[c.status] || 0) + 1;
        if (c.status === 'FAILURE' || c.status === 'WARNING') {
          const ok = allowed.some((a) => scenario.startsWith(a));
          bad.push({ ok, line: `${ok ? '(allowed) ' : ''}${scenario}: ${c.status} ${c.id}: ${c.errorMessage || c.description || ''}` });
        }
      }
    }
  }
}
walk(dir);
console.log(`${files} scenarios: ${JSON.stringify(counts)}`);
for (const b of bad) console.log('  ' + b.line);
if (files === 0) {
  console.log('no checks.json found');
  process.exit(1);
}
process.exit(bad.some((b) => !b.ok) ? 1 : 0);
