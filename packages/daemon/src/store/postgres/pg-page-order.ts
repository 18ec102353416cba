import type { MemoryList, ParamsOf } from '@memoryd/protocol';

/** How a `memory.list` page walks the facts' ids in SQL, in the order asked. */
export interface PageSql {
  /** The condition on `id` of the rows past the cursor held in `param` (`$2`, say). */
  past(param: string): string;
  /** The ORDER BY of the page. */
  by: string;
  /**
   * A cursor every id is past, for a first page: ids are ULIDs
   * (`[0-9A-Z]`, checked at the edge and by the keys) in a COLLATE "C"
   * column, so each sorts above '' and below '~'.
   */
  start: string;
}

/** The {@link PageSql} of `order`: ascending ids, or descending for 'newest'. */
export function pageSql(order: ParamsOf<typeof MemoryList>['order']): PageSql {
  return order === 'newest'
    ? { past: (param) => `id < ${param}`, by: 'id DESC', start: '~' }
    : { past: (param) => `id > ${param}`, by: 'id', start: '' };
}
