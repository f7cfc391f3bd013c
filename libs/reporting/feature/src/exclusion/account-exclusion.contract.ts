import type { AccountExclusion } from './account-exclusion';

/**
 * The behaviour every AccountExclusion adapter shows within one instance (a process). Call it from
 * an adapter's spec file; it touches jest's globals only when called.
 */
export function describeAccountExclusionContract(
  adapterName: string,
  open: () => Promise<AccountExclusion>,
  cleanup: () => Promise<void> = async () => undefined,
): void {
  describe(`AccountExclusion contract: ${adapterName}`, () => {
    let exclusion: AccountExclusion;
    beforeEach(async () => {
      exclusion = await open();
    });
    afterEach(async () => {
      await exclusion.close();
      await cleanup();
    });

    it('lets the holders of one account run one at a time, in the order they asked, while another account runs', async () => {
      const log: string[] = [];
      let running = 0;
      let most = 0;
      const job = async (accountId: string, name: string, gate?: Promise<void>) => {
        const hold = await exclusion.acquire(accountId);
        running += accountId === 'ACCOUNTA' ? 1 : 0;
        most = Math.max(most, running);
        log.push(`${name} start`);
        await gate;
        await new Promise((resolve) => setTimeout(resolve, 20));
        log.push(`${name} end`);
        running -= accountId === 'ACCOUNTA' ? 1 : 0;
        await hold.release();
      };
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const first = job('ACCOUNTA', 'a1', gate);
      const rest = [job('ACCOUNTA', 'a2'), job('ACCOUNTA', 'a3')];
      // Account B runs to its end while a1 holds account A.
      await job('ACCOUNTB', 'b1');
      expect(log).toEqual(['a1 start', 'b1 start', 'b1 end']);
      open();
      await Promise.all([first, ...rest]);
      expect(log.filter((line) => line.startsWith('a'))).toEqual(['a1 start', 'a1 end', 'a2 start', 'a2 end', 'a3 start', 'a3 end']);
      expect(most).toBe(1);
    });

    it('rejects the waiters once closed, and lets the holder finish', async () => {
      const holder = await exclusion.acquire('ACCOUNTA');
      const waiter = exclusion.acquire('ACCOUNTA');
      await new Promise((resolve) => setTimeout(resolve, 20));
      await exclusion.close();
      await holder.release();
      await expect(waiter).rejects.toThrow('closed');
    });
  });
}
