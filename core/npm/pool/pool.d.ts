/** Options of one count. */
export interface TokenPoolCountOptions {
  /** The model id whose encoding counts (as `countTokens` takes it). */
  model: string;
  /** Called as the count goes, at least every 100 ms of work. */
  onProgress?: (doneBytes: number, totalBytes: number) => void;
  /** Aborts the count (it rejects with an AbortError within 100 ms). */
  signal?: AbortSignal;
}

/** Exact token counts on every core: the same answer as `countTokens(text, model)`, split only where the encoding always splits. */
export declare class TokenPool {
  /** `workers`: default `navigator.hardwareConcurrency` (browsers) or `os.availableParallelism()` (Node). */
  constructor(options?: { workers?: number });
  /** Workers the pool counts with. */
  readonly workers: number;
  /** Counts `input` (a string, a Blob, or UTF-8 bytes). */
  count(input: string | Blob | Uint8Array, options: TokenPoolCountOptions): Promise<number>;
  /** Stops every worker. */
  close(): void;
}
