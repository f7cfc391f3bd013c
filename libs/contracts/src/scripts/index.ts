/** Subjects of the scripts service (logic-script validation, catalog, dry-run evaluation). */
export const ScriptSubjects = {
  language: 'scripts.logicscript.language',
  validate: 'scripts.logicscript.validate',
  evaluate: 'scripts.logicscript.evaluate',
} as const;
export * from './docs';
