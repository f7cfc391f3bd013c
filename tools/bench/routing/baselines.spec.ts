import { sameWalks } from './engine.bench';
import { handWrittenLarge, largeAssets } from './large-funnel';
import { handWrittenRealistic, realisticAssets } from './realistic-funnel';

// The routing bench compares the engine with hand-written JavaScript taking the same decisions; that
// comparison only means something while both walk every visitor to the same page, URL and hits.
describe('routing bench baselines', () => {
  it('given the realistic funnel, when 400 visitors walk it, then the hand-written routing takes the engine’s decisions walk for walk', () => {
    const { destinations } = sameWalks('realistic funnel', realisticAssets(), handWrittenRealistic, 400);
    // Bots to the safe page, organic and paid landers of every market, the control lander, the three offers.
    expect(destinations).toBe(11);
  });

  it('given the 200-node funnel, when 400 visitors walk it, then the hand-written routing takes the engine’s decisions walk for walk', () => {
    const { destinations } = sameWalks('200-node funnel', largeAssets(), handWrittenLarge, 400);
    expect(destinations).toBeGreaterThan(200);
  });

  it('given a hand-written routing that answers another URL, when the walks are compared, then the check names the first walk that differs', () => {
    const assets = realisticAssets();
    const offBy = (a: typeof assets) => {
      const walk = handWrittenRealistic(a);
      return (input: Parameters<typeof walk>[0]) => ({ ...walk(input), url: 'https://elsewhere.example/' });
    };
    expect(() => sameWalks('realistic funnel', assets, offBy, 10)).toThrow(/disagree at walk 0/);
  });
});
