import { IsInt, IsString, Min, MetadataStorage, getMetadataStorage } from 'class-validator';
import { validateBody } from './validation';

// Importing the validation installs the cache on the process's storage.
const storage = getMetadataStorage();
/** class-validator's own lookup, without the cache. */
const uncached = (target: new () => object, groups?: string[]) =>
  MetadataStorage.prototype.getTargetValidationMetadatas.call(storage, target, '', false, false, groups);

describe('cached validation metadata (cacheTargetValidationMetadatas)', () => {
  it("answers a class's own and inherited rules as class-validator does, the same array on every call", () => {
    class Base {
      @IsString() name!: string;
    }
    class Derived extends Base {
      @IsInt() @Min(1) count!: number;
    }
    const rules = storage.getTargetValidationMetadatas(Derived, '', false, false);
    expect(rules).toEqual(uncached(Derived));
    expect(rules.map((rule) => rule.propertyName).sort()).toEqual(['count', 'count', 'name']);
    expect(storage.getTargetValidationMetadatas(Derived, '', false, false)).toBe(rules);
    expect(storage.getTargetValidationMetadatas(Base, '', false, false)).toEqual(uncached(Base));
    // Other options are another answer.
    expect(storage.getTargetValidationMetadatas(Derived, '', false, false, ['admin'])).toEqual(uncached(Derived, ['admin']));
    expect(storage.getTargetValidationMetadatas(Derived, '', false, false, ['admin'])).not.toBe(rules);
  });

  it('forgets what it kept when a rule is registered, so a rule added later applies', () => {
    class Late {
      name?: unknown;
    }
    expect(storage.getTargetValidationMetadatas(Late, '', false, false)).toEqual([]);
    IsString()(Late.prototype, 'name');
    expect(storage.getTargetValidationMetadatas(Late, '', false, false).map((rule) => rule.propertyName)).toEqual(['name']);
    expect(storage.getTargetValidationMetadatas(Late, '', false, false)).toEqual(uncached(Late));
  });

  it('keeps validateBody applying inherited rules, for classes declared after the first validations', () => {
    class Parent {
      @IsString() name!: string;
    }
    expect(() => validateBody(Parent, { name: 1 })).toThrow(/name must be a string/);
    class Child extends Parent {
      @IsInt() count!: number;
    }
    expect(() => validateBody(Child, { name: 'a', count: 'x' })).toThrow(/count must be an integer/);
    expect(() => validateBody(Child, { name: 2, count: 1 })).toThrow(/name must be a string/);
    expect(validateBody(Child, { name: 'a', count: 1 })).toEqual({ name: 'a', count: 1 });
  });
});
