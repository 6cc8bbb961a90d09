#!/usr/bin/env node
// Beacon beside ccusage (issue 31 item 4): one real lab run per agent (all the rows of
// test/helpers/ccusage-rows.ts, or those named; goose from its sessions.db fixture), then the side-by-side table, in Markdown, for
// the closing note. Needs `npm run build` and the agents lab (`npm ci --prefix test/agents`).
//   node scripts/ccusage-compare.js [claude] [codex] [gemini] [qwen] [opencode] [copilot] [pi] [goose]
'use strict';
const { join } = require('node:path');
const { CCUSAGE_ROWS, ccusageSkip, compareOn, labRun, sideBySide } = require(join(__dirname, '..', 'dist', 'test', 'helpers', 'ccusage-compare.js'));

async function main() {
  const named = process.argv.slice(2);
  const unknown = named.filter((a) => !CCUSAGE_ROWS.some((r) => r.agent === a));
  if (unknown.length) throw new Error(`no row for ${unknown.join(', ')} (rows: ${CCUSAGE_ROWS.map((r) => r.agent).join(', ')})`);
  const comparisons = [];
  for (const row of CCUSAGE_ROWS.filter((r) => named.length === 0 || named.includes(r.agent))) {
    const skip = ccusageSkip(row.agent);
    if (skip) console.error(`${row.agent}: skipped (${skip})`);
    else comparisons.push(compareOn(row, await labRun(row.agent)));
  }
  console.log(sideBySide(comparisons));
  const off = comparisons.flatMap((c) => c.cells.filter((x) => JSON.stringify(x.ccusage) !== JSON.stringify(x.expected)).map((x) => `${c.row.agent} ${x.at}`));
  if (off.length) {
    console.error(`unexplained: ${off.join('; ')}`);
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
