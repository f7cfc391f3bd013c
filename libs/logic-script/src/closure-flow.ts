// Where func values go. A func value is a closure literal, held by locals of func type and passed
// between them only by assignment (closure parameters and results are bool, int or string). From the
// assignments the checker records, this answers the two questions closures raise:
//  - recursion, which the spec forbids: a call that can reach, through the closures the called value
//    may hold, the closure it is made from;
//  - closures that outlive a call of the closure declaring the variables they use (a closure stored in
//    a variable declared outside it): each call of that closure makes the variables anew in Go, so the
//    compiler keeps them in boxes the stored closure holds on to ("boxed" variables).
import type { FuncLit, LocalBinding, Located } from './ast';

interface CallSite {
  from: FuncLit;
  to: FuncLit | LocalBinding;
  at: Located;
}

export class ClosureFlow {
  /** The literal each literal is written in (null: at script level). */
  private readonly parents = new Map<FuncLit, FuncLit | null>();
  private readonly sources = new Map<LocalBinding, (FuncLit | LocalBinding)[]>();
  private readonly callSites: CallSite[] = [];
  /** Variables each literal uses that are declared outside it, in a closure around it. */
  private readonly captures = new Map<FuncLit, Set<LocalBinding>>();

  literal(literal: FuncLit, parent: FuncLit | null): void {
    this.parents.set(literal, parent);
  }

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

  /** `binding` is used (read or assigned) in the body of `from`. */
  use(from: FuncLit | null, binding: LocalBinding): void {
    // Captured by every literal between the use and the closure declaring the variable.
    for (let literal = from; literal && literal !== binding.owner; literal = this.parents.get(literal) ?? null) {
      let set = this.captures.get(literal);
      if (!set) this.captures.set(literal, (set = new Set()));
      set.add(binding);
    }
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

  /** Marks the variables that have to live in boxes (see above), given every local of the script. */
  markBoxedVariables(bindings: Iterable<LocalBinding>): void {
    for (const holder of bindings) {
      if (typeof holder.type !== 'object') continue;
      for (const literal of this.holds(holder)) {
        // The literal outlives every closure around it that does not also enclose the holder.
        for (const captured of this.captures.get(literal) ?? []) {
          if (captured.owner !== null && !this.isWithin(holder.owner, captured.owner)) captured.boxed = true;
        }
      }
    }
  }

  /** Whether code in `inner` (a literal, or null for script level) is inside the body of `outer`. */
  private isWithin(inner: FuncLit | null, outer: FuncLit): boolean {
    for (let literal = inner; literal; literal = this.parents.get(literal) ?? null) if (literal === outer) return true;
    return false;
  }

  /** The variables declared outside `literal` that it uses (for boxes it must keep). */
  capturedBy(literal: FuncLit): ReadonlySet<LocalBinding> {
    return this.captures.get(literal) ?? EMPTY;
  }
}

const EMPTY: ReadonlySet<LocalBinding> = new Set();
