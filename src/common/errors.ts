/**
 * viewer's typed errors: one class per failure category of the spec, carrying a stable category
 * and never a provider's text. Provider errors are turned into these in exactly one place per
 * driver (`store/<provider>/classify.ts`); everything above the store sees only these.
 */
import type { FailureCategory } from '../contract/primitives.ts';

export class ViewerError extends Error {
  readonly category: FailureCategory;
  constructor(category: FailureCategory, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ViewerError';
    this.category = category;
  }
}

/** A store call failed; `message` is viewer's own fixed text, the provider's error stays in `cause`. */
export class StoreError extends ViewerError {
  constructor(category: FailureCategory, message: string, options?: { cause?: unknown }) {
    super(category, message, options);
    this.name = 'StoreError';
  }
}

/** A scan budget (pages, objects, wall time, retained items) was reached. */
export class SafetyLimitError extends ViewerError {
  readonly limit: string;
  constructor(limit: string) {
    super('safety_limit', `scan budget reached: ${limit}`);
    this.name = 'SafetyLimitError';
    this.limit = limit;
  }
}

/** The category of any thrown value: typed errors keep theirs, anything else is `unavailable`. */
export function categoryOf(error: unknown): FailureCategory {
  return error instanceof ViewerError ? error.category : 'unavailable';
}
