import { ID_ALPHABET, ID_EPOCH_MS, ID_LENGTH } from '@funnel/contracts';
import type { IdSource, RandomSource } from '../model';

const TIME_CHARS = 7;
const BASE = ID_ALPHABET.length;

/**
 * Reproducible ids in the asset-id format (see @funnel/contracts' ids): 7 characters of the
 * milliseconds from the id epoch to `time`, then 5 characters drawn from `random`. Ids of one source
 * share their time part; the random part makes them distinct (62^5 values).
 */
export function seededIds(random: RandomSource, time: number): IdSource {
  let t = Math.max(0, Math.floor(time - ID_EPOCH_MS));
  const timeChars = new Array<string>(TIME_CHARS);
  for (let i = TIME_CHARS - 1; i >= 0; i--) {
    timeChars[i] = ID_ALPHABET[t % BASE];
    t = Math.floor(t / BASE);
  }
  const prefix = timeChars.join('');
  return () => {
    let id = prefix;
    for (let i = TIME_CHARS; i < ID_LENGTH; i++) id += ID_ALPHABET[Math.min(BASE - 1, Math.floor(random() * BASE))];
    return id;
  };
}
