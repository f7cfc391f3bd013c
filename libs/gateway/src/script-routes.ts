import { ScriptSubjects } from '@funnel/contracts';
import { ForwardedRoute } from './route-table';

/** Logic-script helpers served by the scripts service. */
export function scriptRoutes(): ForwardedRoute[] {
  return [
    { method: 'GET', path: '/logicscripts/language', subject: ScriptSubjects.language, permission: 'assets:read', reply: 'whole' },
    { method: 'POST', path: '/logicscripts/validate', subject: ScriptSubjects.validate, permission: 'assets:read', reply: 'whole' },
    { method: 'POST', path: '/logicscripts/evaluate', subject: ScriptSubjects.evaluate, permission: 'assets:read', reply: 'whole' },
  ];
}
