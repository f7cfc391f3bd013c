/**
 * A query's or command's result with what the gateway answers as headers, the body unchanged:
 * the asset's stream revision (`ETag: W/"<revision>"`) and a paged list's next cursor (`X-Next-Cursor`).
 */
export class AssetAnswer {
  constructor(
    readonly result: unknown,
    readonly revision?: number,
    readonly nextCursor?: string,
  ) {}
}
