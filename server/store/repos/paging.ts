/** Which slice of a list to answer. */
export interface Paging {
  skip: number;
  limit: number;
}

/** One slice of a list, with the total count every list answer carries. */
export interface PageOf<T> extends Paging {
  items: T[];
  total: number;
}
