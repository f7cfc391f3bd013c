import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { ErrorCodes, RpcRequest, ScriptSubjects, ServiceError } from '@funnel/contracts';
import { DryRunInput, dryRunProblems, evaluateCode, languageCatalog, validate } from '@funnel/logic-script';

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
  @MessagePattern(ScriptSubjects.language)
  language(): unknown {
    return languageCatalog;
  }

  @MessagePattern(ScriptSubjects.validate)
  validate(@Payload() request: Forwarded): unknown {
    return validate(requireCode(bodyOf(request)));
  }

  @MessagePattern(ScriptSubjects.evaluate)
  evaluate(@Payload() request: Forwarded): unknown {
    const body = bodyOf(request);
    const code = requireCode(body);
    const { code: _code, ...input } = body;
    const problems = dryRunProblems(input);
    if (problems.length) throw ServiceError.badRequest(ErrorCodes.VALIDATION, `invalid evaluation input: ${problems[0].message}`, problems);
    return evaluateCode(code, input as unknown as DryRunInput);
  }
}
