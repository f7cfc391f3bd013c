// Where func values go. A func value is a closure literal, held by locals of func type and passed
// between them only by assignment (closure parameters and results are bool, int or string). From the
// assignments the checker records, this finds recursion, which the spec forbids: a call that can reach,
// through the closures the called value may hold, the closure it is made from.
import type { FuncLit, LocalBinding, Located } from './ast';

interface CallSite {
  from: FuncLit;
  to: FuncLit | LocalBinding;
  at: Located;
}

export class ClosureFlow {
  private readonly sources = new Map<LocalBinding, (FuncLit | LocalBinding)[]>();
  private readonly callSites: CallSite[] = [];

  /** `target = source` (or a declaration with that value), target being of func type. */
  assign(target: LocalBinding, source: FuncLit | LocalBinding): void {
    const list = this.sources.get(target);
    if (list) list.push(source);
    else this.sources.set(target, [source]);
  }

  /** A call made in the body of `from` (calls at script level cannot take part in a cycle). */
  call(from: FuncLit | null, to: FuncLit | LocalBinding, at: Located): void {
    if (from) this.callSites.push({ from, to, at });
  }

  /** The literals a local of func type may hold. */
  holds(binding: LocalBinding): Set<FuncLit> {
    const literals = new Set<FuncLit>();
    const seen = new Set<LocalBinding>();
    const stack = [binding];
    while (stack.length > 0) {
      const current = stack.pop() as LocalBinding;
      if (seen.has(current)) continue;
      seen.add(current);
      if (current.closure) literals.add(current.closure);
      for (const source of this.sources.get(current) ?? []) {
        if (source.kind === 'FuncLit') literals.add(source);
        else stack.push(source);
      }
    }
    return literals;
  }

  private targets(to: FuncLit | LocalBinding): Set<FuncLit> {
    return to.kind === 'FuncLit' ? new Set([to]) : this.holds(to);
  }

  /** Calls that close a cycle of calls between closures, each with the closure it calls back into. */
  recursiveCalls(): { at: Located; from: FuncLit; to: FuncLit }[] {
    const edges = new Map<FuncLit, Set<FuncLit>>();
    for (const site of this.callSites) {
      let set = edges.get(site.from);
      if (!set) edges.set(site.from, (set = new Set()));
      for (const target of this.targets(site.to)) set.add(target);
    }
    const reaches = (start: FuncLit, goal: FuncLit): boolean => {
      const seen = new Set<FuncLit>();
      const stack = [start];
      while (stack.length > 0) {
        const current = stack.pop() as FuncLit;
        if (current === goal) return true;
        if (seen.has(current)) continue;
        seen.add(current);
        for (const next of edges.get(current) ?? []) stack.push(next);
      }
      return false;
    };
    const found: { at: Located; from: FuncLit; to: FuncLit }[] = [];
    for (const site of this.callSites) {
      for (const target of this.targets(site.to)) {
        if (reaches(target, site.from)) {
          found.push({ at: site.at, from: site.from, to: target });
          break;
        }
      }
    }
    return found;
  }
}
