// The slice of anywidget's model the views use, typed by a traits interface.

/** An anywidget model whose trait reads and writes are checked against `T`. */
export interface TraitModel<T> {
  get<K extends keyof T>(name: K): T[K];
  set<K extends keyof T>(name: K, value: T[K]): void;
  save_changes(): void;
  on(event: string, cb: () => void): void;
  off?(event: string, cb: () => void): void;
}
