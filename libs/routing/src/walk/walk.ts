// One walk in progress: the working session, the hits, steps, effects and warnings so far, and the
// destination once reached. Node families read and write it; runFrom drives it from node to node.
import { VisitorContext } from '@funnel/visitor-context';
import type { RoutedHit, RoutingEffect, RoutingSession, RoutingWarning, StepDecision, WalkDestination, WalkInput, WalkResult, WalkStep } from '../model';
import { type CompiledGraph, type CompiledTrafficSource, END, type GraphNode } from '../compile/graph';
import type { TokenContext } from '../url';

const NO_SLOTS: ReadonlyMap<string, string> = new Map();

/** How the walk's first hit is recorded: an entrance (with its cost) or an action from the page shown. */
export interface FirstHit {
  readonly isEntrance: boolean;
  readonly action: number;
  readonly cost: string;
  /** The step recorded with the first hit (the entrance's decision), if any. */
  readonly decision: StepDecision | null;
}

export class Walk {
  readonly steps: WalkStep[] = [];
  readonly hits: RoutedHit[] = [];
  readonly effects: RoutingEffect[] = [];
  readonly warnings: RoutingWarning[] = [];
  destination: WalkDestination | null = null;
  url: string | null = null;
  /** The hit of the node being run. */
  hit: RoutedHit | null = null;
  /** Server-side nodes run so far. */
  serverSteps = 0;
  readonly now: Date;
  private visitorContextInstance: VisitorContext | null = null;
  private fieldsByName: Record<string, string> | null = null;
  private first: FirstHit | null;

  constructor(
    readonly graph: CompiledGraph,
    readonly input: WalkInput,
    /** The working session (a copy; the input's session is never changed). */
    readonly session: RoutingSession,
    readonly trafficSource: CompiledTrafficSource | undefined,
    first: FirstHit,
    /** The hit the first hit follows ("" for an entrance). */
    private previousHitId: string,
    /** An action walk that dead-ends leaves the visitor where they were. */
    private readonly keepPlaceOnDeadEnd: boolean,
  ) {
    this.first = first;
    this.now = new Date(input.visitor.time);
  }

  /** Records the hit of a node the walk reaches. */
  visit(node: GraphNode): RoutedHit {
    const first = this.first;
    const session = this.session;
    const hit: RoutedHit = {
      hitId: this.input.ids(),
      visitorId: session.visitorId,
      idFunnel: this.graph.idFunnel,
      idFunnelGroup: this.graph.idFunnelGroup,
      idTrafficSource: session.idTrafficSource,
      idNode: node.idNode,
      nodeType: node.nodeType,
      idPage: '',
      idOfferSource: '',
      isEntrance: first !== null && first.isEntrance,
      action: first === null ? 0 : first.action,
      previousHitId: this.previousHitId,
      cost: first === null ? '0' : first.cost,
      time: this.input.visitor.time,
      trackingFields: session.trackingFields,
      visitorTags: session.tags,
    };
    this.hits.push(hit);
    this.hit = hit;
    this.previousHitId = hit.hitId;
    if (first !== null) {
      this.first = null;
      if (first.decision !== null) this.record(node, first.decision);
    }
    if (node.warnings.length > 0 && !this.visitedBefore(node.idNode)) this.warnings.push(...node.warnings);
    return hit;
  }

  private visitedBefore(idNode: string): boolean {
    for (let i = 0; i < this.hits.length - 1; i++) if (this.hits[i].idNode === idNode) return true;
    return false;
  }

  /** Records what the node being run decided. */
  record(node: GraphNode, decision: StepDecision, hitId = this.hit?.hitId ?? ''): void {
    this.steps.push({ idNode: node.idNode, nodeName: node.nodeName, nodeType: node.nodeType, hitId, decision });
  }

  warn(code: string, message: string, idNode?: string): void {
    this.warnings.push(idNode === undefined ? { code, message } : { code, idNode, message });
  }

  /** Ends the walk without a page or URL. */
  deadEnd(idNode: string, code: string, reason: string): typeof END {
    this.destination = { type: 'deadEnd', idNode, reason };
    this.warn(code, reason, idNode === '' ? undefined : idNode);
    return END;
  }

  /** Ends the walk at a page or URL. */
  arrive(destination: WalkDestination, url: string): typeof END {
    this.destination = destination;
    this.url = url;
    return END;
  }

  /** Adds visitor tags to the session (sorted, unique); hits recorded before this node keep the tags they had. */
  addTags(ids: readonly string[]): void {
    const tags = this.session.tags;
    if (ids.every((id) => tags.includes(id))) return;
    this.session.tags = [...new Set([...tags, ...ids])].sort();
    // A hit carries the tags the visitor holds after it: the tag node's own hit included.
    if (this.hit !== null) this.hit.visitorTags = this.session.tags;
  }

  /** Remembers a `session` rotation's choice for the node. */
  stick(idNode: string, choice: string): void {
    this.session.sticky = { ...this.session.sticky, [idNode]: choice };
  }

  /** The visitor's data for a condition or script, current as of this node (tags change along a walk). */
  visitorContext(): VisitorContext {
    const context = (this.visitorContextInstance ??= new VisitorContext());
    return context.reset(this.input.visitor.attributes, this.trackingFieldsByName(), this.session.urlBuffer, this.session.tags, this.now);
  }

  /** The session's tracking fields by URL parameter name (as conditions and scripts name them). */
  trackingFieldsByName(): Record<string, string> {
    if (this.fieldsByName === null) {
      const byName: Record<string, string> = {};
      const fields = this.session.trackingFields;
      for (const [slot, name] of this.trafficSource?.fields ?? []) if (Object.prototype.hasOwnProperty.call(fields, slot)) byName[name] = fields[slot];
      this.fieldsByName = byName;
    }
    return this.fieldsByName;
  }

  /** What the tokens of a URL at this node read. */
  tokens(node: GraphNode, idPage: string, additionalTokens: ReadonlyMap<string, string> | undefined): TokenContext {
    const session = this.session;
    return {
      hitId: this.hit?.hitId ?? '',
      visitorId: session.visitorId,
      idNode: node.idNode,
      idFunnel: this.graph.idFunnel,
      idFunnelGroup: this.graph.idFunnelGroup,
      idTrafficSource: session.idTrafficSource,
      idPage,
      cost: session.cost,
      urlBuffer: session.urlBuffer,
      trackingFields: session.trackingFields,
      slotsByName: this.trafficSource?.slotsByName ?? NO_SLOTS,
      attributes: this.input.visitor.attributes,
      additionalTokens,
    };
  }

  /** The walk's answer; the session shows where the visitor is now. */
  finish(): WalkResult {
    const destination = this.destination ?? { type: 'deadEnd', idNode: '', reason: 'the walk ended without a destination' };
    const session = this.session;
    if (destination.type === 'page') {
      session.currentNode = destination.idNode;
      session.currentPage = destination.idPage;
    } else if (destination.type === 'url') {
      session.currentNode = destination.idNode;
      session.currentPage = '';
    }
    if (this.hits.length > 0 && !(destination.type === 'deadEnd' && this.keepPlaceOnDeadEnd)) session.lastHitId = this.hits[this.hits.length - 1].hitId;
    return {
      steps: this.steps,
      hits: this.hits,
      destination,
      url: destination.type === 'deadEnd' ? null : this.url,
      session,
      effects: this.effects,
      warnings: this.warnings,
    };
  }
}
