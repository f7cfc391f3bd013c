import { BUDGET_MS, ITERATIONS, timedRuns } from './measure';
import type { BenchQuery } from './queries';

export interface HttpFigure {
  samples?: number[];
  /** Why there is no figure: the gateway has no such route, or a request was not answered 200 (what it answered). */
  missing?: string;
  /** rowsTotal of a drilldown, the hits of a page. */
  size?: number;
}

/** The answer's size as the engine counts it: rowsTotal of a drilldown, the hits of a page. */
function answerSize(query: BenchQuery, body: unknown): number {
  const answer = body as { rowsTotal?: number; hits?: unknown[] };
  return query.expect === 'hits' ? (answer.hits?.length ?? -1) : (answer.rowsTotal ?? -1);
}

/** Every query posted to a running server (`base` ends in /v1) with the API key, one request at a time. */
export async function httpPass(base: string, apiKey: string, queries: BenchQuery[]): Promise<HttpFigure[]> {
  const figures: HttpFigure[] = [];
  for (const query of queries) {
    const post = async (iteration: number) => {
      const { path, body } = query.http(iteration);
      const r = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify(body),
      });
      return { status: r.status, text: await r.text(), path };
    };
    const first = await post(0);
    // The gateway's 404 for a route it does not have (the routes came later than this bench).
    if (first.status === 404 && first.text.includes('"REQUEST.ROUTE_NOT_FOUND"')) {
      figures.push({ missing: `POST /v1${first.path} answered 404 REQUEST.ROUTE_NOT_FOUND` });
      continue;
    }
    // A refused or failed query is the figure of that row (e.g. a 503 past a time limit); the others still run.
    const failure = (answer: { status: number; text: string; path: string }) =>
      `POST /v1${answer.path} answered ${answer.status}: ${answer.text.slice(0, 300)}`;
    if (first.status !== 200) {
      figures.push({ missing: failure(first) });
      continue;
    }
    let failed: string | undefined;
    const samples = await timedRuns(ITERATIONS, BUDGET_MS, async (i) => {
      const answer = await post(i);
      if (answer.status !== 200) failed ??= failure(answer);
    });
    if (failed) {
      figures.push({ missing: `a timed request failed: ${failed}` });
      continue;
    }
    figures.push({ samples, size: answerSize(query, JSON.parse(first.text)) });
  }
  return figures;
}
