/**
 * Differential check of the routing-script language against Go (dev only, never part of npm test):
 * seeded random scripts are validated and evaluated here and compiled and run by `go run` with the
 * spec's variables and helpers around them. They must agree: Go compiles a script exactly when it
 * validates, and a valid script returns what Go returns (a panic in Go is a run-time failure here,
 * a returned string that is no route key is the fallback here).
 *
 * Needs Go on PATH (tested with Go 1.19). Run from the repository root:
 *   node -r ./tools/register.js tools/go-differential/main.ts [--count 300] [--seed 1]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate, validate } from '@funnel/logic-script';
import { isRouteKey } from '@funnel/visitor-context';
import { ProgramGenerator, Random } from './generate';
import { goProgram, PANIC_OUTPUT, Visitor } from './prelude';
import { SNIPPETS } from './snippets';

const VISITORS: Visitor[] = [
  {
    visitor: { country: 'US', city: 'İzmir', deviceType: 'Mobile', browser: 'Chrome', os: 'iOS', mainLanguage: 'tr', utcOffsetHours: 3 },
    trackingFields: { campaign: 'Spring' },
    dataBuffer: {},
    visitorTags: ['t1'],
    now: new Date('2024-05-06T14:30:00Z'),
  },
  {
    visitor: { country: 'DE', city: 'STRAßE', deviceType: 'desktop', browser: 'ΑΣ', referrer: 'https://www.google.de/', utcOffsetHours: -5 },
    trackingFields: {},
    dataBuffer: { plan: 'pro' },
    visitorTags: ['vip'],
    now: new Date('2023-12-31T23:59:00Z'),
  },
  {
    visitor: {},
    trackingFields: { campaign: 'ß' },
    dataBuffer: {},
    visitorTags: [],
    now: new Date('2025-02-28T07:00:00Z'),
  },
];

interface Disagreement {
  /** The seed of a random program, or "snippet n". */
  seed: number | string;
  code: string;
  go: string;
  here: string;
}

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

function runGo(directory: string, source: string): { compiled: boolean; output: string } {
  const file = join(directory, 'main.go');
  writeFileSync(file, source);
  const run = spawnSync('go', ['run', file], { encoding: 'utf8', timeout: 120_000 });
  if (run.error) throw run.error;
  if (run.status !== 0) return { compiled: false, output: run.stderr.split('\n').slice(1, 4).join(' | ') };
  return { compiled: true, output: run.stdout };
}

interface Tally {
  valid: number;
  invalid: number;
  panics: number;
  unreachable: number;
}

/** Runs one script both ways; returns the disagreement, if any. */
function compare(directory: string, seed: number | string, code: string, visitor: Visitor, tally: Tally): Disagreement | null {
  const go = runGo(directory, goProgram(code, visitor));
  const validation = validate(code);
  if (validation.warnings.some((w) => w.code === 'UNREACHABLE_CODE')) tally.unreachable++;
  if (go.compiled !== validation.valid) {
    const here = validation.valid ? 'valid' : `invalid: ${validation.errors.map((e) => `${e.code}@${e.line}:${e.column} ${e.message}`).join('; ')}`;
    return { seed, code, go: go.compiled ? 'compiles' : `rejects: ${go.output}`, here };
  }
  if (!go.compiled) {
    tally.invalid++;
    return null;
  }
  tally.valid++;
  const result = evaluate(code, visitor);
  let agrees: boolean;
  if (go.output === PANIC_OUTPUT) {
    tally.panics++;
    agrees = result.reasonCode === 'RUNTIME_ERROR';
  } else if (isRouteKey(go.output)) agrees = result.reasonCode === 'RETURNED' && result.routeKey === go.output;
  else agrees = result.reasonCode === 'INVALID_ROUTE_KEY';
  return agrees ? null : { seed, code, go: `returns ${JSON.stringify(go.output)}`, here: `${result.reasonCode} ${result.routeKey}: ${result.reason}` };
}

const summary = (t: Tally): string => `${t.valid} valid (${t.panics} panic in Go), ${t.invalid} invalid, ${t.unreachable} with unreachable code`;

function main(): void {
  const count = argument('count', 300);
  const firstSeed = argument('seed', 1);
  const directory = mkdtempSync(join(tmpdir(), 'go-differential-'));
  const disagreements: Disagreement[] = [];
  const snippets: Tally = { valid: 0, invalid: 0, panics: 0, unreachable: 0 };
  const random: Tally = { valid: 0, invalid: 0, panics: 0, unreachable: 0 };
  try {
    SNIPPETS.forEach((code, i) => {
      const disagreement = compare(directory, `snippet ${i + 1}`, code, VISITORS[0], snippets);
      if (disagreement) disagreements.push(disagreement);
    });
    process.stdout.write(`${SNIPPETS.length} hand-written snippets: ${summary(snippets)}\n`);
    for (let seed = firstSeed; seed < firstSeed + count; seed++) {
      const { code } = new ProgramGenerator(new Random(seed)).program();
      const disagreement = compare(directory, seed, code, VISITORS[seed % VISITORS.length], random);
      if (disagreement) disagreements.push(disagreement);
      if ((seed - firstSeed + 1) % 50 === 0) process.stdout.write(`${seed - firstSeed + 1} programs...\n`);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  process.stdout.write(`${count} random programs (seeds ${firstSeed}..${firstSeed + count - 1}): ${summary(random)}\n`);
  process.stdout.write(`${disagreements.length} disagreement(s)\n`);
  for (const d of disagreements.slice(0, 10)) {
    process.stdout.write(`\n--- seed ${d.seed}\n${d.code}\nGo:   ${d.go}\nhere: ${d.here}\n`);
  }
  process.exitCode = disagreements.length === 0 ? 0 : 1;
}

main();
