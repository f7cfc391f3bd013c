import { ReportingQueryErrorCodes, ServiceError, type RpcRequest } from '@funnel/contracts';
import { PostbackLogQueryTimeout } from './log-query-timeout';
import type { LogWindow } from './log-window';

/** The caller's account, or 401: every log query is scoped to it. */
export function accountOf(request: RpcRequest<unknown> | undefined): string {
  const accountId = request?.context?.accountId;
  if (typeof accountId !== 'string' || accountId === '') throw ServiceError.unauthorized();
  return accountId;
}

/** The window and page of a parsed log request (ISO times, optional paging). */
export function windowOf(
  accountId: string,
  request: { timeStart: string; timeEnd: string; paging?: { start?: number; length?: number } },
  defaultRows: number,
): LogWindow {
  return {
    accountId,
    startMs: Date.parse(request.timeStart),
    endMs: Date.parse(request.timeEnd),
    start: request.paging?.start ?? 0,
    length: request.paging?.length ?? defaultRows,
  };
}

/** The query's answer; one stopped at its time limit is answered 503 `REPORTING.QUERY_TIMEOUT`. */
export async function answerInTime<T>(query: Promise<T>): Promise<T> {
  try {
    return await query;
  } catch (error) {
    if (error instanceof PostbackLogQueryTimeout) throw new ServiceError(503, ReportingQueryErrorCodes.QUERY_TIMEOUT, error.message);
    throw error;
  }
}
