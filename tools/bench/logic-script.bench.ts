/**
 * Logic-script speed, measured in one run (never a test):
 *  - validations per second of a realistic script just under the 10240-byte limit (target >= 1,000/s);
 *  - nanoseconds per evaluation of a typical 30-line script, against a hand-written JavaScript
 *    function of the same logic as the baseline (target: within 2x, issue 25).
 * Run alone: node -r ./tools/register.js tools/bench/logic-script.bench.ts
 */
import { compile, CompiledScript, evaluate, EvaluationContext, MAX_CODE_BYTES, validate } from '@funnel/logic-script';

export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  baseline?: string;
  ratio?: number;
}

const ROUNDS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs `body` `iterations` times per round and returns the median nanoseconds per iteration. */
function nanosecondsPerCall(iterations: number, body: (i: number) => void): number {
  const perRound: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) body(i);
    perRound.push(Number(process.hrtime.bigint() - started) / iterations);
  }
  return median(perRound);
}

// ---- a realistic script just under the size limit ------------------------------------------------

const MARKETS: [string, string[]][] = [
  ['north_america', ['US', 'CA']],
  ['latam', ['MX', 'BR', 'AR', 'CO', 'CL']],
  ['dach', ['DE', 'AT', 'CH']],
  ['nordics', ['SE', 'NO', 'DK', 'FI']],
  ['benelux', ['NL', 'BE', 'LU']],
  ['iberia', ['ES', 'PT']],
  ['anz', ['AU', 'NZ']],
  ['sea', ['SG', 'MY', 'TH', 'VN', 'PH', 'ID']],
];

function block(i: number): string {
  const [market, countries] = MARKETS[i % MARKETS.length];
  const offset = (i % 25) - 12;
  return `
// Segment ${i}: ${market} visitors from campaign group ${i}.
campaign${i} := strings.ToLower(trackingField("campaign_${i}"))
if oneOf(country, ${countries.map((c) => `"${c}"`).join(', ')}) && campaign${i} != "" {
	switch {
	case strings.HasPrefix(campaign${i}, "retarget") && hasVisitorTag("buyer_${i}"):
		return "${market}_retarget_${i}"
	case isMobile(deviceType) && timeInRange(${((i * 37) % 24) * 100}, ${((i * 53) % 24) * 100 + 30}, ${offset}):
		return "${market}_mobile_${i}"
	case containsAny(referrer, searchEngines...):
		return "${market}_search_${i}"
	}
	if dataBuffer("plan ${i}") == "pro" || len(campaign${i}) > 40 {
		return "${market}_pro_${i}"
	}
	return "${market}_${i}"
}
`;
}

export function largeScript(): string {
  const head = `// Routing for the spring campaign: markets, devices, time windows and sources.
isMobile := func(device string) bool {
	return oneOf(strings.ToLower(device), "mobile", "tablet", "phablet")
}
searchEngines := []string{"google.", "bing.", "duckduckgo.", "yahoo.", "yandex.", "baidu."}
if hasVisitorTag("blocked") || containsAny(strings.ToLower(userAgent), "bot", "crawler", "spider") {
	return "blocked"
}
`;
  const tail = `
switch localDay(utcOffsetHours) {
case "saturday", "sunday":
	return "weekend"
}
return "default"
`;
  let code = head;
  for (let i = 0; ; i++) {
    const next = block(i);
    if (Buffer.byteLength(code + next + tail) > MAX_CODE_BYTES) break;
    code += next;
  }
  code += tail;
  // Pad with a comment to just under the limit, as a real script near the limit would be.
  const room = MAX_CODE_BYTES - Buffer.byteLength(code) - 1;
  if (room > 4) code += `// ${'-'.repeat(room - 4)}\n`;
  return code;
}

// ---- a typical script and its hand-written equivalent --------------------------------------------

export const TYPICAL_SCRIPT = `// Route paid traffic by market, device, time and source.
isMobile := func(device string) bool {
	return oneOf(device, "mobile", "tablet")
}
source := strings.ToLower(trackingField("source"))
if hasVisitorTag("vip") {
	return "vip"
}
if strings.HasPrefix(source, "fb") && isMobile(deviceType) {
	return "facebook_mobile"
}
switch country {
case "US", "CA":
	if timeInRange(900, 1700, -5) {
		return "na_business_hours"
	}
	return "na"
case "DE", "AT", "CH":
	return "dach"
}
if mainLanguage == "es" {
	return "spanish"
}
if dataBuffer("plan") == "pro" {
	return "pro_checkout"
}
if weekday == 0 || weekday == 6 {
	return "weekend"
}
if containsAny(referrer, "google.", "bing.") {
	return "search"
}
return "default"
`;

/** TYPICAL_SCRIPT written by hand in JavaScript: the baseline. */
export function handWritten(context: EvaluationContext): string {
  const visitor = context.visitor ?? {};
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const isMobile = (device: string): boolean => device === 'mobile' || device === 'tablet';
  const source = (context.trackingFields?.['source'] ?? '').toLowerCase();
  const tags = context.visitorTags;
  if (Array.isArray(tags) && tags.includes('vip')) return 'vip';
  if (source.startsWith('fb') && isMobile(text(visitor.deviceType))) return 'facebook_mobile';
  const ms = context.now.getTime();
  switch (visitor.country) {
    case 'US':
    case 'CA': {
      const minute = Math.floor(((((ms - 5 * 3_600_000) % 86_400_000) + 86_400_000) % 86_400_000) / 60_000);
      if (minute >= 540 && minute < 1020) return 'na_business_hours';
      return 'na';
    }
    case 'DE':
    case 'AT':
    case 'CH':
      return 'dach';
  }
  if (visitor.mainLanguage === 'es') return 'spanish';
  if (context.dataBuffer?.['plan'] === 'pro') return 'pro_checkout';
  const weekday = context.now.getUTCDay();
  if (weekday === 0 || weekday === 6) return 'weekend';
  const referrer = text(visitor.referrer) || text(visitor.initialReferrer);
  if (referrer.includes('google.') || referrer.includes('bing.')) return 'search';
  return 'default';
}

