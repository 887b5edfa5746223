/** One page of a listing. Pass `cursor` back to get the next page; absent on the last page. */
export interface Page<T> {
  items: T[];
  cursor?: string;
}

export interface PageRequest {
  limit: number;
  cursor?: string;
}
