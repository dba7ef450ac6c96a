/**
 * viewer's typed errors. `ViewerError` and its kinds carry a failure category of the spec and
 * never a provider's text: provider errors are turned into them in exactly one place per driver
 * (`store/<provider>/classify.ts`), and everything above the store sees only these. `GateError` is
 * a refused startup gate of the sidecar (token file, socket directory, socket path), which is no
 * failure category: its message names the gate and the rule, never a secret or a file's contents.
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

/** A sidecar startup gate refused; the message (`<gate>: <rule>`) is printed as the refusal's one line. */
export class GateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GateError';
  }
}

/** The category of any thrown value: typed errors keep theirs, anything else is `unavailable`. */
export function categoryOf(error: unknown): FailureCategory {
  return error instanceof ViewerError ? error.category : 'unavailable';
}