/** A spread of visitors that reach different branches of the typical script. */
export function sampleContexts(): EvaluationContext[] {
  const times = ['2025-03-03T15:00:00Z', '2025-03-08T10:00:00Z', '2025-03-04T23:30:00Z', '2025-03-09T04:00:00Z'].map((t) => new Date(t));
  const visitors: NonNullable<EvaluationContext['visitor']>[] = [
    { country: 'US', deviceType: 'desktop', referrer: '', mainLanguage: 'en' },
    { country: 'CA', deviceType: 'mobile', referrer: 'https://www.google.com/' },
    { country: 'DE', deviceType: 'tablet' },
    { country: 'FR', deviceType: 'mobile', initialReferrer: 'https://www.bing.com/', mainLanguage: 'fr' },
    { country: 'MX', deviceType: 'desktop', mainLanguage: 'es' },
    { country: 'JP', deviceType: 'mobile', referrer: 'https://news.example/' },
    { country: 'GB', deviceType: 'desktop', referrer: 'https://www.google.co.uk/' },
    { country: 'IT', deviceType: 'mobile' },
  ];
  const contexts: EvaluationContext[] = [];
  visitors.forEach((visitor, i) => {
    contexts.push({
      visitor: { ...visitor, utcOffsetHours: (i % 5) - 2 },
      trackingFields: { source: i % 3 === 0 ? 'FB_ads' : 'google' },
      dataBuffer: i % 4 === 0 ? { plan: 'pro' } : {},
      visitorTags: i === 7 ? ['vip'] : ['t1'],
      now: times[i % times.length],
    });
  });
  return contexts;
}

// ---- the bench -------------------------------------------------------------------------------------

export async function runLogicScriptBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];

  const large = largeScript();
  const largeResult = validate(large);
  if (!largeResult.valid) throw new Error(`the generated large script is invalid: ${JSON.stringify(largeResult.errors.slice(0, 3))}`);
  const bytes = Buffer.byteLength(large);
  for (let i = 0; i < 200; i++) validate(large); // warm-up
  const validationNs = nanosecondsPerCall(150, () => validate(large));
  rows.push({ name: `validate a ${bytes}-byte script (${large.split('\n').length} lines)`, value: 1e9 / validationNs, unit: 'validations/s' });

  const typicalLines = TYPICAL_SCRIPT.trim().split('\n').length;
  for (let i = 0; i < 500; i++) compile(TYPICAL_SCRIPT); // warm-up
  const compileNs = nanosecondsPerCall(500, () => compile(TYPICAL_SCRIPT));
  rows.push({ name: `compile the ${typicalLines}-line script`, value: compileNs / 1000, unit: 'µs' });

  const compiled = compile(TYPICAL_SCRIPT);
  if (!compiled.ok) throw new Error(`the typical script is invalid: ${JSON.stringify(compiled.result.errors)}`);
  const script: CompiledScript = compiled.script;
  const contexts = sampleContexts();
  // Same logic, same answers: otherwise the comparison means nothing.
  const keys = new Set<string>();
  for (const context of contexts) {
    const expected = handWritten(context);
    const actual = evaluate(script, context).routeKey;
    if (actual !== expected) throw new Error(`evaluator and hand-written baseline disagree: ${actual} vs ${expected}`);
    keys.add(actual);
  }

  // Held in a local, as a hot path would: calling through the module namespace costs a getter per call.
  const run = evaluate;
  let sink = 0; // consumed below, so the calls cannot be optimised away
  const mask = contexts.length - 1; // a power of two
  const iterations = 400_000;
  for (let i = 0; i < iterations; i++) {
    sink += handWritten(contexts[i & mask]).length;
    sink += run(script, contexts[i & mask]).routeKey.length;
  }
  const baselineRounds: number[] = [];
  const evaluatorRounds: number[] = [];
  for (let round = 0; round < 3; round++) {
    // Interleaved, so both see the same machine state.
    baselineRounds.push(nanosecondsPerCall(iterations, (i) => (sink += handWritten(contexts[i & mask]).length)));
    evaluatorRounds.push(nanosecondsPerCall(iterations, (i) => (sink += run(script, contexts[i & mask]).routeKey.length)));
  }
  const baselineNs = median(baselineRounds);
  const evaluatorNs = median(evaluatorRounds);
  if (sink === 0) throw new Error('unreachable: keys are never empty');
  rows.push({ name: `hand-written JavaScript of the ${typicalLines}-line script (baseline)`, value: baselineNs, unit: 'ns/call' });
  rows.push({
    name: `evaluate the ${typicalLines}-line script (${keys.size} different keys over ${contexts.length} visitors)`,
    value: evaluatorNs,
    unit: 'ns/call',
    baseline: 'hand-written JavaScript',
    ratio: evaluatorNs / baselineNs,
  });
  return rows;
}

if (require.main === module) {
  void runLogicScriptBench().then((rows) => {
    const format = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });
    process.stdout.write('| measure | figure | ratio |\n|---|---|---|\n');
    for (const row of rows) {
      process.stdout.write(
        `| ${row.name} | ${format(row.value)} ${row.unit} | ${row.ratio !== undefined ? `${row.ratio.toFixed(2)}x ${row.baseline}` : ''} |\n`,
      );
    }
  });
}
