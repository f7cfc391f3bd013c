import { SCRIPT_EVALUATION_SCHEMA, SCRIPT_VALIDATION_SCHEMA, ScriptSubjects, VISITOR_CONTEXT_SCHEMA } from '@funnel/contracts';
import { ForwardedRoute } from './route-table';

const CODE = { type: 'string', description: 'the script (Go statements), at most 10,240 bytes of UTF-8' };

/** Logic-script helpers served by the scripts service. */
export function scriptRoutes(): ForwardedRoute[] {
  return [
    {
      method: 'GET',
      path: '/logicscripts/language',
      subject: ScriptSubjects.language,
      permission: 'assets:read',
      reply: 'whole',
      doc: { summary: 'The routing-script language catalog (variables, helpers, operators, syntax, diagnostics)', answer: { type: 'object' } },
    },
    {
      method: 'POST',
      path: '/logicscripts/validate',
      subject: ScriptSubjects.validate,
      permission: 'assets:read',
      reply: 'whole',
      doc: {
        summary: 'Validate a routing script',
        body: { type: 'object', required: ['code'], properties: { code: CODE } },
        answer: SCRIPT_VALIDATION_SCHEMA,
      },
    },
    {
      method: 'POST',
      path: '/logicscripts/evaluate',
      subject: ScriptSubjects.evaluate,
      permission: 'assets:read',
      reply: 'whole',
      doc: {
        summary: 'Dry-run a routing script (`code`, or `idLogicScript` for a saved one) on a visitor context',
        body: { type: 'object', allOf: [VISITOR_CONTEXT_SCHEMA], properties: { code: CODE, idLogicScript: { type: 'string' } } },
        answer: SCRIPT_EVALUATION_SCHEMA,
      },
    },
  ];
}
