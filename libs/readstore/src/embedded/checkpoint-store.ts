import { CheckpointPosition, CheckpointStore } from '../read-store.port';

export class EmbeddedCheckpointStore implements CheckpointStore {
  private readonly positions = new Map<string, CheckpointPosition>();

  async get(projectorName: string): Promise<CheckpointPosition | null> {
    const position = this.positions.get(projectorName);
    return position ? { commit: position.commit, prepare: position.prepare } : null;
  }

  async advance(projectorName: string, position: CheckpointPosition): Promise<boolean> {
    const current = this.positions.get(projectorName);
    if (current && !isLater(position, current)) return false;
    this.positions.set(projectorName, Object.freeze({ commit: position.commit, prepare: position.prepare }));
    return true;
  }

  async reset(projectorName: string): Promise<void> {
    this.positions.delete(projectorName);
  }
}

function isLater(a: CheckpointPosition, b: CheckpointPosition): boolean {
  return a.commit > b.commit || (a.commit === b.commit && a.prepare > b.prepare);
}
