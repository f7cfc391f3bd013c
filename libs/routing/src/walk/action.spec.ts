import { compileFunnel } from '../engine';
import { REALISTIC_IDS as I, realisticFunnelAssets, realisticVisitor, walkStep } from '../testing';

const N = I.nodes;
const funnel = compileFunnel(realisticFunnelAssets());
const visitor = realisticVisitor();
const enter = () => walkStep(funnel, visitor, { entrance: { idTrafficSource: I.source } });

describe('an action', () => {
  it('leaves the page by the connection of its number; its first hit names the action and the page’s hit', () => {
    const lander = enter();
    expect(lander.session.currentNode).toBe(N.landersA);
    const offer = walkStep(funnel, realisticVisitor({ params: { step: '2' } }), { action: 1 }, { session: lander.session, seed: 2 });
    expect(offer.steps[0]).toMatchObject({ idNode: N.landersA, hitId: lander.session.lastHitId, decision: { kind: 'action', action: 1, isConversion: false } });
    expect(offer.hits).toHaveLength(1);
    expect(offer.hits[0]).toMatchObject({
      idNode: N.offers,
      action: 1,
      isEntrance: false,
      cost: '0',
      previousHitId: lander.session.lastHitId,
      idOfferSource: I.offerSource,
    });
    expect(offer.session).toMatchObject({ currentNode: N.offers, currentPage: I.offer1, lastHitId: offer.hits[0].hitId });
    expect(offer.session.urlBuffer).toMatchObject({ step: '2', campaign: 'Brand-Spring' });
    expect(offer.effects).toEqual([]);
  });

  it('converts the offer’s hit at its payout when the connection is a conversion', () => {
    const offer = walkStep(funnel, visitor, { action: 1 }, { session: enter().session, seed: 2 });
    const thanks = walkStep(funnel, visitor, { action: 1 }, { session: offer.session, seed: 3 });
    expect(thanks.effects).toEqual([{ type: 'conversion', idNode: N.offers, hitId: offer.session.lastHitId, idPage: I.offer1, payout: '2.5', action: 1 }]);
    expect(thanks.destination).toMatchObject({ type: 'url', idNode: N.thanks });
    expect(thanks.url).toBe(`https://example.com/thanks?v=${offer.session.visitorId}&vid=${offer.session.visitorId}`);
  });

  it('is a dead end when no connection takes its number, and the visitor stays on the page', () => {
    const lander = enter();
    const result = walkStep(funnel, visitor, { action: 7 }, { session: lander.session });
    expect(result.destination).toMatchObject({ type: 'deadEnd', idNode: N.landersA });
    expect(result.url).toBeNull();
    expect(result.warnings.map((w) => w.code)).toEqual(['unknownAction']);
    expect(result.session).toMatchObject({ currentNode: N.landersA, lastHitId: lander.session.lastHitId, currentPage: lander.session.currentPage });
  });

  it('is a dead end without a session', () => {
    const result = walkStep(funnel, visitor, { action: 1 });
    expect(result.destination).toMatchObject({ type: 'deadEnd' });
    expect(result.warnings.map((w) => w.code)).toEqual(['noSession']);
    expect(result.hits).toEqual([]);
  });

  it('is a dead end when the visitor is not on a page of this funnel', () => {
    const thanks = { ...enter().session, currentNode: N.thanks };
    expect(walkStep(funnel, visitor, { action: 1 }, { session: thanks }).warnings.map((w) => w.code)).toEqual(['notOnPage']);
    const elsewhere = { ...enter().session, idFunnel: 'otherFunnel0' };
    expect(walkStep(funnel, visitor, { action: 1 }, { session: elsewhere }).warnings.map((w) => w.code)).toEqual(['notOnPage']);
  });
});
