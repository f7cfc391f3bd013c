import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { ErrorCodes, RpcRequest, ScriptSubjects, ServiceError } from '@funnel/contracts';
import { DryRunInput, dryRunProblems, evaluateCode, languageCatalog, validate } from '@funnel/logic-script';
import { StoredLogicScripts } from './stored-logic-scripts';

type Forwarded = RpcRequest<{ query?: unknown; body?: unknown }>;

function bodyOf(request: Forwarded): Record<string, unknown> {
  const body = request?.body?.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ServiceError.badRequest(ErrorCodes.VALIDATION, 'body must be a JSON object', [
      { field: '', code: 'isObject', message: 'body must be a JSON object' },
    ]);
  }
  return body as Record<string, unknown>;
}

function requireCode(body: Record<string, unknown>): string {
  if (body.code === undefined || body.code === null) {
    throw ServiceError.badRequest(ErrorCodes.VALIDATION, 'code is required', [{ field: 'code', code: 'required', message: 'code is required' }]);
  }
  if (typeof body.code !== 'string') {
    throw ServiceError.badRequest(ErrorCodes.VALIDATION, 'code must be a string', [{ field: 'code', code: 'isString', message: 'code must be a string' }]);
  }
  return body.code;
}

/** Logic-script validation, language catalog and dry-run evaluation (libs/logic-script behind NATS). */
@Controller()
@UseFilters(new RpcErrorFilter())
export class ScriptsMessageController {
  constructor(private readonly stored: StoredLogicScripts) {}

  @MessagePattern(ScriptSubjects.language)
  language(): unknown {
    return languageCatalog;
  }

  @MessagePattern(ScriptSubjects.validate)
  validate(@Payload() request: Forwarded): unknown {
    return validate(requireCode(bodyOf(request)));
  }

  /** A dry run of `code`, or of the caller's saved script `idLogicScript` (one of the two). */
  @MessagePattern(ScriptSubjects.evaluate)
  async evaluate(@Payload() request: Forwarded): Promise<unknown> {
    const body = bodyOf(request);
    const { code: _code, idLogicScript, ...input } = body;
    if (idLogicScript !== undefined && body.code !== undefined && body.code !== null) {
      throw ServiceError.badRequest(ErrorCodes.VALIDATION, 'give code or idLogicScript, not both', [
        { field: 'idLogicScript', code: 'notAllowed', message: 'idLogicScript cannot be combined with code' },
      ]);
    }
    const code = idLogicScript === undefined ? requireCode(body) : undefined;
    const problems = dryRunProblems(input);
    if (problems.length) throw ServiceError.badRequest(ErrorCodes.VALIDATION, `invalid evaluation input: ${problems[0].message}`, problems);
    if (code !== undefined) return evaluateCode(code, input as unknown as DryRunInput);
    if (!request?.context?.accountId) throw ServiceError.unauthorized();
    return evaluateCode(await this.stored.codeOf(request.context, idLogicScript), input as unknown as DryRunInput);
  }
}
