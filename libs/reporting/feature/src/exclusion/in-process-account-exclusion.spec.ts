import { InProcessAccountExclusion } from './account-exclusion';
import { describeAccountExclusionContract } from './account-exclusion.contract';

describeAccountExclusionContract('in-process', async () => new InProcessAccountExclusion());
