import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomSource } from '../model';

/**
 * A reproducible RandomSource: xoroshiro128+ (pure-rand) seeded with the seed, drawing doubles in
 * [0, 1) with 53 random bits. An integer seed is used as is (its low 32 bits); any other seed (text,
 * a fraction) is hashed to 32 bits first (FNV-1a over its text), so "42" and 42 differ.
 */
export function seededRandom(seed: string | number): RandomSource {
  const rng = xoroshiro128plus(typeof seed === 'number' && Number.isSafeInteger(seed) ? seed | 0 : fnv1a(String(seed)));
  return () => uniformFloat64(rng);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}
